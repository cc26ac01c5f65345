// Device-side residuals: A is read (or regenerated) once on the GPU, in double (a pair of
// doubles for complex T).
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "device_scalar.hpp"
#include "solvebench/cuda_errors.hpp"
#include "solvebench/cuda_owners.hpp"
#include "solvebench/device_code.hpp"
#include "solvebench/device_residual.hpp"
#include "solvebench/precision.hpp"
#include "solvebench/residual.hpp"

namespace solvebench::cuda {
namespace {

constexpr int threads = 256;
constexpr std::int64_t col_chunk = 256;  // columns per block: enough blocks to fill the GPU

using detail::complex_pair;
using detail::device_ptr;
using detail::device_t;

// Arithmetic on the widened entries: double, or a pair of doubles for complex T.
__device__ double widen(double v) { return v; }
__device__ double widen(float v) { return static_cast<double>(v); }
template <class R>
__device__ complex_pair<double> widen(complex_pair<R> v) {
  return {static_cast<double>(v.re), static_cast<double>(v.im)};
}
__device__ void add_product(double& sum, double a, double x) { sum += a * x; }
__device__ void add_product(complex_pair<double>& sum, complex_pair<double> a, complex_pair<double> x) {
  sum.re += a.re * x.re - a.im * x.im;
  sum.im += a.re * x.im + a.im * x.re;
}
__device__ double modulus(double a) { return fabs(a); }
__device__ double modulus(complex_pair<double> a) { return hypot(a.re, a.im); }
__device__ void atomic_add(double* p, double v) { atomicAdd(p, v); }
__device__ void atomic_add(complex_pair<double>* p, complex_pair<double> v) {
  atomicAdd(&p->re, v.re);
  atomicAdd(&p->im, v.im);
}

// Reads a stored column block, or regenerates entries, behind one interface (S: the stored type).
template <class S>
struct stored_columns {
  const S* a;
  std::int64_t lda;
  __device__ auto operator()(std::int64_t i, std::int64_t c) const { return widen(a[c * lda + i]); }
};
template <class S>
struct generated_columns {
  matrix_kind kind;
  std::uint64_t key;
  std::int64_t n, first_col;
  __device__ auto operator()(std::int64_t i, std::int64_t c) const {
    return widen(detail::matrix_entry_as<S>(kind, key, n, i, first_col + c));
  }
};

// W: double, or complex_pair<double>.
template <class Entries, class W>
__global__ void accumulate_ax_kernel(Entries entry, std::int64_t n, std::int64_t first_col, std::int64_t cols,
                                     const W* x, W* ax, double* abs_rows) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::int64_t c0 = static_cast<std::int64_t>(blockIdx.y) * col_chunk;
  const std::int64_t c1 = c0 + col_chunk < cols ? c0 + col_chunk : cols;
  W sum{};
  double abs_sum = 0;
  for (std::int64_t c = c0; c < c1; ++c) {
    const W aij = entry(i, c);
    add_product(sum, aij, x[first_col + c]);
    abs_sum += modulus(aij);
  }
  atomic_add(ax + i, sum);
  if (abs_rows) atomicAdd(abs_rows + i, abs_sum);
}

template <class Entries, class W>
void launch_accumulate(Entries entry, std::int64_t n, std::int64_t first_col, std::int64_t cols, const W* x, W* ax,
                       double* abs_rows, cudaStream_t stream) {
  if (cols <= 0) return;
  const dim3 grid(static_cast<unsigned>((n + threads - 1) / threads),
                  static_cast<unsigned>((cols + col_chunk - 1) / col_chunk));
  accumulate_ax_kernel<<<grid, threads, 0, stream>>>(entry, n, first_col, cols, x, ax, abs_rows);
  SB_CUDA_CHECK(cudaGetLastError());
}

template <class T>
using wide_t = typename precision<T>::wide;

template <class T>
std::vector<wide_t<T>> column_to_host(const T* d, std::int64_t n, std::int64_t col, cudaStream_t stream) {
  std::vector<T> h(static_cast<std::size_t>(n));
  SB_CUDA_CHECK(cudaMemcpyAsync(h.data(), d + col * n, h.size() * sizeof(T), cudaMemcpyDeviceToHost, stream));
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return std::vector<wide_t<T>>(h.begin(), h.end());
}

// Block-wide max of non-negative values (NaN propagates as +Inf via the caller's checks).
__device__ double block_max(double v, double* shared) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      const double o = shared[threadIdx.x + s];
      const double m = shared[threadIdx.x];
      shared[threadIdx.x] = (o > m || o != o) ? o : m;
    }
    __syncthreads();
  }
  const double r = shared[0];
  __syncthreads();
  return r;
}

