// The tracker's record of each row on a testbed, read from tools/track's store
// (STORE/<testbed>/<date>-<hash>.json, format "solve_bench-track/1": tools/tracking/store.py
// documents it), and what it says about a row's spread from run to run: the between-run noise
// that compare --history and tools/track analyze's minimum detectable step judge by.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

#include "checks/record.hpp"

namespace solvebench::bench {

struct row_history {
  row_id id;
  std::string name;
  std::vector<double> median_ms;   // one per stored run that has the row, oldest first (failed runs left out)
  std::vector<std::string> stack;  // per run: its fingerprint (build, libraries, threads, machine), "" if none
  // The spread of one stored run's median about the row's level: the wider of reruns() and
  // steps(). None with fewer than limits::history_min_runs runs.
  std::optional<rerun_spread> per_run() const;
  // From runs of one stack (the same fingerprint): what the machine alone did to the row, every
  // state it passed through counted however long it lasted (a VM's host slowing it for minutes).
  // The 95% quantile (limits::noise_confidence) of |log ratio| of every two runs of one stack,
  // as the variance whose rerun_pct at that confidence is that quantile; degrees of freedom the
  // runs less the stacks. None until they are limits::history_min_runs - 1.
  std::optional<rerun_spread> reruns() const;
  // From the differences of successive runs, robust to the steps a history holds (a new build,
  // a new library): 1.4826 x their median absolute value, the normal's sigma, over sqrt 2; its
  // degrees of freedom the median's efficiency (0.37) times the differences.
  std::optional<rerun_spread> steps() const;
  // The smallest lasting step in the row's level that `runs_after` runs after it (their mean
  // against the runs on record) tell apart at `confidence`, in percent: from steps(), since a
  // step that lasts within one stack (a load, a host's change no fingerprint records) is what
  // the tracker's change points look for, and reruns() would count it as spread.
  std::optional<double> detectable_step_pct(int runs_after, double confidence) const;
};

struct run_history {
  std::string store, testbed;
  std::size_t runs = 0;  // stored runs read
  std::vector<row_history> rows;
  const row_history* find(const row_id& id) const&;
  const row_history* find(const row_id& id) const&& = delete;  // would point into a dead history
};

// The testbeds of a store: its folders that hold stored runs, sorted. Throws load_error when
// `store` is not a folder.
std::vector<std::string> history_testbeds(const std::string& store);

// The stored runs of one testbed, by date. Throws load_error on a testbed the store lacks
// (naming those it has) and on a stored file that is not a stored run.
run_history load_history(const std::string& store, const std::string& testbed);

// The testbed a run belongs to: `given`, else its context's host_name made a folder name as
// tools/track add makes it, else the store's only testbed; throws load_error when none fits.
std::string testbed_for(const std::string& store, const std::string& given, const run_summary& run);

// Holds each row of `run` to the record of it in `h` (issue 30): its spread between runs (the
// ± it prints, the audit's rules and the verdict) is at least the spread of one stored run over
// the runs `run` pools (its files; a live run is one). A machine whose state moves over longer
// than a run (a VM whose host changes its speed for minutes) shows it only in a record of many
// runs. Notes the record in the context's noise_history and returns it ("STORE, testbed T: N runs").
// `took_turns`: the run took turns on the machine with the run it is compared with, and shared
// with it the states that outlast a run; what is left between them is what neighbouring runs
// differ by, so the record's steps() hold it, not per_run().
std::string hold_to_history(run_summary& run, const run_history& h, bool took_turns = false);

// Per row of the testbed: its runs, the spread of one run (in %) and the step `runs_after` runs
// can detect at limits::gate_confidence; as text, and as {"runs", "rows": [{"row", "id", "runs",
// "run_spread_pct", "rerun_spread_pct", "step_spread_pct", "detectable_step_pct"}]}.
std::string history_text(const run_history& h, int runs_after);
nlohmann::ordered_json history_json(const run_history& h, int runs_after);

}  // namespace solvebench::bench
