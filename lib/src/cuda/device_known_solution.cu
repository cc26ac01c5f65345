// Device side of the known solution: generator, deterministic b = A x, forward error.
#include <algorithm>
#include <vector>

#include "solvebench/cuda_errors.hpp"
#include "solvebench/cuda_owners.hpp"
#include "solvebench/device_known_solution.hpp"
#include "solvebench/precision.hpp"

namespace solvebench::cuda {
namespace {

constexpr int threads = 256;
constexpr std::int64_t col_chunk = 512;  // columns summed by one grid row of rhs_partial_kernel
constexpr unsigned max_error_blocks = 1024;

unsigned blocks_for(std::int64_t count) { return static_cast<unsigned>((count + threads - 1) / threads); }

template <class T>
__global__ void solution_kernel(T* x, std::int64_t n, std::int64_t nrhs, std::uint64_t key) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (std::int64_t c = blockIdx.y; c < nrhs; c += gridDim.y)
    x[c * n + i] = static_cast<T>(solution_entry(key, n, i, c));
}

// partial[chunk * n + i] = sum over the chunk's columns j, in order, of a_ij x_j.
template <class T>
__global__ void rhs_partial_kernel(const T* a, std::int64_t lda, const T* x, std::int64_t n, double* partial) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::int64_t j0 = static_cast<std::int64_t>(blockIdx.y) * col_chunk;
  const std::int64_t j1 = j0 + col_chunk < n ? j0 + col_chunk : n;
  double sum = 0;
  for (std::int64_t j = j0; j < j1; ++j) sum += static_cast<double>(a[j * lda + i]) * static_cast<double>(x[j]);
  partial[blockIdx.y * n + i] = sum;
}

// b_i = the chunks' partial sums added in chunk order, rounded once.
template <class T>
__global__ void rhs_reduce_kernel(const double* partial, std::int64_t chunks, std::int64_t n, T* b) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double sum = 0;
  for (std::int64_t c = 0; c < chunks; ++c) sum += partial[c * n + i];
  b[i] = static_cast<T>(sum);
}

__device__ double max_or_inf(double a, double b) {
  if (a != a || b != b) return __builtin_huge_val();
  return a > b ? a : b;
}

// Per block: max |x_hat - x| (NaN -> +Inf) and max |x| over a grid-stride of one column.
template <class T>
__global__ void error_norms_kernel(const T* x_hat, const T* x_true, std::int64_t n, double* block_norms) {
  __shared__ double diff_s[threads], norm_s[threads];
  double diff = 0, norm = 0;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const double xt = static_cast<double>(x_true[i]);
    diff = max_or_inf(diff, fabs(static_cast<double>(x_hat[i]) - xt));
    norm = max_or_inf(norm, fabs(xt));
  }
  diff_s[threadIdx.x] = diff;
  norm_s[threadIdx.x] = norm;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      diff_s[threadIdx.x] = max_or_inf(diff_s[threadIdx.x], diff_s[threadIdx.x + s]);
      norm_s[threadIdx.x] = max_or_inf(norm_s[threadIdx.x], norm_s[threadIdx.x + s]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    block_norms[2 * blockIdx.x] = diff_s[0];
    block_norms[2 * blockIdx.x + 1] = norm_s[0];
  }
}

}  // namespace

template <class T, real_only<T>>
void generate_known_solution(T* x, std::int64_t n, std::int64_t nrhs, std::uint64_t seed, cudaStream_t stream) {
  if (n <= 0 || nrhs <= 0) return;
  const dim3 grid(blocks_for(n), static_cast<unsigned>(std::min<std::int64_t>(nrhs, 65535)));
  solution_kernel<<<grid, threads, 0, stream>>>(x, n, nrhs, rng::solution_key(seed));
  SB_CUDA_CHECK(cudaGetLastError());
}

template <class T, real_only<T>>
void rhs_from_solution(const T* a, std::int64_t lda, const T* x, T* b, std::int64_t n, std::int64_t nrhs,
                       cudaStream_t stream) {
  if (n <= 0 || nrhs <= 0) return;
  const std::int64_t chunks = (n + col_chunk - 1) / col_chunk;
  device_buffer<double> partial(static_cast<std::size_t>(chunks * n));
  for (std::int64_t c = 0; c < nrhs; ++c) {
    rhs_partial_kernel<<<dim3(blocks_for(n), static_cast<unsigned>(chunks)), threads, 0, stream>>>(a, lda, x + c * n, n,
                                                                                                   partial.data());
    SB_CUDA_CHECK(cudaGetLastError());
    rhs_reduce_kernel<<<blocks_for(n), threads, 0, stream>>>(partial.data(), chunks, n, b + c * n);
    SB_CUDA_CHECK(cudaGetLastError());
  }
  // The scratch is freed on return: the kernels must be done with it.
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template <class T, real_only<T>>
double forward_error(const T* x_hat, const T* x_true, std::int64_t n, std::int64_t nrhs, cudaStream_t stream) {
  if (n <= 0 || nrhs <= 0) return 0.0;
  const unsigned blocks = std::min(blocks_for(n), max_error_blocks);
  device_buffer<double> d_norms(2 * static_cast<std::size_t>(blocks));
  std::vector<double> norms(d_norms.size());
  double worst = 0;
  for (std::int64_t c = 0; c < nrhs; ++c) {
    error_norms_kernel<<<blocks, threads, 0, stream>>>(x_hat + c * n, x_true + c * n, n, d_norms.data());
    SB_CUDA_CHECK(cudaGetLastError());
    SB_CUDA_CHECK(cudaMemcpyAsync(norms.data(), d_norms.data(), d_norms.size_bytes(), cudaMemcpyDeviceToHost, stream));
    SB_CUDA_CHECK(cudaStreamSynchronize(stream));
    double diff = 0, norm = 0;
    for (unsigned k = 0; k < blocks; ++k) {
      diff = std::max(diff, norms[2 * k]);  // the kernel already turned NaN into +Inf
      norm = std::max(norm, norms[2 * k + 1]);
    }
    worst = std::max(worst, forward_error_from_norms(diff, norm));
  }
  return worst;
}

#define SB_INSTANTIATE(T)                                                                                          \
  template void generate_known_solution(T*, std::int64_t, std::int64_t, std::uint64_t, cudaStream_t);              \
  template void rhs_from_solution(const T*, std::int64_t, const T*, T*, std::int64_t, std::int64_t, cudaStream_t); \
  template double forward_error(const T*, const T*, std::int64_t, std::int64_t, cudaStream_t);
SOLVE_BENCH_FOR_EACH_REAL_PRECISION(SB_INSTANTIATE)
#undef SB_INSTANTIATE

}  // namespace solvebench::cuda
