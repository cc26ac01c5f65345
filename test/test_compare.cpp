// The regression gate's rule (checks/compare.hpp) and the tracker's history it can judge by
// (checks/history.hpp), on made-up runs whose answer is known.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "checks/compare.hpp"
#include "checks/history.hpp"
#include "checks/load.hpp"
#include "checks/shift.hpp"
#include "checks/thresholds.hpp"
#include "legacy/row_names.hpp"

namespace sb = solvebench::bench;
namespace fs = std::filesystem;

namespace {

const sb::row_id gesv = sb::legacy_row_id("CPU/dgesv/n:512/nrhs:1");

// One row's rounds: `ms` each, in processes of `per_process` rounds each (0: all in one).
sb::run_summary rounds(const std::vector<double>& ms, int per_process = 0, std::optional<double> pair = {}) {
  sb::run_summary run;
  for (std::size_t i = 0; i < ms.size(); ++i) {
    std::map<std::string, double> counters = {{"resid", 0.01}};
    if (per_process > 0)
      counters["process"] = static_cast<double>(
          i / static_cast<std::size_t>(per_process));  // NOLINT(bugprone-integer-division): the process index, whole
    if (pair) counters["pair"] = *pair + static_cast<double>(i);
    sb::add_repetition(run, gesv, ms[i], {}, counters);
  }
  return run;
}

std::vector<double> lognormal(double ms, int n, double sigma, std::mt19937_64& rng) {
  std::normal_distribution<double> z(0, sigma);
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(ms * std::exp(z(rng)));
  return out;
}

const sb::row_change& only(const sb::comparison& c) {
  EXPECT_EQ(c.rows.size(), 1u);
  return c.rows.front();
}

}  // namespace

TEST(Compare, OneRoundASideIsUndecidedNeverSlower) {
  // Today's runs: one repetition a side, 95% apart (the newcomer's dposv): nothing measured
  // what a re-run sees, so nothing is called slower, whatever each run's own samples said.
  const auto c = sb::compare_runs(rounds({0.01804}), rounds({0.03518}));
  const auto& r = only(c);
  EXPECT_EQ(r.status, "undecided");
  EXPECT_FALSE(r.detectable_pct());
  EXPECT_NEAR(*r.change_pct, 95.0, 0.1);
  EXPECT_NE(r.why.find("one round"), std::string::npos) << r.why;
  EXPECT_EQ(c.exit_status(), 3);
  EXPECT_EQ(c.suspects(), std::vector<std::string>{gesv.name()});
  const std::string advice = sb::undecided_advice(c);
  for (const char* what : {"--processes", "--history", ".ci/bench-pr", "rounds"})
    EXPECT_NE(advice.find(what), std::string::npos) << advice;
}

TEST(Compare, SteadyProcessesDecideSameAndSlower) {
  // Eight processes a side, one round each.
  const std::vector<double> base = {5.0, 5.02, 4.98, 5.01, 4.99, 5.0, 5.03, 4.97};
  auto c = sb::compare_runs(rounds(base, 1), rounds(base, 1));
  EXPECT_EQ(only(c).status, "same") << only(c).why;
  EXPECT_DOUBLE_EQ(*only(c).detectable_pct(), sb::limits::gate_floor_pct);
  EXPECT_EQ(c.exit_status(), 0);
  std::vector<double> slow;
  for (double t : base) slow.push_back(1.10 * t);
  c = sb::compare_runs(rounds(base, 1), rounds(slow, 1));
  EXPECT_EQ(only(c).status, "slower") << only(c).why;
  EXPECT_NEAR(*only(c).change_pct, 10.0, 0.5);
  EXPECT_EQ(c.exit_status(), 1);
  std::vector<double> fast;
  for (double t : base) fast.push_back(0.8 * t);
  EXPECT_EQ(only(sb::compare_runs(rounds(base, 1), rounds(fast, 1))).status, "faster");
}

