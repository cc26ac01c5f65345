// The operations every backend times, their row names, matrix kinds and flop counts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include "solvebench/errors.hpp"
#include "solvebench/flops.hpp"
#include "solvebench/generate.hpp"

namespace solvebench::bench {

enum class operation { gesv, getrf, getrs, posv, potrf, potrs, gemm };

inline constexpr operation all_operations[] = {operation::gesv,  operation::posv,  operation::getrf,
                                               operation::getrs, operation::potrf, operation::potrs,
                                               operation::gemm};

inline const char* to_string(operation op) {
  switch (op) {
    case operation::gesv: return "gesv";
    case operation::getrf: return "getrf";
    case operation::getrs: return "getrs";
    case operation::posv: return "posv";
    case operation::potrf: return "potrf";
    case operation::potrs: return "potrs";
    case operation::gemm: return "gemm";
  }
  return "?";
}

inline bool is_cholesky(operation op) {
  return op == operation::posv || op == operation::potrf || op == operation::potrs;
}
// Rows that take right-hand sides carry /nrhs:K in their name.
inline bool has_rhs(operation op) {
  return op == operation::gesv || op == operation::getrs || op == operation::posv || op == operation::potrs;
}

inline double flops(operation op, std::int64_t n, std::int64_t nrhs) {
  const auto dn = static_cast<double>(n), dk = static_cast<double>(nrhs);
  switch (op) {
    case operation::gesv: return gesv_flops(dn, dk);
    case operation::getrf: return getrf_flops(dn);
    case operation::getrs: return getrs_flops(dn, dk);
    case operation::posv: return posv_flops(dn, dk);
    case operation::potrf: return potrf_flops(dn);
    case operation::potrs: return potrs_flops(dn, dk);
    case operation::gemm: return gemm_flops(dn, dn, dn);
  }
  return 0.0;
}

inline matrix_kind kind_for(operation op, const std::optional<matrix_kind>& requested) {
  if (requested) return *requested;
  return is_cholesky(op) ? matrix_kind::spd : matrix_kind::uniform;
}

template <class T>
constexpr char precision_letter() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  return std::is_same_v<T, double> ? 'd' : 's';
}

// "CPU/dgesv": the family name; Google Benchmark appends /n:N/nrhs:K and /manual_time.
template <class T>
std::string family_name(const std::string& backend, operation op) {
  return backend + "/" + precision_letter<T>() + to_string(op);
}

// The full row name without /manual_time, e.g. "CPU/dgesv/n:4096/nrhs:1", also the fixture key.
template <class T>
std::string row_name(const std::string& backend, operation op, std::int64_t n, std::int64_t nrhs) {
  std::string name = family_name<T>(backend, op) + "/n:" + std::to_string(n);
  if (has_rhs(op)) name += "/nrhs:" + std::to_string(nrhs);
  return name;
}

}  // namespace solvebench::bench
