// The core driven with a fake backend (core_fakes.hpp) and an in-memory printer: the sweep's
// product, a round through Google Benchmark and the bridge (ids, rounds, samples), failures and
// refusals that cost one row, a GPU-fault-like row that defers its backend's later rows, the
// progress lines, and a run resumed from its rows log.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "checks/load.hpp"
#include "core/outputs.hpp"
#include "core/rounds.hpp"
#include "core_fakes.hpp"

namespace sb = solvebench::bench;

namespace {

class CoreSession : public ::testing::Test {
 protected:
  void SetUp() override {
    fake::init_gbench();
    run.policy().exact = 3;  // three timed calls a round
  }
  sb::session run{sb::continuation{}};
};

TEST_F(CoreSession, TheSweepIsTheProductOfPrecisionsOperationsSizesRightHandSidesAndAxes) {
  const sb::sweep_space space{{"s", "d"}, {64, 128}, {1, 4}, std::nullopt, 1, nullptr};
  const auto rows =
      sb::declare<sb::bind<sb::timed::halves, fake::adapter, &sb::ops::gesv, &sb::ops::getrf, &sb::ops::getrs>>(
          fake::desc, nullptr, {sb::axis("tile", std::vector<int>{32, 64})});
  sb::register_sweep<solvebench::real_precisions>(run, space, rows);
  // 2 precisions x 2 sizes x (gesv: 2 nrhs, getrf: 1, getrs: 2) x 2 tiles
  ASSERT_EQ(run.size(), 40u);
  std::set<std::string> names;
  for (sb::row_key k = 0; k < run.size(); ++k) {
    names.insert(run.name(k));
    EXPECT_EQ(run.find(run.id(k)), k);  // a row is its key, found again by its id
  }
  EXPECT_EQ(names.size(), 40u);
  // In the declared order: precision, operation, n, nrhs, then the backend's own axes.
  EXPECT_EQ(run.id(0).precision, 's');
  EXPECT_EQ(run.id(0).op, "gesv");
  EXPECT_EQ(run.id(0).n, 64);
  EXPECT_EQ(run.id(0).nrhs, 1);
  EXPECT_EQ(run.id(0).axis("tile"), "32");
  EXPECT_EQ(run.id(1).axis("tile"), "64");
  EXPECT_EQ(run.id(2).nrhs, 4);
  EXPECT_EQ(run.id(39).precision, 'd');
  EXPECT_EQ(run.id(39).op, "getrs");
  sb::register_sweep<solvebench::real_precisions>(run, space, rows);  // registered already: nothing new
  EXPECT_EQ(run.size(), 40u);
  // The filter selects by name, as Google Benchmark's does.
  EXPECT_EQ(run.select("dgetrf").size(), 4u);
  EXPECT_EQ(run.select("-tile:64").size(), 20u);
}

TEST_F(CoreSession, ARoundReportsEachRowWithItsIdRoundAndSamples) {
  const sb::row_key small = fake::add_row(run, fake::gesv_id(64)), large = fake::add_row(run, fake::gesv_id(128));
  fake::memory_printer seen;
  sb::bridge reporter(run, {&seen});
  fake::run_round(run, {large, small}, reporter, 1, 2);
  reporter.finish_run();
  EXPECT_TRUE(seen.has_context);
  EXPECT_TRUE(seen.finished);
  EXPECT_EQ(seen.started, (std::vector<std::string>{run.name(large), run.name(small)}));
  ASSERT_EQ(seen.entries.size(), 2u);
  for (const auto& [entry, key, ms] :
       {std::tuple{seen.entries[0], large, 2.0}, std::tuple{seen.entries[1], small, 1.0}}) {
    const sb::json& e = entry.entry;
    EXPECT_FALSE(entry.failed);
    EXPECT_EQ(sb::row_id_from_json(e.at("id")), run.id(key));
    EXPECT_EQ(e.at("round"), 1);
    EXPECT_EQ(e.at("rounds"), 2);
    EXPECT_EQ(e.at("process"), 0);
    EXPECT_EQ(e.at("samples_ms"), (std::vector<double>{ms, ms, ms}));
    EXPECT_DOUBLE_EQ(e.at("real_time").get<double>(), ms * 1e6);  // ns: the median call
    EXPECT_EQ(e.at("samples"), 3);
    EXPECT_DOUBLE_EQ(e.at("resid").get<double>(), 0.25);
    EXPECT_TRUE(e.contains("round_s"));
  }
  EXPECT_FALSE(run.take_samples(small));  // each round's samples are reported once
  EXPECT_TRUE(run.failed_rows().empty());
}

TEST_F(CoreSession, AFailedRowAndARefusedRowCostOnlyThemselves) {
  const std::vector<sb::row_key> keys = {fake::add_row(run, fake::gesv_id(64)),
                                         fake::add_row(run, fake::gesv_id(64, "fail")),
                                         fake::add_row(run, fake::gesv_id(64, "oom")),
                                         fake::add_row(run, fake::gesv_id(128))};
  fake::memory_printer seen;
  sb::bridge reporter(run, {&seen});
  fake::run_round(run, keys, reporter);
  ASSERT_EQ(seen.entries.size(), 4u);
  EXPECT_FALSE(seen.entries[0].failed);
  EXPECT_TRUE(seen.entries[1].failed);
  EXPECT_NE(seen.entries[1].entry.at("error_message").get<std::string>().find("singular"), std::string::npos);
  EXPECT_TRUE(seen.entries[2].failed);
  EXPECT_EQ(seen.entries[2].entry.at("error_message").get<std::string>().rfind(sb::refusal_prefix, 0), 0u);
  EXPECT_FALSE(seen.entries[3].failed);
  EXPECT_EQ(seen.entries[3].entry.at("samples_ms").size(), 3u);
  ASSERT_EQ(run.failed_rows().size(), 1u);
  EXPECT_EQ(run.failed_rows()[0].rfind(run.name(keys[1]), 0), 0u);
  EXPECT_EQ(run.skipped_rows().size(), 1u);
  EXPECT_EQ(run.deferred_count(), 0u);
}

TEST_F(CoreSession, AFaultThatBreaksItsBackendDefersItsLaterRowsOnly) {
  fake::fault_backend gpu;
  const sb::row_key broken = fake::add_row(run, fake::gesv_id(64, "fault"), &gpu);
  const sb::row_key later = fake::add_row(run, fake::gesv_id(128), &gpu);
  const sb::row_key other = fake::add_row(run, fake::gesv_id(256));  // another backend's row
  fake::memory_printer seen;
  sb::bridge reporter(run, {&seen});
  fake::run_round(run, {broken, later, other}, reporter);
  ASSERT_EQ(seen.entries.size(), 2u);  // the deferred row reaches no printer: a fresh process runs it
  EXPECT_TRUE(seen.entries[0].failed);
  EXPECT_EQ(sb::row_id_from_json(seen.entries[1].entry.at("id")), run.id(other));
  EXPECT_FALSE(seen.entries[1].failed);
  EXPECT_TRUE(run.deferred(later));
  EXPECT_FALSE(run.deferred(other));
  EXPECT_EQ(run.deferred_count(), 1u);
}

TEST_F(CoreSession, ProgressSaysEachRowRoundAsItEnds) {
  const std::vector<sb::row_key> keys = {fake::add_row(run, fake::gesv_id(64)),
                                         fake::add_row(run, fake::gesv_id(64, "fail"))};
  sb::round_design design;
  design.rounds = 1;
  sb::round_plan rounds({run.name(keys[0]), run.name(keys[1])}, design, {run.id(keys[0]), run.id(keys[1])});
  sb::progress_options o;
  o.mode = "lines";
  auto progress = sb::make_progress(
      o, [&rounds] { return rounds.count(); }, [&rounds](const std::string& row) { return rounds.expected_s(row); });
  sb::bridge reporter(run, {&rounds, progress.get()});
  ::testing::internal::CaptureStderr();
  fake::run_round(run, {keys[0], keys[1]}, reporter);
  reporter.finish_run();
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find("Pass: [1/2] " + run.name(keys[0]) + ", round 1/1: 1.00 ms"), std::string::npos) << said;
  EXPECT_NE(said.find("Fail: [2/2] " + run.name(keys[1]) + ", round 1/1: "), std::string::npos) << said;
  EXPECT_EQ(rounds.process_to_run(), -1);  // the failed row gets no further round
}

