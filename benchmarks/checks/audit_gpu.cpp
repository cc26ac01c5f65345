// Audit rules on the GPU's state during each round of a row's timed loop: time it spent capped
// (measured by NVML's violation counters, not guessed from reason bits), clocks that dropped or
// were held below the application clock, and other processes on the device. One finding per
// kind, listing the rows it covers.
#include <algorithm>
#include <cstdint>

#include "checks/audit_rules.hpp"
#include "checks/text.hpp"
#include "checks/thresholds.hpp"
#include "solvebench/nvml.hpp"

namespace solvebench::bench::audit_detail {
namespace {

struct affected {
  std::vector<row_id> rows;
  double worst = 0;
  std::string worst_name, worst_detail;
  void add(const row_record& r, double value, const std::string& detail = "") {
    rows.push_back(r.id);
    if (value > worst) {
      worst = value;
      worst_name = r.name;
      worst_detail = detail;
    }
  }
};

// A counter of one round (repetition) of a row: its own value where every round has one, else
// the row's median (results written before the counter existed in every round).
std::optional<double> round_value(const row_record& r, const std::string& key, std::size_t round) {
  const auto it = r.counters.find(key);
  if (it == r.counters.end() || it->second.empty()) return std::nullopt;
  if (it->second.size() == r.times_ms.size() && round < it->second.size()) return it->second[round];
  return r.counter(key);
}

// The share of one round's timed loop a limiter held the clock down, from NVML's violation
// counter: judged only where the monitor's window held the round's timed calls (a one-call row
// whose call came before begin() has a window of microseconds) and is at least one counter step
// long. The counter moves in steps, so its change over the loop is known to a step: the share
// is capped at the loop (never above 100%), and the round counts as capped only when the share
// less one step is still at least limits::capped_share.
struct capped_round {
  bool judged = false, capped = false;
  double share = 0;
};
capped_round capped_in_round(std::optional<double> capped_ms, std::optional<double> loop_ms, double call_ms) {
  capped_round c;
  if (!capped_ms || !loop_ms || *loop_ms < limits::nvml_counter_step_ms || *loop_ms < call_ms) return c;
  c.judged = true;
  c.share = std::min(*capped_ms, *loop_ms) / *loop_ms;
  c.capped = (*capped_ms - limits::nvml_counter_step_ms) / *loop_ms >= limits::capped_share;
  return c;
}

std::optional<std::string> gpu_throttled(const rule_input& in, std::vector<finding>& out) {
  affected power, thermal, clock;
  bool any_gpu = false, any_capped_counter = false, judged_any = false;
  std::size_t unjudged = 0;
  for (const auto* r : in.rows) {
    if (r->id.device != row_device::gpu) continue;
    any_gpu = true;
    const bool has_capped = r->counter("capped_power_ms") || r->counter("capped_thermal_ms");
    any_capped_counter = any_capped_counter || has_capped;
    double power_share = 0, thermal_share = 0, slowed = 0;
    bool power_capped = false, thermal_capped = false, judged = false;
    std::string slowed_detail;
    for (std::size_t i = 0; i < r->times_ms.size(); ++i) {
      const auto loop = round_value(*r, "loop_ms", i);
      const auto p = capped_in_round(round_value(*r, "capped_power_ms", i), loop, r->times_ms[i]);
      const auto t = capped_in_round(round_value(*r, "capped_thermal_ms", i), loop, r->times_ms[i]);
      judged = judged || p.judged || t.judged;
      if (p.capped) power_share = std::max(power_share, p.share);
      if (t.capped) thermal_share = std::max(thermal_share, t.share);
      power_capped = power_capped || p.capped;
      thermal_capped = thermal_capped || t.capped;

      // The SM clock against its own start, and, where the GPU was held down (capped time, or a
      // throttling reason at either end), against the clock it runs at unthrottled: a clock
      // capped from the loop's start on does not drop.
      const auto start = round_value(*r, "sm_clock_start_MHz", i), end = round_value(*r, "sm_clock_end_MHz", i);
      if (start && end && *start > 0 && *end < (1 - limits::max_clock_drop) * *start && 1 - *end / *start > slowed) {
        slowed = 1 - *end / *start;
        slowed_detail = sig3(*start) + " to " + sig3(*end) + " MHz";
      }
      const auto app = round_value(*r, "sm_clock_app_MHz", i);
      const auto mean = round_value(*r, "sm_clock_mean_MHz", i);
      const std::optional<double> running = mean ? mean : (start && end ? std::optional(std::max(*start, *end)) : end);
      const auto bits = [&](const char* key) {
        const auto v = round_value(*r, key, i);
        return v ? static_cast<std::uint64_t>(*v) : 0;
      };
      const bool held_down =
          p.capped || t.capped || ((bits("throttle_start") | bits("throttle_end")) & nvml::clocks_event::throttling);
      if (held_down && app && running && *app > 0 && *running < (1 - limits::max_clock_drop) * *app &&
          1 - *running / *app > slowed) {
        slowed = 1 - *running / *app;
        slowed_detail = sig3(*running) + " MHz against its application clock of " + sig3(*app);
      }
    }
    if (has_capped && !judged) ++unjudged;
    judged_any = judged_any || judged;
    if (thermal_capped) thermal.add(*r, thermal_share);
    if (power_capped) power.add(*r, power_share);
    if (slowed > 0) clock.add(*r, slowed, slowed_detail);
  }
  if (!any_gpu) return std::nullopt;
  const std::string unjudged_text =
      unjudged == 0 ? ""
                    : " (" + count(unjudged, "GPU row") + " with a loop shorter than NVML's counter step of " +
                          sig3(limits::nvml_counter_step_ms) + " ms, or not around its timed call, not judged)";
  if (!thermal.rows.empty())
    out.push_back({"gpu_throttled", severity_warning, thermal.rows,
                   count(thermal.rows.size(), "GPU row") + " spent at least " + percent(limits::capped_share) +
                       " of their timed loop thermally capped (NVML violation time; worst " + thermal.worst_name +
                       ", " + percent(thermal.worst) + "): " + row_list(thermal.rows) +
                       ". Their times are slower than a cool GPU's." + unjudged_text});
  if (!clock.rows.empty())
    out.push_back({"gpu_throttled", severity_warning, clock.rows,
                   count(clock.rows.size(), "GPU row") + " ran with the SM clock more than " +
                       percent(limits::max_clock_drop) +
                       " below its start or, held down, below its application clock (worst " + clock.worst_name + ", " +
                       clock.worst_detail + ", -" + percent(clock.worst) + "): " + row_list(clock.rows) + "."});
  if (!power.rows.empty()) {
    // Power capping that did not lower the clock below the drop limit costs little: a note.
    std::vector<row_id> slowed, held;
    bool app_known = true;  // results from before sm_clock_app_MHz hold the clock to its start alone
    for (const auto* r : in.rows)
      if (std::find(power.rows.begin(), power.rows.end(), r->id) != power.rows.end())
        app_known = app_known && r->counter("sm_clock_app_MHz");
    for (const auto& id : power.rows)
      (std::find(clock.rows.begin(), clock.rows.end(), id) != clock.rows.end() ? slowed : held).push_back(id);
    if (!held.empty())
      out.push_back({"gpu_throttled", severity_note, held,
                     count(held.size(), "GPU row") + " spent at least " + percent(limits::capped_share) +
                         " of their timed loop at the power cap (NVML violation time; worst " + power.worst_name +
                         ", " + percent(power.worst) + ") with the SM clock within " + percent(limits::max_clock_drop) +
                         (app_known ? " of its start and of its application clock: "
                                    : " of its start (no application clock recorded): ") +
                         row_list(held) + "." + (thermal.rows.empty() ? unjudged_text : "")});
  }
  if (!any_capped_counter)
    return std::string(
        "no GPU row carries NVML's capped time (capped_power_ms, loop_ms): only clock drops were checked");
  if (!judged_any)
    return "no GPU row's loop was at least NVML's counter step (" + sig3(limits::nvml_counter_step_ms) +
           " ms) and around its timed calls: capped time not judged, only the clock";
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