// The same eight times as rounds of one process a side: what another process adds is
// unmeasured, so the rounds give what the inputs could detect at best, and call nothing (the
// A/A runs here: 5 repetitions in one process a side called 2 of 6 comparisons slower).
TEST(Compare, RoundsOfOneProcessASideCallNothing) {
  const std::vector<double> base = {5.0, 5.02, 4.98, 5.01, 4.99, 5.0, 5.03, 4.97};
  std::vector<double> slow;
  for (double t : base) slow.push_back(1.10 * t);
  const auto c = sb::compare_runs(rounds(base), rounds(slow));
  EXPECT_EQ(only(c).status, "undecided") << only(c).why;
  ASSERT_TRUE(only(c).detectable_pct());
  EXPECT_LT(*only(c).detectable_pct(), 5.0);  // the rounds alone would have seen it
  EXPECT_NE(only(c).why.find("one process a side"), std::string::npos) << only(c).why;
  EXPECT_NE(only(c).why.find("at best"), std::string::npos) << only(c).why;
  EXPECT_EQ(c.exit_status(), 3);
}

TEST(Compare, NoisyRoundsAreUndecidedWithWhatTheyCanDetect) {
  // 4% slower under rounds that scatter by 10%: not slower, not the same either.
  const std::vector<double> base = {5.0, 5.5, 4.5, 5.25, 4.75};
  std::vector<double> slow;
  for (double t : base) slow.push_back(1.04 * t);
  const auto c = sb::compare_runs(rounds(base), rounds(slow));
  const auto& r = only(c);
  EXPECT_EQ(r.status, "undecided");
  ASSERT_TRUE(r.detectable_pct());
  EXPECT_GT(*r.detectable_pct(), 10.0);
  EXPECT_NE(r.why.find("can detect"), std::string::npos) << r.why;
  EXPECT_EQ(c.exit_status(), 3);
}

TEST(Compare, AaFalseAlarmsStayRare) {
  // A/A: 7 processes a side of one log-normal (5%), 2000 draws: a slower row at most 1 time in
  // 200 (the interval is 99%, one-sided 0.5%); a planted 15% on 1%-noise rows is caught every time.
  std::mt19937_64 rng(11);
  int slower = 0, caught = 0;
  const int trials = 2000;
  for (int i = 0; i < trials; ++i) {
    if (only(sb::compare_runs(rounds(lognormal(5, 7, 0.05, rng), 1), rounds(lognormal(5, 7, 0.05, rng), 1))).status ==
        "slower")
      ++slower;
    if (only(sb::compare_runs(rounds(lognormal(5, 7, 0.01, rng), 1), rounds(lognormal(5.75, 7, 0.01, rng), 1)))
            .status == "slower")
      ++caught;
  }
  EXPECT_LE(slower, trials / 200);
  EXPECT_EQ(caught, trials);
}

TEST(Compare, ProcessesThatDifferAreNoise) {
  // Pooled files: three processes a side, each steady in itself but in one of two modes 7% apart
  // (GPU/dgemm/n:1024 on the H200): judged by the processes, the 7% is not a regression.
  const std::vector<double> base = {1.0, 1.001, 0.999, 1.0, 1.001, 0.999, 1.07, 1.071, 1.069};
  const std::vector<double> other = {1.07, 1.071, 1.069, 1.07, 1.071, 1.069, 1.0, 1.001, 0.999};
  const auto c = sb::compare_runs(rounds(base, 3), rounds(other, 3));
  const auto& r = only(c);
  EXPECT_EQ(r.status, "undecided") << r.why;
  EXPECT_EQ(r.base_processes, 3);
  EXPECT_NE(r.why.find("3 against 3 processes bound no change distribution-free"), std::string::npos) << r.why;
  // What it could detect is still named, from the processes' spread (issue 30: undecided says how much).
  ASSERT_TRUE(r.detectable_pct()) << r.why;
  EXPECT_GT(*r.detectable_pct(), 7.0) << r.why;
  EXPECT_NE(r.why.find("can detect ≥ "), std::string::npos) << r.why;
}

