// What a finished run is to the checks (the audit, the verdict, the comparison of two runs):
// its rows, each with its identity, its samples and its counters, and its context. Plain
// data, no Google Benchmark types, so the checks run the same on a live run, on saved runs
// (load.hpp) and on made-up runs in tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checks/row_id.hpp"

namespace solvebench::bench {

// The median of a sample (NaN when empty).
double median(std::vector<double> v);

// The half-width of the distribution-free confidence interval of the median (order
// statistics, at least `confidence`), relative to the median, in percent. With fewer samples
// than that confidence needs (6 at 95%), the half-range (smaller coverage); none for one sample.
std::optional<double> median_noise_pct(std::vector<double> samples, double confidence = 0.95);

struct row_record {
  row_id id;
  std::string name;                                     // id.name(): the row as people read it
  std::vector<double> times_ms;                         // one per repetition (Google Benchmark's run)
  std::vector<double> samples_ms;                       // every timed call of every repetition
  std::map<std::string, std::vector<double>> counters;  // one value per repetition
  std::string error;                                    // non-empty: the row failed or was skipped
  bool skipped = false;                                 // the error is a refusal (memory, a limit), not a failure

  bool ok() const { return error.empty() && !times_ms.empty(); }
  double median_ms() const { return median(times_ms); }
  std::optional<double> counter(const std::string& key) const {
    const auto it = counters.find(key);
    if (it == counters.end() || it->second.empty()) return std::nullopt;
    return median(it->second);
  }
  // The row's noise: half-width of the 95% interval of its median, in percent of it: the
  // run's noise_pct counter (from every sample; the median over repetitions), else from the
  // samples the rows log kept, else from the repetitions' times.
  std::optional<double> noise_pct() const;
  // Whether every repetition's resid passed the HPL check (a row without resid passes).
  bool passed() const;
  std::optional<std::string> axis(const std::string& key) const { return id.axis(key); }
  std::optional<std::int64_t> int_axis(const std::string& key) const { return id.int_axis(key); }
};

struct run_summary {
  std::map<std::string, std::string> context;  // the JSON context, flat values as text
  std::vector<row_record> rows;                // in the order they ran
  std::vector<std::string> sources;            // the files it was read from (empty: a live run)
  std::vector<std::string> notes;              // what reading them left out (a torn last line)
  const row_record* find(const std::string& name) const {
    for (const auto& r : rows)
      if (r.name == name) return &r;
    return nullptr;
  }
  std::string context_value(const std::string& key) const {
    const auto it = context.find(key);
    return it == context.end() ? std::string() : it->second;
  }
};

// Adds one repetition of a row (or its error) to the summary, pooling it with earlier
// repetitions of the same row.
void add_repetition(run_summary& run, const row_id& id, double time_ms, const std::vector<double>& samples_ms,
                    const std::map<std::string, double>& counters);
void add_failure(run_summary& run, const row_id& id, const std::string& error, bool skipped);

}  // namespace solvebench::bench
