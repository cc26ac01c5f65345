// The generators of generate.hpp run on the GPU: the same (kind, seed, n) gives, bit for
// bit, the matrix the host generator gives, without a host copy or a slow host fill.
// T is float, double, std::complex<float> or std::complex<double>, except where marked: the
// prescribed-condition matrices and the batches are real only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "solvebench/conditioned.hpp"
#include "solvebench/generate.hpp"

namespace solvebench::cuda {

// Columns [first_col, first_col + cols) of the global n x n matrix into `a` (leading
// dimension lda >= n): a whole matrix when first_col = 0 and cols = n, one device's share of
// a column-distributed matrix otherwise.
template <class T>
void generate_matrix_columns(T* a, std::int64_t lda, matrix_kind kind, std::uint64_t seed, std::int64_t n,
                             std::int64_t first_col, std::int64_t cols, cudaStream_t stream);

template <class T>
void generate_matrix(T* a, matrix_kind kind, std::int64_t n, std::uint64_t seed, cudaStream_t stream) {
  generate_matrix_columns(a, n, kind, seed, n, 0, n, stream);
}

// Columns [first_col, first_col + cols) of the prescribed-condition matrix of `spec`
// (conditioned.hpp) into `a` (lda >= spec.n); equal to the host generator up to rounding
// (the device contracts to FMA and has its own exp). One memory-bound pass. Real T only.
template <class T, real_only<T> = 0>
void generate_conditioned_columns(T* a, std::int64_t lda, const conditioned_spec& spec, std::int64_t first_col,
                                  std::int64_t cols, cudaStream_t stream);

template <class T, real_only<T> = 0>
void generate_conditioned(T* a, const conditioned_spec& spec, cudaStream_t stream) {
  generate_conditioned_columns(a, spec.n, spec, 0, spec.n, stream);
}

// The n x nrhs right-hand side of generate_rhs().
template <class T>
void generate_rhs(T* b, std::int64_t n, std::int64_t nrhs, std::uint64_t seed, cudaStream_t stream);
// Columns [first_col, first_col + cols) of that right-hand side into `b` (leading dimension
// ldb >= n): one device's share of a column-distributed B.
template <class T>
void generate_rhs_columns(T* b, std::int64_t ldb, std::uint64_t seed, std::int64_t n, std::int64_t first_col,
                          std::int64_t cols, cudaStream_t stream);

// `count` matrices of order n stored one after another (stride n*n), matrix s generated
// with seed + s: the batches of the batched solvers (real T only).
template <class T, real_only<T> = 0>
void generate_matrix_batch(T* a, matrix_kind kind, std::int64_t n, std::int64_t count, std::uint64_t seed,
                           cudaStream_t stream);
template <class T, real_only<T> = 0>
void generate_rhs_batch(T* b, std::int64_t n, std::int64_t count, std::uint64_t seed, cudaStream_t stream);

}  // namespace solvebench::cuda