// The dpotrs of the A/A runs here: processes in one of two modes 52% apart, each steady to 0.5%;
// three a side that happen to share a mode are not a regression (Student t called it one).
TEST(Compare, ModesBetweenProcessesAreNotARegression) {
  const std::vector<double> a = {0.0440, 0.0442, 0.0451}, b = {0.0289, 0.0290, 0.0291};
  for (const auto& [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
    const auto c = sb::compare_runs(rounds(x, 1), rounds(y, 1));
    EXPECT_EQ(only(c).status, "undecided") << only(c).why;
  }
  // Seven a side, every process of the contender 10% slower than every one of the baseline, in
  // whatever mode: the shift is certain (Hodges-Lehmann, exact Mann-Whitney at 99%).
  std::vector<double> base, slow;
  for (int i = 0; i < 7; ++i) {
    base.push_back(i % 2 ? 0.044 : 0.029);
    slow.push_back(1.10 * base.back());
  }
  auto c = sb::compare_runs(rounds(base, 1), rounds(slow, 1));
  EXPECT_NE(only(c).status, "slower");  // modes on both sides: the differences cover -35% .. +68%
  for (double& t : base) t = 0.029 * (1 + 0.001 * t);
  slow.clear();
  for (double t : base) slow.push_back(1.10 * t);
  c = sb::compare_runs(rounds(base, 1), rounds(slow, 1));
  EXPECT_EQ(only(c).status, "slower") << only(c).why;
  EXPECT_NE(only(c).noise_from.find("7 against 7 processes"), std::string::npos) << only(c).noise_from;
}

TEST(Shift, MannWhitneyCutsAndHodgesLehmann) {
  EXPECT_EQ(sb::mann_whitney_cut(3, 3, 0.90), 0);  // P(U = 0) = 1/20
  EXPECT_EQ(sb::mann_whitney_cut(3, 3, 0.95), -1);
  EXPECT_EQ(sb::mann_whitney_cut(5, 5, 0.99), 0);   // 1/252 <= 0.005
  EXPECT_EQ(sb::mann_whitney_cut(8, 8, 0.95), 13);  // tables: 13 for m = n = 8 at two-sided 5%
  EXPECT_EQ(sb::mann_whitney_cut(10, 10, 0.99), 16);
  // Beyond 30 a side, the normal approximation: within one of the exact cut at 30.
  EXPECT_NEAR(static_cast<double>(sb::mann_whitney_cut(31, 31, 0.99)),
              static_cast<double>(sb::mann_whitney_cut(30, 30, 0.99)) + 30, 40);
  const auto s = sb::hodges_lehmann({1, 2, 3, 4, 5}, {11, 12, 13, 14, 15}, 0.99);
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->estimate, 10);
  EXPECT_DOUBLE_EQ(s->lo, 6);  // the smallest of the 25 differences (cut 0)
  EXPECT_DOUBLE_EQ(s->hi, 14);
  EXPECT_FALSE(sb::hodges_lehmann({1, 2}, {3, 4}, 0.9));
}

TEST(Compare, PairsDecideBackToBack) {
  // Pair k ran while the machine moved everything by drift[k]; the contender is 10% slower.
  const std::vector<double> drift = {0.0, 0.25, -0.1, 0.4, 0.05, 0.3, -0.05, 0.15, 0.2, 0.1, 0.35, -0.08};
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> jitter(-0.005, 0.005);
  for (const std::size_t m : {3u, 12u}) {
    std::vector<double> b, n;
    for (std::size_t k = 0; k < m; ++k) {
      b.push_back(5.0 * (1 + drift[k]) * (1 + jitter(rng)));
      n.push_back(5.5 * (1 + drift[k]) * (1 + jitter(rng)));
    }
    const auto c = sb::compare_runs(rounds(b, 1, 0.0), rounds(n, 1, 0.0));
    const auto& r = only(c);
    EXPECT_EQ(r.pairs, m);
    EXPECT_EQ(r.status, "slower") << r.why;
    EXPECT_LT(*r.interval_pct, 5.0) << r.why;
    // Unpaired, the same times are undecided: the drift is between-run noise.
    std::vector<double> bu = b, nu = n;
    EXPECT_NE(only(sb::compare_runs(rounds(bu, 1), rounds(nu, 1))).status, "slower");
  }
}

