// The regression gate's rule: a contender run held against a baseline run, row by row (rows
// matched by id), each change judged against the interval a re-run would put around it (the
// spread between rounds, processes, back-to-back pairs or the tracker's history), never against
// one process's own samples. Three answers, as Chromium's Pinpoint gives: slower (or faster),
// the same, or undecided with the smallest change these inputs could detect.
// tools/regress and .ci/bench-pr render and act on what it decides.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "checks/audit.hpp"
#include "checks/record.hpp"

namespace solvebench::bench {

struct run_history;

struct row_change {
  row_id id;
  std::string name;
  // slower, faster, same, undecided, error, resid, missing (in the base, not the contender), new, base-failed
  std::string status;
  std::string why;
  std::optional<double> base_ms, new_ms, change_pct;
  // The half-width, in %, of the interval of the change at the comparison's row_confidence
  // (from the pairs, else from both sides' spread between runs); none when nothing measured it.
  std::optional<double> interval_pct;
  // The threshold the change was held to: the interval's half-width, at least gate_floor_pct.
  // It is also the smallest change these inputs could call slower (detectable_pct).
  std::optional<double> threshold_pct;
  // What a re-run of each side would see (its 95% re-run interval, rerun_spread::rerun_pct).
  std::optional<double> base_noise_pct, new_noise_pct;
  std::optional<double> pair_noise_pct;  // judged by pairs: the interval of their median ratio, in %
  std::string noise_from;                // what measured the spread: "16 pairs run back to back", ...
  std::size_t base_repetitions = 0, new_repetitions = 0, pairs = 0;
  int base_processes = 0, new_processes = 0;
  bool fails() const { return status == "slower" || status == "error" || status == "resid" || status == "missing"; }
  std::optional<double> detectable_pct() const { return threshold_pct; }
};

struct comparison {
  std::vector<row_change> rows;
  std::vector<finding> new_timing_bugs;  // in the contender's audit and not in the baseline's
  std::string history;                   // the history that floored the noise ("STORE, testbed T: 30 runs"), or ""
  double row_confidence = 0;             // each row's: gate_confidence over the rows judged by time
  bool failed() const;
  // Some row could not be decided at the gate's floor (and none failed: see exit_status).
  bool undecided() const;
  // 0 passed, 1 a regression (or an error, a failed resid, a missing row, a new timing bug), 3 undecided.
  int exit_status() const;
  // Rows a re-run should decide: the slower ones and the undecided ones.
  std::vector<std::string> suspects() const;
};

// Repetitions that carry a "pair" counter (.ci/bench-pr tags the runs it times back to back,
// one base and one contender run a pair) pair up: per pair present on both sides, the
// contender's fastest repetition over the baseline's (the least disturbed of each: neighbours
// and a busy host only add time). compare_runs judges a row by these ratios when it has two or
// more: its change is their median, its interval that of the median at the comparison's
// row_confidence (distribution-free from order statistics when there are enough pairs for it,
// else Student's t on the ratios' logs).
std::vector<double> paired_ratios(const row_record& base, const row_record& contender);

// Each row of the baseline against the contender's (matched by id). Unpaired, a row's change is
// the ratio of the medians and its interval that of the ratio from both sides' spread between
// runs (rerun_spread::difference_pct at row_confidence: limits::gate_confidence for all the rows
// judged by time together, Bonferroni): their rounds and processes, each side at least the
// spread of `history`'s runs of the row over the files it pools (hold_to_history; the spread of
// neighbouring runs where the sides' files took turns, by their contexts' dates). A side of one
// round with no history cannot be judged: the row is undecided.
comparison compare_runs(const run_summary& base, const run_summary& contender, const run_history* history = nullptr);

// What to do about undecided rows, one sentence ("" when none is undecided).
std::string undecided_advice(const comparison& c);

nlohmann::ordered_json comparison_json(const comparison& c);
std::string comparison_text(const comparison& c);
std::string comparison_markdown(const comparison& c, const std::vector<std::string>& base_files,
                                const std::vector<std::string>& new_files);

}  // namespace solvebench::bench
