// The round plan (core/rounds.hpp): the order of each round, which rows a round runs, what a
// resumed run continues with, and the ETA's count.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/rounds.hpp"

namespace sb = solvebench::bench;
using sb::json;

namespace {

const std::vector<std::string> rows = {"CPU/dgesv/n:64/nrhs:1", "CPU/dgetrf/n:64", "CPU/dgemm/n:64",
                                       "CPU/dposv/n:64/nrhs:1", "CPU/dpotrf/n:64"};

sb::round_design design(int rounds, int processes) {
  sb::round_design d;
  d.rounds = rounds;
  d.processes = processes;
  d.seed = 7;
  d.round_budget = 1;  // with 5 rounds: 5 s a row
  return d;
}

// A rows-log line: one round of a row that timed `calls` calls of `call_ms` each.
json entry(const std::string& row, int process, int round, double call_ms = 1, int calls = 10, bool failed = false) {
  json e = {{"name", row + "/manual_time"},
            {"run_name", row + "/manual_time"},
            {"run_type", "iteration"},
            {"round", round},
            {"process", process},
            {"samples", calls},
            {"real_time", call_ms * 1e6},
            {"time_unit", "ns"},
            {"round_s", call_ms * calls * 1.2e-3}};
  if (failed)
    e = {{"name", row + "/manual_time"},
         {"run_name", row + "/manual_time"},
         {"error_occurred", true},
         {"round", round},
         {"process", process}};
  return e;
}

void finish_round(sb::round_plan& plan, int process, int round) {
  for (const auto& row : plan.rows_for(process, round)) plan.take(entry(row, process, round));
}

}  // namespace

TEST(Rounds, EachRoundHasItsOwnReproducibleOrder) {
  const auto a = sb::shuffled(rows, 7, 0, 0), again = sb::shuffled(rows, 7, 0, 0);
  EXPECT_EQ(a, again);
  std::set<std::vector<std::string>> orders;
  for (int round = 0; round < 6; ++round) {
    auto o = sb::shuffled(rows, 7, 0, round);
    orders.insert(o);
    std::sort(o.begin(), o.end());
    auto sorted = rows;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(o, sorted);  // a permutation
  }
  EXPECT_GT(orders.size(), 3u);
  EXPECT_NE(sb::shuffled(rows, 8, 0, 0), a);  // another seed, another order (for these five)
}

TEST(Rounds, ARunIsKProcessesOfRRounds) {
  sb::round_plan plan(rows, design(3, 2));
  EXPECT_EQ(plan.process_to_run(), 0);
  EXPECT_EQ(plan.count().total, 5u * 3 * 2);
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(plan.rows_for(0, round).size(), rows.size());
    finish_round(plan, 0, round);
    EXPECT_TRUE(plan.rows_for(0, round).empty());
  }
  EXPECT_EQ(plan.process_to_run(), 1);  // process 0 is through: the next one starts
  finish_round(plan, 1, 0);
  finish_round(plan, 1, 1);
  finish_round(plan, 1, 2);
  EXPECT_EQ(plan.process_to_run(), -1);
  EXPECT_EQ(plan.count().done, 30u);
  EXPECT_EQ(plan.count().remaining_s, 0);
}

TEST(Rounds, AResumedRunContinuesAtTheMissingRounds) {
  sb::round_plan plan(rows, design(3, 1));
  // The killed process finished round 0 and two rows of round 1 (the log's lines).
  for (const auto& row : rows) plan.take(entry(row, 0, 0));
  plan.take(entry(rows[1], 0, 1));
  plan.take(entry(rows[3], 0, 1));
  EXPECT_EQ(plan.process_to_run(), 0);
  EXPECT_TRUE(plan.rows_for(0, 0).empty());
  auto missing = plan.rows_for(0, 1);
  std::sort(missing.begin(), missing.end());
  EXPECT_EQ(missing, (std::vector<std::string>{rows[2], rows[0], rows[4]}));
  EXPECT_EQ(plan.rows_for(0, 2).size(), rows.size());
  EXPECT_EQ(plan.count().done, 7u);
  EXPECT_EQ(plan.count().total, 15u);
}

TEST(Rounds, AFailedRowGetsNoFurtherRound) {
  sb::round_plan plan(rows, design(3, 2));
  plan.take(entry(rows[0], 0, 0, 1, 10, true));
  for (std::size_t i = 1; i < rows.size(); ++i) plan.take(entry(rows[i], 0, 0));
  const auto next = plan.rows_for(0, 1);
  EXPECT_EQ(next.size(), rows.size() - 1);
  EXPECT_EQ(std::count(next.begin(), next.end(), rows[0]), 0);
  EXPECT_TRUE(plan.rows_for(1, 0).size() == rows.size() - 1);  // nor in a later process
}