namespace {

// A tools/track store with one testbed whose runs have the row at `ms`, run i of the stack
// (fingerprint commit) stacks[i], else of one stack.
class store_dir {
 public:
  explicit store_dir(const std::vector<double>& ms, const std::string& testbed = "vm",
                     const std::vector<std::string>& stacks = {}) {
    path_ = fs::temp_directory_path() / ("sb-history-" + std::to_string(::getpid()) + "-" + std::to_string(count_++));
    fs::create_directories(path_ / testbed / "answers");
    for (std::size_t i = 0; i < ms.size(); ++i) {
      nlohmann::ordered_json doc = {
          {"format", "solve_bench-track/1"},
          {"testbed", testbed},
          {"date", "2026-12-01T00:00:00+00:00"},
          {"rows", {{{"name", gesv.name()}, {"id", sb::to_json(gesv)}, {"median_ms", ms[i]}, {"repetitions", 1}}}}};
      const std::string commit = i < stacks.size() ? stacks[i] : "abc";
      if (!commit.empty()) doc["fingerprint"] = {{"solve_bench_commit", commit}, {"blas_threads", "2"}};
      char name[64];
      std::snprintf(name, sizeof name, "202612%02zuT000000Z-%010zx.json", 1 + i % 28, i);
      std::ofstream(path_ / testbed / name) << doc.dump();
    }
    std::ofstream(path_ / testbed / "answers" / "bisect.json") << "{}";  // not a run: left alone
  }
  ~store_dir() { fs::remove_all(path_); }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
  static inline int count_ = 0;
};

// A record of 40 runs at 5 ms, `sigma` apart, of which runs 20-24 ran together in a +30% state
// (a VM's host busy elsewhere for a while).
std::vector<double> with_a_lasting_state(double sigma, std::mt19937_64& rng) {
  std::vector<double> ms = lognormal(5.0, 40, sigma, rng);
  for (std::size_t i = 20; i < 25; ++i) ms[i] *= 1.3;
  return ms;
}

}  // namespace

TEST(History, ReadsAStoreAndItsSpread) {
  std::mt19937_64 rng(5);
  const store_dir store(lognormal(5.0, 30, 0.02, rng));
  EXPECT_EQ(sb::history_testbeds(store.path()), std::vector<std::string>{"vm"});
  const auto h = sb::load_history(store.path(), "vm");
  EXPECT_EQ(h.runs, 30u);
  const auto* r = h.find(gesv);
  ASSERT_TRUE(r);
  const auto s = r->per_run();
  ASSERT_TRUE(s);
  EXPECT_NEAR(std::sqrt(s->centre_var), 0.02, 0.008);
  // 3 runs after a step against 30 before: t(0.995, ~10) * 2% * sqrt(1/3 + 1/30) ~ 3.8%.
  EXPECT_NEAR(*r->detectable_step_pct(3, 0.99), 3.8, 1.5);
  EXPECT_THROW(sb::load_history(store.path(), "elsewhere"), sb::load_error);
  EXPECT_THROW(sb::history_testbeds(store.path() + "/nowhere"), sb::load_error);
}

TEST(History, IsRobustToTheStepsOfNewStacks) {
  std::vector<double> ms;
  std::vector<std::string> stacks;
  std::mt19937_64 rng(6);
  for (const auto& [level, commit] : std::vector<std::pair<double, std::string>>{{5.0, "a"}, {10.0, "b"}, {5.0, "c"}})
    for (double t : lognormal(level, 10, 0.01, rng)) {
      ms.push_back(t);
      stacks.push_back(commit);
    }
  const store_dir store(ms, "vm", stacks);
  const sb::run_history history = sb::load_history(store.path(), "vm");
  const auto* r = history.find(gesv);
  const auto s = r->per_run();
  ASSERT_TRUE(s);
  EXPECT_LT(std::sqrt(s->centre_var), 0.02);  // the two steps, each a new build, do not count as spread
  ASSERT_TRUE(r->reruns() && r->steps());
  EXPECT_EQ(r->reruns()->df, 27);  // 30 runs of 3 stacks
}

