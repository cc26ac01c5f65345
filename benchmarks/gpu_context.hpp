// The process-wide GPU state the GPU rows share: one context (stream + handles), made
// once so handle creation never lands in a row, and the health of the CUDA context.
#pragma once

#include <memory>
#include <cstdint>
#include <string>
#include <vector>

#include "harness.hpp"
#include "options.hpp"
#include "solvebench/cusolver.hpp"

namespace solvebench::bench {

cuda::context& gpu_context();

// Set once a row hit a sticky CUDA error: the context is unusable, later GPU rows fail
// at once with this reason instead of running.
const std::string& gpu_unusable_reason();
void mark_gpu_unusable(const std::string& reason);

// Test builds only (SOLVE_BENCH_FAULT_INJECTION): when SOLVE_BENCH_INJECT_FAULT names part
// of this row's name, launches a kernel that writes to an illegal address, leaving a sticky
// error behind. A no-op in the shipped binary.
void inject_fault_if_requested(const std::string& row);

// First member of every GPU fixture: on destruction (after every other member has released
// its memory) it compares free device memory with what it saw at construction, and records
// a leak when some did not come back. Only from a row's second construction on: the first
// loads the kernels it uses (CUDA loads modules lazily), and those stay resident. Runs with
// --benchmark_repetitions=2 --benchmark_enable_random_interleaving=true build every row's
// fixture twice; test/bench_smoke.py's `memory` case does that.
class device_memory_watch {
 public:
  explicit device_memory_watch(std::string row);
  ~device_memory_watch();
  device_memory_watch(const device_memory_watch&) = delete;
  device_memory_watch& operator=(const device_memory_watch&) = delete;

 private:
  std::string row_;
  bool watched_;
  std::uint64_t free_at_start_;
};
const std::vector<std::string>& device_memory_leaks();

// run_row for GPU rows: refuses to start when the context is already unusable, and marks
// it unusable when this row left it broken.
template <class Fixture, class Make>
bool run_gpu_row(benchmark::State& state, const std::string& row, Make&& make) {
  if (!gpu_unusable_reason().empty()) {
    fail_row(state, row, "not run: " + gpu_unusable_reason());
    return false;
  }
  inject_fault_if_requested(row);
  const bool ok = run_row<Fixture>(state, row, [&] { return make(gpu_context()); });
  if (!ok && cuda::context_is_broken()) mark_gpu_unusable("an earlier GPU row (" + failed_rows().back() +
                                                          ") left the CUDA context unusable");
  return ok;
}

// Families registered by each GPU source.
void register_gpu_solve_rows(const options& opt);
void register_gpu_mixed_rows(const options& opt);
void register_gpu_batched_rows(const options& opt);

}  // namespace solvebench::bench
