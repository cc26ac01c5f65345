// Made-up runs for the audit's tests: a clean run with every kind of row, and the helpers that
// plant one anomaly in it and look for the finding that names it.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "checks/audit.hpp"
#include "checks/render.hpp"
#include "legacy/row_names.hpp"

namespace solvebench::bench::testing {

// A row of repetitions with these times (each repetition's samples: its time, 8 times).
inline row_record row(const std::string& name, std::vector<double> times_ms,
                      std::map<std::string, std::vector<double>> counters = {}) {
  row_record r;
  r.id = legacy_row_id(name);
  r.name = r.id.name();
  r.times_ms = std::move(times_ms);
  r.counters = std::move(counters);
  return r;
}

inline row_record rated(const std::string& name, double ms, double gflops) {
  auto r = row(name, {ms, ms, ms}, {{"GFLOP/s", {gflops, gflops, gflops}}});
  if (r.id.device == row_device::cpu) r.counters["cpu_other_busy"] = {0.02, 0.01, 0.03};
  return r;
}

// A GPU row with the NVML counters of an unthrottled, unshared device.
inline row_record gpu_row(const std::string& name, double ms, double gflops) {
  auto r = rated(name, ms, gflops);
  r.counters["sm_clock_start_MHz"] = {1980, 1980, 1980};
  r.counters["sm_clock_end_MHz"] = {1900, 1905, 1910};  // a 4% dip: under 10%
  r.counters["sm_clock_app_MHz"] = {1980, 1980, 1980};  // an H200's application clock
  r.counters["throttle_start"] = {0, 0x4, 0};           // the SwPowerCap bit alone throttles nothing
  r.counters["throttle_end"] = {0, 0, 0x10};
  r.counters["loop_ms"] = {300, 300, 300};
  r.counters["capped_power_ms"] = {0, 3, 0};  // 1% of the loop: under 5%
  r.counters["capped_thermal_ms"] = {0, 0, 0};
  r.counters["other_processes"] = {0, 0, 0};
  return r;
}

// A run with every kind of row and nothing wrong: the halves add up, every solve is below its
// GEMM, transfers are below the bus and slower than their resident twins, times are steady,
// the BLAS runs kernels of the CPU's ISA at a fair share of its peak, the host is quiet.
inline run_summary clean_run() {
  run_summary run;
  run.context = {{"num_cpus", "2"},
                 {"cpu_scaling_enabled", "false"},
                 {"library_build_type", "release"},
                 {"blas_vendor", "OpenBLAS"},
                 {"blas_version", "0.3.21"},
                 {"blas_threads", "2"},
                 {"cores_available", "2"},
                 {"thread_env", ""},
                 {"cpu_governor", "performance"},
                 {"gpu_name", "NVIDIA H200"},
                 {"gpu_pcie_max_GBps", "63.0"},
                 {"load_avg", "0.2,0.3,0.3"},
                 {"blas_core", "SkylakeX"},
                 {"blas_core_isa", "avx512"},
                 {"cpu_vector_isa", "avx512"},
                 {"cpu_model", "Intel Xeon"},
                 {"cpu_peak_fp64_GFLOPs", "2400"},
                 {"cpu_peak_fp32_GFLOPs", "4800"},
                 {"cpu_peak_basis", "test"},
                 {"gpu_peak_fp64_GFLOPs", "66908"},
                 {"gpu_peak_fp32_GFLOPs", "66908"},
                 {"gpu_peak_basis", "test"}};
  run.rows = {
      rated("CPU/dgemm/n:4096", 100, 1374),
      rated("CPU/dgetrf/n:4096", 104, 440),
      rated("CPU/dgetrs/n:4096/nrhs:1", 10.6, 3.2),
      rated("CPU/dgesv/n:4096/nrhs:1", 115, 400),
      rated("CPU-driver/dgesv/n:4096/nrhs:1", 130, 353),  // 1.13x its halves: under 1.25x
      rated("CPU/dpotrf/n:4096", 60, 380),
      rated("CPU/dpotrs/n:4096/nrhs:1", 8, 8.4),
      rated("CPU/dposv/n:4096/nrhs:1", 68, 340),
      rated("CPU-driver/dposv/n:4096/nrhs:1", 70, 330),
      rated("CPU/sgemm/n:4096", 50, 2700),
      rated("CPU/sgesv/n:4096/nrhs:1", 60, 770),
      rated("CPU/dsgesv/n:4096/nrhs:1/kind:diagdom/refine:classical", 40, 1140),  // mixed: may beat dgemm
      rated("CPU/dgesv_batched/n:32/batch:10000", 20, 4000),                      // batched: no n ceiling
      rated("MPI/dgesv/n:4096/nrhs:1/ranks:2/nb:64", 200, 230),
      gpu_row("GPU/dgemm/n:16384", 100, 60000),
      gpu_row("GPU/sgemm/n:16384", 100, 55000),
      gpu_row("GPU/dgetrf/n:16384", 80, 36000),
      gpu_row("GPU/dgetrs/n:16384/nrhs:1", 5, 0.1),
      gpu_row("GPU/dgesv/n:16384/nrhs:1", 86, 34000),
      gpu_row("GPU/dhgesv/n:16384/nrhs:1/kind:uniform/refine:gmres", 30, 98000),
      gpu_row("GPU/dgesv_batched/n:32/batch:10000", 2, 90000),
      gpu_row("MGPU/dgesv/n:65536/nrhs:1/gpus:2/tile:512", 900, 200000),
  };
  auto pinned = gpu_row("GPU-pinned/dgesv/n:16384/nrhs:1", 123, 23800);
  pinned.counters["xfer_GB/s"] = {52, 53, 52};
  auto pageable = gpu_row("GPU-pageable/dgesv/n:16384/nrhs:1", 150, 19500);
  pageable.counters["xfer_GB/s"] = {21, 20, 21};
  run.rows.push_back(pinned);
  run.rows.push_back(pageable);
  return run;
}

inline row_record& find_row(run_summary& run, const std::string& name) {
  for (auto& r : run.rows)
    if (r.name == name) return r;
  throw std::runtime_error("no row " + name);
}

inline std::vector<finding> findings_of(const audit_report& report, const std::string& rule) {
  std::vector<finding> out;
  for (const auto& f : report.findings)
    if (f.rule == rule) out.push_back(f);
  return out;
}

inline bool lists(const finding& f, const std::string& row_name) {
  return std::any_of(f.rows.begin(), f.rows.end(), [&](const row_id& id) { return id.name() == row_name; });
}

// The rule ran, and one of its findings (of this severity, when given) lists the row.
inline bool names(const audit_report& report, const std::string& rule, const std::string& row_name,
                  const std::string& severity = "") {
  for (const auto& f : findings_of(report, rule))
    if (lists(f, row_name) && (severity.empty() || f.severity == severity)) return true;
  return false;
}

inline bool checked(const audit_report& report, const std::string& rule) {
  return std::count(report.rules_checked.begin(), report.rules_checked.end(), rule) == 1;
}

inline std::string console(const audit_report& report) { return audit_console(report, ""); }

// The rule ran on the clean run and said nothing.
inline void expect_silent_on_clean_run(const std::string& rule) {
  const auto report = run_audit(clean_run());
  EXPECT_TRUE(checked(report, rule)) << rule << " did not run";
  for (const auto& f : findings_of(report, rule)) ADD_FAILURE() << rule << " spoke on a clean run: " << f.message;
}

}  // namespace solvebench::bench::testing
