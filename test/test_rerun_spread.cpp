// The spread a re-run sees: Student's t, and the variance between rounds and processes
// (checks/record.hpp), on values whose answers are known.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "checks/load.hpp"
#include "checks/record.hpp"
#include "legacy/row_names.hpp"

namespace sb = solvebench::bench;

TEST(StudentT, MatchesTablesAndTheNormalLimit) {
  EXPECT_NEAR(sb::student_t_quantile(0.975, 1), 12.706, 1e-3);
  EXPECT_NEAR(sb::student_t_quantile(0.975, 4), 2.776, 1e-3);
  EXPECT_NEAR(sb::student_t_quantile(0.995, 10), 3.169, 1e-3);
  EXPECT_NEAR(sb::student_t_quantile(0.975, 2.5), 3.5747, 1e-3);  // fractional df (Welch; scipy)
  EXPECT_NEAR(sb::student_t_quantile(0.975, 1e6), 1.960, 1e-3);
  EXPECT_NEAR(sb::student_t_quantile(0.025, 4), -2.776, 1e-3);
  EXPECT_TRUE(std::isnan(sb::student_t_quantile(1.5, 4)));
}

TEST(RerunSpread, OneRoundSaysNothing) {
  EXPECT_FALSE(sb::rerun_spread_of({1.0}, {0}));
  EXPECT_FALSE(sb::rerun_spread_of({}, {}));
  EXPECT_FALSE(sb::rerun_spread_of({1.0, 0.0}, {0, 0}));  // a zero time is no time
}

TEST(RerunSpread, OneProcessUsesItsRounds) {
  const auto s = sb::rerun_spread_of({1.0, 1.1, 0.9, 1.05, 0.95}, {0, 0, 0, 0, 0});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->rounds, 5);
  EXPECT_EQ(s->processes, 1);
  EXPECT_EQ(s->df, 4);
  // The logs' variance is about 0.0063; the median of 5 is ~1.4 times as variable as the mean.
  EXPECT_NEAR(s->centre_var, 1.41 * 0.0063 / 5, 3e-4);
  // t(0.975, 4) * sqrt(2 * var): 17.98% (scipy: stats.t.ppf(0.975, 4) * sqrt(2 * 1.41 * 0.00629 / 5)).
  EXPECT_NEAR(s->rerun_pct(0.95), 17.98, 0.05);
}

TEST(RerunSpread, ProcessesThatDifferWidenIt) {
  // Three processes, each steady within itself, 10% apart: the rounds alone would say ~0.
  const std::vector<double> ms = {1.0, 1.001, 0.999, 1.1, 1.101, 1.099, 1.2, 1.201, 1.199};
  const std::vector<int> key = {0, 0, 0, 1, 1, 1, 2, 2, 2};
  const auto s = sb::rerun_spread_of(ms, key);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->processes, 3);
  EXPECT_EQ(s->df, 2);
  EXPECT_GT(s->rerun_pct(0.95), 20.0);
  const auto one = sb::rerun_spread_of(ms, std::vector<int>(9, 0));
  ASSERT_TRUE(one);
  EXPECT_GT(s->centre_var, 0.5 * one->centre_var);
}

TEST(RerunSpread, CoversAReRunNineteenTimesInTwenty) {
  // Rounds drawn from one log-normal: a second run's median lands inside the first's interval
  // about 95% of the time (the median-of-rounds factor makes it a little wider than needed).
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0, 0.05);
  const auto run = [&] {
    std::vector<double> ms;
    for (int r = 0; r < 5; ++r) ms.push_back(std::exp(noise(rng)));
    return ms;
  };
  int inside = 0, trials = 4000;
  for (int i = 0; i < trials; ++i) {
    const auto a = run(), b = run();
    const auto s = sb::rerun_spread_of(a, std::vector<int>(a.size(), 0));
    const double change = 100.0 * (sb::median(b) / sb::median(a) - 1);
    if (std::fabs(change) <= s->rerun_pct(0.95)) ++inside;
  }
  const double share = static_cast<double>(inside) / trials;
  EXPECT_GT(share, 0.93);
  EXPECT_LT(share, 0.995);
}

