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

// Student's t quantile: the x with P(T <= x) = p for T with df degrees of freedom (df > 0, 0 < p < 1).
double student_t_quantile(double p, double df);

// What a re-run would see (issue 30): the spread of a row's rounds (one median each) between
// rounds and between the processes that made them. Model, on the log of the time:
// log t(process k, round r) = mu + a_k + e_kr. With one process the process effect a_k is
// invisible (its variance counts as zero, and the interval says it is from one process); with
// several, the centre's variance is the larger of what the processes' means and what the rounds
// within them say (the first is unbiased for a balanced design, the second is its floor).
struct rerun_spread {
  double centre_var = 0;   // variance of the run's centre (the log of its median) about the long-run centre
  double df = 0;           // degrees of freedom of that estimate (for Student's t)
  int rounds = 0;          // rounds in all
  int processes = 0;       // the processes they came from
  double round_var = 0;    // the variance of one round (log) within its process, at least the floor it was given
  double process_var = 0;  // the variance of one process's mean (log) between processes, at least its floor; 0 with one
  int history_runs = 0;    // > 0: the tracker's record of this many runs (row_history::per_run), not the run's own
  // Half-width, in percent of the median, of the interval in which the median of a re-run of
  // the same design (rounds and processes) falls with `confidence`: t * sqrt(2 * centre_var).
  double rerun_pct(double confidence) const;
  // The same for the difference of this run and another of any design (both variances add;
  // Welch-Satterthwaite degrees of freedom): the half-width, in percent, of the interval of
  // their ratio of medians.
  double difference_pct(const rerun_spread& other, double confidence) const;
};
// From each round's median time and its process key (any int; equal keys: the same process).
// None with fewer than two rounds. round_var_floor: the least variance of one round (log);
// process_var_floor: the least variance of one process's mean (log), where there are several.
std::optional<rerun_spread> rerun_spread_of(const std::vector<double>& round_ms, const std::vector<int>& process_of,
                                            double round_var_floor = 0, double process_var_floor = 0);

struct row_record {
  row_id id;
  std::string name;                                     // id.name(): the row as people read it
  std::vector<double> times_ms;                         // one per repetition (Google Benchmark's run)
  std::vector<double> samples_ms;                       // every timed call of every repetition
  std::vector<int> process_of;                          // per repetition: the process that made it (see add_repetition)
  std::map<std::string, std::vector<double>> counters;  // one value per repetition
  std::map<std::string, std::string> facts;  // text the row's entries carry (its library's blas_vendor ...): the first
  std::string error;                         // non-empty: the row failed or was skipped
  bool skipped = false;                      // the error is a refusal (memory, a limit), not a failure
  double pooled_round_var = 0;    // its floor: its device's, its family's and its parts' rows (pool_device_noise)
  double pooled_process_var = 0;  // the same for the variance of a process's mean, where rows have several
  // The spread of one run of the row in the tracker's record of its testbed, over the runs
  // pooled (hold_to_history): spread() is the wider of it and the run's own. None without --history.
  std::optional<rerun_spread> history_run;

