// What every row shares: the one live fixture, timing a row, failures, counters, the rows log.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "solvebench/errors.hpp"

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

// A row that does not fit in host or device memory (out_of_memory) is skipped, with what
// it needed and what was free: an error row in the JSON, but not a failure of the run.
void skip_row(benchmark::State& state, const std::string& row, const std::string& message);
const std::vector<std::string>& skipped_rows();

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The contract a fixture offers to run_row:
//   double run_once();               restores its inputs untimed, returns the timed seconds
//   double check();                  HPL scaled residual of the last timed result; throws if it fails
//   double flops() const;            LAWN 41 count of one timed call
//   void add_counters(benchmark::State&) const;  row-specific counters (may be empty)
// Returns false when the row failed or was skipped.
template <class Fixture, class Make>
bool run_row(benchmark::State& state, const std::string& row, Make&& make) {
  try {
    Fixture& f = fixtures().get<Fixture>(row, std::forward<Make>(make));
    for (auto _ : state) state.SetIterationTime(f.run_once());
    const double resid = f.check();
    state.counters["GFLOP/s"] = benchmark::Counter(f.flops() / 1e9, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["resid"] = resid;
    f.add_counters(state);
    return true;
  } catch (const out_of_memory& e) {
    fixtures().clear();
    skip_row(state, row, e.what());
  } catch (const std::bad_alloc&) {
    fixtures().clear();
    skip_row(state, row, "not enough host memory: allocation failed");
  } catch (const std::exception& e) {
    fixtures().clear();
    fail_row(state, row, e.what());
  }
  return false;
}

// Registers one row by its full name (Google Benchmark appends /manual_time), timed manually.
template <class Fn>
benchmark::internal::Benchmark* register_row(const std::string& name, Fn&& fn) {
  return benchmark::RegisterBenchmark(name.c_str(), std::forward<Fn>(fn))
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
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
