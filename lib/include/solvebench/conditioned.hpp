// Matrices with a prescribed 2-norm condition number (MAGMA's svd_geo), one entry at a time.
//
// A = U S V^T with S = diag(s_0, ..., s_{n-1}), s_i = sigma_max * cond^(-i/(n-1)) (geometric
// from sigma_max down to sigma_max/cond), and U, V orthogonal, each a product of k Householder
// reflectors of random unit vectors (counter-based, like generate.hpp). In compact WY form
// U = I - Y1 T1 Y1^T and V = I - Y2 T2 Y2^T (Y n x k, T k x k upper triangular), so
//
//   A = S - Y1 T1 Y1^T S - S Y2 T2^T Y2^T + Y1 (T1 M T2^T) Y2^T,   M = Y1^T S Y2,
//   a_ij = d_ij s_i - s_j (y1_i . T1 y1_j) - s_i (y2_i . T2^T y2_j) + y1_i . W y2_j,
//
// where y1_i is row i of Y1 (regenerated from the stream) and T1, T2^T and W = T1 M T2^T are
// k x k matrices computed once on the host in O(n k^2). An entry costs O(k) once the k-vectors
// of its row and column are known, so the whole matrix is one memory-bound pass on the host
// (OpenMP), on a GPU, on each GPU of a column-distributed layout or on each MPI rank.
//
// What such a matrix is, and is not: U - I and V - I have rank k, so A is S plus a rank-2k
// correction: dense, but its off-diagonal entries are O(s/n) beside a diagonal s_i. Its
// singular values are exactly the s_i (to rounding, about eps * sigma_max), but LU sees an
// easier matrix than one with Haar-random U, V and the same s_i. In a NumPy model at n = 400
// its Skeel condition number cond(|A^-1||A|) was ~1.2-5x cond_2 for k = 3 against ~10-30x
// for Haar U, V (growing with k: ~6-9x at k = 16), and LU refinement converged about one
// decade of cond further than on the Haar matrix (fp16 at 1e4, fp32 at 1e8). More reflectors
// make it harder at O(k) more work an entry.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "solvebench/generate.hpp"
#include "solvebench/host_device.hpp"
#include "solvebench/matrix.hpp"
#include "solvebench/precision.hpp"