// One block per system (grid-stride over systems); threads stride over rows.
template <class T>
__global__ void batched_residual_kernel(const T* a, const T* x, const T* b, std::int64_t n, std::int64_t count,
                                        double eps, double* resid) {
  __shared__ double shared[threads];
  for (std::int64_t s = blockIdx.x; s < count; s += gridDim.x) {
    const T* as = a + s * n * n;
    const T* xs = x + s * n;
    const T* bs = b + s * n;
    double r_max = 0, a_max = 0, x_max = 0, b_max = 0;
    for (std::int64_t i = threadIdx.x; i < n; i += blockDim.x) {
      double r = static_cast<double>(bs[i]), row = 0;
      for (std::int64_t j = 0; j < n; ++j) {
        const double aij = static_cast<double>(as[j * n + i]);
        r -= aij * static_cast<double>(xs[j]);
        row += fabs(aij);
      }
      r = fabs(r);
      r_max = (r > r_max || r != r) ? r : r_max;
      a_max = row > a_max ? row : a_max;
      const double xi = fabs(static_cast<double>(xs[i])), bi = fabs(static_cast<double>(bs[i]));
      x_max = (xi > x_max || xi != xi) ? xi : x_max;
      b_max = bi > b_max ? bi : b_max;
    }
    r_max = block_max(r_max, shared);
    a_max = block_max(a_max, shared);
    x_max = block_max(x_max, shared);
    b_max = block_max(b_max, shared);
    if (threadIdx.x == 0) resid[s] = solvebench::hpl_scaled_residual(r_max, a_max, x_max, b_max, n, eps);
  }
}

}  // namespace

template <class T>
void accumulate_ax(const T* a_cols, std::int64_t lda, std::int64_t n, std::int64_t first_col, std::int64_t cols,
                   const wide_t<T>* x, wide_t<T>* ax, double* abs_rows, cudaStream_t stream) {
  launch_accumulate(stored_columns<device_t<T>>{device_ptr(a_cols), lda}, n, first_col, cols, device_ptr(x),
                    device_ptr(ax), abs_rows, stream);
}

template <class T>
void accumulate_ax_generated(matrix_kind kind, std::uint64_t seed, std::int64_t n, std::int64_t first_col,
                             std::int64_t cols, const wide_t<T>* x, wide_t<T>* ax, double* abs_rows,
                             cudaStream_t stream) {
  launch_accumulate(generated_columns<device_t<T>>{kind, rng::matrix_key(seed), n, first_col}, n, first_col, cols,
                    device_ptr(x), device_ptr(ax), abs_rows, stream);
}

