// The CUDA status families as typed exceptions; status names written once.
#include "solvebench/cuda_errors.hpp"

#include <cstdio>

namespace solvebench::cuda {

status_error::status_error(std::string status_name, const std::string& call, const char* file, int line)
    : error(status_name + " from " + call + " at " + file + ":" + std::to_string(line)),
      status_name_(std::move(status_name)) {}

cuda_error::cuda_error(cudaError_t status, const std::string& call, const char* file, int line)
    : status_error(std::string(cuda::status_name(status)) + " (" + cudaGetErrorString(status) + ")", call, file, line),
      status_(status) {}

cublas_error::cublas_error(cublasStatus_t status, const std::string& call, const char* file, int line)
    : status_error(cuda::status_name(status), call, file, line), status_(status) {}

cusolver_error::cusolver_error(cusolverStatus_t status, const std::string& call, const char* file, int line)
    : status_error(cuda::status_name(status), call, file, line), status_(status) {}

const char* status_name(cudaError_t status) noexcept { return cudaGetErrorName(status); }

const char* status_name(cublasStatus_t status) noexcept { return cublasGetStatusName(status); }

const char* status_name(cusolverStatus_t status) noexcept {
  switch (status) {
#define SB_CASE(s) \
  case s: return #s;
    SB_CASE(CUSOLVER_STATUS_SUCCESS)
    SB_CASE(CUSOLVER_STATUS_NOT_INITIALIZED)
    SB_CASE(CUSOLVER_STATUS_ALLOC_FAILED)
    SB_CASE(CUSOLVER_STATUS_INVALID_VALUE)
    SB_CASE(CUSOLVER_STATUS_ARCH_MISMATCH)
    SB_CASE(CUSOLVER_STATUS_MAPPING_ERROR)
    SB_CASE(CUSOLVER_STATUS_EXECUTION_FAILED)
    SB_CASE(CUSOLVER_STATUS_INTERNAL_ERROR)
    SB_CASE(CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED)
    SB_CASE(CUSOLVER_STATUS_NOT_SUPPORTED)
    SB_CASE(CUSOLVER_STATUS_ZERO_PIVOT)
    SB_CASE(CUSOLVER_STATUS_INVALID_LICENSE)
    SB_CASE(CUSOLVER_STATUS_IRS_PARAMS_NOT_INITIALIZED)
    SB_CASE(CUSOLVER_STATUS_IRS_PARAMS_INVALID)
    SB_CASE(CUSOLVER_STATUS_IRS_PARAMS_INVALID_PREC)
    SB_CASE(CUSOLVER_STATUS_IRS_PARAMS_INVALID_REFINE)
    SB_CASE(CUSOLVER_STATUS_IRS_PARAMS_INVALID_MAXITER)
    SB_CASE(CUSOLVER_STATUS_IRS_INTERNAL_ERROR)
    SB_CASE(CUSOLVER_STATUS_IRS_NOT_SUPPORTED)
    SB_CASE(CUSOLVER_STATUS_IRS_OUT_OF_RANGE)
    SB_CASE(CUSOLVER_STATUS_IRS_NRHS_NOT_SUPPORTED_FOR_REFINE_GMRES)
    SB_CASE(CUSOLVER_STATUS_IRS_INFOS_NOT_INITIALIZED)
    SB_CASE(CUSOLVER_STATUS_IRS_INFOS_NOT_DESTROYED)
    SB_CASE(CUSOLVER_STATUS_IRS_MATRIX_SINGULAR)
    SB_CASE(CUSOLVER_STATUS_INVALID_WORKSPACE)
#undef SB_CASE
  }
  return "CUSOLVER_STATUS_<unknown>";
}

void check(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) throw cuda_error(status, call, file, line);
}
void check(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) throw cublas_error(status, call, file, line);
}
void check(cusolverStatus_t status, const char* call, const char* file, int line) {
  if (status != CUSOLVER_STATUS_SUCCESS) throw cusolver_error(status, call, file, line);
}

template <class Status>
void log_if_failed(Status status, const char* call, const char* file, int line) noexcept {
  if (static_cast<int>(status) == 0) return;  // cudaSuccess, CUBLAS_/CUSOLVER_STATUS_SUCCESS
  std::fprintf(stderr, "solve_bench: %s from %s at %s:%d (ignored while releasing)\n", status_name(status), call, file,
               line);
}
template void log_if_failed(cudaError_t, const char*, const char*, int) noexcept;
template void log_if_failed(cublasStatus_t, const char*, const char*, int) noexcept;
template void log_if_failed(cusolverStatus_t, const char*, const char*, int) noexcept;

}  // namespace solvebench::cuda
