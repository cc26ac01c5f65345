// Each solve against its machine (checks/ceilings.hpp) on made-up runs: the shares of peak and of
// GEMM, the bound's arithmetic from probe rows (the critical path of a look-ahead of one, a call's
// latency per block), and the bound_beaten rule, planted and silent.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <utility>

#include "audit_fixture.hpp"
#include "checks/ceilings.hpp"
#include "checks/operation.hpp"
#include "checks/thresholds.hpp"
#include "checks/verdict.hpp"
#include "solvebench/flops.hpp"

namespace solvebench::bench {
namespace {

using testing::clean_run;
using testing::findings_of;
using testing::rated;

// The time in ms of `counts` at `gflops`: each piece of the bound by hand.
double ms_at(flop_counts counts, double gflops) { return flops<double>(counts) / gflops / 1e6; }

// A CPU probe row of `op` at m (nb 256) that ran at `gflops`.
row_record probe(const operation& op, std::int64_t m, double gflops) {
  row_record r;
  r.id.backend = "CPU";
  r.id.path = row_path::probe;
  r.id.library = "blas";
  r.id.op = op.name;
  r.id.n = m;
  r.id.axes = {{"nb", "256"}};
  r.name = r.id.name();
  const double ms = ms_at(op.counts(static_cast<double>(m), 256), gflops);
  r.times_ms = {ms, ms, ms};
  r.counters = {{"GFLOP/s", {gflops, gflops, gflops}}, {"cpu_other_busy", {0.01, 0.01, 0.01}}};
  return r;
}

// The clean run with CPU probes at 1024 and 4096: updates at 1000 and 1200 GFLOP/s, panels at
// 40 and 80, triangular solves at 500, the Cholesky block at 100.
run_summary run_with_probes() {
  run_summary run = clean_run();
  for (const std::int64_t m : {1024, 4096}) {
    run.rows.push_back(probe(ops::gemm_update, m, m == 1024 ? 1000 : 1200));
    run.rows.push_back(probe(ops::getrf_panel, m, m == 1024 ? 40 : 80));
    run.rows.push_back(probe(ops::trsm_panel, m, 500));
  }
  run.rows.push_back(probe(ops::potrf_block, 256, 100));
  return run;
}

// Rates held at one m (nb 256) and no latency: every piece is its flops at its probe's rate.
probe_rates flat_rates(double update, double panel, double trsm, double block) {
  probe_rates r;
  r.nb = 256;
  r.update.points = {{256, update}};
  r.panel.points = {{256, panel}};
  r.trsm.points = {{256, trsm}};
  r.block.points = {{256, block}};
  return r;
}

TEST(Ceilings, ProbeCurveIsLinearInLogMAndHeldAtTheEnds) {
  probe_curve c;
  c.points = {{1024, 1000}, {4096, 1200}};
  EXPECT_DOUBLE_EQ(c.rate_at(512), 1000);
  EXPECT_DOUBLE_EQ(c.rate_at(8192), 1200);
  EXPECT_NEAR(c.rate_at(2048), 1100, 1e-9);  // halfway in log m
}

TEST(Ceilings, ProbeCurveTakesItsLatencyFromItsSmallestM) {
  probe_curve c;
  c.add(4096, 1200, 30);
  c.add(1024, 1000, 2);
  c.add(2048, 1100, 9);
  EXPECT_EQ(c.latency_ms, 2);
  ASSERT_EQ(c.points.size(), 3u);
  EXPECT_EQ(c.points.front(), std::make_pair(1024.0, 1000.0));
  EXPECT_EQ(c.points.back(), std::make_pair(4096.0, 1200.0));
}

TEST(Ceilings, BlockedBoundIsTheCriticalPathOfALookAheadOfOne) {
  const probe_rates r = flat_rates(100, 20, 100, 100);
  // n = 1024, four blocks of m = 1024, 768, 512, 256 rows: P_k the panel and its trsm, U_k the update.
  const double p0 = ms_at(getrf_counts(1024, 256), 20) + ms_at(trsm_counts(256, 768), 100);
  const double u0 = ms_at(gemm_counts(768, 768, 256), 100);
  const double p1 = ms_at(getrf_counts(768, 256), 20) + ms_at(trsm_counts(256, 512), 100);
  const double u1 = ms_at(gemm_counts(512, 512, 256), 100);
  const double p2 = ms_at(getrf_counts(512, 256), 20) + ms_at(trsm_counts(256, 256), 100);
  const double u2 = ms_at(gemm_counts(256, 256, 256), 100);
  const double p3 = ms_at(getrf_counts(256, 256), 20);
  ASSERT_GT(u0, p1);  // block 0's update is longer than block 1's panel: on the path
  ASSERT_GT(p2, u1);  // and from block 1 on the next panel is
  ASSERT_GT(p3, u2);
  const bound_terms lu = blocked_bound(r, factorization::lu, 1024);
  EXPECT_NEAR(lu.update_ms, u0, 1e-12);
  EXPECT_NEAR(lu.panel_ms, p0 + p2 + p3, 1e-12);
  EXPECT_NEAR(lu.serial_ms, p0 + u0 + p1 + u1 + p2 + u2 + p3, 1e-12);
  EXPECT_EQ(lu.transfer_ms, 0);
  EXPECT_EQ(lu.dominant(), "panel");
  // Cholesky, n = 768: the w x w block, its trsm, a SYRK (half the GEMM's flops, and its diagonal).
  const probe_rates c = flat_rates(500, 0, 500, 100);
  const double cp0 = ms_at(potrf_counts(256), 100) + ms_at(trsm_counts(256, 512), 500);
  const double cu0 = ms_at(syrk_counts(512, 256), 500);
  const double cp1 = ms_at(potrf_counts(256), 100) + ms_at(trsm_counts(256, 256), 500);
  const double cu1 = ms_at(syrk_counts(256, 256), 500);
  const double cp2 = ms_at(potrf_counts(256), 100);
  ASSERT_GT(cu0, cp1);
  ASSERT_GT(cp2, cu1);
  const bound_terms chol = blocked_bound(c, factorization::cholesky, 768);
  EXPECT_NEAR(chol.update_ms, cu0, 1e-12);
  EXPECT_NEAR(chol.panel_ms, cp0 + cp2, 1e-12);
  EXPECT_NEAR(chol.serial_ms, cp0 + cu0 + cp1 + cu1 + cp2, 1e-12);
  // A partial last block: n = 300 is one panel of 256 columns, then one of 44.
  const double pp0 = ms_at(getrf_counts(300, 256), 20) + ms_at(trsm_counts(256, 44), 100);
  const double pu0 = ms_at(gemm_counts(44, 44, 256), 100), pp1 = ms_at(getrf_counts(44, 44), 20);
  ASSERT_GT(pu0, pp1);
  const bound_terms partial = blocked_bound(r, factorization::lu, 300);
  EXPECT_NEAR(partial.update_ms, pu0, 1e-12);
  EXPECT_NEAR(partial.panel_ms, pp0, 1e-12);
  EXPECT_NEAR(partial.serial_ms, pp0 + pu0 + pp1, 1e-12);
}

// Probes whose smallest call is mostly start-up: 1, 5 and 10 GFLOP/s at m = 256, 1000, 500 and
// 40 at m = 4096.
probe_rates slow_start_rates() {
  probe_rates r;
  r.nb = 256;
  const auto curve = [](probe_curve& c, const operation& op, double small, double large) {
    c.add(256, small, ms_at(op.counts(256, 256), small));
    c.add(4096, large, ms_at(op.counts(4096, 256), large));
  };
  curve(r.update, ops::gemm_update, 1, 1000);
  curve(r.trsm, ops::trsm_panel, 5, 500);
  curve(r.panel, ops::getrf_panel, 10, 40);
  r.block.add(256, 2, ms_at(potrf_counts(256), 2));
  return r;
}

TEST(Ceilings, ABlockPaysOneCallsLatency) {
  const probe_rates r = slow_start_rates();
  const double update_latency = ms_at(gemm_counts(256, 256, 256), 1);
  const double trsm_latency = ms_at(trsm_counts(256, 256), 5);
  const double panel_latency = ms_at(getrf_counts(256, 256), 10);
  EXPECT_NEAR(r.update.latency_ms, update_latency, 1e-12);
  // n = 512: block 0 is the 512 x 256 panel (10 + 30 / 4 GFLOP/s, a quarter of the way in log m),
  // a trsm and an update at m = 256, each its probe's smallest call, so all latency; block 1 the
  // 256 x 256 panel, its probe's smallest call too.
  const double panel0 = ms_at(getrf_counts(512, 256), 10 + 30.0 / 4);
  const bound_terms lu = blocked_bound(r, factorization::lu, 512);
  EXPECT_NEAR(lu.serial_ms, panel0 + trsm_latency + update_latency + panel_latency, 1e-9);
  // Block 0 pays the largest latency (the update's) once, and its panel's work beyond its latency;
  // the update has no work left, so block 1's panel follows on the path.
  const double p0 = update_latency + (panel0 - panel_latency), p1 = panel_latency;
  EXPECT_NEAR(lu.panel_ms, p0 + p1, 1e-9);
  EXPECT_EQ(lu.update_ms, 0);
  EXPECT_NEAR(lu.serial_ms - lu.total_ms(), trsm_latency + panel_latency, 1e-9);  // two latencies fewer
}

TEST(Ceilings, FloorIsNeverAboveTheSerialSum) {
  // A piece smaller than its probe's smallest call (the last block's 44 columns) pays at most its
  // own time in latency, not its probe's.
  const probe_rates r = slow_start_rates();
  for (const std::int64_t n : {256, 300, 512, 700, 1024, 1500, 4096, 5000})
    for (const factorization f : {factorization::lu, factorization::cholesky}) {
      const bound_terms t = blocked_bound(r, f, n);
      EXPECT_GT(t.total_ms(), 0) << n;
      EXPECT_LE(t.total_ms(), t.serial_ms * (1 + 1e-12)) << n << (f == factorization::lu ? " LU" : " Cholesky");
    }
}

TEST(Ceilings, BoundNeedsEveryPieceOfItsFamily) {
  probe_rates r;
  r.nb = 256;
  r.update.points = {{256, 1000}};
  r.trsm.points = {{256, 500}};
  EXPECT_FALSE(r.covers(factorization::lu));
  EXPECT_FALSE(r.covers(factorization::cholesky));
  EXPECT_EQ(blocked_bound(r, factorization::lu, 1024).total_ms(), 0);
  r.block.points = {{256, 100}};
  EXPECT_TRUE(r.covers(factorization::cholesky));
  EXPECT_FALSE(r.covers(factorization::lu));
}

TEST(Ceilings, PercentOfPeakAndOfTheNearestGemm) {
  const ceilings_report report = ceilings_of(clean_run());
  const row_ceiling* getrf = report.find("CPU/dgetrf/n:4096");
  ASSERT_NE(getrf, nullptr);
  EXPECT_NEAR(*getrf->pct_of_peak, 100.0 * 440 / 2400, 1e-9);  // cpu_peak_fp64_GFLOPs
  EXPECT_EQ(getrf->gemm_row, "CPU/dgemm/n:4096");
  EXPECT_NEAR(*getrf->pct_of_gemm, 100.0 * 440 / 1374, 1e-9);
  // CPU-driver rows are held to the CPU's GEMM; fp32 rows to the fp32 peak and sgemm.
  EXPECT_EQ(report.find("CPU-driver/dgesv/n:4096/nrhs:1")->gemm_row, "CPU/dgemm/n:4096");
  const row_ceiling* s = report.find("CPU/sgesv/n:4096/nrhs:1");
  EXPECT_NEAR(*s->pct_of_peak, 100.0 * 770 / 4800, 1e-9);
  EXPECT_EQ(s->gemm_row, "CPU/sgemm/n:4096");
  // A GPU-pinned row: the GPU's own GEMM, resident.
  EXPECT_EQ(report.find("GPU-pinned/dgesv/n:16384/nrhs:1")->gemm_row, "GPU/dgemm/n:16384");
  // Mixed precision, batched and spread rows are not solves of one device's precision.
  EXPECT_EQ(report.find("CPU/dsgesv/n:4096/nrhs:1/kind:diagdom/refine:classical"), nullptr);
  EXPECT_EQ(report.find("CPU/dgesv_batched/n:32/batch:10000"), nullptr);
  EXPECT_EQ(report.find("MGPU/dgesv/n:65536/nrhs:1/gpus:2/tile:512"), nullptr);
  // Without probes: no bound, and the reason says how to get one.
  EXPECT_FALSE(report.probes);
  EXPECT_FALSE(getrf->headroom);
  EXPECT_NE(getrf->no_bound.find("--ceilings=on"), std::string::npos);
}

TEST(Ceilings, NearestGemmIsNearestInLogN) {
  run_summary run = clean_run();
  run.rows.push_back(rated("CPU/dgemm/n:1024", 2, 1000));
  run.rows.push_back(rated("CPU/dgetrf/n:2048", 20, 300));
  run.rows.push_back(rated("CPU/dgetrf/n:1500", 10, 300));
  const ceilings_report report = ceilings_of(run);
  EXPECT_EQ(report.find("CPU/dgetrf/n:2048")->gemm_row, "CPU/dgemm/n:4096");  // a tie in log n: the larger
  EXPECT_EQ(report.find("CPU/dgetrf/n:1500")->gemm_row, "CPU/dgemm/n:1024");
}

TEST(Ceilings, HeadroomIsTheTimeOverTheBound) {
  const run_summary run = run_with_probes();
  const ceilings_report report = ceilings_of(run);
  EXPECT_TRUE(report.probes);
  const row_ceiling* getrf = report.find("CPU/dgetrf/n:4096");
  ASSERT_TRUE(getrf->bound);
  // The bound of the probe rows' rates, each curve's latency its time at m = 1024.
  probe_rates r;
  r.nb = 256;
  for (const double m : {1024, 4096}) {
    r.update.add(m, m == 1024 ? 1000 : 1200, ms_at(gemm_counts(m, m, 256), m == 1024 ? 1000 : 1200));
    r.panel.add(m, m == 1024 ? 40 : 80, ms_at(getrf_counts(m, 256), m == 1024 ? 40 : 80));
    r.trsm.add(m, 500, ms_at(trsm_counts(256, m), 500));
  }
  const bound_terms expected = blocked_bound(r, factorization::lu, 4096);
  EXPECT_NEAR(getrf->bound->total_ms(), expected.total_ms(), 1e-9);
  EXPECT_NEAR(getrf->bound->serial_ms, expected.serial_ms, 1e-9);
  EXPECT_LT(expected.total_ms(), expected.serial_ms);
  EXPECT_NEAR(*getrf->headroom, 104 / expected.total_ms(), 1e-9);
  EXPECT_EQ(getrf->nb, 256);
  EXPECT_EQ(getrf->probe_rows.size(), 7u);
  // gesv is getrf's bound and its getrs row; posv uses the Cholesky pieces; a solve with the
  // factors has none of its own.
  EXPECT_NEAR(report.find("CPU/dgesv/n:4096/nrhs:1")->bound->total_ms(), expected.total_ms() + 10.6, 1e-9);
  EXPECT_TRUE(report.find("CPU/dposv/n:4096/nrhs:1")->bound);
  EXPECT_FALSE(report.find("CPU/dgetrs/n:4096/nrhs:1")->bound);
  // fp32 and GPU rows have no probes of their own here.
  EXPECT_FALSE(report.find("CPU/sgesv/n:4096/nrhs:1")->bound);
  EXPECT_FALSE(report.find("GPU/dgesv/n:16384/nrhs:1")->bound);
}

TEST(Ceilings, DriverBoundAddsTheRunsSolveRow) {
  run_summary run = run_with_probes();
  const ceilings_report report = ceilings_of(run);
  const double getrf = report.find("CPU/dgetrf/n:4096")->bound->total_ms();
  for (const char* name : {"CPU/dgesv/n:4096/nrhs:1", "CPU-driver/dgesv/n:4096/nrhs:1"}) {
    const row_ceiling* c = report.find(name);
    ASSERT_TRUE(c && c->bound) << name;
    EXPECT_NEAR(c->bound->solve_ms, 10.6, 1e-9) << name;  // CPU/dgetrs/n:4096/nrhs:1
    EXPECT_NEAR(c->bound->total_ms(), getrf + 10.6, 1e-9) << name;
    EXPECT_EQ(c->solve_row, "CPU/dgetrs/n:4096/nrhs:1");
    EXPECT_TRUE(c->bound_leaves_out.empty()) << c->bound_leaves_out;
  }
  EXPECT_EQ(report.find("CPU/dposv/n:4096/nrhs:1")->solve_row, "CPU/dpotrs/n:4096/nrhs:1");
  EXPECT_TRUE(report.find("CPU/dgetrf/n:4096")->solve_row.empty());  // a factorization has no solve
  // A solve that takes longest dominates.
  testing::find_row(run, "CPU/dgetrs/n:4096/nrhs:1").times_ms = {1e4, 1e4, 1e4};
  const ceilings_report slow_solve = ceilings_of(run);
  EXPECT_EQ(slow_solve.find("CPU/dgesv/n:4096/nrhs:1")->bound->dominant(), "solve");
  // Only the same nrhs counts; without it the bound says what it lacks.
  testing::find_row(run, "CPU/dgetrs/n:4096/nrhs:1") = rated("CPU/dgetrs/n:4096/nrhs:2", 20, 3.2);
  const ceilings_report without = ceilings_of(run);
  const row_ceiling* missing = without.find("CPU/dgesv/n:4096/nrhs:1");
  ASSERT_TRUE(missing->bound);
  EXPECT_NEAR(missing->bound->total_ms(), getrf, 1e-9);
  EXPECT_EQ(missing->bound_leaves_out, "solve not measured: add the dgetrs row (n = 4096, nrhs = 1) on the CPU");
  const std::string json = ceiling_json(*missing).dump();
  EXPECT_NE(json.find("\"leaves_out\":\"solve not measured"), std::string::npos) << json;
  // The JSON's serial_ms is the serial sum with the same solve and transfer terms.
  const row_ceiling* gesv = report.find("CPU/dgesv/n:4096/nrhs:1");
  const auto bound = ceiling_json(*gesv)["bound"];
  EXPECT_NEAR(bound["serial_ms"].get<double>(), gesv->bound->serial_ms + 10.6, 1e-9);
  EXPECT_NEAR(bound["ms"].get<double>(), gesv->bound->total_ms(), 1e-9);
}

TEST(Ceilings, NoBoundBelowAFewBlocksSoASmallRowIsNotJudged) {
  run_summary run = run_with_probes();
  // Faster than any bound of its pieces: a small n (2 nb) and a large one.
  run.rows.push_back(rated("CPU/dgetrf/n:512", 0.01, 440));
  auto& large = testing::find_row(run, "CPU/dgetrf/n:4096");
  large.times_ms = {0.01, 0.01, 0.01};
  const ceilings_report report = ceilings_of(run);
  const row_ceiling* small = report.find("CPU/dgetrf/n:512");
  ASSERT_NE(small, nullptr);
  EXPECT_FALSE(small->bound);
  EXPECT_FALSE(small->headroom);
  EXPECT_NE(small->no_bound.find("n = 512 < " + std::to_string(limits::bound_min_blocks) + " nb"), std::string::npos)
      << small->no_bound;
  const auto found = findings_of(run_audit(run), "bound_beaten");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rows.front().name(), "CPU/dgetrf/n:4096");
}

TEST(Ceilings, TransferTermIsTheRowsOwnCopyTime) {
  run_summary run = run_with_probes();
  auto pinned = rated("CPU/dgesv/n:4096/nrhs:1", 115, 400);
  pinned.id.placement = row_placement::pinned;
  pinned.id.backend = "CPU-pinned";
  pinned.name = pinned.id.name();
  pinned.counters["xfer_share"] = {0.25, 0.25, 0.25};
  run.rows.push_back(pinned);
  const ceilings_report report = ceilings_of(run);
  const row_ceiling* c = report.find("CPU-pinned/dgesv/n:4096/nrhs:1");
  ASSERT_TRUE(c && c->bound);
  EXPECT_NEAR(c->bound->transfer_ms, 0.25 * 115, 1e-9);
}

TEST(Ceilings, VerdictNamesHeadroomAndTheDominatingTerm) {
  const run_summary run = run_with_probes();
  const run_verdict v = make_verdict(run, {});
  std::string said;
  for (const auto& line : v.lines)
    if (line.rfind("Ceilings, dgesv", 0) == 0) said = line;
  EXPECT_NE(said.find("CPU/dgesv at n = 4096 runs at"), std::string::npos) << said;
  EXPECT_NE(said.find("its bound; the"), std::string::npos) << said;
  const std::string json = verdict_json(v).dump();
  EXPECT_NE(json.find("\"headroom\""), std::string::npos);
  EXPECT_NE(json.find("\"pct_of_gemm\""), std::string::npos);
  // Without probes the verdict says how to get a bound.
  const run_verdict plain = make_verdict(clean_run(), {});
  bool told = false;
  for (const auto& line : plain.lines) told = told || line.find("--ceilings=on") != std::string::npos;
  EXPECT_TRUE(told);
}

TEST(Ceilings, BoundBeatenNamesARowFasterThanItsBound) {
  run_summary run = run_with_probes();
  const ceilings_report report = ceilings_of(run);
  const double bound = report.find("CPU/dgetrf/n:4096")->bound->total_ms();
  auto& getrf = testing::find_row(run, "CPU/dgetrf/n:4096");
  const double fast = bound / 2;
  getrf.times_ms = {fast, fast, fast};
  const auto found = findings_of(run_audit(run), "bound_beaten");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, severity_warning);
  EXPECT_EQ(found[0].rows.front().name(), "CPU/dgetrf/n:4096");
  EXPECT_NE(found[0].message.find("× its bound of"), std::string::npos) << found[0].message;
  EXPECT_NE(found[0].message.find("the serial sum"), std::string::npos) << found[0].message;
}

