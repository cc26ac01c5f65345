// What every row shares: the one live fixture, timing a row, failures, counters, the rows log.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace solvebench::bench {

// Keeps one row's problem (matrices, device buffers, factors, warm handles) alive across
// the calls Google Benchmark makes for that row, and frees it before the next row builds
// its own: memory never holds two rows' problems, and set-up and warm-up run once per row.
class fixture_cache {
 public:
  template <class Fixture, class Make>
  Fixture& get(const std::string& key, Make&& make) {
    if (key != key_ || !held_) {
      clear();  // free the previous row's memory before allocating this one's
      held_ = std::shared_ptr<Fixture>(make());
      key_ = key;
    }
    return *static_cast<Fixture*>(held_.get());
  }
  void clear() noexcept {
    held_.reset();
    key_.clear();
  }

 private:
  std::string key_;
  std::shared_ptr<void> held_;
};
fixture_cache& fixtures();

// Marks the row failed with `message` (SkipWithError), remembers it for the exit status.
void fail_row(benchmark::State& state, const std::string& row, const std::string& message);
const std::vector<std::string>& failed_rows();

// A row that could not be measured for a reason outside our control (it does not fit in
// device memory): reported like a failure in the JSON, but it does not fail the run.
class row_skipped : public std::exception {
 public:
  explicit row_skipped(std::string why) : why_(std::move(why)) {}
  const char* what() const noexcept override { return why_.c_str(); }

 private:
  std::string why_;
};

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The contract a fixture offers to run_row:
//   double run_once();               restores its inputs untimed, returns the timed seconds
//   double check();                  HPL scaled residual of the last timed result; throws if it fails
//   double flops() const;            LAWN 41 count of one timed call
//   void add_counters(benchmark::State&) const;  row-specific counters (may be empty)
template <class Fixture, class Make>
void run_row(benchmark::State& state, const std::string& row, Make&& make) {
  try {
    Fixture& f = fixtures().get<Fixture>(row, std::forward<Make>(make));
    for (auto _ : state) state.SetIterationTime(f.run_once());
    const double resid = f.check();
    state.counters["GFLOP/s"] = benchmark::Counter(f.flops() / 1e9, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["resid"] = resid;
    f.add_counters(state);
  } catch (const row_skipped& e) {
    fixtures().clear();
    state.SkipWithError(("skipped: " + std::string(e.what())).c_str());
  } catch (const std::exception& e) {
    fixtures().clear();
    fail_row(state, row, e.what());
  }
}

// Display reporter that also appends every finished row, flushed, to a JSON-lines file:
// each line is {"benchmarks": [...]} in Google Benchmark's own JSON form (the first line
// also holds the context), so a sweep killed part-way keeps the rows it finished.
class row_log_reporter : public benchmark::BenchmarkReporter {
 public:
  row_log_reporter(std::unique_ptr<benchmark::BenchmarkReporter> display, const std::string& log_path);
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

 private:
  void append_line(std::string text);

  std::unique_ptr<benchmark::BenchmarkReporter> display_;
  benchmark::JSONReporter json_;
  std::ofstream log_;
};

// The display reporter --benchmark_format asks for (console by default).
std::unique_ptr<benchmark::BenchmarkReporter> make_display_reporter(const std::string& format);

}  // namespace solvebench::bench
