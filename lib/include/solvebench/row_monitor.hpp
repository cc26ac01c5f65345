// What the hardware did around one row's timed loop: energy (RAPL on the CPU, NVML on the
// GPU), and on the GPU the SM clock, throttle reasons, time spent capped and other processes. Backend-neutral:
// the row runner calls begin() before the loop and end() after it, then adds counters().
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace solvebench {

class row_monitor {
 public:
  virtual ~row_monitor() = default;
  // Read the counters right before and right after the timed loop (device work finished:
  // synchronise first, or the GPU is still drawing power for the loop after end()).
  virtual void begin() = 0;
  virtual void end() = 0;
  // Named counters for the row (Google Benchmark counters): only those that could be read.
  virtual std::vector<std::pair<std::string, double>> counters(double flops_per_iteration,
                                                               long long iterations) const = 0;
  // Empty when every counter was read; else one sentence per missing counter ("; "-joined),
  // for the run to print once rather than once per row.
  virtual std::string unavailable_reason() const = 0;
};

// CPU rows: package (and DRAM) energy from RAPL under `powercap_root`, and the load other
// processes put on the machine meanwhile from `proc_root` (counters cpu_other_busy and
// cpu_self_busy, in cores, cpu_wait_pct and cpu_steal_pct; see cpu_load.hpp). Make one per run and reuse it for every
// row; it never throws for missing or unreadable counters (see unavailable_reason).
std::unique_ptr<row_monitor> make_cpu_row_monitor(const std::string& powercap_root = "/sys/class/powercap",
                                                  const std::string& proc_root = "/proc");

// GPU rows, CUDA builds only (defined in lib/src/cuda): NVML's SM clock (at both ends:
// sm_clock_start_MHz, sm_clock_end_MHz; the mean of the driver's samples between them:
// sm_clock_mean_MHz), clock-event (throttle) reason bits at both ends (throttle_start,
// throttle_end), the time each limiter held the clock down during the loop (capped_power_ms,
// capped_thermal_ms, capped_sync_boost_ms, capped_board_limit_ms, capped_low_utilization_ms,
// capped_reliability_ms, capped_below_app_clocks_ms, capped_below_base_clocks_ms; see
// nvml::perf_policy) against the loop's wall time (loop_ms), other compute processes and energy
// of this CUDA device. Make one per run and device: NVML's initialisation is not free. Never
// throws for a missing driver or counter.
std::unique_ptr<row_monitor> make_gpu_row_monitor(int cuda_device);

// "J/solve" and "GFLOP/J" from the energy a loop of `iterations` used. Nothing when the
// counter did not move (joules <= 0) or there were no iterations: a loop shorter than the
// counter's update period reads as 0 J, and 0 J/solve (infinite GFLOP/J) would be a false
// number, not a small one.
std::vector<std::pair<std::string, double>> energy_counters(double joules, double flops_per_iteration,
                                                            long long iterations);

}  // namespace solvebench
