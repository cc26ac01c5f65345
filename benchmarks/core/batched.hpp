// What the batched rows of every backend share: their counters and the host-side residual.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>

namespace solvebench::bench {

inline void add_batch_counters(benchmark::State& state, std::int64_t n, std::int64_t count, std::int64_t worst_index) {
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