TEST(Rounds, ARowOfLongRoundsGetsFewer) {
  sb::round_plan plan({rows[0], rows[1], rows[2]}, design(5, 1));
  plan.take(entry(rows[0], 0, 0, 6000, 1));  // a round of 7.2 s: past the 5 s budget, its only round
  plan.take(entry(rows[1], 0, 0, 2000, 1));  // 2.4 s a round: rounds while under 5 s, 3 in all
  plan.take(entry(rows[2], 0, 0));           // fast: all 5
  EXPECT_EQ(plan.count().total, 1u + 3 + 5);
  EXPECT_EQ(plan.rows_for(0, 1).size(), 2u);
  plan.take(entry(rows[1], 0, 1, 2000, 1));
  plan.take(entry(rows[1], 0, 2, 2000, 1));
  for (int round = 3; round < 5; ++round) {
    const auto now = plan.rows_for(0, round);
    EXPECT_EQ(now, std::vector<std::string>{rows[2]}) << round;
  }
}

TEST(Rounds, TheEtaUsesTheMeasuredRoundsFirst) {
  sb::round_plan plan({rows[0], rows[1]}, design(4, 1));
  plan.take(entry(rows[0], 0, 0, 10, 10));  // a round of 0.12 s wall
  const auto c = plan.count();
  EXPECT_EQ(c.done, 1u);
  EXPECT_EQ(c.total, 8u);
  // rows[0]: 3 more rounds of its measured 0.12 s; rows[1], unmeasured: 4 of its estimate.
  EXPECT_NEAR(plan.expected_s(rows[0]), 0.12, 1e-9);
  EXPECT_NEAR(c.remaining_s, 3 * 0.12 + 4 * plan.expected_s(rows[1]), 1e-9);
}

TEST(Rounds, RanksInStepBudgetTheTimedSecondsTheyAgreeOn) {
  auto d = design(5, 1);
  d.budget_on_wall = false;  // solve_bench_mpi: each rank's wall time is its own
  sb::round_plan plan({rows[0]}, d);
  auto e = entry(rows[0], 0, 0, 2000, 1);
  e["round_s"] = 60;  // this rank's build took long: it must not decide alone
  plan.take(e);
  EXPECT_EQ(plan.count().total, 3u);  // 2 s timed a round: 3 rounds under 5 s
}

TEST(Rounds, ASpanSpreadsTheStartsOfTheProcesses) {
  auto d = design(1, 3);
  d.span_s = 120;  // starts at 0, 60 and 120 s
  const double t0 = 1000;
  d.started_epoch_s = t0;
  EXPECT_EQ(sb::span_wait_s(d, 0, t0 + 5), 0);
  EXPECT_NEAR(sb::span_wait_s(d, 1, t0 + 5), 55, 1e-9);  // the first took 5 s
  EXPECT_NEAR(sb::span_wait_s(d, 2, t0 + 70), 50, 1e-9);
  EXPECT_EQ(sb::span_wait_s(d, 2, t0 + 130), 0);  // its time has passed: no wait
  d.span_s = 0;
  EXPECT_EQ(sb::span_wait_s(d, 2, t0 + 5), 0);  // back to back
  auto one = design(5, 1);
  one.span_s = 120;
  one.started_epoch_s = t0;
  EXPECT_EQ(sb::span_wait_s(one, 0, t0), 0);
}

TEST(Rounds, TheEtaCountsTheSpansWaits) {
  auto d = design(1, 3);
  d.span_s = 120;
  d.started_epoch_s = 1000;
  sb::round_plan plan({rows[0]}, d);
  plan.take(entry(rows[0], 0, 0, 10, 10));  // process 1 done at 1000 + a round of 0.12 s
  // Processes 2 and 3 start at 1060 and 1120 s and take a round each: done at 1120.12.
  EXPECT_NEAR(plan.count(1001).remaining_s, 119.12, 1e-9);
  EXPECT_NEAR(plan.count(1200).remaining_s, 0.24, 1e-9);  // late: the waits are over
  d.span_s = 0;
  sb::round_plan back_to_back({rows[0]}, d);
  back_to_back.take(entry(rows[0], 0, 0, 10, 10));
  EXPECT_NEAR(back_to_back.count(1001).remaining_s, 0.24, 1e-9);
}
