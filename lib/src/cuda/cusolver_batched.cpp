// Batched small solves: pointer arrays once, per-system info checked after the timed region.
#include "solvebench/cusolver_batched.hpp"

#include <vector>

#include "solvebench/errors.hpp"
#include "solvebench/precision.hpp"

namespace solvebench::cuda {
namespace {

int batch_int(std::int64_t v, const char* what) {
  checked_size(what, v, 2147483647);
  return static_cast<int>(v);
}

// Device array of pointers to the systems of a strided batch.
template <class T>
device_buffer<T*> pointer_array(T* base, std::int64_t stride, std::int64_t count, cudaStream_t stream) {
  std::vector<T*> host(static_cast<std::size_t>(count));
  for (std::int64_t s = 0; s < count; ++s) host[static_cast<std::size_t>(s)] = base + s * stride;
  device_buffer<T*> dev(host.size());
  SB_CUDA_CHECK(cudaMemcpyAsync(dev.data(), host.data(), dev.size_bytes(), cudaMemcpyHostToDevice, stream));
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));  // `host` goes out of scope
  return dev;
}

void throw_on_batch_info(const char* routine, const device_buffer<int>& info, std::int64_t count, factorization kind,
                         cudaStream_t stream) {
  std::vector<int> h(info.size());
  SB_CUDA_CHECK(cudaMemcpyAsync(h.data(), info.data(), info.size_bytes(), cudaMemcpyDeviceToHost, stream));
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  for (std::int64_t s = 0; s < count; ++s)
    if (h[static_cast<std::size_t>(s)] != 0)
      throw_on_info(std::string(routine) + " (system " + std::to_string(s) + " of the batch)",
                    h[static_cast<std::size_t>(s)], kind);
}

// One line per routine and precision.
using blas = cublasHandle_t;
using solver = cusolverDnHandle_t;
constexpr auto lower = CUBLAS_FILL_MODE_LOWER;
cublasStatus_t getrf(blas h, int n, double* const* a, int* p, int* info, int count) {
  return cublasDgetrfBatched(h, n, a, n, p, info, count);
}
cublasStatus_t getrf(blas h, int n, float* const* a, int* p, int* info, int count) {
  return cublasSgetrfBatched(h, n, a, n, p, info, count);
}
cublasStatus_t getrs(blas h, int n, double* const* a, const int* p, double* const* b, int* info, int count) {
  return cublasDgetrsBatched(h, CUBLAS_OP_N, n, 1, a, n, p, b, n, info, count);
}
cublasStatus_t getrs(blas h, int n, float* const* a, const int* p, float* const* b, int* info, int count) {
  return cublasSgetrsBatched(h, CUBLAS_OP_N, n, 1, a, n, p, b, n, info, count);
}
cusolverStatus_t potrf(solver h, int n, double** a, int* info, int count) {
  return cusolverDnDpotrfBatched(h, lower, n, a, n, info, count);
}
cusolverStatus_t potrf(solver h, int n, float** a, int* info, int count) {
  return cusolverDnSpotrfBatched(h, lower, n, a, n, info, count);
}
cusolverStatus_t potrs(solver h, int n, double** a, double** b, int* info, int count) {
  return cusolverDnDpotrsBatched(h, lower, n, 1, a, n, b, n, info, count);
}
cusolverStatus_t potrs(solver h, int n, float** a, float** b, int* info, int count) {
  return cusolverDnSpotrsBatched(h, lower, n, 1, a, n, b, n, info, count);
}

}  // namespace

template <class T>
batched_lu<T>::batched_lu(const context& ctx, T* a, T* b, std::int64_t n, std::int64_t count)
    : ctx_(ctx),
      n_(batch_int(n, "n")),
      count_(batch_int(count, "batch")),
      a_ptrs_(pointer_array(a, n * n, count, ctx.stream())),
      b_ptrs_(pointer_array(b, n, count, ctx.stream())),
      ipiv_(static_cast<std::size_t>(n * count)),
      info_(static_cast<std::size_t>(count)) {
  SB_CUDA_CHECK(cudaMemsetAsync(info_.data(), 0, info_.size_bytes(), ctx.stream()));
}

template <class T>
void batched_lu<T>::factor() {
  SB_CUBLAS_CHECK(getrf(ctx_.blas(), n_, a_ptrs_.data(), ipiv_.data(), info_.data(), count_));
}

template <class T>
void batched_lu<T>::solve() {
  SB_CUBLAS_CHECK(getrs(ctx_.blas(), n_, a_ptrs_.data(), ipiv_.data(), b_ptrs_.data(), &solve_info_, count_));
}

template <class T>
void batched_lu<T>::check_info() const {
  throw_on_batch_info(nvidia_routine_name<T>("cublas", "getrfBatched").c_str(), info_, count_, factorization::lu,
                      ctx_.stream());
  throw_on_info(nvidia_routine_name<T>("cublas", "getrsBatched"), solve_info_, factorization::lu);
}

template <class T>
batched_cholesky<T>::batched_cholesky(const context& ctx, T* a, T* b, std::int64_t n, std::int64_t count)
    : ctx_(ctx),
      n_(batch_int(n, "n")),
      count_(batch_int(count, "batch")),
      a_ptrs_(pointer_array(a, n * n, count, ctx.stream())),
      b_ptrs_(pointer_array(b, n, count, ctx.stream())),
      info_(static_cast<std::size_t>(count + 1)) {
  SB_CUDA_CHECK(cudaMemsetAsync(info_.data(), 0, info_.size_bytes(), ctx.stream()));
}

template <class T>
void batched_cholesky<T>::factor() {
  SB_CUSOLVER_CHECK(potrf(ctx_.solver(), n_, a_ptrs_.data(), info_.data(), count_));
}

template <class T>
void batched_cholesky<T>::solve() {
  SB_CUSOLVER_CHECK(potrs(ctx_.solver(), n_, a_ptrs_.data(), b_ptrs_.data(), info_.data() + count_, count_));
}

template <class T>
void batched_cholesky<T>::check_info() const {
  throw_on_batch_info(nvidia_routine_name<T>("cusolverDn", "potrfBatched").c_str(), info_, count_,
                      factorization::cholesky, ctx_.stream());
  int solve_info = 0;
  SB_CUDA_CHECK(
      cudaMemcpyAsync(&solve_info, info_.data() + count_, sizeof(int), cudaMemcpyDeviceToHost, ctx_.stream()));
  SB_CUDA_CHECK(cudaStreamSynchronize(ctx_.stream()));
  throw_on_info(nvidia_routine_name<T>("cusolverDn", "potrsBatched"), solve_info, factorization::cholesky);
}

#define SB_INSTANTIATE(T)       \
  template class batched_lu<T>; \
  template class batched_cholesky<T>;
SOLVE_BENCH_FOR_EACH_REAL_PRECISION(SB_INSTANTIATE)
#undef SB_INSTANTIATE

}  // namespace solvebench::cuda
