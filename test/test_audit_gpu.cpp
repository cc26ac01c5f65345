// The audit's rules on the GPU's state during each round of a row (audit_gpu.cpp), on made-up
// runs: capped time from NVML's violation counters, never above the loop, judged only where the
// counters could see the loop; the SM clock against its start and against its application clock.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "audit_fixture.hpp"

namespace bench = solvebench::bench;
using namespace solvebench::bench::testing;

namespace {

const bench::finding* throttled(const bench::audit_report& report, const std::string& severity,
                                const std::string& row) {
  for (const auto& f : report.findings)
    if (f.rule == "gpu_throttled" && f.severity == severity && lists(f, row)) return &f;
  return nullptr;
}

std::string skip_reason(const bench::audit_report& report, const std::string& rule) {
  for (const auto& s : report.rules_skipped)
    if (s.rule == rule) return s.reason;
  return "";
}

TEST(AuditGpuThrottled, CappedTimeMeasuredNotGuessedFromBits) {
  auto run = clean_run();
  auto& getrf = find_row(run, "GPU/dgetrf/n:16384");
  getrf.counters["capped_power_ms"] = {240, 240, 240};  // 80% of a 300 ms loop, clock held
  auto& gemm = find_row(run, "GPU/dgemm/n:16384");
  gemm.counters["capped_thermal_ms"] = {270, 270, 270};
  auto& gesv = find_row(run, "GPU/dgesv/n:16384/nrhs:1");
  gesv.counters["sm_clock_end_MHz"] = {1700, 1710, 1705};
  const auto report = bench::run_audit(run);
  EXPECT_TRUE(names(report, "gpu_throttled", "GPU/dgetrf/n:16384", "note")) << console(report);
  EXPECT_TRUE(names(report, "gpu_throttled", "GPU/dgemm/n:16384", "warning")) << console(report);
  EXPECT_TRUE(names(report, "gpu_throttled", "GPU/dgesv/n:16384/nrhs:1", "warning")) << console(report);
  // One finding per kind, however many rows it covers.
  EXPECT_EQ(findings_of(report, "gpu_throttled").size(), 3U) << console(report);
}

// The sweep's false alarm: the SwPowerCap bit set and the clock unchanged is no throttling.
TEST(AuditGpuThrottled, SilentAtFullClockWithNoCappedTime) {
  expect_silent_on_clean_run("gpu_throttled");
  auto run = clean_run();
  for (auto& r : run.rows)
    if (r.id.device == bench::row_device::gpu) r.counters["throttle_end"] = {0x4, 0x4, 0x4};
  EXPECT_TRUE(findings_of(bench::run_audit(run), "gpu_throttled").empty());
}

// The H200's short rows read 113-119%: the counter moved a step more than the loop lasted.
TEST(AuditGpuThrottled, TheCappedShareIsNeverAboveTheLoop) {
  auto run = clean_run();
  find_row(run, "GPU/dgetrf/n:16384").counters["capped_power_ms"] = {345, 350, 340};  // 115% of 300 ms
  const auto report = bench::run_audit(run);
  const auto* f = throttled(report, "note", "GPU/dgetrf/n:16384");
  ASSERT_TRUE(f) << console(report);
  EXPECT_NE(f->message.find("GPU/dgetrf/n:16384, 100%"), std::string::npos) << f->message;
  const std::regex share(R"(([0-9.]+)%)");
  for (const auto& g : findings_of(report, "gpu_throttled"))
    for (std::sregex_iterator m(g.message.begin(), g.message.end(), share), end; m != end; ++m)
      EXPECT_LE(std::stod((*m)[1]), 100.0) << g.message;
}

// A counter step (100 ms) of capped time on a 300 ms loop may be the counter's own granularity.
TEST(AuditGpuThrottled, CappedTimeWithinOneCounterStepIsNotAFinding) {
  auto run = clean_run();
  find_row(run, "GPU/dgetrf/n:16384").counters["capped_power_ms"] = {110, 110, 110};  // 37%, less a step 3%
  EXPECT_TRUE(findings_of(bench::run_audit(run), "gpu_throttled").empty());
  find_row(run, "GPU/dgetrf/n:16384").counters["capped_power_ms"] = {120, 120, 120};  // less a step: 6.7%
  EXPECT_TRUE(names(bench::run_audit(run), "gpu_throttled", "GPU/dgetrf/n:16384", "note"));
}

// A loop shorter than the counter's step says nothing about capped time, whatever it reads.
TEST(AuditGpuThrottled, ALoopShorterThanTheCounterStepIsNotJudged) {
  auto run = clean_run();
  for (auto& r : run.rows)
    if (r.id.device == bench::row_device::gpu) {
      r.counters["loop_ms"] = {60, 60, 60};
      r.times_ms = {5, 5, 5};
      r.counters["capped_power_ms"] = {60, 60, 60};
    }
  const auto report = bench::run_audit(run);
  EXPECT_TRUE(findings_of(report, "gpu_throttled").empty()) << console(report);
  EXPECT_NE(skip_reason(report, "gpu_throttled").find("capped time not judged"), std::string::npos)
      << skip_reason(report, "gpu_throttled");
}

// H200, GPU/dposv/n:130000: one 15.6 s call (the warm-up, before the monitor began), a window of
// 17.5 us that read 40.7 ms capped (232442%), and 1575 MHz at both ends against an application
// clock of 1980, power-capped throughout: "within 10% of its start".
TEST(AuditGpuThrottled, AOneCallRowIsJudgedByItsClockAgainstTheApplicationClock) {
  auto run = clean_run();
  auto big = gpu_row("GPU/dposv/n:130000/nrhs:1", 15600, 47000);
  big.times_ms = {15600};
  for (auto& [key, values] : big.counters) values.resize(1, values.front());
  big.counters["loop_ms"] = {0.0175};
  big.counters["capped_power_ms"] = {40.7};
  big.counters["throttle_start"] = big.counters["throttle_end"] = {0x4};
  big.counters["sm_clock_start_MHz"] = big.counters["sm_clock_end_MHz"] = {1575};
  run.rows.push_back(big);
  const auto report = bench::run_audit(run);
  const auto* slowed = throttled(report, "warning", "GPU/dposv/n:130000/nrhs:1");
  ASSERT_TRUE(slowed) << console(report);
  EXPECT_NE(slowed->message.find("1575 MHz against its application clock of 1980"), std::string::npos)
      << slowed->message;
  EXPECT_NE(slowed->message.find("-20.5%"), std::string::npos) << slowed->message;
  for (const auto& f : findings_of(report, "gpu_throttled"))
    EXPECT_EQ(f.message.find("232"), std::string::npos) << f.message;  // no share from a window that missed the call
  EXPECT_FALSE(throttled(report, "note", "GPU/dposv/n:130000/nrhs:1")) << console(report);
}

// Capped throughout, the clock held at 1575 MHz from start to end: slowed, not "held".
TEST(AuditGpuThrottled, AClockHeldBelowTheApplicationClockIsAWarning) {
  auto run = clean_run();
  auto& gemm = find_row(run, "GPU/dgemm/n:16384");
  gemm.counters["capped_power_ms"] = {300, 300, 300};
  gemm.counters["sm_clock_start_MHz"] = gemm.counters["sm_clock_end_MHz"] = {1575, 1575, 1575};
  const auto report = bench::run_audit(run);
  EXPECT_TRUE(names(report, "gpu_throttled", "GPU/dgemm/n:16384", "warning")) << console(report);
  EXPECT_FALSE(names(report, "gpu_throttled", "GPU/dgemm/n:16384", "note")) << console(report);
  // Without capped time or a throttling reason a low clock is the GPU's own (idle, transfers): silent.
  gemm.counters["capped_power_ms"] = {0, 0, 0};
  gemm.counters["throttle_start"] = gemm.counters["throttle_end"] = {0x1, 0x1, 0x1};  // gpu_idle
  EXPECT_TRUE(findings_of(bench::run_audit(run), "gpu_throttled").empty());
}

// Each round is judged on its own loop: one capped round of three is named.
TEST(AuditGpuThrottled, EachRoundIsJudgedOnItsOwnLoop) {
  auto run = clean_run();
  auto& getrf = find_row(run, "GPU/dgetrf/n:16384");
  getrf.counters["loop_ms"] = {300, 3000, 300};
  getrf.counters["capped_power_ms"] = {0, 2400, 0};  // 80% of the second round; its median 3.5%
  const auto report = bench::run_audit(run);
  const auto* f = throttled(report, "note", "GPU/dgetrf/n:16384");
  ASSERT_TRUE(f) << console(report);
  EXPECT_NE(f->message.find("GPU/dgetrf/n:16384, 80.0%"), std::string::npos) << f->message;
}

TEST(AuditGpuShared, NamesRowsThatSharedTheDevice) {
  auto run = clean_run();
  find_row(run, "GPU/dgetrs/n:16384/nrhs:1").counters["other_processes"] = {0, 2, 1};
  const auto report = bench::run_audit(run);
  ASSERT_TRUE(names(report, "gpu_shared", "GPU/dgetrs/n:16384/nrhs:1", "warning")) << console(report);
  expect_silent_on_clean_run("gpu_shared");
}

}  // namespace