TEST(History, CountsEveryStateOfOneStackAsSpread) {
  // One build, one library: 40 runs at 5 ms, 2% apart, and 5 of them, together, at 6.5 ms for
  // a while (a VM's host busy elsewhere). Successive steps see two jumps; reruns see every state.
  std::mt19937_64 rng(7);
  const std::vector<double> ms = with_a_lasting_state(0.02, rng);
  const store_dir store(ms);
  const auto h = sb::load_history(store.path(), "vm");
  const auto* r = h.find(gesv);
  const auto steps = r->steps(), reruns = r->reruns();
  ASSERT_TRUE(steps && reruns);
  EXPECT_LT(steps->rerun_pct(0.95), 10.0);
  // 175 of the 780 pairs straddle the state: a re-run lands 30% away far more than 1 in 20.
  EXPECT_GT(reruns->rerun_pct(0.95), 25.0);
  EXPECT_DOUBLE_EQ(r->per_run()->centre_var, reruns->centre_var);
  // Its rerun_pct at 95% is the quantile of the runs' ratios, by construction.
  std::vector<double> gaps;
  for (std::size_t i = 0; i < ms.size(); ++i)
    for (std::size_t j = i + 1; j < ms.size(); ++j) gaps.push_back(std::fabs(std::log(ms[i] / ms[j])));
  std::sort(gaps.begin(), gaps.end());
  EXPECT_NEAR(reruns->rerun_pct(0.95),
              100 * std::expm1(gaps[static_cast<std::size_t>(0.95 * static_cast<double>(gaps.size() - 1))]), 0.5);
  // Runs without a fingerprint are of no known stack: the steps alone.
  const store_dir unknown(ms, "vm", std::vector<std::string>(ms.size(), ""));
  const auto hu = sb::load_history(unknown.path(), "vm");
  EXPECT_FALSE(hu.find(gesv)->reruns());
  EXPECT_DOUBLE_EQ(hu.find(gesv)->per_run()->centre_var, hu.find(gesv)->steps()->centre_var);
}

TEST(History, DecidesOneRoundASideAndFloorsTightRounds) {
  std::mt19937_64 rng(9);
  const store_dir steady(lognormal(5.0, 30, 0.005, rng));
  auto h = sb::load_history(steady.path(), "vm");
  // One round a side: the history's spread decides.
  auto c = sb::compare_runs(rounds({5.0}), rounds({5.02}), &h);
  EXPECT_EQ(only(c).status, "same") << only(c).why;
  EXPECT_NE(only(c).noise_from.find("history"), std::string::npos);
  c = sb::compare_runs(rounds({5.0}), rounds({5.75}), &h);
  EXPECT_EQ(only(c).status, "slower") << only(c).why;
  EXPECT_NE(sb::comparison_text(c).find("history"), std::string::npos);
  // Rounds steady to 0.1% in one process each, but runs on this testbed scatter by 5%: a 4%
  // move is within what the history says a re-run sees.
  const store_dir noisy(lognormal(5.0, 30, 0.05, rng));
  h = sb::load_history(noisy.path(), "vm");
  const std::vector<double> tight = {5.0, 5.005, 4.995, 5.0, 5.002};
  std::vector<double> moved;
  for (double t : tight) moved.push_back(1.04 * t);
  EXPECT_EQ(only(sb::compare_runs(rounds(tight), rounds(moved), &h)).status, "undecided");
  // A steady testbed's history gives the one process a side what it lacks: the 4% is called.
  h = sb::load_history(steady.path(), "vm");
  EXPECT_EQ(only(sb::compare_runs(rounds(tight), rounds(moved), &h)).status, "slower");
}

