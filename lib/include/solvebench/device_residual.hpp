// The HPL scaled residual of solves whose matrices live on the GPU, accumulated in double
// (std::complex<double> for complex T) on the device: only vectors of length n come back to
// the host, never A. T is float, double, std::complex<float> or std::complex<double>; the
// batched residual is real only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "solvebench/generate.hpp"
#include "solvebench/precision.hpp"

namespace solvebench::cuda {

// Worst column of B - A X (A n x n with leading dimension n, X and B n x nrhs, all on the
// device, A the original matrix) as an HPL scaled residual with eps = unit roundoff of T.
template <class T>
double hpl_scaled_residual(const T* a, const T* x, const T* b, std::int64_t n, std::int64_t nrhs, cudaStream_t stream);

// The same for A and B never stored whole: their entries regenerated from (kind, seed), each
// rounded to T first, as the generators wrote them (generate.hpp). A row that restores its
// inputs by regenerating them keeps no copy of A for its check.
template <class T>
double hpl_scaled_residual_generated(matrix_kind kind, std::uint64_t seed, const T* x, std::int64_t n,
                                     std::int64_t nrhs, cudaStream_t stream);

// Freivalds-style check of C = A B (all n x n on the device): the device twin of
// gemm_scaled_residual() in residual.hpp.
template <class T>
double gemm_scaled_residual(const T* a, const T* b, const T* c, std::int64_t n, cudaStream_t stream);

// Building blocks for matrices spread over several GPUs or never stored whole: over columns
// [first_col, first_col + cols), ax[i] += sum_j a_ij x_j and abs_rows[i] += sum_j |a_ij|.
// `x` holds the full length-n vector on this device and `ax` n entries, both in T's wide type
// (precision<T>::wide: double, or std::complex<double>); `abs_rows` is n doubles.
template <class T>
void accumulate_ax(const T* a_cols, std::int64_t lda, std::int64_t n, std::int64_t first_col, std::int64_t cols,
                   const typename precision<T>::wide* x, typename precision<T>::wide* ax, double* abs_rows,
                   cudaStream_t stream);
// The same with A's entries regenerated from (kind, seed) instead of read from memory, each
// rounded to T first: the entries of the matrix that was actually stored and solved.
template <class T>
void accumulate_ax_generated(matrix_kind kind, std::uint64_t seed, std::int64_t n, std::int64_t first_col,
                             std::int64_t cols, const typename precision<T>::wide* x, typename precision<T>::wide* ax,
                             double* abs_rows, cudaStream_t stream);

// Per-system HPL scaled residuals of a batch stored with stride n*n (A) and n (x, b):
// the worst over the batch and the index of the worst system.
struct batch_residual {
  double worst;
  std::int64_t worst_index;
};
template <class T, real_only<T> = 0>
batch_residual batched_hpl_scaled_residual(const T* a, const T* x, const T* b, std::int64_t n, std::int64_t count,
                                           cudaStream_t stream);

}  // namespace solvebench::cuda