namespace {

// The worst column's HPL scaled residual, A X accumulated on the device by `accumulate` (from
// stored or regenerated entries), B's column j given by `b_column`; only vectors of length n
// cross to the host.
template <class T, class Accumulate, class BColumn>
double worst_column_residual(const T* x, std::int64_t n, std::int64_t nrhs, cudaStream_t stream,
                             Accumulate&& accumulate, BColumn&& b_column) {
  using W = wide_t<T>;
  const auto un = static_cast<std::size_t>(n);
  device_buffer<W> d_x(un), d_ax(un);
  device_buffer<double> d_abs(un);
  std::vector<W> ax(un);
  std::vector<double> abs_rows(un);
  double worst = 0;
  for (std::int64_t col = 0; col < nrhs; ++col) {
    const std::vector<W> xc = column_to_host(x, n, col, stream), bc = b_column(col);
    SB_CUDA_CHECK(cudaMemcpyAsync(d_x.data(), xc.data(), un * sizeof(W), cudaMemcpyHostToDevice, stream));
    SB_CUDA_CHECK(cudaMemsetAsync(d_ax.data(), 0, un * sizeof(W), stream));
    if (col == 0) SB_CUDA_CHECK(cudaMemsetAsync(d_abs.data(), 0, un * sizeof(double), stream));
    accumulate(d_x.data(), d_ax.data(), col == 0 ? d_abs.data() : nullptr);
    SB_CUDA_CHECK(cudaMemcpyAsync(ax.data(), d_ax.data(), un * sizeof(W), cudaMemcpyDeviceToHost, stream));
    if (col == 0)
      SB_CUDA_CHECK(
          cudaMemcpyAsync(abs_rows.data(), d_abs.data(), un * sizeof(double), cudaMemcpyDeviceToHost, stream));
    SB_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (std::size_t i = 0; i < un; ++i) ax[i] = bc[i] - ax[i];
    const double r = solvebench::hpl_scaled_residual(inf_norm(ax), inf_norm(abs_rows), inf_norm(xc), inf_norm(bc), n,
                                                     unit_roundoff<T>());
    if (!(r <= worst)) worst = r;
  }
  return worst;
}

}  // namespace

template <class T>
double hpl_scaled_residual(const T* a, const T* x, const T* b, std::int64_t n, std::int64_t nrhs, cudaStream_t stream) {
  return worst_column_residual(
      x, n, nrhs, stream,
      [&](const wide_t<T>* dx, wide_t<T>* dax, double* dabs) { accumulate_ax(a, n, n, 0, n, dx, dax, dabs, stream); },
      [&](std::int64_t col) { return column_to_host(b, n, col, stream); });
}

template <class T>
double hpl_scaled_residual_generated(matrix_kind kind, std::uint64_t seed, const T* x, std::int64_t n,
                                     std::int64_t nrhs, cudaStream_t stream) {
  const host_matrix<T> b = generate_rhs<T>(n, nrhs, seed);
  return worst_column_residual(
      x, n, nrhs, stream,
      [&](const wide_t<T>* dx, wide_t<T>* dax, double* dabs) {
        accumulate_ax_generated<T>(kind, seed, n, 0, n, dx, dax, dabs, stream);
      },
      [&](std::int64_t col) {
        const T* c = b.data() + col * n;
        return std::vector<wide_t<T>>(c, c + n);
      });
}

