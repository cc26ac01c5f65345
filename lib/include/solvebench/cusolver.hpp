// GPU backend: cuSOLVER LU and Cholesky solves and cuBLAS GEMM on device-resident matrices,
// T float, double, std::complex<float> or std::complex<double> (Cholesky: Hermitian, lower).
//
// A solver object is made for one (n, nrhs): it queries and allocates its workspace once,
// so calls in a timed loop allocate nothing. Calls are asynchronous on the context's
// stream; `check_info()` reads cuSOLVER's devInfo afterwards (a synchronisation, so keep
// it out of timed regions) and throws the same typed errors as the CPU backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "solvebench/cuda_owners.hpp"
#include "solvebench/solver_choices.hpp"

namespace solvebench::cuda {

using solvebench::cusolver_api;
using solvebench::parse_cusolver_api;
using solvebench::to_string;

// One stream, with a cuSOLVER handle, a cuBLAS handle and generic-API params bound to it.
class context {
 public:
  context();
  cudaStream_t stream() const noexcept { return stream_.get(); }
  cusolverDnHandle_t solver() const noexcept { return solver_.get(); }
  cublasHandle_t blas() const noexcept { return blas_.get(); }
  cusolverDnParams_t params() const noexcept { return params_.get(); }
  void synchronize() const { stream_.synchronize(); }

 private:
  cuda::stream stream_;
  cusolver_handle solver_;
  cublas_handle blas_;
  cusolver_params params_;
};

// Workspace one solver needs: device bytes (allocated by the solver) and host bytes.
struct workspace_size {
  std::size_t device_bytes = 0, host_bytes = 0;
};

// LU with partial pivoting: getrf, getrs (gesv = both).
template <class T>
class lu_solver {
 public:
  static workspace_size query(const context& ctx, std::int64_t n, cusolver_api api);
  lu_solver(const context& ctx, std::int64_t n, std::int64_t nrhs, cusolver_api api = cusolver_api::generic64);

  void factor(T* a);              // A = P L U in place (leading dimension n)
  void solve(const T* lu, T* b);  // B := A^-1 B from the factors
  void check_info() const;        // singular_matrix(k) / invalid_argument from devInfo

 private:
  const context& ctx_;
  std::int64_t n_, nrhs_;
  cusolver_api api_;
  device_buffer<std::byte> work_;
  std::vector<std::byte> host_work_;
  device_buffer<std::int64_t> ipiv64_;
  device_buffer<int> ipiv32_;
  device_buffer<int> info_;  // [0] factor, [1] solve: getrs would overwrite getrf's info
};

// Cholesky, lower triangle: potrf, potrs (posv = both).
template <class T>
class cholesky_solver {
 public:
  static workspace_size query(const context& ctx, std::int64_t n, cusolver_api api);
  cholesky_solver(const context& ctx, std::int64_t n, std::int64_t nrhs, cusolver_api api = cusolver_api::generic64);

  void factor(T* a);
  void solve(const T* l, T* b);
  void check_info() const;  // not_positive_definite(k) / invalid_argument

 private:
  const context& ctx_;
  std::int64_t n_, nrhs_;
  cusolver_api api_;
  device_buffer<std::byte> work_;
  std::vector<std::byte> host_work_;
  device_buffer<int> info_;
};

// C = A B, all n x n (cuBLAS ?gemm): the ceiling each solve is held against.
template <class T>
void gemm(const context& ctx, std::int64_t n, const T* a, const T* b, T* c);

}  // namespace solvebench::cuda