TEST(RerunSpread, DifferenceOfTwoRunsAddsBoth) {
  const auto a = sb::rerun_spread_of({1.0, 1.1, 0.9, 1.05, 0.95}, {0, 0, 0, 0, 0});
  const auto b = sb::rerun_spread_of({1.0, 1.02, 0.98, 1.01, 0.99}, {0, 0, 0, 0, 0});
  ASSERT_TRUE(a && b);
  const double both = a->difference_pct(*b, 0.95);
  EXPECT_GT(both, b->difference_pct(*b, 0.95));
  EXPECT_LT(both, a->rerun_pct(0.95) * 1.2);
}

TEST(RerunSpread, PooledFilesAreProcessesOfTheirOwn) {
  const std::string head = R"({"context": {"solve_bench_version": "x"}, "benchmarks": [)";
  const auto file = [&](double ns) {
    return head + R"({"name": "CPU/dgemm/n:8/manual_time", "run_name": "CPU/dgemm/n:8", "run_type": "iteration",
        "real_time": )" +
           std::to_string(ns) + R"(, "time_unit": "ns"}]})";
  };
  sb::run_summary run;
  sb::load_text(run, "a.json", file(1000));
  sb::load_text(run, "b.json", file(1100));
  sb::load_text(run, "c.json", file(1050));
  ASSERT_EQ(run.rows.size(), 1u);
  const auto s = run.rows[0].spread();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->processes, 3);
  EXPECT_EQ(s->rounds, 3);
}

// noise_pct (issue 30): the interval a re-run lands in, from the rounds; one round of a run that
// has rounds says nothing; a saved run of an earlier version keeps what it said.
sb::row_record rounds_row(const std::vector<double>& ms, std::map<std::string, std::vector<double>> counters) {
  sb::row_record r;
  r.id = sb::legacy_row_id("CPU/dgemm/n:64");
  r.name = r.id.name();
  r.times_ms = ms;
  r.process_of.assign(ms.size(), 0);
  r.counters = std::move(counters);
  return r;
}

// The row as another row (its id from its name).
sb::row_record named(const std::string& name, sb::row_record r) {
  r.id = sb::legacy_row_id(name);
  r.name = r.id.name();
  return r;
}

TEST(RowNoise, WithRoundsItIsTheReRunInterval) {
  const auto r = rounds_row({1.0, 1.1, 0.9, 1.05, 0.95},
                            {{"round", {0, 1, 2, 3, 4}}, {"noise_within_pct", {0.2, 0.3, 0.1, 0.4, 0.2}}});
  ASSERT_TRUE(r.noise_pct());
  EXPECT_DOUBLE_EQ(*r.noise_pct(), r.spread()->rerun_pct(0.95));
  EXPECT_NEAR(*r.noise_pct(), 17.98, 0.05);      // the rounds' spread (above), not their own samples'
  EXPECT_DOUBLE_EQ(*r.noise_within_pct(), 0.2);  // the median of the rounds' own intervals
}

TEST(RowNoise, OneRoundOfARunWithRoundsIsUnknown) {
  const auto r = rounds_row({1.0}, {{"round", {0}}, {"noise_within_pct", {0.4}}});
  EXPECT_FALSE(r.noise_pct());  // never the within-process interval
  EXPECT_DOUBLE_EQ(*r.noise_within_pct(), 0.4);
}

TEST(RowNoise, AnEarlierVersionsOneRepetitionKeepsItsCounter) {
  auto r = rounds_row({1.0}, {{"noise_pct", {0.7}}});
  EXPECT_DOUBLE_EQ(*r.noise_pct(), 0.7);
  EXPECT_DOUBLE_EQ(*r.noise_within_pct(), 0.7);
  r.counters.clear();
  r.samples_ms = {1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0, 1.0};  // its rows log's samples
  EXPECT_TRUE(r.noise_pct());
  EXPECT_EQ(r.noise_pct(), r.noise_within_pct());
}