  bool ok() const { return error.empty() && !times_ms.empty(); }
  double median_ms() const { return median(times_ms); }
  std::optional<double> counter(const std::string& key) const {
    const auto it = counters.find(key);
    if (it == counters.end() || it->second.empty()) return std::nullopt;
    return median(it->second);
  }
  // The row's noise: the half-width, in percent of its median, of the interval in which a
  // re-run's median falls 19 times in 20 (limits::noise_confidence): from the spread of its
  // rounds and processes (spread()->rerun_pct) when it has two or more; unknown for one round of
  // a run that has rounds. A saved run of an earlier version (one repetition, no rounds) keeps
  // its noise_pct counter, which was the within-process interval (noise_within_pct's meaning).
  std::optional<double> noise_pct() const;
  // The interval of the median from its own samples within a round, in percent (the median over
  // its rounds of their noise_within_pct; for earlier versions their noise_pct, else from the
  // samples the rows log kept). It says how well one process knows its median, not what a re-run
  // would see.
  std::optional<double> noise_within_pct() const;
  // Whether the row comes from a run that has rounds (a round counter or noise_within_pct).
  bool has_rounds() const { return counters.count("round") || counters.count("noise_within_pct"); }
  // The spread between its repetitions (rounds) and processes: what a re-run would see; where
  // the tracker's record of the row says more (history_run), that record.
  std::optional<rerun_spread> spread() const;
  // Whether every repetition's resid passed the HPL check (a row without resid passes).
  bool passed() const;
  std::optional<std::string> axis(const std::string& key) const { return id.axis(key); }
  std::optional<std::int64_t> int_axis(const std::string& key) const { return id.int_axis(key); }
};

struct run_summary {
  std::map<std::string, std::string> context;  // the JSON context, flat values as text
  std::string context_source;                  // where it was read (a file, a rows log's line); "" live
  std::vector<row_record> rows;                // in the order they ran
  std::vector<std::string> sources;            // the files it was read from (empty: a live run)
  std::vector<std::string> dates;              // each context's "date" (when it started), in the order read; "" if none
  std::vector<std::string> notes;              // what reading them left out (a torn last line)
  int segment = 0;  // processes read so far: each context (a file's, or a rows log's line) starts one
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

// What the device adds to every row on it (issue 30): each row's rounds vary at least as much as
// the median row's on the same device, and so do its processes' means. A machine's state (a
// GPU's clock, a shared host's load, a VM's vCPUs) moves every row on it; a row whose few rounds
// or processes happened to agree has not shown it is spared, and its own variance, from a few
// degrees of freedom, is often far below the truth. On the H200's 10 A/A processes
// (results/h200/coverage) the round floor took the rows below 90% of pairs covered from 4 of 21
// to none. The process floor is the median of the rows' variances between processes, each from
// a few degrees of freedom, divided by the median of chi-squared(df) / df: the plain median of
// 2-df estimates is 0.69 of a variance they share. The same holds within a row's family (its
// device, path and operation: the batched posv rows, the getrs rows), whose rows share what
// moves them (a thread pool over many small systems, a memory-bound solve), and a row is held
// to the larger of the two floors. Sets every row's pooled_round_var and pooled_process_var;
// load_text calls it.
void pool_device_noise(run_summary& run);

// A solve varies at least as much as the rows that time the same system (issue 30): its twin
// (the library's driver for the halves timed back to back, and the other way round) and its
// factorization, in proportion to the factorization's share of the solve's time (the variances
// of logs add as the squares of the shares). OpenBLAS's two threads on a 2-core VM run
// CPU/spotrf/n:256 at 0.12 or 0.19 ms, changing every few seconds; three processes of one of
// these rows may all land in one state, three rows' nine seldom do. pool_device_noise calls it.
void hold_solves_to_their_parts(run_summary& run);

// A row's noise between runs, in % of its median: the larger of the 95% interval a re-run of it
// would see (its rounds and processes, rerun_spread) and its noise_pct (the run's own figure);
// 0 when neither is known. What the audit's rules and the verdict's ± hold rows to.
double rerun_noise_pct(const row_record& r);

// Adds one repetition of a row (or its error) to the summary, pooling it with earlier
// repetitions of the same row. Its process key is the run's current segment and its
// "process" counter (solve_bench --processes numbers them), so that pooled files, and the
// processes of one file, stay apart.
void add_repetition(run_summary& run, const row_id& id, double time_ms, const std::vector<double>& samples_ms,
                    const std::map<std::string, double>& counters,
                    const std::map<std::string, std::string>& facts = {});
void add_failure(run_summary& run, const row_id& id, const std::string& error, bool skipped);

}  // namespace solvebench::bench
