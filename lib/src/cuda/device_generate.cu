// Device-side generators: one thread per entry, the same entry functions as the host.
#include "device_scalar.hpp"
#include "solvebench/cuda_errors.hpp"
#include "solvebench/device_code.hpp"
#include "solvebench/device_generate.hpp"
#include "solvebench/precision.hpp"

namespace solvebench::cuda {
namespace {

constexpr int threads = 256;
constexpr std::int64_t max_grid_y = 65535;

unsigned grid_for(std::int64_t count) { return static_cast<unsigned>((count + threads - 1) / threads); }

// S is the stored type (detail::device_t<T>: T itself, or a pair of reals for complex T).
template <class S>
__global__ void matrix_columns_kernel(S* a, std::int64_t lda, matrix_kind kind, std::uint64_t key, std::int64_t n,
                                      std::int64_t first_col, std::int64_t cols) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (std::int64_t c = blockIdx.y; c < cols; c += gridDim.y)
    a[c * lda + i] = detail::matrix_entry_as<S>(kind, key, n, i, first_col + c);
}

template <class S>
__global__ void rhs_kernel(S* b, std::int64_t ldb, std::int64_t n, std::int64_t first_col, std::int64_t cols,
                           std::uint64_t key) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (std::int64_t c = blockIdx.y; c < cols; c += gridDim.y)
    b[c * ldb + i] = detail::rhs_entry_as<S>(key, n, i, first_col + c);
}

// One grid row per system: entries k = j*n + i of system s with seed + s.
template <class T>
__global__ void matrix_batch_kernel(T* a, matrix_kind kind, std::int64_t n, std::int64_t count, std::uint64_t seed) {
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= n * n) return;
  for (std::int64_t s = blockIdx.y; s < count; s += gridDim.y)
    a[s * n * n + k] =
        static_cast<T>(matrix_entry(kind, rng::matrix_key(seed + static_cast<std::uint64_t>(s)), n, k % n, k / n));
}

template <class T>
__global__ void rhs_batch_kernel(T* b, std::int64_t n, std::int64_t count, std::uint64_t seed) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (std::int64_t s = blockIdx.y; s < count; s += gridDim.y)
    b[s * n + i] = static_cast<T>(rhs_entry(rng::rhs_key(seed + static_cast<std::uint64_t>(s)), n, i, 0));
}

// One thread per row, a tile of columns per block: the tile's column vectors are computed once
// into shared memory, the row's once per thread, and each entry is then O(k).
constexpr int conditioned_tile = 32;

template <class T>
__global__ void conditioned_columns_kernel(T* a, std::int64_t lda, conditioned_spec spec, std::int64_t first_col,
                                           std::int64_t cols) {
  __shared__ conditioned_column tile[conditioned_tile];
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool active = i < spec.n;  // no early return: every thread reaches the barriers
  const conditioned_row row = conditioned_row_of(spec, active ? i : 0);
  for (std::int64_t c0 = static_cast<std::int64_t>(blockIdx.y) * conditioned_tile; c0 < cols;
       c0 += static_cast<std::int64_t>(gridDim.y) * conditioned_tile) {
    const std::int64_t width = cols - c0 < conditioned_tile ? cols - c0 : conditioned_tile;
    if (threadIdx.x < width) tile[threadIdx.x] = conditioned_column_of(spec, first_col + c0 + threadIdx.x);
    __syncthreads();
    if (active)
      for (std::int64_t c = 0; c < width; ++c)
        a[(c0 + c) * lda + i] = static_cast<T>(conditioned_entry(row, tile[c], i == first_col + c0 + c));
    __syncthreads();
  }
}

dim3 grid2d(std::int64_t x_count, std::int64_t y_count) {
  return dim3(grid_for(x_count), static_cast<unsigned>(y_count < max_grid_y ? y_count : max_grid_y));
}

}  // namespace

