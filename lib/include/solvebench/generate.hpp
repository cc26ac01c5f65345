// Deterministic test matrices: the same (kind, seed, n) gives the same matrix on every backend.
//
// Entries come from a counter-based generator: entry k of a stream is the k-th output of
// splitmix64 seeded with the stream's key, so any entry can be computed on its own, in any
// order, on the host (OpenMP), on a GPU, on each GPU of a multi-GPU layout or on each MPI
// rank from global indices. The distribution is numpy.random.rand's (uniform on [0,1), 53
// random bits); the stream is not numpy's.
//
// Kinds (A is n x n, column-major, entry (i, j) 0-based):
//   uniform   a_ij = u_ij in [0,1). What people benchmark (numpy.random.rand); cond ~ O(n).
//   diagdom   a_ij = u_ij off the diagonal, a_ii = n: strictly diagonally dominant by rows
//             and columns (off-diagonal row sums < n - 1), general (not symmetric). cond ~ 1.5.
//   spd       a_ij = a_ji = u_min(i,j),max(i,j) off the diagonal, a_ii = n: symmetric and
//             strictly diagonally dominant with a positive diagonal, hence SPD (Gershgorin
//             bounds the spectrum to [1, 2n - 1]). The mean of the off-diagonal part adds
//             ~n/2 along the ones vector and its random part has spectral radius ~0.58 sqrt(n),
//             so cond_2 ~ 1.5 n / (n - 0.58 sqrt(n)) ~ 1.5; the tests check cond_1 < 3 with
//             LAPACK's ?pocon. A cheap O(n^2), well-conditioned SPD matrix, unlike the
//             A A^T + 1e-3 I that users reach for (cond ~ 1e3 n^2 or worse, O(n^3) to make).
//   singular  uniform with column floor(n/2) set to zero: LU meets an exactly zero pivot at
//             floor(n/2) + 1 (1-based) whatever the blocking or the order of updates. For
//             testing the error path.
//   nan       uniform with a NaN at (floor(n/2), floor(n/2)): bad input, for testing that it
//             is refused by name (CPU rows) or caught by the residual check.
// Right-hand sides b (n x nrhs) are uniform on [0,1) from a separate stream of the same seed.
//
// Complex matrices (std::complex<float|double>): the real part of entry (i, j) is the real
// generator's entry, from the same stream at the same index (but for the diagonal of diagdom
// and spd, 2n here); the imaginary part is the same index of a second stream, keyed
// rng::imag_key(key). So Re(A) of a complex uniform matrix is the real uniform matrix of the
// seed, and both parts are numpy.random.rand-like.
//   uniform   a_ij = u_ij + i v_ij, both parts in [0,1).
//   diagdom   off the diagonal as uniform, a_ii = 2n (real): |a_ij| < sqrt(2), so the
//             off-diagonal row and column sums of moduli are < sqrt(2) (n - 1) < 2n. (With
//             the real kinds' n they are ~0.77 n on average but not bounded below n.)
//   spd       Hermitian positive definite: a_ij = u + i v for i > j, a_ji = conj(a_ij) (u, v
//             taken at the lower entry's index as the real spd takes u), a_ii = 2n (real):
//             Hermitian and strictly diagonally dominant in modulus with a positive diagonal,
//             hence HPD, its spectrum within Gershgorin's [2n - sqrt(2)(n-1), 2n + sqrt(2)(n-1)]
//             (cond_2 < 6 for every n; cond_1 ~ 1.9 measured with ?pocon, the tests check < 3).
//   singular  uniform with column floor(n/2) set to 0 + 0i.
//   nan       uniform with NaN + NaN i at (floor(n/2), floor(n/2)).
// Complex right-hand sides: the real one plus i times the same index of rng::imag_key(rhs key).
#pragma once

#include <cstdint>
#include <string>

#include "solvebench/host_device.hpp"
#include "solvebench/matrix.hpp"

