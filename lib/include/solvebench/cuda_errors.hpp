// Typed errors for the three CUDA status families (runtime, cuBLAS, cuSOLVER), one macro each.
//
// Each exception carries the status, its name, the call text and file:line. The
// *_NOEXCEPT variant is for destructors: it logs to stderr and never throws.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolver_common.h>

#include <string>

#include "solvebench/errors.hpp"

namespace solvebench::cuda {

// Base of the three families; `status_name()` is e.g. "cudaErrorIllegalAddress".
class status_error : public solvebench::error {
 public:
  status_error(std::string status_name, const std::string& call, const char* file, int line);
  const std::string& status_name() const noexcept { return status_name_; }

 private:
  std::string status_name_;
};

class cuda_error : public status_error {
 public:
  cuda_error(cudaError_t status, const std::string& call, const char* file, int line);
  cudaError_t status() const noexcept { return status_; }

 private:
  cudaError_t status_;
};

class cublas_error : public status_error {
 public:
  cublas_error(cublasStatus_t status, const std::string& call, const char* file, int line);
  cublasStatus_t status() const noexcept { return status_; }

 private:
  cublasStatus_t status_;
};

class cusolver_error : public status_error {
 public:
  cusolver_error(cusolverStatus_t status, const std::string& call, const char* file, int line);
  cusolverStatus_t status() const noexcept { return status_; }

 private:
  cusolverStatus_t status_;
};

// cuSOLVER has no status-to-string function; this is the one switch.
const char* status_name(cusolverStatus_t status) noexcept;
const char* status_name(cublasStatus_t status) noexcept;
const char* status_name(cudaError_t status) noexcept;

// One overload per family; the macros below are thin wrappers over these.
void check(cudaError_t status, const char* call, const char* file, int line);
void check(cublasStatus_t status, const char* call, const char* file, int line);
void check(cusolverStatus_t status, const char* call, const char* file, int line);
template <class Status>
void log_if_failed(Status status, const char* call, const char* file, int line) noexcept;

}  // namespace solvebench::cuda

#define SB_CUDA_CHECK(call) ::solvebench::cuda::check(static_cast<cudaError_t>(call), #call, __FILE__, __LINE__)
#define SB_CUBLAS_CHECK(call) ::solvebench::cuda::check(static_cast<cublasStatus_t>(call), #call, __FILE__, __LINE__)
#define SB_CUSOLVER_CHECK(call) \
  ::solvebench::cuda::check(static_cast<cusolverStatus_t>(call), #call, __FILE__, __LINE__)
// For destructors and other no-throw paths, any family.
#define SB_CUDA_CHECK_NOEXCEPT(call) ::solvebench::cuda::log_if_failed((call), #call, __FILE__, __LINE__)
