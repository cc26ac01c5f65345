// The HPL scaled residual of solves whose matrices live on the GPU, accumulated in double on
// the device: only vectors of length n come back to the host, never A.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "solvebench/generate.hpp"

namespace solvebench::cuda {

// Worst column of B - A X (A n x n with leading dimension n, X and B n x nrhs, all on the
// device, A the original matrix) as an HPL scaled residual with eps = unit roundoff of T.
template <class T>
double hpl_scaled_residual(const T* a, const T* x, const T* b, std::int64_t n, std::int64_t nrhs,
                           cudaStream_t stream);

// Freivalds-style check of C = A B (all n x n on the device): the device twin of
// gemm_scaled_residual() in residual.hpp.
template <class T>
double gemm_scaled_residual(const T* a, const T* b, const T* c, std::int64_t n, cudaStream_t stream);

// Building blocks for matrices spread over several GPUs or never stored whole: over columns
// [first_col, first_col + cols), ax[i] += sum_j a_ij x_j and abs_rows[i] += sum_j |a_ij|.
// `x` holds the full length-n vector (double) on this device; `ax`, `abs_rows` are n doubles.
template <class T>
void accumulate_ax(const T* a_cols, std::int64_t lda, std::int64_t n, std::int64_t first_col, std::int64_t cols,
                   const double* x, double* ax, double* abs_rows, cudaStream_t stream);
// The same with A's entries regenerated from (kind, seed) instead of read from memory, each
// rounded to T first: the entries of the matrix that was actually stored and solved.
template <class T>
void accumulate_ax_generated(matrix_kind kind, std::uint64_t seed, std::int64_t n, std::int64_t first_col,
                             std::int64_t cols, const double* x, double* ax, double* abs_rows, cudaStream_t stream);

// Per-system HPL scaled residuals of a batch stored with stride n*n (A) and n (x, b):
// the worst over the batch and the index of the worst system.
struct batch_residual {
  double worst;
  std::int64_t worst_index;
};
template <class T>
batch_residual batched_hpl_scaled_residual(const T* a, const T* x, const T* b, std::int64_t n, std::int64_t count,
                                           cudaStream_t stream);

}  // namespace solvebench::cuda
