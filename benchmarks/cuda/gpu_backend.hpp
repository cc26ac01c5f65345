// What the GPU rows share, owned by the run's session: one CUDA context (stream + handles, made
// once so handle creation never lands in a row), the health of that context, and the
// device-memory watch around each row.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/harness.hpp"
#include "solvebench/cusolver.hpp"

namespace solvebench::bench::gpu {

// Every GPU row runs through this: once a row has left the CUDA context unusable (a sticky
// error such as an illegal address), later GPU rows are deferred to a fresh process (driver.hpp).
// Around each row it watches device memory: after the row's fixture is freed it compares free
// device memory with what it saw before the fixture was built, and records a leak when some
// did not come back. Only from a row's second round in a process on: the first loads the
// kernels it uses (CUDA loads modules lazily), and those stay resident. Runs with --rounds=2
// build every row's fixture twice; test/bench_smoke.py's `memory` case does that.
class backend final : public row_backend {
 public:
  backend() : row_backend("GPU rows", make_gpu_row_monitor(0)) {}
  cuda::context& context();  // made on the first call
  std::string unusable() const override { return unusable_; }
  void before(const std::string& row) override;
  void after(bool ok, const std::string& failure) override;
  std::vector<std::string> problems() const override;  // the leaks, one a row

 private:
  std::unique_ptr<cuda::context> context_;
  std::string unusable_;
  std::set<std::string> built_;  // rows whose fixture this process has built
  std::string watched_;          // the row whose memory is watched now ("" none)
  std::uint64_t free_at_start_ = 0;
  std::vector<std::string> leaks_;
};

// Test builds only (solve_bench_fault_injection): when SOLVE_BENCH_INJECT_FAULT names part of
// this row's name, launches a kernel that writes to an illegal address, leaving a sticky
// error behind. A no-op in the shipped binary (fault_none.cpp).
void inject_fault_if_requested(const std::string& row);

}  // namespace solvebench::bench::gpu
