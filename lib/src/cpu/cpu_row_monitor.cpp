// The CPU rows' monitor: RAPL package (+ DRAM) energy around the timed loop, and the CPU time
// other processes and the hypervisor took meanwhile (/proc/stat against /proc/self/stat).
#include <unistd.h>

#include <optional>
#include <string>
#include <utility>

#include "solvebench/cpu_load.hpp"
#include "solvebench/rapl.hpp"
#include "solvebench/row_monitor.hpp"

namespace solvebench {
namespace {

class cpu_row_monitor final : public row_monitor {
 public:
  cpu_row_monitor(const std::string& powercap_root, std::string proc_root)
      : meter_(powercap_root), proc_root_(std::move(proc_root)) {
    const long t = sysconf(_SC_CLK_TCK);
    ticks_per_second_ = t > 0 ? static_cast<double>(t) : 100.0;
  }

  void begin() override {
    end_.reset();
    load_end_.reset();
    start_ = meter_.read(&read_failure_);
    load_start_ = cpu::sample_load(proc_root_, &load_failure_);
  }
  void end() override {
    load_end_ = cpu::sample_load(proc_root_, &load_failure_);
    end_ = meter_.read(&read_failure_);
  }

  // The energy covers the whole loop, including the untimed restores of the inputs between
  // timed calls, and everything else the packages ran meanwhile: an upper bound per solve.
  // The load covers the same loop: what else ran on the machine while this row was timed.
  std::vector<std::pair<std::string, double>> counters(double flops_per_iteration,
                                                       long long iterations) const override {
    std::vector<std::pair<std::string, double>> out;
    if (start_ && end_)
      if (const auto e = meter_.joules_between(*start_, *end_))
        out = energy_counters(e->total(), flops_per_iteration, iterations);
    if (load_start_ && load_end_)
      if (const auto load = cpu::load_during(*load_start_, *load_end_, ticks_per_second_))
        for (auto& counter : cpu::load_counters(*load)) out.push_back(std::move(counter));
    return out;
  }

  std::string unavailable_reason() const override {
    std::string energy;
    if (!meter_.readable()) {
      energy = meter_.unavailable_reason();
    } else if (start_ && end_) {
      std::string why;
      if (!meter_.joules_between(*start_, *end_, &why)) energy = why;
    } else {
      energy = read_failure_;
    }
    const std::string load = (load_start_ && load_end_) ? ""
                             : load_failure_.empty()    ? ""
                                                        : "CPU load: " + load_failure_;
    return energy + (!energy.empty() && !load.empty() ? "; " : "") + load;
  }

 private:
  rapl::energy_meter meter_;
  std::optional<rapl::reading> start_, end_;
  std::string read_failure_;
  std::string proc_root_;
  double ticks_per_second_ = 100;
  std::optional<cpu::load_sample> load_start_, load_end_;
  std::string load_failure_;
};

}  // namespace

std::unique_ptr<row_monitor> make_cpu_row_monitor(const std::string& powercap_root, const std::string& proc_root) {
  return std::make_unique<cpu_row_monitor>(powercap_root, proc_root);
}

}  // namespace solvebench
