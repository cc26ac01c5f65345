// cusolverDnIRSXgesv with every parameter set explicitly, or cusolverDn<t1><t2>gesv with none,
// and the outcome of either reported the same way.
#include "solvebench/iterative_refinement.hpp"

#include <cstdlib>

#include <cmath>

#include "solvebench/errors.hpp"

namespace solvebench::cuda {
namespace {

cusolverPrecType_t lowest_type(factor_precision p) {
  switch (p) {
    case factor_precision::fp64: return CUSOLVER_R_64F;
    case factor_precision::fp32: return CUSOLVER_R_32F;
    case factor_precision::tf32: return CUSOLVER_R_TF32;
    case factor_precision::fp16: return CUSOLVER_R_16F;
    case factor_precision::bf16: return CUSOLVER_R_16BF;
  }
  return CUSOLVER_R_64F;
}

cusolverIRSRefinement_t refinement_type(refinement r) {
  switch (r) {
    case refinement::classical: return CUSOLVER_IRS_REFINE_CLASSICAL;
    case refinement::gmres: return CUSOLVER_IRS_REFINE_GMRES;
    case refinement::classical_gmres: return CUSOLVER_IRS_REFINE_CLASSICAL_GMRES;
    case refinement::gmres_gmres: return CUSOLVER_IRS_REFINE_GMRES_GMRES;
    case refinement::none: return CUSOLVER_IRS_REFINE_NONE;
  }
  return CUSOLVER_IRS_REFINE_CLASSICAL;
}

unique_handle<cusolverDnIRSParams_t, cusolverDnIRSParamsDestroy> make_params(const irs_options& opt) {
  cusolverDnIRSParams_t p{};
  SB_CUSOLVER_CHECK(cusolverDnIRSParamsCreate(&p));
  unique_handle<cusolverDnIRSParams_t, cusolverDnIRSParamsDestroy> owned(p);
  SB_CUSOLVER_CHECK(cusolverDnIRSParamsSetSolverPrecisions(p, CUSOLVER_R_64F, lowest_type(opt.lowest)));
  SB_CUSOLVER_CHECK(cusolverDnIRSParamsSetRefinementSolver(p, refinement_type(opt.solver)));
  SB_CUSOLVER_CHECK(cusolverDnIRSParamsSetMaxIters(p, opt.max_iters));
  if (opt.tolerance > 0) SB_CUSOLVER_CHECK(cusolverDnIRSParamsSetTol(p, opt.tolerance));
  if (opt.fallback) SB_CUSOLVER_CHECK(cusolverDnIRSParamsEnableFallback(p));
  else SB_CUSOLVER_CHECK(cusolverDnIRSParamsDisableFallback(p));
  return owned;
}

// The simple API: one entry point (and one workspace query) per factorization precision.
using simple_gesv_fn = cusolverStatus_t (*)(cusolverDnHandle_t, cusolver_int_t, cusolver_int_t, double*, cusolver_int_t,
                                            cusolver_int_t*, double*, cusolver_int_t, double*, cusolver_int_t, void*,
                                            std::size_t, cusolver_int_t*, cusolver_int_t*);
using simple_query_fn = cusolverStatus_t (*)(cusolverDnHandle_t, cusolver_int_t, cusolver_int_t, double*,
                                             cusolver_int_t, cusolver_int_t*, double*, cusolver_int_t, double*,
                                             cusolver_int_t, void*, std::size_t*);
struct simple_api_entry {
  simple_gesv_fn gesv;
  simple_query_fn query;
  const char* name;
};

simple_api_entry simple_api(factor_precision p) {
  switch (p) {
    case factor_precision::fp64: return {cusolverDnDDgesv, cusolverDnDDgesv_bufferSize, "cusolverDnDDgesv"};
    case factor_precision::fp32: return {cusolverDnDSgesv, cusolverDnDSgesv_bufferSize, "cusolverDnDSgesv"};
    case factor_precision::tf32: return {cusolverDnDXgesv, cusolverDnDXgesv_bufferSize, "cusolverDnDXgesv"};
    case factor_precision::fp16: return {cusolverDnDHgesv, cusolverDnDHgesv_bufferSize, "cusolverDnDHgesv"};
    case factor_precision::bf16: return {cusolverDnDBgesv, cusolverDnDBgesv_bufferSize, "cusolverDnDBgesv"};
  }
  return {cusolverDnDDgesv, cusolverDnDDgesv_bufferSize, "cusolverDnDDgesv"};
}

// Options that would be silently ignored are refused by name instead.
void validate(const irs_options& opt) {
  if (!(opt.tolerance >= 0))
    throw invalid_argument("irs_options.tolerance = " + std::to_string(opt.tolerance) +
                           " (expected 0 for cuSOLVER's default, or > 0)");
  if (opt.api != irs_api::simple) return;
  const irs_options defaults;
  std::string ignored;
  if (opt.solver != defaults.solver) ignored += " solver";
  if (opt.max_iters != defaults.max_iters) ignored += " max_iters";
  if (opt.tolerance != defaults.tolerance) ignored += " tolerance";
  if (opt.fallback != defaults.fallback) ignored += " fallback";
  if (!ignored.empty())
    throw invalid_argument(
        std::string(simple_api(opt.lowest).name) +
        " (irs_api::simple) takes no refinement settings; set through the expert API instead:" + ignored);
}

std::string routine(const irs_options& opt) {
  if (opt.api == irs_api::simple) return simple_api(opt.lowest).name;
  return std::string("cusolverDnIRSXgesv(") + op_name(opt.lowest) + ")";
}

int checked_int(std::int64_t v, const char* what) {
  if (v > 2147483647)
    throw invalid_argument(std::string("cusolverDnIRSXgesv: ") + what + " = " + std::to_string(v) +
                           " overflows its 32-bit index type");
  return static_cast<int>(v);
}

}  // namespace

std::size_t irs_solver::query(const context& ctx, std::int64_t n, std::int64_t nrhs, const irs_options& opt) {
  validate(opt);
  std::size_t bytes = 0;
  if (opt.api == irs_api::simple) {
    // Only sizes matter to the query (the matrices are not read); leading dimensions = n.
    const int ni = checked_int(n, "n");
    SB_CUSOLVER_CHECK(simple_api(opt.lowest)
                          .query(ctx.solver(), ni, checked_int(nrhs, "nrhs"), nullptr, ni, nullptr, nullptr, ni,
                                 nullptr, ni, nullptr, &bytes));
    return bytes;
  }
  const auto params = make_params(opt);
  SB_CUSOLVER_CHECK(cusolverDnIRSXgesv_bufferSize(ctx.solver(), params.get(), checked_int(n, "n"),
                                                  checked_int(nrhs, "nrhs"), &bytes));
  return bytes;
}

irs_solver::irs_solver(const context& ctx, std::int64_t n, std::int64_t nrhs, const irs_options& opt)
    : ctx_(ctx), n_(checked_size("n", n, 2147483647)), nrhs_(checked_size("nrhs", nrhs, 2147483647)), opt_(opt) {
  work_ = device_buffer<std::byte>(query(ctx, n, nrhs, opt));  // validates opt first
  if (opt.api == irs_api::expert) params_ = make_params(opt);
  else ipiv_ = device_buffer<int>(static_cast<std::size_t>(n));
  info_ = device_buffer<int>(1);
  SB_CUDA_CHECK(cudaMemsetAsync(info_.data(), 0, info_.size_bytes(), ctx.stream()));
}

void irs_solver::prepare() {
  if (opt_.api == irs_api::simple) return;  // no infos object: niters comes back directly
  cusolverDnIRSInfos_t raw{};
  SB_CUSOLVER_CHECK(cusolverDnIRSInfosCreate(&raw));
  infos_ = decltype(infos_)(raw);
}

void irs_solver::solve(double* a, double* b, double* x) {
  const int n = static_cast<int>(n_), k = static_cast<int>(nrhs_);
  cusolverStatus_t status;
  if (opt_.api == irs_api::simple) {
    status = simple_api(opt_.lowest)
                 .gesv(ctx_.solver(), n, k, a, n, ipiv_.data(), b, n, x, n, work_.data(), work_.size(), &niters_,
                       info_.data());
  } else {
    if (!infos_) prepare();
    status = cusolverDnIRSXgesv(ctx_.solver(), params_.get(), infos_.get(), n, k, a, n, b, n, x, n, work_.data(),
                                work_.size(), &niters_, info_.data());
  }
  // A singular matrix is a property of the input: the same typed error as the other solves.
  if (status == CUSOLVER_STATUS_IRS_MATRIX_SINGULAR) check_info();
  SB_CUSOLVER_CHECK(status);
}

irs_result irs_solver::outcome() const {
  irs_result r;
  r.niters = niters_;
  r.tolerance = opt_.tolerance;
  if (opt_.api == irs_api::simple) {
    r.outer_niters = niters_;   // one-level refinement; no infos object to ask
    r.fell_back = niters_ < 0;  // the simple API always falls back to fp64 when refinement fails
    return r;
  }
  SB_CUSOLVER_CHECK(cusolverDnIRSInfosGetOuterNiters(infos_.get(), &r.outer_niters));
  r.fell_back = niters_ < 0 && opt_.fallback;
  return r;
}

void irs_solver::diagnose(double* scratch, const double* a) const {
  SB_CUDA_CHECK(cudaMemcpyAsync(scratch, a, static_cast<std::size_t>(n_ * n_) * sizeof(double),
                                cudaMemcpyDeviceToDevice, ctx_.stream()));
  diagnose_in_place(scratch);
}

void irs_solver::diagnose_in_place(double* a) const {
  lu_solver<double> lu(ctx_, n_, 1);
  lu.factor(a);
  try {
    lu.check_info();
  } catch (const singular_matrix& e) {
    throw singular_matrix(routine(opt_) + " did not converge; fp64 LU of A", e.pivot());
  }
}

namespace {

struct irs_limit {
  int major, minor;  // cuSOLVER's version (cusolverGetProperty)
  factor_precision lowest;
  std::int64_t largest_n;  // the largest n that solved; the next one failed
};
// Measured on an H200 with cuSOLVER 12.0.4 (tools/device/h200.sh irs-limit, 2026-12-01): each
// precision solved n = 46336 and failed at 46337, each try a fresh process. 46336 is the
// largest multiple of 32 whose square is below 2^31: n appears to be padded to 32 and squared
// in a 32-bit index (n = 46339, whose own square is below 2^31, fails too).
constexpr irs_limit measured_limits[] = {
    {12, 0, factor_precision::fp32, 46336},
    {12, 0, factor_precision::tf32, 46336},
    {12, 0, factor_precision::fp16, 46336},
    {12, 0, factor_precision::bf16, 46336},
};

int property(libraryPropertyType type) {
  int value = 0;
  SB_CUSOLVER_CHECK(cusolverGetProperty(type, &value));
  return value;
}

}  // namespace

std::string cusolver_version_text() {
  return std::to_string(property(MAJOR_VERSION)) + "." + std::to_string(property(MINOR_VERSION)) + "." +
         std::to_string(property(PATCH_LEVEL));
}

std::optional<std::int64_t> irs_largest_n(const irs_options& opt) {
  const int major = property(MAJOR_VERSION), minor = property(MINOR_VERSION);
  for (const auto& l : measured_limits)
    if (l.major == major && l.minor == minor && l.lowest == opt.lowest) return l.largest_n;
  return std::nullopt;
}

void require_irs_supported(std::int64_t n, const irs_options& opt) {
  // The measurement of the limits themselves (tools/device/irs_limit.sh) must run past them.
  if (const char* ignore = std::getenv("SOLVE_BENCH_IGNORE_IRS_LIMIT"); ignore && *ignore == '1') return;
  const auto largest = irs_largest_n(opt);
  if (largest && n > *largest)
    throw beyond_limit(std::string(op_name(opt.lowest)) + " (cuSOLVER iterative refinement) at n = " +
                       std::to_string(n) + ": cuSOLVER " + cusolver_version_text() +
                       " fails beyond n = " + std::to_string(*largest) + " (measured); not run");
}

void irs_solver::check_info() const {
  int h = 0;
  SB_CUDA_CHECK(cudaMemcpyAsync(&h, info_.data(), sizeof h, cudaMemcpyDeviceToHost, ctx_.stream()));
  SB_CUDA_CHECK(cudaStreamSynchronize(ctx_.stream()));
  throw_on_info(routine(opt_), h, factorization::lu);
}

}  // namespace solvebench::cuda
