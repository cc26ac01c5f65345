// What the batched rows of every backend share: names, matrix kinds, flops, counters, and
// the host-side per-system residual.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "operations.hpp"
#include "solvebench/flops.hpp"
#include "solvebench/generate.hpp"

namespace solvebench::bench {

// "GPU/dgesv_batched/n:32/batch:10000"
template <class T>
std::string batch_row_name(const std::string& backend, bool cholesky, std::int64_t n, std::int64_t count) {
  return backend + "/" + precision_letter<T>() + (cholesky ? "posv" : "gesv") + "_batched/n:" + std::to_string(n) +
         "/batch:" + std::to_string(count);
}

// System s of a batch is generated with seed + s: LU rows take uniform systems, Cholesky
// rows spd ones.
inline matrix_kind batch_kind(bool cholesky) { return cholesky ? matrix_kind::spd : matrix_kind::uniform; }

inline double batch_flops(bool cholesky, std::int64_t n, std::int64_t count) {
  const auto dn = static_cast<double>(n);
  return static_cast<double>(count) * (cholesky ? posv_flops(dn, 1) : gesv_flops(dn, 1));
}

inline void add_batch_counters(benchmark::State& state, std::int64_t n, std::int64_t count,
                               std::int64_t worst_index) {
  state.counters["n"] = static_cast<double>(n);
  state.counters["batch"] = static_cast<double>(count);
  state.counters["systems/s"] =
      benchmark::Counter(static_cast<double>(count), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["worst_system"] = static_cast<double>(worst_index);
}

struct worst_system {
  double resid = 0;
  std::int64_t index = 0;
};

// Worst HPL scaled residual over a strided batch on the host (A stride n*n, x and b stride n).
template <class T>
worst_system batch_worst_residual(const T* a, const T* x, const T* b, std::int64_t n, std::int64_t count);

}  // namespace solvebench::bench
