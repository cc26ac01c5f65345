// Host side of the deterministic generators.
#include "solvebench/generate.hpp"

#include "parallel.hpp"
#include "solvebench/errors.hpp"
#include "solvebench/precision.hpp"
#include "tabulate.hpp"

namespace solvebench {

const char* to_string(matrix_kind kind) noexcept {
  switch (kind) {
    case matrix_kind::uniform: return "uniform";
    case matrix_kind::diagdom: return "diagdom";
    case matrix_kind::spd: return "spd";
    case matrix_kind::singular: return "singular";
    case matrix_kind::nan: return "nan";
  }
  return "?";
}

matrix_kind parse_matrix_kind(const std::string& text) {
  for (auto k : {matrix_kind::uniform, matrix_kind::diagdom, matrix_kind::spd, matrix_kind::singular, matrix_kind::nan})
    if (text == to_string(k)) return k;
  throw invalid_argument("unknown matrix kind '" + text + "' (expected uniform, diagdom, spd, singular or nan)");
}

template <class T>
host_matrix<T> generate_matrix(matrix_kind kind, std::int64_t n, std::uint64_t seed) {
  const std::uint64_t key = rng::matrix_key(seed);
  return tabulate<T>(n, n, [&](std::int64_t i, std::int64_t j) {
    if constexpr (is_complex_v<T>) return complex_matrix_entry(kind, key, n, i, j);
    else return matrix_entry(kind, key, n, i, j);
  });
}

template <class T>
host_matrix<T> generate_rhs(std::int64_t n, std::int64_t nrhs, std::uint64_t seed) {
  const std::uint64_t key = rng::rhs_key(seed);
  return tabulate<T>(n, nrhs, [&](std::int64_t i, std::int64_t j) {
    if constexpr (is_complex_v<T>) return complex_rhs_entry(key, n, i, j);
    else return rhs_entry(key, n, i, j);
  });
}

template <class T, real_only<T>>
void generate_matrix_batch(T* a, matrix_kind kind, std::int64_t n, std::int64_t count, std::uint64_t seed) {
  const std::int64_t nn = n * n;
#pragma omp parallel for schedule(static) if (worth_threads(nn * count))
  for (std::int64_t s = 0; s < count; ++s) {
    const std::uint64_t key = rng::matrix_key(seed + static_cast<std::uint64_t>(s));
    T* const system = a + s * nn;
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < n; ++i) system[j * n + i] = static_cast<T>(matrix_entry(kind, key, n, i, j));
  }
}

template <class T, real_only<T>>
void generate_rhs_batch(T* b, std::int64_t n, std::int64_t count, std::uint64_t seed) {
#pragma omp parallel for schedule(static) if (worth_threads(n * count))
  for (std::int64_t s = 0; s < count; ++s) {
    const std::uint64_t key = rng::rhs_key(seed + static_cast<std::uint64_t>(s));
    for (std::int64_t i = 0; i < n; ++i) b[s * n + i] = static_cast<T>(rhs_entry(key, n, i, 0));
  }
}

#define SB_INSTANTIATE(T)                                                            \
  template host_matrix<T> generate_matrix(matrix_kind, std::int64_t, std::uint64_t); \
  template host_matrix<T> generate_rhs(std::int64_t, std::int64_t, std::uint64_t);
SOLVE_BENCH_FOR_EACH_PRECISION(SB_INSTANTIATE)
#undef SB_INSTANTIATE
#define SB_INSTANTIATE(T)                                                                          \
  template void generate_matrix_batch(T*, matrix_kind, std::int64_t, std::int64_t, std::uint64_t); \
  template void generate_rhs_batch(T*, std::int64_t, std::int64_t, std::uint64_t);
SOLVE_BENCH_FOR_EACH_REAL_PRECISION(SB_INSTANTIATE)
#undef SB_INSTANTIATE

}  // namespace solvebench
