// LAPACKE wrappers (s, d, c, z): size checks, info -> typed errors, no allocation.
#include "solvebench/lapack.hpp"

#include <complex>
// LAPACKE's complex types as std::complex (lapack.h allows it; the layout is Fortran's COMPLEX).
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <lapacke.h>

#include <type_traits>

#include "solvebench/errors.hpp"
#include "solvebench/precision.hpp"

static_assert(std::is_same_v<lapack_int, solvebench::lapack::index_t>,
              "solve_bench expects the LP64 LAPACKE (32-bit lapack_int)");

extern "C" {
// Fortran BLAS (OpenBLAS ignores the hidden string lengths gfortran would pass).
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*, const int*,
            const double*, const int*, const double*, double*, const int*);
void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*, const float*, const int*,
            const float*, const int*, const float*, float*, const int*);
void zgemm_(const char*, const char*, const int*, const int*, const int*, const std::complex<double>*,
            const std::complex<double>*, const int*, const std::complex<double>*, const int*,
            const std::complex<double>*, std::complex<double>*, const int*);
void cgemm_(const char*, const char*, const int*, const int*, const int*, const std::complex<float>*,
            const std::complex<float>*, const int*, const std::complex<float>*, const int*, const std::complex<float>*,
            std::complex<float>*, const int*);
}