TEST(RowNoise, ARoundsCounterInARowLogIsRead) {
  const std::string log =
      "{\"context\": {\"solve_bench_version\": \"x\"}}\n"
      "{\"name\": \"CPU/dgemm/n:8/manual_time\", \"run_name\": \"CPU/dgemm/n:8/manual_time\", \"run_type\": "
      "\"iteration\", \"real_time\": 1000, \"time_unit\": \"ns\", \"round\": 0, \"process\": 0, "
      "\"noise_within_pct\": 0.5}\n";
  sb::run_summary run;
  sb::load_text(run, "r.rows.jsonl", log);
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_TRUE(run.rows[0].has_rounds());
  EXPECT_FALSE(run.rows[0].noise_pct());
  EXPECT_DOUBLE_EQ(*run.rows[0].noise_within_pct(), 0.5);
}

// What the device adds (issue 30): a row whose rounds happened to agree is held to the spread of
// the median row on its device; rows on another device are not.
TEST(RowNoise, ARowIsHeldToTheMedianRowOfItsDevice) {
  sb::run_summary run;
  const auto add = [&](const std::string& name, const std::vector<double>& ms) {
    run.rows.push_back(named(name, rounds_row(ms, {{"round", {0, 1, 2, 3, 4}}})));
  };
  const std::vector<double> spread = {1.0, 1.1, 0.9, 1.05, 0.95}, steady = {1.0, 1.0001, 0.9999, 1.0, 1.0};
  add("CPU/dgemm/n:64", spread);
  add("CPU/dgemm/n:128", spread);
  add("CPU/dgetrf/n:64", steady);
  add("GPU/dgetrf/n:64", steady);
  add("GPU/dgemm/n:64", steady);
  const double alone = *run.rows[2].noise_pct();
  EXPECT_LT(alone, 0.1);
  sb::pool_device_noise(run);
  EXPECT_NEAR(*run.rows[2].noise_pct(), 17.98, 0.05);  // the CPU's median row: the spread one
  EXPECT_NEAR(*run.rows[0].noise_pct(), 17.98, 0.05);  // its own, which is the median
  EXPECT_LT(*run.rows[3].noise_pct(), 0.1);            // the GPU's rows are steady
}

// Within a family (issue 30): a batched row whose processes happened to agree is held to its
// family's median row, noisier than the device's (a thread pool over many small systems); a
// row of another family keeps the device's floor.
TEST(RowNoise, ARowsProcessesAreHeldToTheMedianRowOfItsFamily) {
  sb::run_summary run;
  const auto add = [&](const std::string& name, const std::vector<double>& ms) {
    auto r = rounds_row(ms, {{"round", {0, 1, 0, 1, 0, 1}}});
    r.process_of = {0, 0, 1, 1, 2, 2};
    run.rows.push_back(named(name, r));
  };
  const std::vector<double> apart = {1.0, 1.0, 1.3, 1.3, 1.6, 1.6}, agree = {1.0, 1.0, 1.0001, 1.0001, 0.9999, 0.9999};
  add("CPU/dposv_batched/n:8/batch:1000", apart);
  add("CPU/dposv_batched/n:32/batch:1000", apart);
  add("CPU/dposv_batched/n:128/batch:1000", agree);
  for (const char* name : {"CPU/dgemm/n:64", "CPU/dgemm/n:128", "CPU/dgetrf/n:64", "CPU/dgetrf/n:128"})
    add(name, agree);
  sb::pool_device_noise(run);
  EXPECT_NEAR(*run.rows[2].noise_pct(), *run.rows[0].noise_pct(), 1e-9);  // the family's floor
  EXPECT_GT(*run.rows[2].noise_pct(), 50.0);
  EXPECT_LT(*run.rows[3].noise_pct(), 0.1);  // the device's median row agrees: GEMM keeps it
}

