// Names of the solver choices, one list each.
#include "solvebench/solver_choices.hpp"

#include <iterator>

#include "solvebench/errors.hpp"

namespace solvebench {
namespace {

template <class Enum, std::size_t N>
Enum parse(const char* what, const std::string& text, const Enum (&all)[N]) {
  std::string accepted;
  for (Enum e : all) {
    if (text == to_string(e)) return e;
    accepted += (accepted.empty() ? "" : ", ") + std::string(to_string(e));
  }
  throw invalid_argument("unknown " + std::string(what) + " '" + text + "' (expected " + accepted + ")");
}

constexpr cusolver_api all_apis[] = {cusolver_api::generic64, cusolver_api::legacy32};
constexpr refinement all_refinements[] = {refinement::classical, refinement::gmres, refinement::classical_gmres,
                                          refinement::gmres_gmres, refinement::none};
constexpr irs_api all_irs_apis[] = {irs_api::expert, irs_api::simple};

}  // namespace

const char* to_string(cusolver_api api) noexcept { return api == cusolver_api::generic64 ? "generic64" : "legacy32"; }

cusolver_api parse_cusolver_api(const std::string& text) { return parse("cuSOLVER API", text, all_apis); }

const char* op_name(factor_precision p) noexcept {
  switch (p) {
    case factor_precision::fp64: return "ddgesv";
    case factor_precision::fp32: return "dsgesv";
    case factor_precision::tf32: return "dxgesv";
    case factor_precision::fp16: return "dhgesv";
    case factor_precision::bf16: return "dbgesv";
  }
  return "?";
}

double unit_roundoff(factor_precision p) noexcept {
  switch (p) {
    case factor_precision::fp64: return 0x1.0p-53;
    case factor_precision::fp32: return 0x1.0p-24;
    case factor_precision::tf32:  // 10 stored mantissa bits, as fp16
    case factor_precision::fp16: return 0x1.0p-11;
    case factor_precision::bf16: return 0x1.0p-8;
  }
  return 0x1.0p-53;
}

const char* to_string(refinement r) noexcept {
  switch (r) {
    case refinement::classical: return "classical";
    case refinement::gmres: return "gmres";
    case refinement::classical_gmres: return "classical_gmres";
    case refinement::gmres_gmres: return "gmres_gmres";
    case refinement::none: return "none";
  }
  return "?";
}

refinement parse_refinement(const std::string& text) { return parse("refinement solver", text, all_refinements); }

const char* to_string(irs_api a) noexcept { return a == irs_api::expert ? "expert" : "simple"; }

irs_api parse_irs_api(const std::string& text) { return parse("cuSOLVER IRS interface", text, all_irs_apis); }

}  // namespace solvebench
