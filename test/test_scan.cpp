// The size scan (issue 34) on made-up rows: the coarse grid, the pairs a pass bisects, the loop
// of passes narrowing a planted cliff to neighbouring sizes, a smooth row left alone, a spike,
// a library's limit (the rows above it refused, never run), and the audit's cliffs rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "checks/audit.hpp"
#include "checks/cliffs.hpp"
#include "checks/thresholds.hpp"
#include "core/scan.hpp"
#include "legacy/row_names.hpp"

namespace solvebench::bench {
namespace {

// A row's rate at n: a smooth BLAS-3 curve, times `planted` below the cliff.
using rate_of = std::function<double(std::int64_t n)>;
double smooth(std::int64_t n) { return 40.0 * std::sqrt(static_cast<double>(n) / 1000.0); }

row_id dgesv_id(std::int64_t n) {
  row_id id = legacy_row_id("CPU-driver/dgesv/n:1/nrhs:1");
  id.n = n;
  return id;
}

// Measures the row at n as a run would: `rounds` rounds, each its median time jittered by a
// few percent (deterministic in n and round), GFLOP/s from the same flops.
void measure(run_summary& run, const row_id& id, const rate_of& rate, int rounds = 5, double jitter = 0.03,
             const std::string& axis = "n") {
  const double flops = 2.0 / 3.0 * std::pow(static_cast<double>(id.n), 3);
  for (int k = 0; k < rounds; ++k) {
    const double wobble = 1 + jitter * std::sin(static_cast<double>(id.n) * 0.7 + k * 2.1);
    const double gflops = rate(axis_value(id, axis)) / wobble;
    const double ms = flops / gflops * 1e-6;
    add_repetition(run, id, ms, {ms}, {{"GFLOP/s", gflops}, {"round", k}, {"process", 0}});
  }
}

// The scan's loop, without a binary: the coarse grid, then passes of midpoints until none is left
// or `extra` rows were added. Rows above `limit` are refused, as the harness refuses them.
struct scan_result {
  run_summary run;
  int passes = 0, added = 0;
};
scan_result scan(std::int64_t lo, std::int64_t hi, const rate_of& rate, int extra = 40, std::int64_t limit = INT64_MAX,
                 int rounds = 5) {
  scan_result out;
  out.run.context["scan"] = "n:" + std::to_string(lo) + ".." + std::to_string(hi);
  const auto run_one = [&](const row_id& id) {
    if (id.n > limit) add_failure(out.run, id, "library fails beyond n = " + std::to_string(limit) + "; not run", true);
    else measure(out.run, id, rate, rounds);
  };
  for (auto n : coarse_grid(lo, hi)) run_one(dgesv_id(n));
  for (;;) {
    const auto mids = scan_midpoints(out.run, "n", static_cast<std::size_t>(extra - out.added));
    if (mids.empty()) break;
    ++out.passes;
    out.added += static_cast<int>(mids.size());
    for (const auto& id : mids) run_one(id);
  }
  return out;
}

TEST(Scan, CoarseGridSpansTheRangeInEvenRatios) {
  const auto g = coarse_grid(256, 2048);
  ASSERT_EQ(g.size(), static_cast<std::size_t>(scan_coarse_points));
  EXPECT_EQ(g.front(), 256);
  EXPECT_EQ(g.back(), 2048);
  for (std::size_t i = 1; i < g.size(); ++i)
    EXPECT_NEAR(static_cast<double>(g[i]) / static_cast<double>(g[i - 1]), std::pow(8.0, 1.0 / 8), 0.01);
  EXPECT_EQ(coarse_grid(1, 3), (std::vector<std::int64_t>{1, 2, 3}));  // distinct sizes only
}

TEST(Scan, RangeParsing) {
  const auto r = parse_scan_range("n", "8192..12288", 1 << 30);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->text(), "n:8192..12288");
  for (const char* bad : {"", "8192", "..12288", "8192..", "12288..8192", "5..5", "0..4", "a..9", "1..99999999999"})
    EXPECT_FALSE(parse_scan_range("n", bad, 1 << 30)) << bad;
}

// OpenBLAS 0.3.26's dgesv: 7.7x the time per flop below n = 10000 (one thread): planted, found,
// narrowed to 9999 and 10000, in a bounded number of extra rows.
TEST(Scan, PlantedCliffIsNarrowedToNeighbours) {
  const auto r = scan(8192, 12288, [](std::int64_t n) { return smooth(n) / (n < 10000 ? 7.7 : 1.0); });
  EXPECT_LE(r.added, 12);
  const auto cliffs = find_cliffs(r.run, "n");
  ASSERT_EQ(cliffs.size(), 1u);
  EXPECT_TRUE(cliffs[0].narrowed);
  EXPECT_FALSE(cliffs[0].spike);
  EXPECT_EQ(cliffs[0].pair.lo, 9999);
  EXPECT_EQ(cliffs[0].pair.hi, 10000);
  EXPECT_FALSE(cliffs[0].pair.slower_above);
  EXPECT_NEAR(cliffs[0].pair.factor, 7.7, 0.8);
  // The audit says it, as a warning naming both rows and the interval.
  const auto audit = run_audit(r.run);
  int said = 0;
  for (const auto& f : audit.findings)
    if (f.rule == "cliffs") {
      ++said;
      EXPECT_EQ(f.severity, severity_warning);
      ASSERT_EQ(f.rows.size(), 2u);
      EXPECT_EQ(f.rows[0].n, 9999);
      EXPECT_NE(f.message.find("between n = 9999 and 10000"), std::string::npos) << f.message;
    }
  EXPECT_EQ(said, 1);
}

// On a loaded host, neighbours measured passes apart are not judged: the step is a note saying
// why, not a cliff (the 2-core machine under six builds moved dgetrf's rate 2.4x between passes).
TEST(Scan, LoadedNeighboursAreNotJudgedACliff) {
  auto r = scan(8192, 12288, [](std::int64_t n) { return smooth(n) / (n < 10000 ? 7.7 : 1.0); });
  for (auto& row : r.run.rows)
    if (row.id.n == 9999) row.counters["cpu_other_busy"] = {1.7};
  int said = 0;
  for (const auto& f : run_audit(r.run).findings)
    if (f.rule == "cliffs") {
      ++said;
      EXPECT_EQ(f.severity, severity_note);
      EXPECT_NE(f.message.find("not judged a cliff"), std::string::npos) << f.message;
      EXPECT_NE(f.message.find("loaded the host"), std::string::npos) << f.message;
    }
  EXPECT_EQ(said, 1);
}

// The slow side's rows take so long that each gets one round: their noise is borrowed from the
// family's rows that have rounds, and the cliff is still found.
TEST(Scan, OneRoundRowsBorrowTheirFamilysNoise) {
  run_summary run;
  for (std::int64_t n : {9000, 9500})
    measure(
        run, dgesv_id(n), [](std::int64_t) { return 5.0; }, 1);
  for (std::int64_t n : {10000, 10500})
    measure(
        run, dgesv_id(n), [](std::int64_t) { return 40.0; }, 3);
  const auto pairs = neighbour_pairs(run, "n");
  ASSERT_EQ(pairs.size(), 3u);
  EXPECT_TRUE(pairs[0].noise_pct.has_value());  // two one-round rows: the family's variance
  EXPECT_FALSE(pairs[0].suspect);
  EXPECT_TRUE(pairs[1].suspect);
  EXPECT_TRUE(pairs[1].noise_pct.has_value());
  EXPECT_FALSE(pairs[2].suspect);
}

// A smooth row (the rate triples from 256 to 2048): nothing to bisect past the first pass or two,
// and no cliff, even with jitter of 10% a round.
TEST(Scan, SmoothRowHasNoCliff) {
  for (double jitter : {0.03, 0.10}) {
    run_summary run;
    run.context["scan"] = "n:256..2048";
    for (auto n : coarse_grid(256, 2048)) measure(run, dgesv_id(n), smooth, 5, jitter);
    EXPECT_TRUE(find_cliffs(run, "n").empty()) << jitter;
    EXPECT_TRUE(scan_midpoints(run, "n", 40).empty()) << jitter;
  }
  const auto r = scan(256, 2048, [](std::int64_t n) { return std::pow(static_cast<double>(n), 1.2); });
  EXPECT_TRUE(find_cliffs(r.run, "n").empty());
  EXPECT_LE(r.added, 8);  // a steep but smooth curve costs a few midpoints, no more
  for (const auto& f : run_audit(r.run).findings) EXPECT_NE(f.rule, "cliffs") << f.message;
}

// A jump smaller than its noise is not bisected: jitter of +-60% around a 1.6x step.
TEST(Scan, AJumpWithinTheNoiseIsNotSuspect) {
  run_summary run;
  measure(
      run, dgesv_id(1000), [](std::int64_t) { return 10.0; }, 3, 0.6);
  measure(
      run, dgesv_id(1100), [](std::int64_t) { return 16.0; }, 3, 0.6);
  const auto pairs = neighbour_pairs(run, "n");
  ASSERT_EQ(pairs.size(), 1u);
  ASSERT_TRUE(pairs[0].noise_pct);
  EXPECT_GT(*pairs[0].noise_pct, 60.0);
  EXPECT_FALSE(pairs[0].suspect);
}

// One slow size alone (a load during its rounds, or a real aliasing size): a note, not a cliff.
TEST(Scan, LoneSlowSizeIsASpikeNotACliff) {
  const auto r = scan(1000, 2000, [](std::int64_t n) { return n == 1297 ? smooth(n) / 3 : smooth(n); });
  const auto cliffs = find_cliffs(r.run, "n");
  ASSERT_EQ(cliffs.size(), 1u);
  EXPECT_TRUE(cliffs[0].spike);
  EXPECT_EQ(cliffs[0].pair.hi, 1297);
  for (const auto& f : run_audit(r.run).findings)
    if (f.rule == "cliffs") {
      EXPECT_EQ(f.severity, severity_note);
    }
}

// cuSOLVER 12.0.4's IRS limit: rows above n = 46336 are refused, never run; the scan narrows the
// limit to 46336/46337 and says it as a limit.
TEST(Scan, KnownLimitIsACliffOfRefusals) {
  const auto r = scan(32768, 65536, smooth, 40, 46336);
  const auto cliffs = find_cliffs(r.run, "n");
  ASSERT_EQ(cliffs.size(), 1u);
  EXPECT_EQ(cliffs[0].pair.lo, 46336);
  EXPECT_EQ(cliffs[0].pair.hi, 46337);
  EXPECT_TRUE(cliffs[0].narrowed);
  EXPECT_FALSE(cliffs[0].pair.refusal.empty());
  for (const auto& row : r.run.rows)
    if (row.id.n > 46336) {
      EXPECT_TRUE(row.skipped && row.times_ms.empty()) << row.name;
    }
  EXPECT_NE(cliff_text(cliffs[0], "n").find("a limit between n = 46336 and 46337"), std::string::npos);
}

// The bound on extra rows stops the bisection: the cliff is said as the wider interval it has.
TEST(Scan, BoundStopsBisectionAndSaysTheWiderInterval) {
  const auto r = scan(
      8192, 12288, [](std::int64_t n) { return smooth(n) / (n < 10000 ? 7.7 : 1.0); }, 3);
  EXPECT_EQ(r.added, 3);
  const auto cliffs = find_cliffs(r.run, "n");
  ASSERT_EQ(cliffs.size(), 1u);
  EXPECT_FALSE(cliffs[0].narrowed);
  EXPECT_LE(cliffs[0].pair.lo, 9999);
  EXPECT_GE(cliffs[0].pair.hi, 10000);
  EXPECT_NE(cliff_text(cliffs[0], "n").find("not narrowed"), std::string::npos);
}

// The nrhs axis: OpenBLAS's threshold is n * nrhs, so at n = 100 the cliff is at nrhs 99/100.
TEST(Scan, NrhsAxis) {
  run_summary run;
  const auto rate = [](std::int64_t k) { return k < 100 ? 2.0 : 12.0; };
  const auto at = [](std::int64_t k) {
    return with_axis_value(legacy_row_id("CPU-driver/dgesv/n:100/nrhs:1"), "nrhs", k);
  };
  for (auto k : coarse_grid(1, 512)) measure(run, at(k), rate, 5, 0.03, "nrhs");
  for (int pass = 0; pass < 20; ++pass) {
    const auto mids = scan_midpoints(run, "nrhs", 40);
    if (mids.empty()) break;
    for (const auto& id : mids) measure(run, id, rate, 5, 0.03, "nrhs");
  }
  const auto cliffs = find_cliffs(run, "nrhs");
  ASSERT_EQ(cliffs.size(), 1u);
  EXPECT_EQ(cliffs[0].pair.lo, 99);
  EXPECT_EQ(cliffs[0].pair.hi, 100);
}

// A default sweep's sizes (4x apart) differ in rate by design: without a scan the rule says nothing.
TEST(Scan, RuleIsSilentOutsideAScan) {
  run_summary run;
  for (std::int64_t n : {256, 1024, 4096}) measure(run, dgesv_id(n), smooth);
  ASSERT_FALSE(find_cliffs(run, "n").empty());  // the pairs alone would be called cliffs
  const auto audit = run_audit(run);
  for (const auto& f : audit.findings) EXPECT_NE(f.rule, "cliffs") << f.message;
  EXPECT_NE(std::find(audit.rules_checked.begin(), audit.rules_checked.end(), "cliffs"), audit.rules_checked.end());
}

}  // namespace
}  // namespace solvebench::bench
