// Rounds and processes (issue 30): which rows a round runs, in what order, and what is left. A
// run is K processes of R rounds each; a round runs every selected row once, in an order shuffled
// from the seed, the process and the round, each with its fixture built anew. Every (row,
// process, round) that finishes is one line of the rows log, so a killed run keeps its finished
// rounds and --resume, the sticky-fault recovery and --processes all continue the same way: at
// the first process that still misses a round, with the rounds it misses.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "checks/row_id.hpp"
#include "core/options.hpp"
#include "core/printers.hpp"
#include "core/sampler.hpp"
#include "core/session.hpp"

namespace solvebench::bench {

// The run's design: the rounds of each row per process, the processes, and what bounds a row's
// rounds: it gets no further round in a process once its rounds there have taken
// rounds x round_budget seconds (the rounds' wall time, round_s; with ranks in step, which
// measure wall time each their own, the timed seconds every rank agrees on).
struct round_design {
  int rounds = 5;
  int processes = 1;
  std::uint64_t seed = 0;
  double round_budget = 1.0;
  bool budget_on_wall = true;
  double min_time = 0.05;      // for the time estimate of a row not measured yet
  double span_s = 0;           // the processes start spread over at least this (--span)
  double started_epoch_s = 0;  // when the run's first process started (the span counts from it)
};

// The seconds process `process` (0-based) still waits at `now_epoch_s` so that the run's processes
// start spread over design.span_s: until design.started_epoch_s + process * span_s / (processes - 1).
// 0 for the first process, once that time has passed, and without a span.
double span_wait_s(const round_design& design, int process, double now_epoch_s);
// Waits that long (idle), saying so on stderr.
void wait_for_span(const round_design& design, int process);

// A run's design: the rounds, processes, seed and span `o` asks for, the budget of `policy`, the
// run's start; ranks in step budget the timed seconds they agree on, not wall time.
round_design design_of(const common_options& o, const sampling& policy, bool ranks_in_step, double started_epoch_s);

// The key of the order of round `round` of `process`, and the places 0..count-1 in that order:
// Fisher-Yates over splitmix64.
std::vector<std::size_t> shuffled_places(std::size_t count, std::uint64_t seed, int process, int round);
// `names` in an order shuffled reproducibly from (seed, process, round).
std::vector<std::string> shuffled(std::vector<std::string> names, std::uint64_t seed, int process, int round);

// What is done and what is left, fed every row entry: those of the rows log an earlier process
// wrote (--resume) and those of this process as they finish (it is a printer on the bridge).
class round_plan final : public printer {
 public:
  // `rows`: the selected rows (registered and matching the filter), in registration order;
  // `ids`, where given, theirs (for the time estimates of rows not measured yet).
  round_plan(std::vector<std::string> rows, const round_design& design, const std::vector<row_id>& ids = {});
  void rows(const std::vector<row_entry>& runs) override;
  // More rows to plan, at the next places (a size scan's next pass, core/scan.hpp); those planned
  // already are kept as they are.
  void add(const std::vector<row_id>& ids);
  // One entry of a rows log or of this process (Google Benchmark's JSON run object with the
  // counters round and process; an entry without them is round 0 of process 0).
  void take(const json& entry);
  // The first process (0-based) with a row that misses a round it will run; -1: none.
  int process_to_run() const;
  // The rows round `round` of `process` runs, shuffled; none when every row has it or is through.
  std::vector<std::string> rows_for(int process, int round) const;
  // The same rows as places in the `rows` the plan was made with.
  std::vector<std::size_t> places_for(int process, int round) const;
  // Row-rounds done and planned in all (those of the rows log included), and the seconds from
  // `now_epoch_s` until the planned ones not done yet are done: their rounds (measured rounds of
  // the same row, else an estimate scaled by the rows measured so far) and the span's waits.
  progress_count count(double now_epoch_s = epoch_now()) const;
  // The seconds one round of `row` should take (as count() reckons them).
  double expected_s(const std::string& row) const;
  const round_design& design() const { return design_; }

 private:
  struct row_state {
    std::map<int, std::vector<int>> rounds_of;  // process -> its rounds done
    std::map<int, double> spent_s;              // process -> seconds its rounds took (budget_on_wall: wall)
    bool failed = false;                        // an error or a refusal in some round: no more rounds
    double round_s = 0;                         // wall seconds of its last round (0: not measured)
    double spent_round_s = 0;                   // the same for one round (its last)
    double estimate = 0;                        // the row's estimated round seconds, before scaling
  };
  bool through(const row_state& r, int process) const;  // no round left to run in `process`
  bool has(const row_state& r, int process, int round) const;
  int rounds_left(const row_state& r, int process) const;
  double estimate_scale() const;
  std::vector<std::string> order_;
  std::map<std::string, row_state> rows_;
  round_design design_;
};

// Re-executes this binary with --resume=LOG to continue the run in a fresh process (the next of
// --processes, or the rows a broken GPU context deferred); returns only if that fails. `why` is
// said on stderr first. A fault re-execution counts against a bound, so a fault that follows
// every fresh process cannot loop. `here`: what this process continues (session.hpp).
void continue_in_fresh_process(int argc, char** argv, const std::string& live, const std::string& why, bool fault,
                               bool temporary_log, const continuation& here);

}  // namespace solvebench::bench