TEST(Ceilings, BoundBeatenIsSilentOnALibraryThatOverlapsItsPanels) {
  // Flat probes at 1000 GFLOP/s, and a library that runs each block's panel beside the previous
  // block's update, every call paying its own time: faster than the serial sum, not than the floor.
  run_summary run = clean_run();
  for (const std::int64_t m : {256, 4096}) {
    run.rows.push_back(probe(ops::gemm_update, m, 1000));
    run.rows.push_back(probe(ops::getrf_panel, m, 1000));
    run.rows.push_back(probe(ops::trsm_panel, m, 1000));
  }
  run.rows.push_back(probe(ops::potrf_block, 256, 1000));
  double serial = 0, overlapped = 0, update_before = 0;  // n = 1024: four blocks
  for (const double m : {1024, 768, 512, 256}) {
    const double rest = m - 256;
    const double panel = ms_at(getrf_counts(m, 256), 1000) + (rest > 0 ? ms_at(trsm_counts(256, rest), 1000) : 0);
    const double update = rest > 0 ? ms_at(gemm_counts(rest, rest, 256), 1000) : 0;
    serial += panel + update;
    overlapped += m == 1024 ? panel : std::max(panel, update_before);
    update_before = update;
  }
  overlapped += update_before;
  ASSERT_LT(overlapped * limits::bound_tolerance, serial);  // the serial sum would call it beaten
  run.rows.push_back(rated("CPU/dgetrf/n:1024", overlapped, 100));
  const ceilings_report report = ceilings_of(run);
  const row_ceiling* c = report.find("CPU/dgetrf/n:1024");
  ASSERT_TRUE(c && c->bound);
  EXPECT_NEAR(c->bound->serial_total_ms(), serial, 1e-9);
  EXPECT_GE(*c->headroom, 1);
  EXPECT_FALSE(testing::names(run_audit(run), "bound_beaten", "CPU/dgetrf/n:1024"));
  // Half its time is beyond any look-ahead of one.
  testing::find_row(run, "CPU/dgetrf/n:1024").times_ms = {overlapped / 2, overlapped / 2, overlapped / 2};
  EXPECT_TRUE(testing::names(run_audit(run), "bound_beaten", "CPU/dgetrf/n:1024", severity_warning));
}

