// The known solution of known_solution.hpp on the GPU: x generated in place, b = A x summed in
// double in a fixed order (the same b every run), and the forward error with only a short
// vector of block maxima coming back.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "solvebench/known_solution.hpp"

namespace solvebench::cuda {

// The n x nrhs known solution of generate_known_solution(): the same values, bit for bit.
// Real T only, as on the host.
template <class T, real_only<T> = 0>
void generate_known_solution(T* x, std::int64_t n, std::int64_t nrhs, std::uint64_t seed, cudaStream_t stream);

// B = A X (A n x n with leading dimension lda; X, B n x nrhs with leading dimension n), each
// entry accumulated in double and rounded once to T. Allocates a scratch of
// ceil(n / 512) * n doubles for the duration of the call (keep it out of timed regions).
template <class T, real_only<T> = 0>
void rhs_from_solution(const T* a, std::int64_t lda, const T* x, T* b, std::int64_t n, std::int64_t nrhs,
                       cudaStream_t stream);

// Worst column of ||x_hat - x_true||_inf / ||x_true||_inf (both n x nrhs on the device),
// +Inf if x_hat holds NaN or Inf. Synchronises the stream.
template <class T, real_only<T> = 0>
double forward_error(const T* x_hat, const T* x_true, std::int64_t n, std::int64_t nrhs, cudaStream_t stream);

}  // namespace solvebench::cuda
