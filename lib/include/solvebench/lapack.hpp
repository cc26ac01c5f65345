// CPU backend: column-major LAPACKE (over OpenBLAS by default) for s/d/c/z gesv, posv and
// their halves, and the BLAS gemm; T is float, double, std::complex<float> or std::complex<double>.
//
// Every call checks its sizes, and turns LAPACK's info into typed errors (errors.hpp).
// Nothing here allocates: pivots and matrices are sized by the caller, once, outside
// any timed region. LAPACKE's own NaN scan of the inputs is switched off (it is an
// O(n^2) pass inside the timed call that numpy/SciPy do not pay); callers that want it
// check inputs once with require_finite().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "solvebench/matrix.hpp"

namespace solvebench::lapack {

using index_t = std::int32_t;  // lapack_int of the LP64 LAPACKE that Debian and Ubuntu ship

// Largest n the LP64 interface can index.
inline constexpr std::int64_t max_n = 2147483647;

template <class T>
void gesv(host_matrix<T>& a, std::vector<index_t>& ipiv, host_matrix<T>& b);
template <class T>
void getrf(host_matrix<T>& a, std::vector<index_t>& ipiv);
template <class T>
void getrs(const host_matrix<T>& lu, const std::vector<index_t>& ipiv, host_matrix<T>& b);
// Cholesky, lower triangle (A = L L^T; A = L L^H, A Hermitian, for complex T); the upper
// triangle is not referenced.
template <class T>
void posv(host_matrix<T>& a, host_matrix<T>& b);
template <class T>
void potrf(host_matrix<T>& a);
template <class T>
void potrs(const host_matrix<T>& l, host_matrix<T>& b);
// C = A B (BLAS ?gemm): the ceiling each solve is held against.
template <class T>
void gemm(const host_matrix<T>& a, const host_matrix<T>& b, host_matrix<T>& c);
// Mixed precision: fp32 factorization, fp64 iterative refinement (LAPACKE_dsgesv_work,
// so its fp32 copy of A and its work arrays are allocated once, here, not per call).
class dsgesv_solver {
 public:
  dsgesv_solver(std::int64_t n, std::int64_t nrhs);
  // LAPACK's iter: > 0 refinement steps taken, < 0 fell back to an fp64 factorization
  // (-3: sgetrf failed, -31: no convergence in 30 steps, ...). A may hold factors afterwards.
  index_t solve(host_matrix<double>& a, const host_matrix<double>& b, host_matrix<double>& x);

 private:
  std::vector<index_t> ipiv_;
  std::vector<double> work_;
  std::vector<float> swork_;
};

// What the BLAS and LAPACK underneath say about themselves, for the run's context: read at run
// time from the library the process really loaded (blas_runtime.cpp), which need not be the
// one CMake linked (Debian's alternatives, LD_LIBRARY_PATH, FlexiBLAS's chosen backend).
struct runtime_info {
  std::string vendor;             // "OpenBLAS", "MKL", "BLIS", "FlexiBLAS" or "unknown"
  std::string version;            // the vendor's own, e.g. "0.3.21" ("" when it cannot say)
  std::string blas_config;        // the vendor's self-description (openblas_get_config(), ...)
  std::string blas_core;          // the kernels it chose: OpenBLAS core, BLIS arch, FlexiBLAS backend
  std::string blas_variant;       // its threading build: openblas-serial/-pthread/-openmp, blis-...; "" unknown
  int blas_threads = 0;           // threads it will use (0: it cannot say)
  std::string blas_library;       // the shared object that provides dgemm_, symbolic links resolved
  std::string lapack_version;     // LAPACK's ilaver(), e.g. "3.11.0"
  std::string lapack_library;     // the shared object that provides dgetrf_, symbolic links resolved
  std::string why_threads_fixed;  // "" when set_blas_threads() works; else why it does nothing
};
runtime_info blas_runtime_info();
// The vendor's own thread control (a no-op where it has none: see why_threads_fixed).
void set_blas_threads(int threads);
int blas_threads();

}  // namespace solvebench::lapack
