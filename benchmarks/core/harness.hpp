// What every row shares: its backend's hooks, the round it belongs to (the sampling policy of a
// round: core/sampler.hpp); the session (core/session.hpp) registers rows and runs them.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/row_id.hpp"
#include "core/fixture.hpp"
#include "core/sampler.hpp"
#include "solvebench/row_monitor.hpp"

namespace solvebench::bench {

using fixture_factory = std::function<std::unique_ptr<row_fixture>()>;

// What a backend adds around each of its rows: the hardware probe read around the timed
// loop (energy; on the GPU also clocks, throttling, other processes), and for the GPU the
// health of the CUDA context (refuse once it is broken, mark it broken after a row broke it).
class row_backend {
 public:
  explicit row_backend(std::string name, std::unique_ptr<row_monitor> monitor = nullptr)
      : name_(std::move(name)), monitor_(std::move(monitor)) {}
  virtual ~row_backend() = default;
  // Non-empty: the row cannot run in this process; it is deferred to a fresh one (driver.hpp).
  virtual std::string unusable() const { return ""; }
  // Around a row's round: before its fixture is built, after it is freed; `failure`: the
  // row's error when it failed ("" otherwise).
  virtual void before(const std::string& /*row*/) {}
  virtual void after(bool /*ok*/, const std::string& /*failure*/) {}
  // After the run: reasons to exit 1 (a GPU row's leaked device memory).
  virtual std::vector<std::string> problems() const { return {}; }
  // The line that says, once per run, what its probe could not read (`reason`) and so what the
  // rows lack.
  virtual std::string missing_text(const std::string& reason) const { return name_ + ": not measured: " + reason; }
  const std::string& name() const noexcept { return name_; }
  row_monitor* monitor() const noexcept { return monitor_.get(); }
  // Facts every row of this backend carries as fields of its own in each entry (a CPU library's
  // blas_vendor, blas_library, blas_threads ...): which library timed it, in the row itself.
  void set_row_fields(nlohmann::ordered_json fields) { row_fields_ = std::move(fields); }
  const nlohmann::ordered_json& row_fields() const noexcept { return row_fields_; }

 private:
  std::string name_;  // "CPU rows", "GPU rows": how the run names them when a probe is missing
  std::unique_ptr<row_monitor> monitor_;
  nlohmann::ordered_json row_fields_ = nlohmann::ordered_json::object();
};

// The round Google Benchmark runs now: its rows' entries carry these as counters (round and
// process per repetition; rounds and processes, what the run plans, per row).
struct round_slot {
  int process = 0;    // 0-based: which of the run's processes this is
  int round = 0;      // 0-based within this process
  int rounds = 1;     // planned per row and process
  int processes = 1;  // planned
};

// What the reporters need about a row's round: the samples it took, in call order.
struct row_samples {
  std::vector<double> ms;  // every timed call, in milliseconds (at most 256, evenly subsampled)
  double restore_pct = 0;  // share of the sampling loop's wall time outside the timed region
};

// The CPU rows' backend: RAPL energy and the other processes' load around each row.
std::unique_ptr<row_backend> make_cpu_rows_backend();

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace solvebench::bench
