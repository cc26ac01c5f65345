// The CPU rows' monitor: RAPL package (+ DRAM) energy around the timed loop, the cores the row
// used, the time tasks waited for a CPU meanwhile (PSI), and the CPU time other processes and
// the hypervisor took (/proc/stat against /proc/self/stat).
#include <unistd.h>

#include <deque>
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
    keep(cpu::sample_load(proc_root_));  // the first rows' window may reach back to here
  }

  void begin() override {
    end_.reset();
    load_end_.reset();
    start_ = meter_.read(&read_failure_);
    load_start_ = cpu::sample_load(proc_root_, &load_failure_);
    keep(load_start_);
  }
  void end() override {
    load_end_ = cpu::sample_load(proc_root_, &load_failure_);
    end_ = meter_.read(&read_failure_);
    // A loop shorter than the jiffies' window gets the others' load over the window that ends
    // with it, reaching back into its own set-up or the rows before: load around the row,
    // measured for every row (a short GEMM included).
    around_start_.reset();
    if (load_start_ && load_end_)
      for (auto it = samples_.rbegin(); it != samples_.rend(); ++it)
        if (load_end_->wall_s - it->wall_s >= cpu::min_load_window_s) {
          around_start_ = *it;
          break;
        }
    keep(load_end_);
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
      if (const auto loop = cpu::load_during(*load_start_, *load_end_, ticks_per_second_)) {
        std::optional<cpu::load_between> around = loop;
        if (loop->wall_s < cpu::min_load_window_s)
          around = around_start_ ? cpu::load_during(*around_start_, *load_end_, ticks_per_second_) : std::nullopt;
        for (auto& counter : cpu::load_counters(*loop, around)) out.push_back(std::move(counter));
      }
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
  std::optional<cpu::load_sample> load_start_, load_end_, around_start_;
  std::deque<cpu::load_sample> samples_;  // the latest samples (construction, begin, end), oldest first
  std::string load_failure_;

  // Keeps the samples a later window may start at: the newest, back to the newest that is
  // already a window old.
  void keep(const std::optional<cpu::load_sample>& s) {
    if (!s) return;
    samples_.push_back(*s);
    while (samples_.size() > 1 && s->wall_s - samples_[1].wall_s >= cpu::min_load_window_s) samples_.pop_front();
  }
};

}  // namespace

std::unique_ptr<row_monitor> make_cpu_row_monitor(const std::string& powercap_root, const std::string& proc_root) {
  return std::make_unique<cpu_row_monitor>(powercap_root, proc_root);
}

}  // namespace solvebench
