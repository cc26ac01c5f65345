// The GPU's probes of the bound (cusolver_probes.hpp): cuBLAS ?gemm and ?trsm at the shapes of a
// blocked factorization, cusolverDnXgetrf on a panel.
#include "solvebench/cusolver_probes.hpp"

#include <string>

#include "solvebench/cuda_errors.hpp"
#include "solvebench/errors.hpp"
#include "solvebench/precision.hpp"

namespace solvebench::cuda {
namespace {

constexpr cudaDataType data_type(const double*) { return CUDA_R_64F; }
constexpr cudaDataType data_type(const float*) { return CUDA_R_32F; }

cublasStatus_t update64(cublasHandle_t h, std::int64_t m, std::int64_t k, const double* a, const double* b, double* c) {
  const double minus = -1, one = 1;
  return cublasDgemm_64(h, CUBLAS_OP_N, CUBLAS_OP_N, m, m, k, &minus, a, m, b, k, &one, c, m);
}
cublasStatus_t update64(cublasHandle_t h, std::int64_t m, std::int64_t k, const float* a, const float* b, float* c) {
  const float minus = -1, one = 1;
  return cublasSgemm_64(h, CUBLAS_OP_N, CUBLAS_OP_N, m, m, k, &minus, a, m, b, k, &one, c, m);
}
cublasStatus_t trsm64(cublasHandle_t h, std::int64_t m, std::int64_t k, const double* l, double* b) {
  const double one = 1;
  return cublasDtrsm_64(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, k, m, &one, l, k, b,
                        k);
}
cublasStatus_t trsm64(cublasHandle_t h, std::int64_t m, std::int64_t k, const float* l, float* b) {
  const float one = 1;
  return cublasStrsm_64(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, k, m, &one, l, k, b,
                        k);
}

template <class T>
std::string xgetrf_name() {
  return std::string("cusolverDnXgetrf<") + (precision<T>::letter == 'd' ? "double" : "float") + "> (panel)";
}

}  // namespace

template <class T>
void gemm_update(const context& ctx, std::int64_t m, std::int64_t k, const T* a, const T* b, T* c) {
  SB_CUBLAS_CHECK(update64(ctx.blas(), m, k, a, b, c));
}

template <class T>
void trsm_panel(const context& ctx, std::int64_t m, std::int64_t k, const T* l, T* b) {
  SB_CUBLAS_CHECK(trsm64(ctx.blas(), m, k, l, b));
}

template <class T>
workspace_size panel_lu<T>::query(const context& ctx, std::int64_t m, std::int64_t k) {
  workspace_size ws;
  SB_CUSOLVER_CHECK(cusolverDnXgetrf_bufferSize(ctx.solver(), ctx.params(), m, k, data_type(static_cast<T*>(nullptr)),
                                                nullptr, m, data_type(static_cast<T*>(nullptr)), &ws.device_bytes,
                                                &ws.host_bytes));
  return ws;
}

template <class T>
panel_lu<T>::panel_lu(const context& ctx, std::int64_t m, std::int64_t k)
    : ctx_(ctx), m_(checked_size("m", m, INT64_MAX / 2)), k_(checked_size("k", k, m)) {
  const workspace_size ws = query(ctx, m, k);
  work_ = device_buffer<std::byte>(ws.device_bytes);
  host_work_.resize(ws.host_bytes);
  ipiv_ = device_buffer<std::int64_t>(static_cast<std::size_t>(k));
  info_ = device_buffer<int>(1);
  SB_CUDA_CHECK(cudaMemsetAsync(info_.data(), 0, info_.size_bytes(), ctx.stream()));
}

template <class T>
void panel_lu<T>::factor(T* a) {
  const cudaDataType type = data_type(static_cast<T*>(nullptr));
  SB_CUSOLVER_CHECK(cusolverDnXgetrf(ctx_.solver(), ctx_.params(), m_, k_, type, a, m_, ipiv_.data(), type,
                                     work_.data(), work_.size(), host_work_.data(), host_work_.size(), info_.data()));
}

template <class T>
void panel_lu<T>::check_info() const {
  int info = 0;
  SB_CUDA_CHECK(cudaMemcpyAsync(&info, info_.data(), sizeof info, cudaMemcpyDeviceToHost, ctx_.stream()));
  SB_CUDA_CHECK(cudaStreamSynchronize(ctx_.stream()));
  throw_on_info(xgetrf_name<T>(), info, factorization::lu);
}

template <class T>
std::vector<std::int32_t> panel_lu<T>::pivots() const {
  std::vector<std::int64_t> wide(static_cast<std::size_t>(k_));
  SB_CUDA_CHECK(cudaMemcpyAsync(wide.data(), ipiv_.data(), ipiv_.size_bytes(), cudaMemcpyDeviceToHost, ctx_.stream()));
  SB_CUDA_CHECK(cudaStreamSynchronize(ctx_.stream()));
  return std::vector<std::int32_t>(wide.begin(), wide.end());
}

#define SB_INSTANTIATE(T)                                                                        \
  template void gemm_update(const context&, std::int64_t, std::int64_t, const T*, const T*, T*); \
  template void trsm_panel(const context&, std::int64_t, std::int64_t, const T*, T*);            \
  template class panel_lu<T>;
SOLVE_BENCH_FOR_EACH_REAL_PRECISION(SB_INSTANTIATE)
#undef SB_INSTANTIATE

}  // namespace solvebench::cuda
