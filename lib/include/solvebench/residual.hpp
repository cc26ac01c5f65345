// The HPL scaled residual ||Ax - b||_inf / (eps (||A||_inf ||x||_inf + ||b||_inf) n), in double
// (std::complex<double> for complex T, with the norms taken over the moduli |a_ij|).
#pragma once

#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "solvebench/host_device.hpp"
#include "solvebench/matrix.hpp"
#include "solvebench/precision.hpp"

namespace solvebench {

// A solve passes when its scaled residual is below this (HPL's threshold).
inline constexpr double residual_threshold = 16.0;

// eps of the working precision: the unit roundoff, as LAPACK's ?lamch('E') and HPL use
// (2^-53 for double and std::complex<double>, 2^-24 for float and std::complex<float>).
template <class T>
constexpr double unit_roundoff() {
  using real = typename precision<T>::real;
  return static_cast<double>(std::numeric_limits<real>::epsilon()) / 2.0;
}

// From the four norms; NaN or Inf anywhere gives +Inf, which fails the check. Written
// without <cmath> so that device code computes it the same way.
SB_HOST_DEVICE inline double hpl_scaled_residual(double r_norm, double a_norm, double x_norm, double b_norm,
                                                 std::int64_t n, double eps) {
  const double inf = __builtin_huge_val();
  const double all = r_norm + a_norm + x_norm + b_norm;  // NaN or Inf if any of them is
  if (!(all - all == 0.0)) return inf;
  const double denom = eps * (a_norm * x_norm + b_norm) * static_cast<double>(n);
  if (denom == 0.0) return r_norm == 0.0 ? 0.0 : inf;
  return r_norm / denom;
}

// Max |entry| of a vector, or +Inf if any entry is NaN or Inf: the norm every residual uses.
double inf_norm(const std::vector<double>& v);
// The same over the moduli |v_i|.
double inf_norm(const std::vector<std::complex<double>>& v);

// Worst column of B - A X, with A the original (unfactored) matrix. Accumulated in double
// (std::complex<double> for complex T).
template <class T>
double hpl_scaled_residual(const host_matrix<T>& a, const host_matrix<T>& x, const host_matrix<T>& b);

// Freivalds-style check of C = A B: ||C v - A (B v)||_inf / (eps ||A||_inf ||B||_inf ||v||_inf n)
// for a fixed random v; O(n^2) and below 16 for a correct product.
template <class T>
double gemm_scaled_residual(const host_matrix<T>& a, const host_matrix<T>& b, const host_matrix<T>& c);

// Throws residual_check_failed unless resid < residual_threshold (so NaN fails too).
void check_residual(const std::string& what, double resid);

}  // namespace solvebench
