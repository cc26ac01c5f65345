// The GPU rows' monitor: NVML's SM clock, throttle reasons, capped time, other processes and
// energy of the row's device, read before and after the timed loop.
#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include "solvebench/nvml.hpp"
#include "solvebench/row_monitor.hpp"

namespace solvebench {
namespace {

class gpu_row_monitor final : public row_monitor {
 public:
  gpu_row_monitor(nvml::session s, std::optional<nvml::device> d, std::string why)
      : session_(std::move(s)), device_(std::move(d)), why_(std::move(why)) {}

  void begin() override {
    end_ = {};
    clocks_in_loop_.reset();
    ended_ = false;
    if (!device_) return;
    start_ = session_.sample(*device_);
    clocks_before_ = session_.sm_clock_samples(*device_, 0, &clocks_why_);
    started_at_ = std::chrono::steady_clock::now();  // last: the loop starts after our own reads
  }
  void end() override {
    if (!device_) return;
    const auto ended_at = std::chrono::steady_clock::now();  // first: the loop ended before our reads
    loop_ms_ = std::chrono::duration<double, std::milli>(ended_at - started_at_).count();
    ended_ = true;
    end_ = session_.sample(*device_);
    if (clocks_before_) clocks_in_loop_ = session_.sm_clock_samples(*device_, clocks_before_->newest_us, &clocks_why_);
  }

  std::vector<std::pair<std::string, double>> counters(double flops_per_iteration,
                                                       long long iterations) const override {
    std::vector<std::pair<std::string, double>> out;
    if (start_.sm_clock_mhz) out.emplace_back("sm_clock_start_MHz", *start_.sm_clock_mhz);
    if (end_.sm_clock_mhz) out.emplace_back("sm_clock_end_MHz", *end_.sm_clock_mhz);
    // The clock the loop would run at unthrottled: a clock held down from the loop's start on
    // reads "within x% of its start", but not of this.
    if (const auto app = start_.sm_app_clock_mhz ? start_.sm_app_clock_mhz : end_.sm_app_clock_mhz)
      out.emplace_back("sm_clock_app_MHz", *app);
    // The driver's own samples between the two reads; none for a loop shorter than its period.
    if (clocks_in_loop_ && clocks_in_loop_->count > 0) out.emplace_back("sm_clock_mean_MHz", clocks_in_loop_->mean_mhz);
    // Bitmasks of clocks_event bits; exact as doubles (the known bits end at 0x100).
    if (start_.clocks_event_reasons)
      out.emplace_back("throttle_start", static_cast<double>(*start_.clocks_event_reasons));
    if (end_.clocks_event_reasons) out.emplace_back("throttle_end", static_cast<double>(*end_.clocks_event_reasons));
    // The time each limiter held the clock down during the loop, against the loop's wall time
    // (between begin() and end(): the untimed restores between timed calls are in both). The
    // counters move in steps of tens of ms (thresholds.hpp, nvml_counter_step_ms), so their change
    // over a loop is known to a step, and the counters' own window (capped_window_ms, from their
    // reference times) need not be the loop's.
    if (ended_) out.emplace_back("loop_ms", loop_ms_);
    if (start_.capped_reference_us && end_.capped_reference_us &&
        *end_.capped_reference_us >= *start_.capped_reference_us)
      out.emplace_back("capped_window_ms",
                       static_cast<double>(*end_.capped_reference_us - *start_.capped_reference_us) * 1e-3);
    for (std::size_t i = 0; i < nvml::perf_policies.size(); ++i) {
      const auto& a = start_.capped_ns[i];
      const auto& b = end_.capped_ns[i];
      if (a && b && *b >= *a)  // a counter that went back: the driver reloaded; no answer
        out.emplace_back("capped_" + std::string(nvml::name_of(nvml::perf_policies[i])) + "_ms",
                         static_cast<double>(*b - *a) * 1e-6);
    }
    if (start_.other_processes || end_.other_processes)
      out.emplace_back("other_processes",
                       std::max(start_.other_processes.value_or(0), end_.other_processes.value_or(0)));
    // The device's energy over the whole loop: the untimed restores of the inputs between timed
    // calls are in it too, so J/solve is an upper bound of what one solve costs.
    if (start_.energy_mj && end_.energy_mj && *end_.energy_mj >= *start_.energy_mj) {
      const double joules = static_cast<double>(*end_.energy_mj - *start_.energy_mj) * 1e-3;
      for (auto& c : energy_counters(joules, flops_per_iteration, iterations)) out.push_back(std::move(c));
    }
    return out;
  }

  std::string unavailable_reason() const override {
    std::vector<std::string> reasons;
    auto add = [&](const std::string& r) {
      if (!r.empty() && std::find(reasons.begin(), reasons.end(), r) == reasons.end()) reasons.push_back(r);
    };
    add(why_);
    for (const auto& r : start_.missing) add(r);
    for (const auto& r : end_.missing) add(r);
    if (device_ && (!clocks_before_ || (ended_ && !clocks_in_loop_))) add(clocks_why_);
    std::string out;
    for (const auto& r : reasons) out += (out.empty() ? "" : "; ") + r;
    return out;
  }

 private:
  nvml::session session_;
  std::optional<nvml::device> device_;
  std::string why_;
  nvml::gpu_sample start_, end_;
  std::optional<nvml::clock_samples> clocks_before_, clocks_in_loop_;
  std::string clocks_why_;
  std::chrono::steady_clock::time_point started_at_{};
  double loop_ms_ = 0;
  bool ended_ = false;
};

}  // namespace

std::unique_ptr<row_monitor> make_gpu_row_monitor(int cuda_device) {
  nvml::session s;
  std::string why;
  auto d = s.device_for_cuda(cuda_device, &why);
  return std::make_unique<gpu_row_monitor>(std::move(s), std::move(d), std::move(why));
}

namespace nvml {
std::unique_ptr<row_monitor> make_gpu_row_monitor(session s, const std::string& bus_id) {
  std::string why;
  auto d = s.device_by_bus_id(bus_id, &why);
  return std::make_unique<gpu_row_monitor>(std::move(s), std::move(d), std::move(why));
}
}  // namespace nvml

}  // namespace solvebench