template <class T>
double gemm_scaled_residual(const T* a, const T* b, const T* c, std::int64_t n, cudaStream_t stream) {
  using W = wide_t<T>;
  const auto un = static_cast<std::size_t>(n);
  std::vector<W> v(un);                                                               // real entries for complex T too
  for (std::size_t k = 0; k < un; ++k) v[k] = W(rng::uniform01(rng::rhs_key(7), k));  // as on the host
  device_buffer<W> d_v(un), d_bv(un), d_abv(un), d_cv(un);
  device_buffer<double> d_a_rows(un), d_b_rows(un);
  SB_CUDA_CHECK(cudaMemcpyAsync(d_v.data(), v.data(), un * sizeof(W), cudaMemcpyHostToDevice, stream));
  for (auto* d : {&d_bv, &d_abv, &d_cv}) SB_CUDA_CHECK(cudaMemsetAsync(d->data(), 0, un * sizeof(W), stream));
  for (auto* d : {&d_a_rows, &d_b_rows}) SB_CUDA_CHECK(cudaMemsetAsync(d->data(), 0, un * sizeof(double), stream));
  accumulate_ax(b, n, n, 0, n, d_v.data(), d_bv.data(), d_b_rows.data(), stream);
  accumulate_ax(a, n, n, 0, n, d_bv.data(), d_abv.data(), d_a_rows.data(), stream);
  accumulate_ax(c, n, n, 0, n, d_v.data(), d_cv.data(), nullptr, stream);
  std::vector<W> abv(un), cv(un);
  std::vector<double> a_rows(un), b_rows(un);
  for (const auto& [h, d] : {std::pair{&abv, &d_abv}, std::pair{&cv, &d_cv}})
    SB_CUDA_CHECK(cudaMemcpyAsync(h->data(), d->data(), un * sizeof(W), cudaMemcpyDeviceToHost, stream));
  for (const auto& [h, d] : {std::pair{&a_rows, &d_a_rows}, std::pair{&b_rows, &d_b_rows}})
    SB_CUDA_CHECK(cudaMemcpyAsync(h->data(), d->data(), un * sizeof(double), cudaMemcpyDeviceToHost, stream));
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  for (std::size_t i = 0; i < un; ++i) cv[i] -= abv[i];
  return solvebench::hpl_scaled_residual(inf_norm(cv), inf_norm(a_rows) * inf_norm(b_rows), inf_norm(v), 0.0, n,
                                         unit_roundoff<T>());
}

template <class T, real_only<T>>
batch_residual batched_hpl_scaled_residual(const T* a, const T* x, const T* b, std::int64_t n, std::int64_t count,
                                           cudaStream_t stream) {
  device_buffer<double> d_resid(static_cast<std::size_t>(count));
  const auto blocks = static_cast<unsigned>(count < 65535 ? count : 65535);
  batched_residual_kernel<<<blocks, threads, 0, stream>>>(a, x, b, n, count, unit_roundoff<T>(), d_resid.data());
  SB_CUDA_CHECK(cudaGetLastError());
  std::vector<double> resid(static_cast<std::size_t>(count));
  SB_CUDA_CHECK(
      cudaMemcpyAsync(resid.data(), d_resid.data(), resid.size() * sizeof(double), cudaMemcpyDeviceToHost, stream));
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  batch_residual out{0.0, 0};
  for (std::size_t s = 0; s < resid.size(); ++s)
    if (!(resid[s] <= out.worst)) out = {resid[s], static_cast<std::int64_t>(s)};
  return out;
}

#define SB_INSTANTIATE(T)                                                                                         \
  template void accumulate_ax(const T*, std::int64_t, std::int64_t, std::int64_t, std::int64_t, const wide_t<T>*, \
                              wide_t<T>*, double*, cudaStream_t);                                                 \
  template void accumulate_ax_generated<T>(matrix_kind, std::uint64_t, std::int64_t, std::int64_t, std::int64_t,  \
                                           const wide_t<T>*, wide_t<T>*, double*, cudaStream_t);                  \
  template double hpl_scaled_residual(const T*, const T*, const T*, std::int64_t, std::int64_t, cudaStream_t);    \
  template double hpl_scaled_residual_generated(matrix_kind, std::uint64_t, const T*, std::int64_t, std::int64_t, \
                                                cudaStream_t);                                                    \
  template double gemm_scaled_residual(const T*, const T*, const T*, std::int64_t, cudaStream_t);
SOLVE_BENCH_FOR_EACH_PRECISION(SB_INSTANTIATE)
#undef SB_INSTANTIATE
#define SB_INSTANTIATE(T)                                                                                       \
  template batch_residual batched_hpl_scaled_residual(const T*, const T*, const T*, std::int64_t, std::int64_t, \
                                                      cudaStream_t);
SOLVE_BENCH_FOR_EACH_REAL_PRECISION(SB_INSTANTIATE)
#undef SB_INSTANTIATE

const void* detail::a_residual_kernel() noexcept {
  return reinterpret_cast<const void*>(&batched_residual_kernel<double>);
}

}  // namespace solvebench::cuda
