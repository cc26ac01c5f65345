// The GPU rows' monitor: NVML's SM clock, throttle reasons, other processes and energy of the
// row's device, read before and after the timed loop.
#include <algorithm>
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
    if (device_) start_ = session_.sample(*device_);
  }
  void end() override {
    if (device_) end_ = session_.sample(*device_);
  }

  std::vector<std::pair<std::string, double>> counters(double flops_per_iteration, long long iterations) const override {
    std::vector<std::pair<std::string, double>> out;
    if (start_.sm_clock_mhz) out.emplace_back("sm_clock_start_MHz", *start_.sm_clock_mhz);
    if (end_.sm_clock_mhz) out.emplace_back("sm_clock_end_MHz", *end_.sm_clock_mhz);
    // Bitmasks of clocks_event bits; exact as doubles (the known bits end at 0x100).
    if (start_.clocks_event_reasons) out.emplace_back("throttle_start", static_cast<double>(*start_.clocks_event_reasons));
    if (end_.clocks_event_reasons) out.emplace_back("throttle_end", static_cast<double>(*end_.clocks_event_reasons));
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
    std::string out;
    for (const auto& r : reasons) out += (out.empty() ? "" : "; ") + r;
    return out;
  }

 private:
  nvml::session session_;
  std::optional<nvml::device> device_;
  std::string why_;
  nvml::gpu_sample start_, end_;
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