namespace solvebench::lapack {
namespace {

// LAPACKE's NaN scan is O(n^2) inside the call; switch it off once for the process.
[[maybe_unused]] const bool nancheck_off = [] {
  LAPACKE_set_nancheck(0);
  return true;
}();

constexpr int col = LAPACK_COL_MAJOR;

// Precision dispatch: one line per routine and precision, one template body per routine below.
lapack_int xgesv(lapack_int n, lapack_int k, double* a, lapack_int* p, double* b) {
  return LAPACKE_dgesv(col, n, k, a, n, p, b, n);
}
lapack_int xgesv(lapack_int n, lapack_int k, float* a, lapack_int* p, float* b) {
  return LAPACKE_sgesv(col, n, k, a, n, p, b, n);
}
lapack_int xgetrf(lapack_int n, double* a, lapack_int* p) { return LAPACKE_dgetrf(col, n, n, a, n, p); }
lapack_int xgetrf(lapack_int n, float* a, lapack_int* p) { return LAPACKE_sgetrf(col, n, n, a, n, p); }
lapack_int xgetrs(lapack_int n, lapack_int k, const double* a, const lapack_int* p, double* b) {
  return LAPACKE_dgetrs(col, 'N', n, k, a, n, p, b, n);
}
lapack_int xgetrs(lapack_int n, lapack_int k, const float* a, const lapack_int* p, float* b) {
  return LAPACKE_sgetrs(col, 'N', n, k, a, n, p, b, n);
}
lapack_int xposv(lapack_int n, lapack_int k, double* a, double* b) { return LAPACKE_dposv(col, 'L', n, k, a, n, b, n); }
lapack_int xposv(lapack_int n, lapack_int k, float* a, float* b) { return LAPACKE_sposv(col, 'L', n, k, a, n, b, n); }
lapack_int xpotrf(lapack_int n, double* a) { return LAPACKE_dpotrf(col, 'L', n, a, n); }
lapack_int xpotrf(lapack_int n, float* a) { return LAPACKE_spotrf(col, 'L', n, a, n); }
lapack_int xpotrs(lapack_int n, lapack_int k, const double* a, double* b) {
  return LAPACKE_dpotrs(col, 'L', n, k, a, n, b, n);
}
lapack_int xpotrs(lapack_int n, lapack_int k, const float* a, float* b) {
  return LAPACKE_spotrs(col, 'L', n, k, a, n, b, n);
}
void xgemm(int m, int n, int k, const double* a, const double* b, double* c) {
  const double one = 1, zero = 0;
  dgemm_("N", "N", &m, &n, &k, &one, a, &m, b, &k, &zero, c, &m);
}
void xgemm(int m, int n, int k, const float* a, const float* b, float* c) {
  const float one = 1, zero = 0;
  sgemm_("N", "N", &m, &n, &k, &one, a, &m, b, &k, &zero, c, &m);
}

// Complex: the same calls with c/z; Cholesky on the lower triangle of a Hermitian matrix.
using zcomplex = std::complex<double>;
using ccomplex = std::complex<float>;
lapack_int xgesv(lapack_int n, lapack_int k, zcomplex* a, lapack_int* p, zcomplex* b) {
  return LAPACKE_zgesv(col, n, k, a, n, p, b, n);
}
lapack_int xgesv(lapack_int n, lapack_int k, ccomplex* a, lapack_int* p, ccomplex* b) {
  return LAPACKE_cgesv(col, n, k, a, n, p, b, n);
}
lapack_int xgetrf(lapack_int n, zcomplex* a, lapack_int* p) { return LAPACKE_zgetrf(col, n, n, a, n, p); }
lapack_int xgetrf(lapack_int n, ccomplex* a, lapack_int* p) { return LAPACKE_cgetrf(col, n, n, a, n, p); }
lapack_int xgetrs(lapack_int n, lapack_int k, const zcomplex* a, const lapack_int* p, zcomplex* b) {
  return LAPACKE_zgetrs(col, 'N', n, k, a, n, p, b, n);
}
lapack_int xgetrs(lapack_int n, lapack_int k, const ccomplex* a, const lapack_int* p, ccomplex* b) {
  return LAPACKE_cgetrs(col, 'N', n, k, a, n, p, b, n);
}
lapack_int xposv(lapack_int n, lapack_int k, zcomplex* a, zcomplex* b) {
  return LAPACKE_zposv(col, 'L', n, k, a, n, b, n);
}
lapack_int xposv(lapack_int n, lapack_int k, ccomplex* a, ccomplex* b) {
  return LAPACKE_cposv(col, 'L', n, k, a, n, b, n);
}
lapack_int xpotrf(lapack_int n, zcomplex* a) { return LAPACKE_zpotrf(col, 'L', n, a, n); }
lapack_int xpotrf(lapack_int n, ccomplex* a) { return LAPACKE_cpotrf(col, 'L', n, a, n); }
lapack_int xpotrs(lapack_int n, lapack_int k, const zcomplex* a, zcomplex* b) {
  return LAPACKE_zpotrs(col, 'L', n, k, a, n, b, n);
}
lapack_int xpotrs(lapack_int n, lapack_int k, const ccomplex* a, ccomplex* b) {
  return LAPACKE_cpotrs(col, 'L', n, k, a, n, b, n);
}
void xgemm(int m, int n, int k, const zcomplex* a, const zcomplex* b, zcomplex* c) {
  const zcomplex one = 1, zero = 0;
  zgemm_("N", "N", &m, &n, &k, &one, a, &m, b, &k, &zero, c, &m);
}
void xgemm(int m, int n, int k, const ccomplex* a, const ccomplex* b, ccomplex* c) {
  const ccomplex one = 1, zero = 0;
  cgemm_("N", "N", &m, &n, &k, &one, a, &m, b, &k, &zero, c, &m);
}

index_t to_index(const std::string& what, std::int64_t v) { return static_cast<index_t>(checked_size(what, v, max_n)); }

template <class T>
index_t square_order(const char* routine, const host_matrix<T>& a) {
  if (a.rows() != a.cols())
    throw invalid_argument(std::string(routine) + ": A must be square, got " + std::to_string(a.rows()) + " x " +
                           std::to_string(a.cols()));
  return to_index(std::string(routine) + ": n", a.rows());
}

template <class T>
index_t rhs_count(const char* routine, index_t n, const host_matrix<T>& b) {
  if (b.rows() != n)
    throw invalid_argument(std::string(routine) + ": B has " + std::to_string(b.rows()) + " rows, A has " +
                           std::to_string(n));
  return to_index(std::string(routine) + ": nrhs", b.cols());
}

void check_pivots(const char* routine, index_t n, std::size_t have) {
  if (have != static_cast<std::size_t>(n))
    throw invalid_argument(std::string(routine) + ": ipiv holds " + std::to_string(have) +
                           " entries, n = " + std::to_string(n));
}

template <class T>
std::string name(const char* op) {
  return routine_name<T>("LAPACKE_", op);
}

}  // namespace

template <class T>
void gesv(host_matrix<T>& a, std::vector<index_t>& ipiv, host_matrix<T>& b) {
  const index_t n = square_order("gesv", a), nrhs = rhs_count("gesv", n, b);
  check_pivots("gesv", n, ipiv.size());
  throw_on_info(name<T>("gesv"), xgesv(n, nrhs, a.data(), ipiv.data(), b.data()), factorization::lu);
}

template <class T>
void getrf(host_matrix<T>& a, std::vector<index_t>& ipiv) {
  const index_t n = square_order("getrf", a);
  check_pivots("getrf", n, ipiv.size());
  throw_on_info(name<T>("getrf"), xgetrf(n, a.data(), ipiv.data()), factorization::lu);
}

template <class T>
void getrs(const host_matrix<T>& lu, const std::vector<index_t>& ipiv, host_matrix<T>& b) {
  const index_t n = square_order("getrs", lu), nrhs = rhs_count("getrs", n, b);
  check_pivots("getrs", n, ipiv.size());
  throw_on_info(name<T>("getrs"), xgetrs(n, nrhs, lu.data(), ipiv.data(), b.data()), factorization::lu);
}

template <class T>
void posv(host_matrix<T>& a, host_matrix<T>& b) {
  const index_t n = square_order("posv", a), nrhs = rhs_count("posv", n, b);
  throw_on_info(name<T>("posv"), xposv(n, nrhs, a.data(), b.data()), factorization::cholesky);
}

template <class T>
void potrf(host_matrix<T>& a) {
  const index_t n = square_order("potrf", a);
  throw_on_info(name<T>("potrf"), xpotrf(n, a.data()), factorization::cholesky);
}

template <class T>
void potrs(const host_matrix<T>& l, host_matrix<T>& b) {
  const index_t n = square_order("potrs", l), nrhs = rhs_count("potrs", n, b);
  throw_on_info(name<T>("potrs"), xpotrs(n, nrhs, l.data(), b.data()), factorization::cholesky);
}

template <class T>
void gemm(const host_matrix<T>& a, const host_matrix<T>& b, host_matrix<T>& c) {
  if (a.cols() != b.rows() || c.rows() != a.rows() || c.cols() != b.cols())
    throw invalid_argument("gemm: shape mismatch");
  const index_t m = to_index("gemm: m", a.rows()), n = to_index("gemm: n", b.cols()), k = to_index("gemm: k", a.cols());
  xgemm(m, n, k, a.data(), b.data(), c.data());
}

dsgesv_solver::dsgesv_solver(std::int64_t n, std::int64_t nrhs)
    : ipiv_(static_cast<std::size_t>(to_index("dsgesv: n", n))),
      work_(static_cast<std::size_t>(n * to_index("dsgesv: nrhs", nrhs))),
      swork_(static_cast<std::size_t>(n * (n + nrhs))) {}

index_t dsgesv_solver::solve(host_matrix<double>& a, const host_matrix<double>& b, host_matrix<double>& x) {
  const index_t n = square_order("dsgesv", a), nrhs = rhs_count("dsgesv", n, b);
  check_pivots("dsgesv", n, ipiv_.size());
  if (x.rows() != n || x.cols() != nrhs || work_.size() != static_cast<std::size_t>(n) * static_cast<std::size_t>(nrhs))
    throw invalid_argument("dsgesv: X and the workspace must have the shape of B");
  lapack_int iter = 0;
  const lapack_int info =
      LAPACKE_dsgesv_work(LAPACK_COL_MAJOR, n, nrhs, a.data(), n, ipiv_.data(), const_cast<double*>(b.data()), n,
                          x.data(), n, work_.data(), swork_.data(), &iter);
  throw_on_info("LAPACKE_dsgesv", info, factorization::lu);
  return iter;
}

#define SB_INSTANTIATE(T)                                                                   \
  template void gesv(host_matrix<T>&, std::vector<index_t>&, host_matrix<T>&);              \
  template void getrf(host_matrix<T>&, std::vector<index_t>&);                              \
  template void getrs(const host_matrix<T>&, const std::vector<index_t>&, host_matrix<T>&); \
  template void posv(host_matrix<T>&, host_matrix<T>&);                                     \
  template void potrf(host_matrix<T>&);                                                     \
  template void potrs(const host_matrix<T>&, host_matrix<T>&);                              \
  template void gemm(const host_matrix<T>&, const host_matrix<T>&, host_matrix<T>&);
SOLVE_BENCH_FOR_EACH_PRECISION(SB_INSTANTIATE)
#undef SB_INSTANTIATE

}  // namespace solvebench::lapack
