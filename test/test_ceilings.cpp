// Each solve against its machine (checks/ceilings.hpp) on made-up runs: the shares of peak and of
// GEMM, the bound's arithmetic from probe rows, and the bound_beaten rule, planted and silent.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>

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
  const double ms = flops<double>(op.counts(static_cast<double>(m), 256)) / gflops / 1e6;
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

TEST(Ceilings, ProbeCurveIsLinearInLogMAndHeldAtTheEnds) {
  probe_curve c;
  c.points = {{1024, 1000}, {4096, 1200}};
  EXPECT_DOUBLE_EQ(c.rate_at(512), 1000);
  EXPECT_DOUBLE_EQ(c.rate_at(8192), 1200);
  EXPECT_NEAR(c.rate_at(2048), 1100, 1e-9);  // halfway in log m
}

TEST(Ceilings, BlockedBoundSumsEachBlocksPieces) {
  probe_rates r;
  r.nb = 256;
  r.update.points = {{256, 1000}};
  r.panel.points = {{256, 10}};
  r.trsm.points = {{256, 500}};
  r.block_gflops = 100;
  // n = 512: two blocks. Block 0: panel 512 x 256, trsm 256 x 256 against 256 columns, update
  // 256 x 256 x 256; block 1: panel 256 x 256, nothing after it.
  const bound_terms lu = blocked_bound(r, factorization::lu, 512);
  const double panels = flops<double>(getrf_counts(512, 256)) / 10e6 + flops<double>(getrf_counts(256, 256)) / 10e6 +
                        flops<double>(trsm_counts(256, 256)) / 500e6;
  EXPECT_NEAR(lu.panel_ms, panels, 1e-12);
  EXPECT_NEAR(lu.update_ms, 2.0 * 256 * 256 * 256 / 1000e6, 1e-12);
  EXPECT_EQ(lu.transfer_ms, 0);
  EXPECT_EQ(lu.dominant(), "panel");
  // Cholesky: the nb x nb block twice, one trsm, one SYRK (half the GEMM's flops, and its diagonal).
  const bound_terms chol = blocked_bound(r, factorization::cholesky, 512);
  EXPECT_NEAR(chol.panel_ms,
              2 * flops<double>(potrf_counts(256)) / 100e6 + flops<double>(trsm_counts(256, 256)) / 500e6, 1e-12);
  EXPECT_NEAR(chol.update_ms, 256.0 * 257 * 256 / 1000e6, 1e-12);
  // A partial last block: n = 300 is one panel of 256 columns, then one of 44.
  const bound_terms partial = blocked_bound(r, factorization::lu, 300);
  EXPECT_NEAR(partial.update_ms, 2.0 * 44 * 44 * 256 / 1000e6, 1e-12);
}

TEST(Ceilings, BoundNeedsEveryPieceOfItsFamily) {
  probe_rates r;
  r.nb = 256;
  r.update.points = {{256, 1000}};
  r.trsm.points = {{256, 500}};
  EXPECT_FALSE(r.covers(factorization::lu));
  EXPECT_FALSE(r.covers(factorization::cholesky));
  EXPECT_EQ(blocked_bound(r, factorization::lu, 1024).total_ms(), 0);
  r.block_gflops = 100;
  EXPECT_TRUE(r.covers(factorization::cholesky));
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
  probe_rates r;
  r.nb = 256;
  r.update.points = {{1024, 1000}, {4096, 1200}};
  r.panel.points = {{1024, 40}, {4096, 80}};
  r.trsm.points = {{1024, 500}, {4096, 500}};
  const bound_terms expected = blocked_bound(r, factorization::lu, 4096);
  EXPECT_NEAR(getrf->bound->total_ms(), expected.total_ms(), 1e-9);
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
  EXPECT_EQ(ceilings_of(run).find("CPU/dgesv/n:4096/nrhs:1")->bound->dominant(), "solve");
  // Only the same nrhs counts; without it the bound says what it lacks.
  testing::find_row(run, "CPU/dgetrs/n:4096/nrhs:1") = rated("CPU/dgetrs/n:4096/nrhs:2", 20, 3.2);
  const ceilings_report without = ceilings_of(run);
  const row_ceiling* missing = without.find("CPU/dgesv/n:4096/nrhs:1");
  ASSERT_TRUE(missing->bound);
  EXPECT_NEAR(missing->bound->total_ms(), getrf, 1e-9);
  EXPECT_EQ(missing->bound_leaves_out, "solve not measured: add the dgetrs row (n = 4096, nrhs = 1) on the CPU");
  const std::string json = ceiling_json(*missing).dump();
  EXPECT_NE(json.find("\"leaves_out\":\"solve not measured"), std::string::npos) << json;
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
  const double bound = ceilings_of(run).find("CPU/dgetrf/n:4096")->bound->total_ms();
  auto& getrf = testing::find_row(run, "CPU/dgetrf/n:4096");
  const double fast = bound / 2;
  getrf.times_ms = {fast, fast, fast};
  const auto found = findings_of(run_audit(run), "bound_beaten");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, severity_warning);
  EXPECT_EQ(found[0].rows.front().name(), "CPU/dgetrf/n:4096");
  EXPECT_NE(found[0].message.find("× its bound of"), std::string::npos) << found[0].message;
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
  const double fast = ceilings_of(run).find("CPU/dgetrf/n:4096")->bound->total_ms() / 2;
  getrf.times_ms = {fast, fast, fast};
  for (auto& r : run.rows)
    if (r.id.path == row_path::probe) r.counters["cpu_other_busy"] = {1.5, 1.5, 1.5};
  const auto found = findings_of(run_audit(run), "bound_beaten");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, severity_note);
}

}  // namespace
}  // namespace solvebench::bench