TEST_F(CoreSession, ARowOffAPoolWarmsUpUntilThatPoolsThreadsSleep) {
  const sb::row_key pooled = fake::add_row(run, fake::gesv_id(64));  // on its backend's BLAS pool
  sb::row_id team = fake::gesv_id(128);
  team.path = sb::row_path::batched;  // its systems on the suite's own team
  const sb::row_key batched = fake::add_row(run, team);
  fake::memory_printer seen;
  sb::bridge reporter(run, {&seen});
  fake::run_round(run, {batched, pooled}, reporter);  // no pool ran before: no wait
  fake::run_round(run, {pooled, batched}, reporter);  // the pool's last row just ended
  ASSERT_EQ(seen.entries.size(), 4u);
  const auto round_s = [&](std::size_t i) { return seen.entries[i].entry.at("round_s").get<double>(); };
  const double settle = run.policy().pool_settle;
  EXPECT_LT(round_s(0), settle / 2);
  EXPECT_LT(round_s(1), settle / 2);
  EXPECT_LT(round_s(2), settle / 2);  // a pool's row does not wait for the team
  EXPECT_GE(round_s(3), settle * 0.9);
  EXPECT_EQ(seen.entries[3].entry.at("samples"), 3);  // the waiting calls are untimed
}

// A rows log's lines as the driver reads them back.
std::vector<sb::json> lines_of(const std::string& text) {
  std::vector<sb::json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(sb::json::parse(line));
  return out;
}

TEST_F(CoreSession, AResumedRunContinuesWithTheRoundsItsRowsLogLacks) {
  const std::vector<sb::row_key> keys = {fake::add_row(run, fake::gesv_id(64)), fake::add_row(run, fake::gesv_id(128))};
  const std::vector<std::string> names = {run.name(keys[0]), run.name(keys[1])};
  sb::round_design design;
  design.rounds = 2;
  design.round_budget = 100;
  const std::string path = ::testing::TempDir() + "core_resume_" + std::to_string(getpid()) + ".rows.jsonl";
  {
    sb::rows_log log(path, false);
    sb::round_plan first(names, design);
    sb::bridge reporter(run, {&log, &first});
    std::vector<sb::row_key> now;
    for (const std::size_t i : first.places_for(0, 0)) now.push_back(keys[i]);
    fake::run_round(run, now, reporter, 0, 2);
    EXPECT_EQ(log.written(), 2u);
  }  // the process ends after round 0
  sb::round_plan resumed(names, design);
  for (const auto& line : lines_of(sb::rows_log_for_resume(path))) resumed.take(line);
  EXPECT_EQ(resumed.process_to_run(), 0);
  EXPECT_TRUE(resumed.places_for(0, 0).empty());  // round 0 is in the log
  const auto left = resumed.places_for(0, 1);
  EXPECT_EQ(std::set<std::size_t>(left.begin(), left.end()), (std::set<std::size_t>{0, 1}));
  EXPECT_EQ(resumed.count().done, 2u);
  EXPECT_EQ(resumed.count().total, 4u);
  std::remove(path.c_str());
}

}  // namespace
