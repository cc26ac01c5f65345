// The audit's rules that hold a run against the machine (threads, kernels, clocks, a loaded
// host, the device's theoretical peak), on made-up runs; and the environment facts they read.
// (The GPU's measured state: test_audit_gpu.cpp.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "audit_fixture.hpp"
#include "core/environment.hpp"

namespace bench = solvebench::bench;
using namespace solvebench::bench::testing;

namespace {

// ----------------------------------------------------------------------------- threads and variables

TEST(AuditBlasThreads, NamesTooFewThreads) {
  auto run = clean_run();
  run.context["blas_threads"] = "1";
  const auto report = bench::run_audit(run);
  ASSERT_EQ(findings_of(report, "blas_threads").size(), 1U) << console(report);
  const auto f = findings_of(report, "blas_threads")[0];
  EXPECT_EQ(f.severity, "warning");
  EXPECT_TRUE(f.rows.empty());  // the whole run: every CPU number
  EXPECT_NE(f.message.find("1 thread but 2 cores"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("the 13 CPU rows"), std::string::npos) << f.message;  // not the MPI row: one thread a rank
}

TEST(AuditBlasThreads, SilentOnACleanRun) { expect_silent_on_clean_run("blas_threads"); }

TEST(AuditThreadEnv, AnOverrideThatFitsTheCpuIsANote) {
  auto run = clean_run();
  run.context["thread_env"] = "OPENBLAS_CORETYPE=SkylakeX";
  run.context["blas_core_override"] = "OPENBLAS_CORETYPE=SkylakeX";
  const auto report = bench::run_audit(run);
  ASSERT_EQ(findings_of(report, "thread_env").size(), 1U) << console(report);
  EXPECT_EQ(findings_of(report, "thread_env")[0].severity, "note");
  EXPECT_TRUE(report.clean()) << console(report);
}

TEST(AuditThreadEnv, AnOverrideThatSlowsTheCpuIsAWarning) {
  auto run = clean_run();
  run.context["thread_env"] = "OPENBLAS_NUM_THREADS=1;OPENBLAS_CORETYPE=Prescott";
  run.context["blas_core"] = "Prescott";
  run.context["blas_core_isa"] = "sse3";
  run.context["blas_core_override"] = "OPENBLAS_CORETYPE=Prescott";
  const auto report = bench::run_audit(run);
  const auto found = findings_of(report, "thread_env");
  ASSERT_EQ(found.size(), 1U) << console(report);
  EXPECT_EQ(found[0].severity, "warning");
  EXPECT_NE(found[0].message.find("OPENBLAS_NUM_THREADS=1: fewer threads"), std::string::npos) << found[0].message;
  EXPECT_NE(found[0].message.find("Prescott (sse3) kernels on a CPU with avx512"), std::string::npos)
      << found[0].message;
}

TEST(AuditThreadEnv, SilentWithoutCpuRowsAndOnACleanRun) {
  expect_silent_on_clean_run("thread_env");
  auto run = clean_run();
  run.context["thread_env"] = "OPENBLAS_NUM_THREADS=1";
  run.rows.erase(std::remove_if(run.rows.begin(), run.rows.end(),
                                [](const bench::row_record& r) { return r.id.device == bench::row_device::cpu; }),
                 run.rows.end());
  EXPECT_TRUE(findings_of(bench::run_audit(run), "thread_env").empty());
}

TEST(AuditCpuFrequencyScaling, NamesScalingAndTheGovernor) {
  auto run = clean_run();
  run.context["cpu_scaling_enabled"] = "true";
  auto report = bench::run_audit(run);
  ASSERT_EQ(findings_of(report, "cpu_frequency_scaling").size(), 1U) << console(report);
  run = clean_run();
  run.context["cpu_governor"] = "performance,powersave";
  report = bench::run_audit(run);
  ASSERT_EQ(findings_of(report, "cpu_frequency_scaling").size(), 1U) << console(report);
  EXPECT_NE(findings_of(report, "cpu_frequency_scaling")[0].message.find("powersave"), std::string::npos);
}

TEST(AuditCpuFrequencyScaling, SilentOnACleanRunAndWithoutGovernorFiles) {
  expect_silent_on_clean_run("cpu_frequency_scaling");
  auto run = clean_run();
  run.context["cpu_governor"] = "";  // a VM or container without cpufreq
  EXPECT_TRUE(findings_of(bench::run_audit(run), "cpu_frequency_scaling").empty());
}

TEST(AuditGbenchDebugBuild, NotesADebugLibraryAndWhyTimingIsUnaffected) {
  auto run = clean_run();
  run.context["library_build_type"] = "debug";
  const auto f = findings_of(bench::run_audit(run), "gbench_debug_build");
  ASSERT_EQ(f.size(), 1U);
  EXPECT_EQ(f[0].severity, "note");
  EXPECT_NE(f[0].message.find("changes no number"), std::string::npos) << f[0].message;
  expect_silent_on_clean_run("gbench_debug_build");
}

// ----------------------------------------------------------------------------- below_machine_peak

// The case: OpenBLAS falls back to Prescott kernels on a Xeon with AVX-512: GEMM at a
// fifth of the machine, named with its cause and the fix.
TEST(AuditBelowMachinePeak, PrescottKernelsOnAnAvx512CpuAreNamed) {
  auto run = clean_run();
  run.context["blas_core"] = "Prescott";
  run.context["blas_core_isa"] = "sse3";
  run.context["cpu_peak_fp64_GFLOPs"] = "160";
  run.context["cpu_peak_fp32_GFLOPs"] = "320";
  find_row(run, "CPU/dgemm/n:4096").counters["GFLOP/s"] = {23, 23, 23};
  find_row(run, "CPU/sgemm/n:4096").counters["GFLOP/s"] = {48, 48, 48};
  const auto report = bench::run_audit(run);
  ASSERT_TRUE(names(report, "below_machine_peak", "CPU/dgemm/n:4096", "warning")) << console(report);
  const auto f = findings_of(report, "below_machine_peak").at(0);
  EXPECT_NE(f.message.find("14.4% of this CPU's theoretical 160 GFLOP/s"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("Prescott (sse3) kernels on a CPU with avx512"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("set OPENBLAS_CORETYPE=SkylakeX"), std::string::npos) << f.message;
}

TEST(AuditBelowMachinePeak, SilentWithKernelsThatFitAndAFairShare) {
  expect_silent_on_clean_run("below_machine_peak");
  auto run = clean_run();
  run.context["blas_core_override"] = "OPENBLAS_CORETYPE=SkylakeX";  // the override that fits the CPU
  EXPECT_TRUE(findings_of(bench::run_audit(run), "below_machine_peak").empty());
}

// A GEMM measured under another load is slow for a known reason: a note. A known cause of its
// own (kernels narrower than the CPU) is still a warning, load or not.
TEST(AuditBelowMachinePeak, ALoadedGemmIsANoteUnlessItHasACauseOfItsOwn) {
  auto run = clean_run();
  run.context["cpu_peak_fp64_GFLOPs"] = "160";
  auto& gemm = find_row(run, "CPU/dgemm/n:4096");
  gemm.counters["GFLOP/s"] = {23, 23, 23};
  gemm.counters["cpu_other_busy"] = {1.5, 1.5, 1.5};
  auto report = bench::run_audit(run);
  EXPECT_TRUE(names(report, "below_machine_peak", "CPU/dgemm/n:4096", "note")) << console(report);
  EXPECT_FALSE(names(report, "below_machine_peak", "CPU/dgemm/n:4096", "warning")) << console(report);
  run.context["blas_core"] = "Prescott";
  run.context["blas_core_isa"] = "sse3";
  report = bench::run_audit(run);
  EXPECT_TRUE(names(report, "below_machine_peak", "CPU/dgemm/n:4096", "warning")) << console(report);
}

// Like for like: a GEMM whose two threads had 0.5 cores between them is held to the peak of what
// it had (a note); one that had its cores and is still slow is a warning.
TEST(AuditBelowMachinePeak, AGemmShortOfItsCoresIsHeldToTheCoresItHad) {
  auto run = clean_run();
  run.context["cpu_peak_fp64_GFLOPs"] = "160";
  auto& gemm = find_row(run, "CPU/dgemm/n:4096");
  gemm.counters["GFLOP/s"] = {23, 23, 23};  // 14% of 160; 57% of the quarter of the machine it had
  gemm.counters["cpu_self_busy"] = {0.5, 0.5, 0.5};
  auto report = bench::run_audit(run);
  ASSERT_TRUE(names(report, "below_machine_peak", "CPU/dgemm/n:4096", "note")) << console(report);
  EXPECT_NE(findings_of(report, "below_machine_peak").at(0).message.find("ran 2 BLAS threads on 0.500 cores"),
            std::string::npos)
      << console(report);
  gemm.counters["cpu_self_busy"] = {1.95, 1.95, 1.95};
  report = bench::run_audit(run);
  EXPECT_TRUE(names(report, "below_machine_peak", "CPU/dgemm/n:4096", "warning")) << console(report);
}

TEST(AuditBelowMachinePeak, ASlowGpuGemmAndAMissingPeakAreSaid) {
  auto run = clean_run();
  find_row(run, "GPU/dgemm/n:16384").counters["GFLOP/s"] = {9000, 9000, 9000};
  EXPECT_TRUE(names(bench::run_audit(run), "below_machine_peak", "GPU/dgemm/n:16384", "warning"));
  run.context.erase("gpu_peak_fp64_GFLOPs");
  const auto report = bench::run_audit(run);
  ASSERT_FALSE(checked(report, "below_machine_peak"));
  EXPECT_NE(console(report).find("no theoretical peak in the context for gpu_peak_fp64_GFLOPs"), std::string::npos);
}

// ----------------------------------------------------------------------------- cpu_loaded

TEST(AuditCpuLoaded, NamesTheLoadAndTheRowsItTouched) {
  auto run = clean_run();
  find_row(run, "CPU/dgemm/n:4096").counters["cpu_other_busy"] = {1.9, 1.95, 1.97};
  find_row(run, "CPU/dgetrf/n:4096").counters["cpu_steal_pct"] = {12, 12, 12};
  run.context["load_avg"] = "2.10,1.5,1.0";
  run.context["busy_processes_at_start"] = "stress(1234) 1.9 cores";
  const auto report = bench::run_audit(run);
  ASSERT_TRUE(names(report, "cpu_loaded", "CPU/dgemm/n:4096", "warning")) << console(report);
  ASSERT_TRUE(names(report, "cpu_loaded", "CPU/dgetrf/n:4096", "warning")) << console(report);
  const auto f = findings_of(report, "cpu_loaded").at(0);
  EXPECT_NE(f.message.find("1.95 cores busy"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("steal up to 12.0%"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("load average was 2.10 on 2 cores (busy: stress(1234) 1.9 cores)"), std::string::npos)
      << f.message;
}

TEST(AuditCpuLoaded, SilentOnAQuietHost) { expect_silent_on_clean_run("cpu_loaded"); }

// Tasks that waited for a CPU are load even where the others' CPU time reads low (the GEMM).
TEST(AuditCpuLoaded, NamesARowWhoseTasksWaitedForACpu) {
  auto run = clean_run();
  find_row(run, "CPU/dgemm/n:4096").counters["cpu_wait_pct"] = {55, 60, 58};
  find_row(run, "CPU/dgetrf/n:4096").counters["cpu_wait_pct"] = {2, 3, 2};  // under 10%: quiet
  const auto report = bench::run_audit(run);
  EXPECT_TRUE(names(report, "cpu_loaded", "CPU/dgemm/n:4096", "warning")) << console(report);
  EXPECT_FALSE(names(report, "cpu_loaded", "CPU/dgetrf/n:4096")) << console(report);
  EXPECT_NE(findings_of(report, "cpu_loaded").at(0).message.find("a task waited for a CPU up to 58.0%"),
            std::string::npos)
      << console(report);
}

// ----------------------------------------------------------------------------- environment facts

class EnvironmentFacts : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : bench::thread_env_variables) {
      if (const char* v = std::getenv(name)) saved_.emplace_back(name, v);
      unsetenv(name);
    }
  }
  void TearDown() override {
    for (const char* name : bench::thread_env_variables) unsetenv(name);
    for (const auto& [name, value] : saved_) setenv(name.c_str(), value.c_str(), 1);
  }

 private:
  std::vector<std::pair<std::string, std::string>> saved_;
};

std::string fact(const std::string& key) {
  for (const auto& [k, v] : bench::environment_facts())
    if (k == key) return v;
  throw std::runtime_error("no fact " + key);
}

TEST_F(EnvironmentFacts, ReportsThreadVariablesThatAreSet) {
  EXPECT_EQ(fact("thread_env"), "");
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  EXPECT_EQ(fact("thread_env"), "OPENBLAS_NUM_THREADS=1");
  setenv("OMP_NUM_THREADS", "3", 1);
  EXPECT_EQ(fact("thread_env"), "OPENBLAS_NUM_THREADS=1;OMP_NUM_THREADS=3");
}

// End to end: a CPU run with OPENBLAS_NUM_THREADS=1 ends with an audit line that names it.
TEST_F(EnvironmentFacts, AnAuditOfTheFactsNamesOpenblasNumThreads) {
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  auto run = clean_run();
  for (const auto& [k, v] : bench::environment_facts()) run.context[k] = v;
  run.context["cores_available"] = "2";
  const auto text = console(bench::run_audit(run));
  EXPECT_NE(text.find("warning thread_env: Set in the environment: OPENBLAS_NUM_THREADS=1: fewer threads"),
            std::string::npos)
      << text;
}

TEST_F(EnvironmentFacts, CoresAvailableIsTheAffinityMask) {
  EXPECT_GE(bench::cores_available(), 1);
  EXPECT_EQ(fact("cores_available"), std::to_string(bench::cores_available()));
}

TEST_F(EnvironmentFacts, GovernorsAreReadFromEveryCpu) {
  const auto root = std::filesystem::path(::testing::TempDir()) / "fake_sys_cpu";
  std::filesystem::remove_all(root);
  const auto governor = [&](const std::string& cpu, const std::string& value) {
    std::filesystem::create_directories(root / cpu / "cpufreq");
    std::ofstream(root / cpu / "cpufreq" / "scaling_governor") << value << "\n";
  };
  governor("cpu0", "powersave");
  governor("cpu1", "performance");
  governor("cpu12", "powersave");
  governor("cpufreq", "ignored");  // not a cpu directory
  EXPECT_EQ(bench::cpu_governors(root.string()), "performance,powersave");
  EXPECT_EQ(bench::cpu_governors((root / "absent").string()), "");
  std::filesystem::remove_all(root);
}

}  // namespace