namespace solvebench {

inline constexpr int conditioned_max_reflectors = 8;
inline constexpr int conditioned_default_reflectors = 3;

// Everything an entry needs, small and trivially copyable: passed by value to kernels.
// Arrays are k x k row-major with stride conditioned_max_reflectors and zero past k, so loops
// run to the fixed maximum (unrolled on the device) and the padding adds exact zeros.
struct conditioned_spec {
  static constexpr int max_k = conditioned_max_reflectors;
  std::int64_t n = 0;
  double cond = 1;       // requested cond_2(A) = s_0 / s_{n-1}
  double sigma_max = 1;  // s_0 = ||A||_2
  std::uint64_t seed = 0;
  int reflectors = 0;    // k, Householder reflectors in each of U and V
  double log_decay = 0;  // ln(cond) / (n - 1): s_i = sigma_max * exp(-i * log_decay)
  std::uint64_t key_u = 0, key_v = 0;
  double scale_u[max_k] = {}, scale_v[max_k] = {};  // 1 / ||raw reflector vector||
  double t_u[max_k * max_k] = {};                   // T1
  double t_v_transposed[max_k * max_k] = {};        // T2^T
  double w[max_k * max_k] = {};                     // T1 (Y1^T S Y2) T2^T
};
static_assert(std::is_trivially_copyable_v<conditioned_spec>, "passed by value to kernels");
static_assert(sizeof(conditioned_spec) < 4000, "fits in a kernel's parameter space");

// Throws invalid_argument unless n >= 1, 1 <= cond <= 1e16 (cond == 1 when n == 1),
// sigma_max finite and > 0, 1 <= reflectors <= conditioned_max_reflectors.
// Singular values are exact to about eps * sigma_max (absolute), so the realised cond_2 of the
// double matrix is the request to ~1e-10 (relative) at 1e8, ~1e-7 at 1e12, ~1e-3 at 1e14
// (LAPACK dgesvd, n = 200). A float copy of A rounds entries at ~6e-8 * sigma_max, which
// caps its realised cond near 1e6-1e7.
conditioned_spec make_conditioned(std::int64_t n, double cond, std::uint64_t seed = default_seed,
                                  int reflectors = conditioned_default_reflectors, double sigma_max = 1.0);

// "1e4" -> 1e4; throws invalid_argument unless the text is a finite number >= 1 (the row
// axis cond:1e4). format_condition_number(1e4) == "1e4" (powers of ten), else "%g".
double parse_condition_number(const std::string& text);
std::string format_condition_number(double cond);

namespace rng {
SB_HOST_DEVICE inline std::uint64_t conditioned_u_key(std::uint64_t seed) {
  return mix64(seed ^ 0x434F4E44552D5959ULL);
}
SB_HOST_DEVICE inline std::uint64_t conditioned_v_key(std::uint64_t seed) {
  return mix64(seed ^ 0x434F4E44562D5959ULL);
}
// Component i of raw reflector vector m (before normalisation): uniform on [-1, 1).
SB_HOST_DEVICE inline double reflector_component(std::uint64_t key, std::int64_t n, int m, std::int64_t i) {
  return 2.0 * uniform01(key, static_cast<std::uint64_t>(m) * static_cast<std::uint64_t>(n) +
                                  static_cast<std::uint64_t>(i)) -
         1.0;
}
}  // namespace rng

// s_i, the i-th singular value (0-based, decreasing).
SB_HOST_DEVICE inline double conditioned_sigma(const conditioned_spec& s, std::int64_t i) {
  return s.sigma_max * exp(-static_cast<double>(i) * s.log_decay);
}

// Row i of Y1 and Y2 (unit reflector vectors), and s_i.
struct conditioned_row {
  double sigma;
  double y_u[conditioned_max_reflectors];
  double y_v[conditioned_max_reflectors];
};
// Column j's k-vectors: T1 y1_j, T2^T y2_j, W y2_j, and s_j.
struct conditioned_column {
  double sigma;
  double t_u_y[conditioned_max_reflectors];
  double t_v_y[conditioned_max_reflectors];
  double w_y[conditioned_max_reflectors];
};

SB_HOST_DEVICE inline conditioned_row conditioned_row_of(const conditioned_spec& s, std::int64_t i) {
  conditioned_row r{};
  r.sigma = conditioned_sigma(s, i);
  for (int m = 0; m < conditioned_max_reflectors; ++m)  // a fixed trip count: unrolled, in registers
    if (m < s.reflectors) {
      r.y_u[m] = s.scale_u[m] * rng::reflector_component(s.key_u, s.n, m, i);
      r.y_v[m] = s.scale_v[m] * rng::reflector_component(s.key_v, s.n, m, i);
    }
  return r;
}

SB_HOST_DEVICE inline conditioned_column conditioned_column_of(const conditioned_spec& s, std::int64_t j) {
  const conditioned_row r = conditioned_row_of(s, j);
  conditioned_column c{};
  c.sigma = r.sigma;
  constexpr int K = conditioned_max_reflectors;
  for (int a = 0; a < K; ++a) {
    double tu = 0, tv = 0, w = 0;
    for (int b = 0; b < K; ++b) {
      tu += s.t_u[a * K + b] * r.y_u[b];
      tv += s.t_v_transposed[a * K + b] * r.y_v[b];
      w += s.w[a * K + b] * r.y_v[b];
    }
    c.t_u_y[a] = tu;
    c.t_v_y[a] = tv;
    c.w_y[a] = w;
  }
  return c;
}

// a_ij from its row's and column's vectors (diagonal: i == j). Every generator of this file
// goes through here, so host generator, entry function and kernels compute the same sums.
SB_HOST_DEVICE inline double conditioned_entry(const conditioned_row& r, const conditioned_column& c, bool diagonal) {
  double u_term = 0, v_term = 0, w_term = 0;
  for (int m = 0; m < conditioned_max_reflectors; ++m) {
    u_term += r.y_u[m] * c.t_u_y[m];
    v_term += r.y_v[m] * c.t_v_y[m];
    w_term += r.y_u[m] * c.w_y[m];
  }
  const double a = w_term - c.sigma * u_term - r.sigma * v_term;
  return diagonal ? r.sigma + a : a;
}

// Entry (i, j) on its own, from global indices: O(k^2).
SB_HOST_DEVICE inline double conditioned_entry(const conditioned_spec& s, std::int64_t i, std::int64_t j) {
  return conditioned_entry(conditioned_row_of(s, i), conditioned_column_of(s, j), i == j);
}

// The whole n x n matrix on the host (OpenMP over columns). Real T only (precision.hpp's real_only).
template <class T, real_only<T> = 0>
host_matrix<T> generate_conditioned(const conditioned_spec& spec);

}  // namespace solvebench
