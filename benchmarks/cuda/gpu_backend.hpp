// What the GPU rows share: one CUDA context (stream + handles, made once so handle creation
// never lands in a row), the health of that context, and the device-memory watch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/harness.hpp"
#include "solvebench/cusolver.hpp"

namespace solvebench::bench::gpu {

cuda::context& context();
void release_context();

// Every GPU row runs through this: once a row has left the CUDA context unusable (a sticky
// error such as an illegal address), later GPU rows are deferred to a fresh process (driver.hpp).
class backend final : public row_backend {
 public:
  backend() : row_backend("GPU rows", make_gpu_row_monitor(0)) {}
  std::string unusable() const override { return unusable_; }
  void before(const std::string& row) override;
  void after(bool ok) override;

 private:
  std::string unusable_;
};
backend& rows_backend();

// Test builds only (solve_bench_fault_injection): when SOLVE_BENCH_INJECT_FAULT names part of
// this row's name, launches a kernel that writes to an illegal address, leaving a sticky
// error behind. A no-op in the shipped binary (fault_none.cpp).
void inject_fault_if_requested(const std::string& row);

// First member of every GPU adapter: on destruction (after every other member has released
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

}  // namespace solvebench::bench::gpu
