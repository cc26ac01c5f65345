// What a finished run looks like to the checks that read it afterwards (the audit, the
// verdict): its rows as Google Benchmark reported them, and its JSON context as strings.
// Plain data, no Google Benchmark types, so the checks can be tested on made-up runs and
// tools/*.py can read the same keys from a run's JSON.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace solvebench::bench {

// One row, its repetitions pooled: "CPU/dgesv/n:4096/nrhs:1" (no /manual_time).
struct row_record {
  std::string name;
  std::string backend;                                      // "CPU", "GPU-pinned", "MGPU", ...
  std::string op;                                           // "dgesv", "dhgesv", "dgesv_batched", ...
  std::vector<std::pair<std::string, std::string>> axes;    // {"n","4096"}, {"nrhs","1"}, {"kind","diagdom"}, ...
  std::vector<double> times_ms;                             // one per repetition (iteration runs, not aggregates)
  std::map<std::string, std::vector<double>> counters;      // "GFLOP/s", "resid", ... one value per repetition
  std::string error;                                        // non-empty: the row failed or was skipped

  bool ok() const { return error.empty() && !times_ms.empty(); }
  std::optional<std::string> axis(const std::string& key) const {
    for (const auto& [k, v] : axes)
      if (k == key) return v;
    return std::nullopt;
  }
  std::optional<long long> int_axis(const std::string& key) const {
    const auto v = axis(key);
    if (!v || v->empty() || v->find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    return std::stoll(*v);
  }
  static double median(std::vector<double> v) {
    if (v.empty()) return std::nan("");
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
  }
  double median_ms() const { return median(times_ms); }
  std::optional<double> counter(const std::string& key) const {
    const auto it = counters.find(key);
    if (it == counters.end() || it->second.empty()) return std::nullopt;
    return median(it->second);
  }
};

// Splits "GPU/dgesv/n:4096/nrhs:1/manual_time" into backend, op and axes (as tools/sbjson.py does).
row_record parse_row_name(const std::string& run_name);

struct run_summary {
  std::map<std::string, std::string> context;  // the JSON context: Google Benchmark's keys and solve_bench's
  std::vector<row_record> rows;                // in the order they ran
  const row_record* find(const std::string& name) const {
    for (const auto& r : rows)
      if (r.name == name) return &r;
    return nullptr;
  }
};

}  // namespace solvebench::bench