TEST(Ceilings, BoundBeatenIsSilentOnRowsAtOrAboveTheirBound) {
  run_summary run = run_with_probes();
  const ceilings_report before = ceilings_of(run);
  for (auto& r : run.rows)
    if (const row_ceiling* c = before.find(r.name); c && c->bound) {
      const double at = c->bound->total_ms() / limits::bound_tolerance * 1.01;  // within the tolerance
      r.times_ms = {at, at, at};
    }
  EXPECT_TRUE(findings_of(run_audit(run), "bound_beaten").empty());
  EXPECT_TRUE(findings_of(run_audit(clean_run()), "bound_beaten").empty());
}

TEST(Ceilings, BoundBeatenOnALoadedProbeIsANote) {
  run_summary run = run_with_probes();
  auto& getrf = testing::find_row(run, "CPU/dgetrf/n:4096");
  const ceilings_report report = ceilings_of(run);
  const double fast = report.find("CPU/dgetrf/n:4096")->bound->total_ms() / 2;
  getrf.times_ms = {fast, fast, fast};
  for (auto& r : run.rows)
    if (r.id.path == row_path::probe) r.counters["cpu_other_busy"] = {1.5, 1.5, 1.5};
  const auto found = findings_of(run_audit(run), "bound_beaten");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, severity_note);
}

}  // namespace
}  // namespace solvebench::bench
