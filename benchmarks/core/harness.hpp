// What every row shares: registration by id, the one live fixture, the sampling loop that
// times it (every call kept, noise from the row's own samples), failures and refusals.
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

#include "checks/row_id.hpp"
#include "core/fixture.hpp"
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
  virtual void before(const std::string& /*row*/) {}
  virtual void after(bool /*ok*/) {}
  const std::string& name() const noexcept { return name_; }
  row_monitor* monitor() const noexcept { return monitor_.get(); }

 private:
  std::string name_;  // "CPU rows", "GPU rows": how the run names them when a probe is missing
  std::unique_ptr<row_monitor> monitor_;
};
// The CPU rows' backend (RAPL energy, other processes' load).
row_backend& cpu_backend();

// How long a row samples: until it has at least min_samples calls and min_time seconds timed,
// and then until its noise is under max_noise_pct or it has max_time seconds; a row whose calls
// are long stops once it has long_cap seconds whatever its count. exact > 0: that many calls.
struct sampling {
  int min_samples = 6;
  double min_time = 0.25;
  double max_noise_pct = 1.0;
  double max_time = 1.0;
  double long_cap = 5.0;
  long long exact = 0;
};
sampling& sampling_policy();

// Registers one row (Google Benchmark appends /manual_time to its name). `backend` must
// outlive the run. Rows already finished (resume_from) are not registered.
void register_row(const row_id& id, fixture_factory make, row_backend* backend = nullptr);

// Rows finished by an earlier process (--resume): skipped at registration.
void set_finished_rows(std::set<std::string> names);
std::size_t rows_resumed();

// What the reporters need about a registered row: its id, and per Google Benchmark call (one
// per repetition) the samples it took, in call order.
struct row_samples {
  std::vector<double> ms;  // every timed call, in milliseconds
  double restore_pct = 0;  // share of the sampling loop's wall time outside the timed region
};
const row_id* registered_id(const std::string& name);  // name: the id's name, without /manual_time
std::optional<row_samples> take_samples(const std::string& name);
std::size_t registered_rows();
// The registered rows' names, in the order they were registered (Google Benchmark runs them so).
const std::vector<std::string>& registered_names();

// The registered row's body: builds (or reuses) its fixture, samples it, checks it, adds its
// counters. Typed errors become SkipWithError: failed rows (a wrong answer, a LAPACK error)
// and refused rows (too large for memory, beyond a library's limit) are both kept.
void run_row(benchmark::State& state, const std::string& row, const fixture_factory& make, row_backend* backend);

// Frees the live fixture (before the CUDA runtime or MPI goes away).
void release_fixtures() noexcept;

const std::vector<std::string>& failed_rows();
const std::vector<std::string>& skipped_rows();
// Rows a broken backend could not run in this process: they run in a fresh one.
const std::vector<std::string>& deferred_rows();
bool deferred(const std::string& name);
void fail_row(benchmark::State& state, const std::string& row, const std::string& message);
// A printer that could not write (the rows log on a full disk): the remaining rows do not run,
// and the run ends with this message instead of results.
void set_output_failure(const std::string& message);
const std::string& output_failure();

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace solvebench::bench
