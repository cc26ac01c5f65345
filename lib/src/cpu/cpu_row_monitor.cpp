// The CPU rows' monitor: RAPL package (+ DRAM) energy around the timed loop.
#include <optional>
#include <string>

#include "solvebench/rapl.hpp"
#include "solvebench/row_monitor.hpp"

namespace solvebench {
namespace {

class cpu_row_monitor final : public row_monitor {
 public:
  explicit cpu_row_monitor(const std::string& powercap_root) : meter_(powercap_root) {}

  void begin() override {
    end_.reset();
    start_ = meter_.read(&read_failure_);
  }
  void end() override { end_ = meter_.read(&read_failure_); }

  // The energy covers the whole loop, including the untimed restores of the inputs between
  // timed calls, and everything else the packages ran meanwhile: an upper bound per solve.
  std::vector<std::pair<std::string, double>> counters(double flops_per_iteration, long long iterations) const override {
    if (!start_ || !end_) return {};
    const auto e = meter_.joules_between(*start_, *end_);
    if (!e) return {};
    return energy_counters(e->total(), flops_per_iteration, iterations);
  }

  std::string unavailable_reason() const override {
    if (!meter_.readable()) return meter_.unavailable_reason();
    if (start_ && end_) {
      std::string why;
      if (!meter_.joules_between(*start_, *end_, &why)) return why;
      return {};
    }
    return read_failure_;
  }

 private:
  rapl::energy_meter meter_;
  std::optional<rapl::reading> start_, end_;
  std::string read_failure_;
};

}  // namespace

std::unique_ptr<row_monitor> make_cpu_row_monitor(const std::string& powercap_root) {
  return std::make_unique<cpu_row_monitor>(powercap_root);
}

}  // namespace solvebench