// The H100's GPU rows with --span=0: 3 processes of 3 rounds a side, spread 2% (wider than the
// record of the row, 0.5%). Alone they bound no change distribution-free; a record that counted
// every state and mode of the testbed lets their own spread judge them.
TEST(History, DecidesFewProcessesNoNarrowerThanTheRecord) {
  std::mt19937_64 rng(13);
  const std::vector<double> base = {5.0, 5.1, 4.95, 5.05, 4.9, 5.0, 5.1, 5.0, 4.95};
  std::vector<double> slow, again;
  for (double t : base) slow.push_back(1.10 * t);
  for (std::size_t i = 0; i < base.size(); ++i) again.push_back(base[(i + 3) % base.size()]);
  EXPECT_EQ(only(sb::compare_runs(rounds(base, 3), rounds(slow, 3))).status, "undecided");
  const store_dir steady(lognormal(5.0, 30, 0.005, rng));
  const auto h = sb::load_history(steady.path(), "vm");
  const auto c = sb::compare_runs(rounds(base, 3), rounds(slow, 3), &h);
  EXPECT_EQ(only(c).status, "slower") << only(c).why;
  EXPECT_NE(only(c).noise_from.find("no narrower than the history"), std::string::npos) << only(c).noise_from;
  EXPECT_NE(only(sb::compare_runs(rounds(base, 3), rounds(again, 3), &h)).status, "slower");
}

TEST(History, FloorsARunsPlusMinusByTheRunsItPools) {
  std::mt19937_64 rng(11);
  const store_dir noisy(lognormal(5.0, 30, 0.05, rng));
  const auto h = sb::load_history(noisy.path(), "vm");
  // Five rounds steady to 0.1%: their own +- is narrow; on record, runs scatter by 5%.
  sb::run_summary run = rounds({5.0, 5.005, 4.995, 5.0, 5.002});
  const double own = *run.rows.at(0).noise_pct();
  const std::string text = sb::hold_to_history(run, h);
  const double held = *run.rows.at(0).noise_pct();
  EXPECT_LT(own, 1.0);
  EXPECT_GT(held, 7.0);  // ~ t * sqrt(2) * 5%
  EXPECT_EQ(run.rows.at(0).spread()->history_runs, 30);
  EXPECT_NE(text.find("testbed vm: 30 runs"), std::string::npos);
  EXPECT_EQ(run.context_value("noise_history"), text);
  // Four files pooled: their medians average four runs' states, half the spread of one.
  sb::run_summary pooled = rounds({5.0, 5.005, 4.995, 5.0, 5.002});
  pooled.sources = {"a.json", "b.json", "c.json", "d.json"};
  sb::hold_to_history(pooled, h);
  EXPECT_NEAR(2 * *pooled.rows.at(0).noise_pct(), held, 0.05 * held);  // a percent of exp(): near, not exact
  // A steadier record never narrows what the run itself saw; one round gets the record's.
  const store_dir steady(lognormal(5.0, 30, 0.002, rng));
  const auto hs = sb::load_history(steady.path(), "vm");
  sb::run_summary wide = rounds({5.0, 5.5, 4.6, 5.2, 4.8});
  const double wide_own = *wide.rows.at(0).noise_pct();
  sb::hold_to_history(wide, hs);
  EXPECT_DOUBLE_EQ(*wide.rows.at(0).noise_pct(), wide_own);
  sb::run_summary one = rounds({5.0});
  EXPECT_FALSE(one.rows.at(0).noise_pct());
  sb::hold_to_history(one, hs);
  EXPECT_TRUE(one.rows.at(0).noise_pct());
}

