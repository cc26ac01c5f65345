// The regression gate's rule: a contender run held against a baseline run, row by row (rows
// matched by id), each difference judged against both runs' measured noise, never a single
// sample. tools/regress and .ci/bench-pr render and act on what it decides.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "checks/audit.hpp"
#include "checks/record.hpp"

namespace solvebench::bench {

struct row_change {
  row_id id;
  std::string name;
  // slower, faster, same, error, resid, missing (in the base, not the contender), new, base-failed
  std::string status;
  std::string why;
  std::optional<double> base_ms, new_ms, change_pct, threshold_pct, base_noise_pct, new_noise_pct;
  std::optional<double> pair_noise_pct;  // judged by pairs: the interval of the median ratio, in %
  std::size_t base_repetitions = 0, new_repetitions = 0, pairs = 0;
  bool fails() const { return status == "slower" || status == "error" || status == "resid" || status == "missing"; }
};

struct comparison {
  std::vector<row_change> rows;
  std::vector<finding> new_timing_bugs;  // in the contender's audit and not in the baseline's
  bool failed() const;
  // Rows a re-run should decide: the slower ones, and those that moved by the floor but not
  // beyond their noise (a first look too noisy to clear them).
  std::vector<std::string> suspects() const;
};

// The noise a row's median carries, in percent: the larger of the 95% interval of the median
// of its samples and that of the median of its repetitions (rounds of a pooled A/B run, each a
// process of its own), so that a run slowed as a whole by its neighbours is not read as a
// regression of its code. Distribution-free (order statistics): with at most 8 repetitions
// the interval is their whole range.
std::optional<double> gate_noise_pct(const row_record& r);

// Repetitions that carry a "pair" counter (.ci/bench-pr tags the runs it times back to back,
// one base and one contender run a pair) pair up: per pair present on both sides, the
// contender's fastest repetition over the baseline's (the least disturbed of each: neighbours
// and a busy host only add time). compare_runs judges a row by these ratios when it has two or
// more: its change is their median, its threshold the interval of that median (at
// gate_confidence) and at least gate_floor_pct.
std::vector<double> paired_ratios(const row_record& base, const row_record& contender);

comparison compare_runs(const run_summary& base, const run_summary& contender);

nlohmann::ordered_json comparison_json(const comparison& c);
std::string comparison_text(const comparison& c);
std::string comparison_markdown(const comparison& c, const std::vector<std::string>& base_files,
                                const std::vector<std::string>& new_files);

}  // namespace solvebench::bench
