// Residual checks on the host, accumulated in double or std::complex<double> (OpenMP over row blocks).
#include "solvebench/residual.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "parallel.hpp"
#include "solvebench/errors.hpp"
#include "solvebench/generate.hpp"
#include "solvebench/precision.hpp"

namespace solvebench {
namespace {

constexpr std::int64_t row_block = 512;

// The working type widened: double for real T, std::complex<double> for complex T.
template <class T>
using wide_t = typename precision<T>::wide;

double modulus(double v) { return std::fabs(v); }
double modulus(const std::complex<double>& v) { return std::abs(v); }

template <class W, class T>
W widen(const T& v) {
  if constexpr (is_complex_v<T>) return W(static_cast<double>(v.real()), static_cast<double>(v.imag()));
  else return static_cast<W>(v);
}

// y = M v (column-major m x k times a vector), and optionally the row sums of |M|.
template <class T, class W = wide_t<T>>
void gemv_wide(const host_matrix<T>& m, const std::vector<W>& v, std::vector<W>& y, std::vector<double>* abs_row_sums) {
  const std::int64_t rows = m.rows(), cols = m.cols();
  y.assign(static_cast<std::size_t>(rows), W(0));
  if (abs_row_sums) abs_row_sums->assign(static_cast<std::size_t>(rows), 0.0);
#pragma omp parallel for schedule(static) if (worth_threads(rows * cols))
  for (std::int64_t i0 = 0; i0 < rows; i0 += row_block) {
    const std::int64_t i1 = std::min(rows, i0 + row_block);
    for (std::int64_t j = 0; j < cols; ++j) {
      const W vj = v[static_cast<std::size_t>(j)];
      for (std::int64_t i = i0; i < i1; ++i) {
        const W aij = widen<W>(m(i, j));
        y[static_cast<std::size_t>(i)] += aij * vj;
        if (abs_row_sums) (*abs_row_sums)[static_cast<std::size_t>(i)] += modulus(aij);
      }
    }
  }
}

template <class T, class W = wide_t<T>>
std::vector<W> column(const host_matrix<T>& m, std::int64_t j) {
  std::vector<W> c(static_cast<std::size_t>(m.rows()));
  for (std::int64_t i = 0; i < m.rows(); ++i) c[static_cast<std::size_t>(i)] = widen<W>(m(i, j));
  return c;
}

template <class W>
double norm_of(const std::vector<W>& v) {
  double r = 0.0;
  for (const W& e : v) {
    const double m = modulus(e);
    if (!std::isfinite(m)) return std::numeric_limits<double>::infinity();
    r = std::max(r, m);
  }
  return r;
}

}  // namespace

double inf_norm(const std::vector<double>& v) { return norm_of(v); }
double inf_norm(const std::vector<std::complex<double>>& v) { return norm_of(v); }

template <class T>
double hpl_scaled_residual(const host_matrix<T>& a, const host_matrix<T>& x, const host_matrix<T>& b) {
  if (a.rows() != a.cols() || x.rows() != a.cols() || b.rows() != a.rows() || x.cols() != b.cols())
    throw invalid_argument("hpl_scaled_residual: shape mismatch");
  double worst = 0.0;
  std::vector<wide_t<T>> ax;
  std::vector<double> row_sums;
  for (std::int64_t j = 0; j < b.cols(); ++j) {
    const auto xj = column(x, j), bj = column(b, j);
    gemv_wide(a, xj, ax, j == 0 ? &row_sums : nullptr);
    for (std::size_t i = 0; i < ax.size(); ++i) ax[i] = bj[i] - ax[i];
    const double r =
        hpl_scaled_residual(inf_norm(ax), inf_norm(row_sums), inf_norm(xj), inf_norm(bj), a.rows(), unit_roundoff<T>());
    if (!(r <= worst)) worst = r;  // also propagates NaN/Inf
  }
  return worst;
}

template <class T>
double gemm_scaled_residual(const host_matrix<T>& a, const host_matrix<T>& b, const host_matrix<T>& c) {
  if (a.cols() != b.rows() || c.rows() != a.rows() || c.cols() != b.cols())
    throw invalid_argument("gemm_scaled_residual: shape mismatch");
  using W = wide_t<T>;
  std::vector<W> v(static_cast<std::size_t>(b.cols()));  // real entries for complex T too
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = W(rng::uniform01(rng::rhs_key(7), k));
  std::vector<W> cv, bv, abv;
  std::vector<double> a_sums, b_sums;
  gemv_wide(c, v, cv, nullptr);
  gemv_wide(b, v, bv, &b_sums);
  gemv_wide(a, bv, abv, &a_sums);
  for (std::size_t i = 0; i < cv.size(); ++i) cv[i] -= abv[i];
  const double denom_norms = inf_norm(a_sums) * inf_norm(b_sums);
  return hpl_scaled_residual(inf_norm(cv), denom_norms, inf_norm(v), 0.0, a.cols(), unit_roundoff<T>());
}

void check_residual(const std::string& what, double resid) {
  if (!(resid < residual_threshold)) throw residual_check_failed(what, resid);
}

#define SB_INSTANTIATE(T)                                                                                   \
  template double hpl_scaled_residual(const host_matrix<T>&, const host_matrix<T>&, const host_matrix<T>&); \
  template double gemm_scaled_residual(const host_matrix<T>&, const host_matrix<T>&, const host_matrix<T>&);
SOLVE_BENCH_FOR_EACH_PRECISION(SB_INSTANTIATE)
#undef SB_INSTANTIATE

}  // namespace solvebench