TEST(History, SidesThatTookTurnsAreHeldToNeighbouringRuns) {
  // The record: one stack whose runs went through a +30% state for a while (reruns see it, steps
  // barely). Two files a side, the contender 10% slower: sides that ran one after the other may
  // each have met another state, so the state counts; sides that took turns met the same ones.
  std::mt19937_64 rng(13);
  const store_dir store(with_a_lasting_state(0.015, rng));
  const auto h = sb::load_history(store.path(), "vm");
  const auto side = [](double level, std::vector<std::string> dates) {
    sb::run_summary run = rounds({level, level * 1.001, level * 0.999, level, level * 1.002, level * 0.998}, 3);
    run.sources = {"1.json", "2.json"};
    run.dates = std::move(dates);
    return run;
  };
  const sb::run_summary a = side(5.0, {"2026-12-06T22:55:26+00:00", "2026-12-06T22:59:28+00:00"});
  const sb::run_summary turns = side(5.5, {"2026-12-06T22:57:27+00:00", "2026-12-06T23:01:30+00:00"});
  const sb::run_summary after = side(5.5, {"2026-12-06T23:03:31+00:00", "2026-12-06T23:05:32+00:00"});
  const auto c_turns = sb::compare_runs(a, turns, &h), c_after = sb::compare_runs(a, after, &h);
  EXPECT_EQ(only(c_turns).status, "slower") << only(c_turns).why;
  EXPECT_NE(c_turns.history.find("took turns"), std::string::npos);
  EXPECT_EQ(only(c_after).status, "undecided") << only(c_after).why;
  EXPECT_EQ(c_after.history.find("took turns"), std::string::npos);
  // The same instants in another time zone are still turns; one file a side never is.
  const sb::run_summary shifted = side(5.5, {"2026-12-06T23:57:27+01:00", "2026-12-07T00:01:30+01:00"});
  EXPECT_EQ(only(sb::compare_runs(a, shifted, &h)).status, "slower");
  sb::run_summary one = side(5.5, {"2026-12-06T22:57:27+00:00"});
  one.sources = {"1.json"};
  EXPECT_EQ(sb::compare_runs(a, one, &h).history.find("took turns"), std::string::npos);
}

TEST(History, PicksTheTestbedOfTheRun) {
  const store_dir store({5.0, 5.0, 5.0, 5.0, 5.0}, "dev-2core");
  sb::run_summary run;
  EXPECT_EQ(sb::testbed_for(store.path(), "", run), "dev-2core");  // its only testbed
  EXPECT_EQ(sb::testbed_for(store.path(), "given", run), "given");
  run.context["host_name"] = "dev 2core";  // a folder name as tools/track add makes it
  fs::create_directories(fs::path(store.path()) / "other");
  std::ofstream(fs::path(store.path()) / "other" / "20261201T000000Z-0000000000.json") << "{}";
  EXPECT_THROW(sb::testbed_for(store.path(), "", run), sb::load_error);
  run.context["host_name"] = "dev-2core";
  EXPECT_EQ(sb::testbed_for(store.path(), "", run), "dev-2core");
}

TEST(Compare, FailedBeatsUndecidedAndTheFormsSayIt) {
  sb::run_summary base = rounds({5.0});
  sb::run_summary contender = rounds({5.0});
  sb::add_failure(contender, sb::legacy_row_id("CPU/dgemm/n:512"), "boom", false);
  sb::add_repetition(base, sb::legacy_row_id("CPU/dgemm/n:512"), 9.0, {}, {{"resid", 0.01}});
  const auto c = sb::compare_runs(base, contender);
  EXPECT_TRUE(c.undecided());
  EXPECT_TRUE(c.failed());
  EXPECT_EQ(c.exit_status(), 1);
  const auto j = sb::comparison_json(c);
  EXPECT_EQ(j.at("exit_status"), 1);
  EXPECT_TRUE(j.at("rows").at(0).at("detectable_pct").is_null());
  EXPECT_EQ(j.at("rows").at(0).at("status"), "undecided");
  EXPECT_DOUBLE_EQ(j.at("confidence").get<double>(), sb::limits::gate_confidence);
  EXPECT_NE(sb::comparison_markdown(c, {"a"}, {"b"}).find("**Undecided.**"), std::string::npos);
  EXPECT_NE(sb::comparison_text(c).find("compare: FAILED"), std::string::npos);
  EXPECT_NE(sb::comparison_text(sb::compare_runs(rounds({5.0}), rounds({5.0}))).find("compare: UNDECIDED"),
            std::string::npos);
}
