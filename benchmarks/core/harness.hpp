// What every row shares: registration, the one live fixture, failures, the rows log, and the
// reporter that shows the rows to a person and keeps them for the checks after the run.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/fixture.hpp"
#include "core/row.hpp"
#include "core/run_record.hpp"
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
  virtual std::string refusal() const { return ""; }  // non-empty: the row fails at once with this
  virtual void before(const std::string& /*row*/) {}
  virtual void after(bool /*ok*/) {}
  const std::string& name() const noexcept { return name_; }
  row_monitor* monitor() const noexcept { return monitor_.get(); }

 private:
  std::string name_;  // "CPU rows", "GPU rows": how the run names them when a probe is missing
  std::unique_ptr<row_monitor> monitor_;
};
// The CPU rows' backend (RAPL energy).
row_backend& cpu_backend();

// Registers one row under spec.name() (Google Benchmark appends /manual_time), timed
// manually in milliseconds. `backend` must outlive the run.
void register_row(const row_spec& spec, fixture_factory make, row_backend* backend = nullptr);

// The registered row's body: builds (or reuses) its fixture, times it, checks it, adds its
// counters. Typed errors become SkipWithError: failed rows (a wrong answer, a LAPACK error)
// and skipped rows (too large for host or device memory) are both kept for the summary.
void run_row(benchmark::State& state, const std::string& row, const fixture_factory& make, row_backend* backend);

// Frees the live fixture (before the CUDA runtime or MPI goes away).
void release_fixtures() noexcept;

const std::vector<std::string>& failed_rows();
const std::vector<std::string>& skipped_rows();
void fail_row(benchmark::State& state, const std::string& row, const std::string& message);

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Wraps the display reporter: shows each row in a unit that shows its digits and its rate as
// FLOP/s, appends every finished row, flushed, to a JSON-lines file (each line is
// {"benchmarks": [...]} in Google Benchmark's own JSON form, the first line also holds the
// context), so a sweep killed part-way keeps the rows it finished, and keeps the rows and
// the context as a run_summary for the checks after the run.
class row_log_reporter : public benchmark::BenchmarkReporter {
 public:
  row_log_reporter(std::unique_ptr<benchmark::BenchmarkReporter> display, const std::string& log_path);
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;
  const run_summary& summary() const noexcept { return summary_; }

 private:
  void append_line(std::string text);

  std::unique_ptr<benchmark::BenchmarkReporter> display_;
  benchmark::JSONReporter json_;
  std::ofstream log_;
  run_summary summary_;
};

// The display reporter --benchmark_format asks for (console by default).
std::unique_ptr<benchmark::BenchmarkReporter> make_display_reporter(const std::string& format);

// The flat members of the "context" object of Google Benchmark's JSON, as strings
// (arrays and objects skipped): what the checks after the run read.
std::map<std::string, std::string> parse_context_json(const std::string& json);

}  // namespace solvebench::bench
