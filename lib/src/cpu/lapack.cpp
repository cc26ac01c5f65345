// LAPACKE wrappers: size checks, info -> typed errors, no allocation.
#include "solvebench/lapack.hpp"

#include <lapacke.h>

#include <type_traits>

#include "solvebench/errors.hpp"

static_assert(std::is_same_v<lapack_int, solvebench::lapack::index_t>,
              "solve_bench expects the LP64 LAPACKE (32-bit lapack_int)");

extern "C" {
// Fortran BLAS (OpenBLAS ignores the hidden string lengths gfortran would pass).
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*,
            const int*, const double*, const int*, const double*, double*, const int*);
void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*, const float*,
            const int*, const float*, const int*, const float*, float*, const int*);
}

namespace solvebench::lapack {
namespace {

// LAPACKE's NaN scan is O(n^2) inside the call; switch it off once for the process.
[[maybe_unused]] const bool nancheck_off = [] {
  LAPACKE_set_nancheck(0);
  return true;
}();

index_t to_index(const std::string& what, std::int64_t v) {
  return static_cast<index_t>(checked_size(what, v, max_n));
}

template <class T>
index_t square_order(const char* routine, const host_matrix<T>& a) {
  if (a.rows() != a.cols())
    throw invalid_argument(std::string(routine) + ": A must be square, got " + std::to_string(a.rows()) +
                           " x " + std::to_string(a.cols()));
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
    throw invalid_argument(std::string(routine) + ": ipiv holds " + std::to_string(have) + " entries, n = " +
                           std::to_string(n));
}

template <class T>
std::string name(const char* op) {
  return std::string(std::is_same_v<T, double> ? "LAPACKE_d" : "LAPACKE_s") + op;
}

}  // namespace

template <class T>
void gesv(host_matrix<T>& a, std::vector<index_t>& ipiv, host_matrix<T>& b) {
  const index_t n = square_order("gesv", a), nrhs = rhs_count("gesv", n, b);
  check_pivots("gesv", n, ipiv.size());
  lapack_int info;
  if constexpr (std::is_same_v<T, double>)
    info = LAPACKE_dgesv(LAPACK_COL_MAJOR, n, nrhs, a.data(), n, ipiv.data(), b.data(), n);
  else
    info = LAPACKE_sgesv(LAPACK_COL_MAJOR, n, nrhs, a.data(), n, ipiv.data(), b.data(), n);
  throw_on_info(name<T>("gesv"), info, factorization::lu);
}

template <class T>
void getrf(host_matrix<T>& a, std::vector<index_t>& ipiv) {
  const index_t n = square_order("getrf", a);
  check_pivots("getrf", n, ipiv.size());
  lapack_int info;
  if constexpr (std::is_same_v<T, double>)
    info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, a.data(), n, ipiv.data());
  else
    info = LAPACKE_sgetrf(LAPACK_COL_MAJOR, n, n, a.data(), n, ipiv.data());
  throw_on_info(name<T>("getrf"), info, factorization::lu);
}

template <class T>
void getrs(const host_matrix<T>& lu, const std::vector<index_t>& ipiv, host_matrix<T>& b) {
  const index_t n = square_order("getrs", lu), nrhs = rhs_count("getrs", n, b);
  check_pivots("getrs", n, ipiv.size());
  lapack_int info;
  if constexpr (std::is_same_v<T, double>)
    info = LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', n, nrhs, lu.data(), n, ipiv.data(), b.data(), n);
  else
    info = LAPACKE_sgetrs(LAPACK_COL_MAJOR, 'N', n, nrhs, lu.data(), n, ipiv.data(), b.data(), n);
  throw_on_info(name<T>("getrs"), info, factorization::lu);
}

template <class T>
void posv(host_matrix<T>& a, host_matrix<T>& b) {
  const index_t n = square_order("posv", a), nrhs = rhs_count("posv", n, b);
  lapack_int info;
  if constexpr (std::is_same_v<T, double>)
    info = LAPACKE_dposv(LAPACK_COL_MAJOR, 'L', n, nrhs, a.data(), n, b.data(), n);
  else
    info = LAPACKE_sposv(LAPACK_COL_MAJOR, 'L', n, nrhs, a.data(), n, b.data(), n);
  throw_on_info(name<T>("posv"), info, factorization::cholesky);
}

template <class T>
void potrf(host_matrix<T>& a) {
  const index_t n = square_order("potrf", a);
  lapack_int info;
  if constexpr (std::is_same_v<T, double>)
    info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, a.data(), n);
  else
    info = LAPACKE_spotrf(LAPACK_COL_MAJOR, 'L', n, a.data(), n);
  throw_on_info(name<T>("potrf"), info, factorization::cholesky);
}

template <class T>
void potrs(const host_matrix<T>& l, host_matrix<T>& b) {
  const index_t n = square_order("potrs", l), nrhs = rhs_count("potrs", n, b);
  lapack_int info;
  if constexpr (std::is_same_v<T, double>)
    info = LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', n, nrhs, l.data(), n, b.data(), n);
  else
    info = LAPACKE_spotrs(LAPACK_COL_MAJOR, 'L', n, nrhs, l.data(), n, b.data(), n);
  throw_on_info(name<T>("potrs"), info, factorization::cholesky);
}

template <class T>
void gemm(const host_matrix<T>& a, const host_matrix<T>& b, host_matrix<T>& c) {
  if (a.cols() != b.rows() || c.rows() != a.rows() || c.cols() != b.cols())
    throw invalid_argument("gemm: shape mismatch");
  const index_t m = to_index("gemm: m", a.rows()), n = to_index("gemm: n", b.cols()),
                k = to_index("gemm: k", a.cols());
  const T one = 1, zero = 0;
  if constexpr (std::is_same_v<T, double>)
    dgemm_("N", "N", &m, &n, &k, &one, a.data(), &m, b.data(), &k, &zero, c.data(), &m);
  else
    sgemm_("N", "N", &m, &n, &k, &one, a.data(), &m, b.data(), &k, &zero, c.data(), &m);
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
  const lapack_int info = LAPACKE_dsgesv_work(LAPACK_COL_MAJOR, n, nrhs, a.data(), n, ipiv_.data(),
                                              const_cast<double*>(b.data()), n, x.data(), n, work_.data(),
                                              swork_.data(), &iter);
  throw_on_info("LAPACKE_dsgesv", info, factorization::lu);
  return iter;
}

#define SB_INSTANTIATE(T)                                                                  \
  template void gesv(host_matrix<T>&, std::vector<index_t>&, host_matrix<T>&);             \
  template void getrf(host_matrix<T>&, std::vector<index_t>&);                             \
  template void getrs(const host_matrix<T>&, const std::vector<index_t>&, host_matrix<T>&); \
  template void posv(host_matrix<T>&, host_matrix<T>&);                                    \
  template void potrf(host_matrix<T>&);                                                    \
  template void potrs(const host_matrix<T>&, host_matrix<T>&);                             \
  template void gemm(const host_matrix<T>&, const host_matrix<T>&, host_matrix<T>&);
SB_INSTANTIATE(float)
SB_INSTANTIATE(double)
#undef SB_INSTANTIATE

}  // namespace solvebench::lapack