template <class T>
void generate_matrix_columns(T* a, std::int64_t lda, matrix_kind kind, std::uint64_t seed, std::int64_t n,
                             std::int64_t first_col, std::int64_t cols, cudaStream_t stream) {
  if (cols <= 0) return;
  matrix_columns_kernel<<<grid2d(n, cols), threads, 0, stream>>>(detail::device_ptr(a), lda, kind,
                                                                 rng::matrix_key(seed), n, first_col, cols);
  SB_CUDA_CHECK(cudaGetLastError());
}

template <class T, real_only<T>>
void generate_conditioned_columns(T* a, std::int64_t lda, const conditioned_spec& spec, std::int64_t first_col,
                                  std::int64_t cols, cudaStream_t stream) {
  if (cols <= 0) return;
  const std::int64_t tiles = (cols + conditioned_tile - 1) / conditioned_tile;
  conditioned_columns_kernel<<<grid2d(spec.n, tiles), threads, 0, stream>>>(a, lda, spec, first_col, cols);
  SB_CUDA_CHECK(cudaGetLastError());
}

template <class T>
void generate_rhs(T* b, std::int64_t n, std::int64_t nrhs, std::uint64_t seed, cudaStream_t stream) {
  generate_rhs_columns(b, n, seed, n, 0, nrhs, stream);
}

template <class T>
void generate_rhs_columns(T* b, std::int64_t ldb, std::uint64_t seed, std::int64_t n, std::int64_t first_col,
                          std::int64_t cols, cudaStream_t stream) {
  if (cols <= 0) return;
  rhs_kernel<<<grid2d(n, cols), threads, 0, stream>>>(detail::device_ptr(b), ldb, n, first_col, cols,
                                                      rng::rhs_key(seed));
  SB_CUDA_CHECK(cudaGetLastError());
}

template <class T, real_only<T>>
void generate_matrix_batch(T* a, matrix_kind kind, std::int64_t n, std::int64_t count, std::uint64_t seed,
                           cudaStream_t stream) {
  matrix_batch_kernel<<<grid2d(n * n, count), threads, 0, stream>>>(a, kind, n, count, seed);
  SB_CUDA_CHECK(cudaGetLastError());
}

template <class T, real_only<T>>
void generate_rhs_batch(T* b, std::int64_t n, std::int64_t count, std::uint64_t seed, cudaStream_t stream) {
  rhs_batch_kernel<<<grid2d(n, count), threads, 0, stream>>>(b, n, count, seed);
  SB_CUDA_CHECK(cudaGetLastError());
}

#define SB_INSTANTIATE(T)                                                                                         \
  template void generate_matrix_columns(T*, std::int64_t, matrix_kind, std::uint64_t, std::int64_t, std::int64_t, \
                                        std::int64_t, cudaStream_t);                                              \
  template void generate_rhs(T*, std::int64_t, std::int64_t, std::uint64_t, cudaStream_t);                        \
  template void generate_rhs_columns(T*, std::int64_t, std::uint64_t, std::int64_t, std::int64_t, std::int64_t,   \
                                     cudaStream_t);
#define SB_INSTANTIATE_REAL(T)                                                                                      \
  template void generate_conditioned_columns(T*, std::int64_t, const conditioned_spec&, std::int64_t, std::int64_t, \
                                             cudaStream_t);                                                         \
  template void generate_matrix_batch(T*, matrix_kind, std::int64_t, std::int64_t, std::uint64_t, cudaStream_t);    \
  template void generate_rhs_batch(T*, std::int64_t, std::int64_t, std::uint64_t, cudaStream_t);
SOLVE_BENCH_FOR_EACH_PRECISION(SB_INSTANTIATE)
SOLVE_BENCH_FOR_EACH_REAL_PRECISION(SB_INSTANTIATE_REAL)
#undef SB_INSTANTIATE
#undef SB_INSTANTIATE_REAL

const void* detail::a_generator_kernel() noexcept { return reinterpret_cast<const void*>(&rhs_kernel<double>); }

}  // namespace solvebench::cuda