// A solve and the rows that time its parts (issue 30): the halves' and the driver's solves are
// held to each other's processes, and to their factorization's in proportion to its share of
// their time (variances of logs add as the squares of the shares); a solve of another order
// keeps the device's floor.
TEST(RowNoise, ASolveIsHeldToItsFactorizationAndItsTwin) {
  sb::run_summary run;
  const auto add = [&](const std::string& name, double scale, const std::vector<double>& ms) {
    auto r = rounds_row({}, {{"round", {0, 1, 0, 1, 0, 1}}});
    for (double t : ms) r.times_ms.push_back(scale * t);
    r.process_of = {0, 0, 1, 1, 2, 2};
    run.rows.push_back(named(name, r));
  };
  const std::vector<double> apart = {1.0, 1.0, 1.3, 1.3, 1.6, 1.6}, agree = {1.0, 1.0, 1.0001, 1.0001, 0.9999, 0.9999};
  add("CPU/spotrf/n:256", 0.8 / 1.3, apart);  // median 0.8: 80% of the solve's time
  add("CPU/sposv/n:256/nrhs:1", 1.0, agree);  // its three processes agreed
  add("CPU-driver/sposv/n:256/nrhs:1", 1.0, agree);
  add("CPU/sposv/n:512/nrhs:1", 4.0, agree);               // no factorization timed at 512
  add("CPU-driver/sposv/n:512/nrhs:1", 4.0 / 1.3, apart);  // but its driver moved
  add("CPU/sposv/n:1024/nrhs:1", 10.0, agree);
  add("CPU-driver/sposv/n:1024/nrhs:1", 10.0, agree);
  for (const char* name : {"CPU/sgemm/n:256", "CPU/sgemm/n:1024", "CPU/sgetrf/n:256", "CPU/sgetrf/n:1024"})
    add(name, 1.0, agree);
  const auto process_var = [&](std::size_t i) { return run.rows[i].spread()->process_var; };
  const double moved = process_var(0);
  sb::pool_device_noise(run);
  EXPECT_NEAR(process_var(1), 0.64 * moved, 1e-12);  // 0.8 squared of the factorization's
  EXPECT_NEAR(process_var(2), 0.64 * moved, 1e-12);  // the driver: the same
  EXPECT_NEAR(process_var(3), moved, 1e-12);         // the halves at 512: their driver's
  EXPECT_LT(process_var(5), 1e-6);                   // n = 1024: nothing of the others'
  EXPECT_GT(*run.rows[1].noise_pct(), 40.0);
}

// The same for processes (issue 30): a row whose processes happened to agree is held to the
// variance between the processes of the median row on its device; a run of one process has none.
TEST(RowNoise, ARowsProcessesAreHeldToTheMedianRowOfItsDevice) {
  sb::run_summary run;
  const auto add = [&](const std::string& name, const std::vector<double>& ms) {
    auto r = rounds_row(ms, {{"round", {0, 1, 0, 1, 0, 1}}});
    r.process_of = {0, 0, 1, 1, 2, 2};
    run.rows.push_back(named(name, r));
  };
  // Processes 10% apart, steady within each; and a row whose processes agree to 0.01%.
  const std::vector<double> apart = {1.0, 1.0, 1.1, 1.1, 1.2, 1.2}, agree = {1.0, 1.0, 1.0001, 1.0001, 0.9999, 0.9999};
  add("CPU/dgemm/n:64", apart);
  add("CPU/dgemm/n:128", apart);
  add("CPU/dgetrf/n:64", agree);
  const double alone = *run.rows[2].noise_pct();
  EXPECT_LT(alone, 0.1);
  sb::pool_device_noise(run);
  const double held = *run.rows[2].noise_pct();
  EXPECT_NEAR(held, *run.rows[0].noise_pct(), 1e-9);  // the median row's processes: the apart ones
  // t(0.975, 2) * sqrt(2 * var / 3), var the variance of log(1.0), log(1.1), log(1.2) (0.008316, numpy)
  // over the median of chi-squared(2) / 2 (Wilson-Hilferty: (1 - 1/9)^3 = 0.7023): the floor of
  // every row here, the apart ones' own variance included.
  EXPECT_NEAR(held, 100 * std::expm1(4.3027 * std::sqrt(2 * 0.008316 / 0.7023 / 3)), 0.2);
  // One process: no process floor, whatever the other rows' processes did.
  sb::run_summary one;
  auto r = rounds_row(agree, {{"round", {0, 1, 2, 3, 4, 5}}});
  one.rows.push_back(r);
  one.rows.push_back(run.rows[0]);
  sb::pool_device_noise(one);
  EXPECT_LT(*one.rows[0].noise_pct(), 0.1);
}
