// The probes of the bound (lapack_probes.hpp): LAPACKE_?getrf on a panel, the BLAS ?gemm and
// ?trsm at the shapes of a blocked factorization, and the checks of their answers.
#include "solvebench/lapack_probes.hpp"

#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "solvebench/errors.hpp"
#include "solvebench/generate.hpp"
#include "solvebench/precision.hpp"

extern "C" {
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*, const int*,
            const double*, const int*, const double*, double*, const int*);
void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*, const float*, const int*,
            const float*, const int*, const float*, float*, const int*);
void dtrsm_(const char*, const char*, const char*, const char*, const int*, const int*, const double*, const double*,
            const int*, double*, const int*);
void strsm_(const char*, const char*, const char*, const char*, const int*, const int*, const float*, const float*,
            const int*, float*, const int*);
}

namespace solvebench::lapack {
namespace {

void xupdate(int m, int k, const double* a, const double* b, double* c) {
  const double minus = -1, one = 1;
  dgemm_("N", "N", &m, &m, &k, &minus, a, &m, b, &k, &one, c, &m);
}
void xupdate(int m, int k, const float* a, const float* b, float* c) {
  const float minus = -1, one = 1;
  sgemm_("N", "N", &m, &m, &k, &minus, a, &m, b, &k, &one, c, &m);
}
lapack_int xpanel(int m, int k, double* a, lapack_int* p) { return LAPACKE_dgetrf(LAPACK_COL_MAJOR, m, k, a, m, p); }
lapack_int xpanel(int m, int k, float* a, lapack_int* p) { return LAPACKE_sgetrf(LAPACK_COL_MAJOR, m, k, a, m, p); }
void xtrsm(int k, int m, const double* l, double* b) {
  const double one = 1;
  dtrsm_("L", "L", "N", "U", &k, &m, &one, l, &k, b, &k);
}
void xtrsm(int k, int m, const float* l, float* b) {
  const float one = 1;
  strsm_("L", "L", "N", "U", &k, &m, &one, l, &k, b, &k);
}

int order(const std::string& what, std::int64_t v) { return static_cast<int>(checked_size(what, v, max_n)); }

void require(bool ok, const char* what) {
  if (!ok) throw invalid_argument(std::string(what) + ": shape mismatch");
}

template <class T>
double scaled(double diff, double bound, std::int64_t k) {
  const double eps = std::numeric_limits<T>::epsilon() / 2;
  if (!std::isfinite(diff)) return std::numeric_limits<double>::infinity();
  return bound > 0 ? diff / (bound * eps * static_cast<double>(std::max<std::int64_t>(k, 1))) : diff;
}

}  // namespace

template <class T>
void gemm_update(const host_matrix<T>& a, const host_matrix<T>& b, host_matrix<T>& c) {
  require(a.cols() == b.rows() && c.rows() == a.rows() && c.cols() == b.cols() && c.rows() == c.cols(), "gemm_update");
  xupdate(order("gemm_update: m", a.rows()), order("gemm_update: k", a.cols()), a.data(), b.data(), c.data());
}

template <class T>
void getrf_panel(host_matrix<T>& a, std::vector<index_t>& ipiv) {
  require(a.rows() >= a.cols() && ipiv.size() == static_cast<std::size_t>(a.cols()), "getrf_panel");
  const lapack_int info =
      xpanel(order("getrf_panel: m", a.rows()), order("getrf_panel: k", a.cols()), a.data(), ipiv.data());
  throw_on_info(routine_name<T>("LAPACKE_", "getrf"), info, factorization::lu);
}

template <class T>
void trsm_panel(const host_matrix<T>& l, host_matrix<T>& b) {
  require(l.rows() == l.cols() && b.rows() == l.rows(), "trsm_panel");
  xtrsm(order("trsm_panel: k", l.rows()), order("trsm_panel: m", b.cols()), l.data(), b.data());
}

template <class T>
host_matrix<T> probe_triangle(std::int64_t k, std::uint64_t seed) {
  host_matrix<T> l = generate_rhs<T>(k, k, seed);
  for (std::int64_t j = 0; j < k; ++j)
    for (std::int64_t i = 0; i < k; ++i) l(i, j) = i == j ? T(1) : i > j ? l(i, j) / static_cast<T>(k) : T(0);
  return l;
}

std::vector<std::int64_t> checked_columns(std::int64_t cols) {
  std::vector<std::int64_t> out{0, cols / 2, cols - 1};
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

template <class T>
host_matrix<T> checked_columns_of(const host_matrix<T>& m) {
  const std::vector<std::int64_t> columns = checked_columns(m.cols());
  host_matrix<T> out(m.rows(), static_cast<std::int64_t>(columns.size()));
  for (std::size_t k = 0; k < columns.size(); ++k)
    for (std::int64_t i = 0; i < m.rows(); ++i) out(i, static_cast<std::int64_t>(k)) = m(i, columns[k]);
  return out;
}

template <class T>
double gemm_update_residual(const host_matrix<T>& a, const host_matrix<T>& b, const host_matrix<T>& c0,
                            const host_matrix<T>& c) {
  require(b.cols() == c.cols() && c0.cols() == c.cols(), "gemm_update_residual");
  return gemm_update_columns_residual(a, checked_columns_of(b), checked_columns_of(c0), checked_columns_of(c));
}

template <class T>
double gemm_update_columns_residual(const host_matrix<T>& a, const host_matrix<T>& b, const host_matrix<T>& c0,
                                    const host_matrix<T>& c) {
  require(b.rows() == a.cols() && c0.rows() == a.rows() && c.rows() == a.rows() && b.cols() == c.cols() &&
              c0.cols() == c.cols(),
          "gemm_update_columns_residual");
  double worst = 0;
  for (std::int64_t j = 0; j < c.cols(); ++j)
    for (std::int64_t i = 0; i < c.rows(); ++i) {
      double sum = static_cast<double>(c0(i, j)), bound = std::fabs(static_cast<double>(c0(i, j)));
      for (std::int64_t p = 0; p < a.cols(); ++p) {
        const double t = static_cast<double>(a(i, p)) * static_cast<double>(b(p, j));
        sum -= t;
        bound += std::fabs(t);
      }
      worst = std::max(worst, scaled<T>(std::fabs(sum - static_cast<double>(c(i, j))), bound, a.cols()));
    }
  return worst;
}

template <class T>
double getrf_panel_residual(const host_matrix<T>& a0, const host_matrix<T>& lu, const std::vector<index_t>& ipiv) {
  const std::int64_t m = a0.rows(), k = a0.cols();
  std::vector<std::int64_t> row(static_cast<std::size_t>(m));  // row i of P A0 is row row[i] of A0
  for (std::int64_t i = 0; i < m; ++i) row[static_cast<std::size_t>(i)] = i;
  for (std::int64_t i = 0; i < k; ++i)
    std::swap(row[static_cast<std::size_t>(i)], row[static_cast<std::size_t>(ipiv[static_cast<std::size_t>(i)] - 1)]);
  double worst = 0;
  for (const std::int64_t j : checked_columns(k))
    for (std::int64_t i = 0; i < m; ++i) {
      double sum = 0, bound = 0;
      for (std::int64_t p = 0; p <= std::min(i, j); ++p) {  // (L U)(i, j), L unit lower, U upper
        const double l = p == i ? 1.0 : static_cast<double>(lu(i, p));
        const double t = l * static_cast<double>(lu(p, j));
        sum += t;
        bound += std::fabs(t);
      }
      const double diff = std::fabs(sum - static_cast<double>(a0(row[static_cast<std::size_t>(i)], j)));
      worst = std::max(worst, scaled<T>(diff, bound, k));
    }
  return worst;
}

template <class T>
double trsm_panel_residual(const host_matrix<T>& l, const host_matrix<T>& b0, const host_matrix<T>& x) {
  double worst = 0;
  for (const std::int64_t j : checked_columns(x.cols()))
    for (std::int64_t i = 0; i < x.rows(); ++i) {
      double sum = 0, bound = 0;
      for (std::int64_t p = 0; p <= i; ++p) {
        const double t = static_cast<double>(l(i, p)) * static_cast<double>(x(p, j));
        sum += t;
        bound += std::fabs(t);
      }
      worst = std::max(worst, scaled<T>(std::fabs(sum - static_cast<double>(b0(i, j))), bound, l.rows()));
    }
  return worst;
}

#define SB_INSTANTIATE(T)                                                                                           \
  template void gemm_update(const host_matrix<T>&, const host_matrix<T>&, host_matrix<T>&);                         \
  template void getrf_panel(host_matrix<T>&, std::vector<index_t>&);                                                \
  template void trsm_panel(const host_matrix<T>&, host_matrix<T>&);                                                 \
  template host_matrix<T> probe_triangle(std::int64_t, std::uint64_t);                                              \
  template host_matrix<T> checked_columns_of(const host_matrix<T>&);                                                \
  template double gemm_update_residual(const host_matrix<T>&, const host_matrix<T>&, const host_matrix<T>&,         \
                                       const host_matrix<T>&);                                                      \
  template double gemm_update_columns_residual(const host_matrix<T>&, const host_matrix<T>&, const host_matrix<T>&, \
                                               const host_matrix<T>&);                                              \
  template double getrf_panel_residual(const host_matrix<T>&, const host_matrix<T>&, const std::vector<index_t>&);  \
  template double trsm_panel_residual(const host_matrix<T>&, const host_matrix<T>&, const host_matrix<T>&);
SOLVE_BENCH_FOR_EACH_REAL_PRECISION(SB_INSTANTIATE)
#undef SB_INSTANTIATE

}  // namespace solvebench::lapack