namespace solvebench {

enum class matrix_kind { uniform, diagdom, spd, singular, nan };

const char* to_string(matrix_kind kind) noexcept;
// Throws invalid_argument naming the accepted values.
matrix_kind parse_matrix_kind(const std::string& text);

inline constexpr std::uint64_t default_seed = 20261130;

namespace rng {

SB_HOST_DEVICE inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Output number `index` of splitmix64 started at state `key`, as a double in [0, 1).
SB_HOST_DEVICE inline double uniform01(std::uint64_t key, std::uint64_t index) {
  const std::uint64_t z = mix64(key + (index + 1) * 0x9e3779b97f4a7c15ULL);
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

SB_HOST_DEVICE inline std::uint64_t matrix_key(std::uint64_t seed) { return mix64(seed ^ 0x4d415452495841ULL); }
SB_HOST_DEVICE inline std::uint64_t rhs_key(std::uint64_t seed) { return mix64(seed ^ 0x5248534252485342ULL); }
// The stream of imaginary parts that goes with stream `key` (complex matrices only).
SB_HOST_DEVICE inline std::uint64_t imag_key(std::uint64_t key) { return mix64(key ^ 0x494D4147494E4152ULL); }

}  // namespace rng

// Entry (i, j) of the n x n matrix of `kind` whose stream key is `key` (rng::matrix_key(seed)).
SB_HOST_DEVICE inline double matrix_entry(matrix_kind kind, std::uint64_t key, std::int64_t n, std::int64_t i,
                                          std::int64_t j) {
  const auto un = static_cast<std::uint64_t>(n);
  if (kind == matrix_kind::spd) {
    if (i == j) return static_cast<double>(n);
    const auto lo = static_cast<std::uint64_t>(i < j ? i : j);
    const auto hi = static_cast<std::uint64_t>(i < j ? j : i);
    return rng::uniform01(key, hi * un + lo);
  }
  if (kind == matrix_kind::diagdom && i == j) return static_cast<double>(n);
  if (kind == matrix_kind::singular && j == n / 2) return 0.0;
  if (kind == matrix_kind::nan && i == n / 2 && j == n / 2) return __builtin_nan("");
  return rng::uniform01(key, static_cast<std::uint64_t>(j) * un + static_cast<std::uint64_t>(i));
}

// Entry (i, j) of an n-row right-hand side with stream key rng::rhs_key(seed).
SB_HOST_DEVICE inline double rhs_entry(std::uint64_t key, std::int64_t n, std::int64_t i, std::int64_t j) {
  return rng::uniform01(key,
                        static_cast<std::uint64_t>(j) * static_cast<std::uint64_t>(n) + static_cast<std::uint64_t>(i));
}

// A complex entry as two doubles: a plain struct, so host and device code share it
// (std::complex has no device functions). Rounded to std::complex<R> part by part.
struct complex_entry {
  double re, im;
};

// Entry (i, j) of the complex n x n matrix of `kind` with stream key `key` (see above).
SB_HOST_DEVICE inline complex_entry complex_matrix_entry(matrix_kind kind, std::uint64_t key, std::int64_t n,
                                                         std::int64_t i, std::int64_t j) {
  if (i == j && (kind == matrix_kind::diagdom || kind == matrix_kind::spd)) return {2.0 * static_cast<double>(n), 0.0};
  const double re = matrix_entry(kind, key, n, i, j);  // 0 in a singular column, NaN at a nan entry
  if (kind == matrix_kind::singular && j == n / 2) return {0.0, 0.0};
  if (kind == matrix_kind::nan && i == n / 2 && j == n / 2) return {re, re};
  const auto un = static_cast<std::uint64_t>(n);
  if (kind == matrix_kind::spd) {
    const auto lo = static_cast<std::uint64_t>(i < j ? i : j);
    const auto hi = static_cast<std::uint64_t>(i < j ? j : i);
    const double im = rng::uniform01(rng::imag_key(key), hi * un + lo);
    return {re, i > j ? im : -im};
  }
  return {re, rng::uniform01(rng::imag_key(key), static_cast<std::uint64_t>(j) * un + static_cast<std::uint64_t>(i))};
}

// Entry (i, j) of a complex n-row right-hand side with stream key rng::rhs_key(seed).
SB_HOST_DEVICE inline complex_entry complex_rhs_entry(std::uint64_t key, std::int64_t n, std::int64_t i,
                                                      std::int64_t j) {
  return {rhs_entry(key, n, i, j),
          rng::uniform01(rng::imag_key(key), static_cast<std::uint64_t>(j) * static_cast<std::uint64_t>(n) +
                                                 static_cast<std::uint64_t>(i))};
}

// Host generators (OpenMP over columns), for float, double, std::complex<float|double>.
template <class T>
host_matrix<T> generate_matrix(matrix_kind kind, std::int64_t n, std::uint64_t seed);
template <class T>
host_matrix<T> generate_rhs(std::int64_t n, std::int64_t nrhs, std::uint64_t seed);

// `count` matrices of order n stored one after another (stride n*n) into `a`, matrix s generated
// with seed + s, and their right-hand sides (stride n) into `b`: the host's twins of
// cuda::generate_matrix_batch and cuda::generate_rhs_batch, written in place by a team of
// threads (the first touch of `a`, no copy through a matrix of its own), real T only.
template <class T, real_only<T> = 0>
void generate_matrix_batch(T* a, matrix_kind kind, std::int64_t n, std::int64_t count, std::uint64_t seed);
template <class T, real_only<T> = 0>
void generate_rhs_batch(T* b, std::int64_t n, std::int64_t count, std::uint64_t seed);

}  // namespace solvebench
