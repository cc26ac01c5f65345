// A known solution and the forward error against it: b = A x for a counter-based x, so a solve
// reports how many digits it got (||x_hat - x||_inf / ||x||_inf) beside its backward error.
//
// x's entries are uniform on [0.5, 1.5): ||x||_inf = O(1) and no entry is near zero, so the
// relative error is not dominated by one tiny component. b is accumulated in double and
// rounded once to the working precision, from the matrix the solver will see (for fp32 rows:
// A already rounded to float), so the exact solution of the stored system differs from x only
// by that last rounding of b, about cond * eps_T.
#pragma once

#include <cstdint>

#include "solvebench/generate.hpp"
#include "solvebench/host_device.hpp"
#include "solvebench/matrix.hpp"
#include "solvebench/precision.hpp"

namespace solvebench {

namespace rng {
SB_HOST_DEVICE inline std::uint64_t solution_key(std::uint64_t seed) { return mix64(seed ^ 0x534F4C5554494F4EULL); }
}  // namespace rng

// Entry (i, j) of the n x nrhs known solution with stream key rng::solution_key(seed).
SB_HOST_DEVICE inline double solution_entry(std::uint64_t key, std::int64_t n, std::int64_t i, std::int64_t j) {
  return 0.5 + rng::uniform01(key, static_cast<std::uint64_t>(j) * static_cast<std::uint64_t>(n) +
                                       static_cast<std::uint64_t>(i));
}

// Real T only (real_only: a complex use does not compile).
template <class T, real_only<T> = 0>
host_matrix<T> generate_known_solution(std::int64_t n, std::int64_t nrhs, std::uint64_t seed);

// B = A X (A square), each entry summed in double in column order and rounded once to T.
template <class T, real_only<T> = 0>
host_matrix<T> rhs_from_solution(const host_matrix<T>& a, const host_matrix<T>& x);

// Worst column of ||x_hat - x_true||_inf / ||x_true||_inf, in double. NaN or Inf in x_hat
// gives +Inf (a failed solve never reads as accurate).
template <class T, real_only<T> = 0>
double forward_error(const host_matrix<T>& x_hat, const host_matrix<T>& x_true);

// The same from the two norms of one column; shared with the device version.
SB_HOST_DEVICE inline double forward_error_from_norms(double diff_norm, double x_norm) {
  if (!(diff_norm - diff_norm == 0.0)) return __builtin_huge_val();  // NaN or Inf
  if (x_norm == 0.0) return diff_norm == 0.0 ? 0.0 : __builtin_huge_val();
  return diff_norm / x_norm;
}

}  // namespace solvebench
