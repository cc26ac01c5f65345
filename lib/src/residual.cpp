// Residual checks on the host, accumulated in double (OpenMP over row blocks).
#include "solvebench/residual.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "solvebench/errors.hpp"
#include "solvebench/generate.hpp"

namespace solvebench {
namespace {

constexpr std::int64_t row_block = 512;

// y = M v (column-major m x k times a vector), and optionally the row sums of |M|.
template <class T>
void gemv_double(const host_matrix<T>& m, const std::vector<double>& v, std::vector<double>& y,
                 std::vector<double>* abs_row_sums) {
  const std::int64_t rows = m.rows(), cols = m.cols();
  y.assign(static_cast<std::size_t>(rows), 0.0);
  if (abs_row_sums) abs_row_sums->assign(static_cast<std::size_t>(rows), 0.0);
#pragma omp parallel for schedule(static)
  for (std::int64_t i0 = 0; i0 < rows; i0 += row_block) {
    const std::int64_t i1 = std::min(rows, i0 + row_block);
    for (std::int64_t j = 0; j < cols; ++j) {
      const double vj = v[static_cast<std::size_t>(j)];
      for (std::int64_t i = i0; i < i1; ++i) {
        const double aij = static_cast<double>(m(i, j));
        y[static_cast<std::size_t>(i)] += aij * vj;
        if (abs_row_sums) (*abs_row_sums)[static_cast<std::size_t>(i)] += std::fabs(aij);
      }
    }
  }
}

template <class T>
std::vector<double> column(const host_matrix<T>& m, std::int64_t j) {
  std::vector<double> c(static_cast<std::size_t>(m.rows()));
  for (std::int64_t i = 0; i < m.rows(); ++i) c[static_cast<std::size_t>(i)] = static_cast<double>(m(i, j));
  return c;
}

}  // namespace

double inf_norm(const std::vector<double>& v) {
  double r = 0.0;
  for (double e : v) {
    if (!std::isfinite(e)) return std::numeric_limits<double>::infinity();
    r = std::max(r, std::fabs(e));
  }
  return r;
}

template <class T>
double hpl_scaled_residual(const host_matrix<T>& a, const host_matrix<T>& x, const host_matrix<T>& b) {
  if (a.rows() != a.cols() || x.rows() != a.cols() || b.rows() != a.rows() || x.cols() != b.cols())
    throw invalid_argument("hpl_scaled_residual: shape mismatch");
  double worst = 0.0;
  std::vector<double> ax, row_sums;
  for (std::int64_t j = 0; j < b.cols(); ++j) {
    const std::vector<double> xj = column(x, j), bj = column(b, j);
    gemv_double(a, xj, ax, j == 0 ? &row_sums : nullptr);
    for (std::size_t i = 0; i < ax.size(); ++i) ax[i] = bj[i] - ax[i];
    const double r = hpl_scaled_residual(inf_norm(ax), inf_norm(row_sums), inf_norm(xj),
                                         inf_norm(bj), a.rows(), unit_roundoff<T>());
    if (!(r <= worst)) worst = r;  // also propagates NaN/Inf
  }
  return worst;
}

template <class T>
double gemm_scaled_residual(const host_matrix<T>& a, const host_matrix<T>& b, const host_matrix<T>& c) {
  if (a.cols() != b.rows() || c.rows() != a.rows() || c.cols() != b.cols())
    throw invalid_argument("gemm_scaled_residual: shape mismatch");
  std::vector<double> v(static_cast<std::size_t>(b.cols()));
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = rng::uniform01(rng::rhs_key(7), k);
  std::vector<double> cv, bv, abv, a_sums, b_sums;
  gemv_double(c, v, cv, nullptr);
  gemv_double(b, v, bv, &b_sums);
  gemv_double(a, bv, abv, &a_sums);
  for (std::size_t i = 0; i < cv.size(); ++i) cv[i] -= abv[i];
  const double denom_norms = inf_norm(a_sums) * inf_norm(b_sums);
  return hpl_scaled_residual(inf_norm(cv), denom_norms, inf_norm(v), 0.0, a.cols(),
                             unit_roundoff<T>());
}

void check_residual(const std::string& what, double resid) {
  if (!(resid < residual_threshold)) throw residual_check_failed(what, resid);
}

template double hpl_scaled_residual(const host_matrix<float>&, const host_matrix<float>&,
                                    const host_matrix<float>&);
template double hpl_scaled_residual(const host_matrix<double>&, const host_matrix<double>&,
                                    const host_matrix<double>&);
template double gemm_scaled_residual(const host_matrix<float>&, const host_matrix<float>&,
                                     const host_matrix<float>&);
template double gemm_scaled_residual(const host_matrix<double>&, const host_matrix<double>&,
                                     const host_matrix<double>&);

}  // namespace solvebench
