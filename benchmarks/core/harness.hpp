// What every row shares: registration by id, the one live fixture, the sampling loop that
// times one round of it (every call kept, the round's noise from its own samples), failures and
// refusals.
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
  // The line that says, once per run, what its probe could not read (`reason`) and so what the
  // rows lack.
  virtual std::string missing_text(const std::string& reason) const { return name_ + ": not measured: " + reason; }
  const std::string& name() const noexcept { return name_; }
  row_monitor* monitor() const noexcept { return monitor_.get(); }

 private:
  std::string name_;  // "CPU rows", "GPU rows": how the run names them when a probe is missing
  std::unique_ptr<row_monitor> monitor_;
};
// The CPU rows' backend (RAPL energy, other processes' load).
row_backend& cpu_backend();
// A re-executed process of a run: the probes' notes were said by the first.
void quiet_probe_notes();

// How long one round of a row samples: until it has min_samples calls and min_time seconds
// timed; then, where it has noise_samples calls or more, until its median is known to
// max_noise_pct or it has max_time seconds; exact > 0: exactly that many calls. A row's first call
// in a process is an untimed warm-up (and in later rounds too when a call takes less than
// min_time); a first call of long_cap seconds or more is its round's only sample. A row gets no
// further round in a process once its rounds there have taken round_budget seconds a round
// asked for (wall time: building, sampling and checking; core/rounds.hpp), so that a row of
// long calls or a costly problem is not run R times.
struct sampling {
  int min_samples = 1;
  double min_time = 0.05;
  int noise_samples = 6;  // the fewest calls whose median has a 95% interval (order statistics)
  double max_noise_pct = 1.0;
  double max_time = 0.2;
  double long_cap = 5.0;
  double round_budget = 1.0;
  long long exact = 0;
};
sampling& sampling_policy();

// Registers one row: kept, in order, for the rounds (core/rounds.hpp gives Google Benchmark one
// round's rows at a time; it appends /manual_time to the name). `backend` must outlive the run.
void register_row(const row_id& id, fixture_factory make, row_backend* backend = nullptr);

// The round Google Benchmark runs now: its rows' entries carry these as counters (round and
// process per repetition; rounds and processes, what the run plans, per row).
struct round_slot {
  int process = 0;    // 0-based: which of the run's processes this is
  int round = 0;      // 0-based within this process
  int rounds = 1;     // planned per row and process
  int processes = 1;  // planned
};
void set_round(const round_slot& slot);
const round_slot& current_round();

// Called as each row's round starts (the progress says which row runs); nullptr: none.
void set_row_start_hook(std::function<void(const std::string& row)> hook);

// Clears Google Benchmark's registrations and registers `names` (registered rows), in that order.
void register_with_gbench(const std::vector<std::string>& names);

// What the reporters need about a registered row: its id, and per Google Benchmark call (one
// per round) the samples it took, in call order.
struct row_samples {
  std::vector<double> ms;  // every timed call, in milliseconds (at most 256, evenly subsampled)
  double restore_pct = 0;  // share of the sampling loop's wall time outside the timed region
};
const row_id* registered_id(const std::string& name);  // name: the id's name, without /manual_time
std::optional<row_samples> take_samples(const std::string& name);
// The registered rows' names, in the order they were registered.
const std::vector<std::string>& registered_names();

// The registered row's body for one round: builds its fixture (allocated and generated anew),
// samples it, checks it, adds its counters, frees it. Typed errors become SkipWithError: failed
// rows (a wrong answer, a LAPACK error) and refused rows (too large for memory, beyond a
// library's limit) are both kept.
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
