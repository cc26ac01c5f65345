// NVML's capped-time (violation) counters on a real GPU: how often they move and what their
// reference time follows. NVML documents neither (only that the difference of two readings at
// their two reference times is the time capped); the audit assumes a step
// (limits::nvml_counter_step_ms), which this measures and holds the assumption to.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <optional>
#include <thread>
#include <vector>

#include "checks/thresholds.hpp"
#include "nvml_gpu_fixture.hpp"

namespace nvml = solvebench::nvml;
namespace limits = solvebench::bench::limits;

namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// While a dgemm loop keeps the GPU busy for 3 s (a datacenter GPU at its power cap), the
// counters are read about every millisecond and each move of "below application clocks" (the
// sum of every limiter) is noted with this process's clock and the counters' reference time.
TEST_F(NvmlOnGpu, CappedTimeCountersMoveInStepsNoLongerThanTheAuditsStep) {
  constexpr std::size_t total = 6;  // perf_policy::total_app_clocks in perf_policies
  ASSERT_EQ(nvml::perf_policies[total], nvml::perf_policy::total_app_clocks);
  gemm_work work;
  const long long iterations = work.iterations_for(3.0);
  struct move {
    double at_ms, capped_ms;
    std::uint64_t reference_us;
  };
  std::vector<move> moves;
  std::size_t reference_only = 0, reads = 0;  // reference time moved, the counter did not
  std::atomic<bool> done{false};
  std::thread load([&] {
    work.run(iterations);
    done = true;
  });
  const auto t0 = std::chrono::steady_clock::now();
  std::optional<std::uint64_t> last_ns, last_reference;
  while (!done) {
    const nvml::gpu_sample s = session_->sample(*device_);
    ++reads;
    if (s.capped_ns[total] && s.capped_reference_us) {
      const double at = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (!last_ns || *s.capped_ns[total] != *last_ns)
        moves.push_back({at, static_cast<double>(*s.capped_ns[total]) * 1e-6, *s.capped_reference_us});
      else if (last_reference && *s.capped_reference_us != *last_reference) ++reference_only;
      last_ns = s.capped_ns[total];
      last_reference = s.capped_reference_us;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  load.join();
  if (moves.size() < 3)
    GTEST_SKIP() << "the capped-time counter moved " << moves.size() << " times in " << reads
                 << " reads over 3 s of dgemm: nothing to measure";
  std::vector<double> intervals, increments, reference_steps;
  for (std::size_t i = 2; i < moves.size(); ++i) {  // the first move is against the start, not a move
    intervals.push_back(moves[i].at_ms - moves[i - 1].at_ms);
    increments.push_back(moves[i].capped_ms - moves[i - 1].capped_ms);
    reference_steps.push_back(static_cast<double>(moves[i].reference_us - moves[i - 1].reference_us) * 1e-3);
  }
  const double longest = *std::max_element(intervals.begin(), intervals.end());
  const double largest = *std::max_element(increments.begin(), increments.end());
  std::cout << "NVML below_app_clocks counter: " << moves.size() << " moves in " << reads << " reads; between moves "
            << median_of(intervals) << " ms (median), " << longest << " ms (longest); each move "
            << median_of(increments) << " ms capped (median), " << largest
            << " ms (largest); reference time between moves " << median_of(reference_steps)
            << " ms (median); reference time moved alone in " << reference_only
            << " reads (0: it is the time of the counter's last move)\n";
  RecordProperty("step_ms_median", std::to_string(median_of(intervals)));
  RecordProperty("step_ms_longest", std::to_string(longest));
  EXPECT_LE(longest, limits::nvml_counter_step_ms) << "the audit's nvml_counter_step_ms is shorter than the counter's";
  EXPECT_LE(largest, limits::nvml_counter_step_ms);
}

}  // namespace
