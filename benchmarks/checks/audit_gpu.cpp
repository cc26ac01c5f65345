// Audit rules on the GPU's state during each row's timed loop: time it spent capped (measured
// by NVML's violation counters, not guessed from reason bits), clocks that dropped, and other
// processes on the device. One finding per kind, listing the rows it covers.
#include <algorithm>

#include "checks/audit_rules.hpp"
#include "checks/text.hpp"
#include "checks/thresholds.hpp"

namespace solvebench::bench::audit_detail {
namespace {

struct affected {
  std::vector<row_id> rows;
  double worst = 0;
  std::string worst_name;
  void add(const row_record& r, double value) {
    rows.push_back(r.id);
    if (value > worst) {
      worst = value;
      worst_name = r.name;
    }
  }
};

std::optional<std::string> gpu_throttled(const rule_input& in, std::vector<finding>& out) {
  affected power, thermal, clock;
  bool measured = false, any_gpu = false;
  for (const auto* r : in.rows) {
    if (r->id.device != "gpu") continue;
    any_gpu = true;
    const auto loop = r->counter("loop_ms");
    const auto power_ms = r->counter("capped_power_ms"), thermal_ms = r->counter("capped_thermal_ms");
    if (loop && *loop > 0 && (power_ms || thermal_ms)) {
      measured = true;
      if (thermal_ms && *thermal_ms / *loop >= limits::capped_share) thermal.add(*r, *thermal_ms / *loop);
      if (power_ms && *power_ms / *loop >= limits::capped_share) power.add(*r, *power_ms / *loop);
    }
    const auto start = r->counter("sm_clock_start_MHz"), end = r->counter("sm_clock_end_MHz");
    if (start && end && *start > 0 && *end < (1 - limits::max_clock_drop) * *start) clock.add(*r, 1 - *end / *start);
  }
  if (!any_gpu) return std::nullopt;
  if (!thermal.rows.empty())
    out.push_back({"gpu_throttled", severity_warning, thermal.rows,
                   count(thermal.rows.size(), "GPU row") + " spent at least " + percent(limits::capped_share) +
                       " of their timed loop thermally capped (NVML violation time; worst " + thermal.worst_name +
                       ", " + percent(thermal.worst) + "): " + row_list(thermal.rows) +
                       ". Their times are slower than a cool GPU's."});
  if (!clock.rows.empty())
    out.push_back({"gpu_throttled", severity_warning, clock.rows,
                   count(clock.rows.size(), "GPU row") + " saw the SM clock drop more than " +
                       percent(limits::max_clock_drop) + " during the timed loop (worst " + clock.worst_name + ", -" +
                       percent(clock.worst) + "): " + row_list(clock.rows) + "."});
  if (!power.rows.empty()) {
    // Power capping that did not lower the clock below the drop limit costs little: a note.
    std::vector<row_id> slowed, held;
    for (const auto& id : power.rows)
      (std::find(clock.rows.begin(), clock.rows.end(), id) != clock.rows.end() ? slowed : held).push_back(id);
    if (!held.empty())
      out.push_back({"gpu_throttled", severity_note, held,
                     count(held.size(), "GPU row") + " spent at least " + percent(limits::capped_share) +
                         " of their timed loop at the power cap (NVML violation time; worst " + power.worst_name +
                         ", " + percent(power.worst) + ") with the SM clock within " + percent(limits::max_clock_drop) +
                         " of its start: " + row_list(held) + "."});
  }
  if (!measured)
    return std::string(
        "no GPU row carries NVML's capped time (capped_power_ms, loop_ms): only clock drops were checked");
  return std::nullopt;
}

std::optional<std::string> gpu_shared(const rule_input& in, std::vector<finding>& out) {
  affected shared;
  for (const auto* r : in.rows) {
    const auto it = r->counters.find("other_processes");
    if (it == r->counters.end() || it->second.empty()) continue;
    const double most = *std::max_element(it->second.begin(), it->second.end());
    if (most > 0) shared.add(*r, most);
  }
  if (!shared.rows.empty())
    out.push_back({"gpu_shared", severity_warning, shared.rows,
                   count(shared.rows.size(), "GPU row") + " shared the GPU with other processes (up to " +
                       sig3(shared.worst) + ", during " + shared.worst_name +
                       "): their times may include the others' "
                       "work: " +
                       row_list(shared.rows) + "."});
  return std::nullopt;
}

}  // namespace

const std::vector<rule>& gpu_rules() {
  static const std::vector<rule> rules = {{"gpu_throttled", gpu_throttled}, {"gpu_shared", gpu_shared}};
  return rules;
}

}  // namespace solvebench::bench::audit_detail
