// The regression gate's rule and its forms.
#include "checks/compare.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

#include "checks/text.hpp"
#include "checks/thresholds.hpp"

namespace solvebench::bench {
namespace {

using json = nlohmann::ordered_json;

const row_record* find_id(const run_summary& run, const row_id& id) {
  for (const auto& r : run.rows)
    if (r.id == id) return &r;
  return nullptr;
}

std::string failure_status(const row_record& r) { return r.ok() ? "resid" : "error"; }
std::string failure_text(const row_record& r) {
  if (!r.error.empty()) return (r.skipped ? "refused: " : "error: ") + r.error;
  return "resid at or above " + sig3(limits::resid);
}

json number(const std::optional<double>& x) { return x && std::isfinite(*x) ? json(*x) : json(nullptr); }

// A finding's identity across runs: its rule, severity and rows (the message holds numbers).
std::string finding_key(const finding& f) {
  std::vector<std::string> rows;
  for (const auto& id : f.rows) rows.push_back(id.name());
  std::sort(rows.begin(), rows.end());
  return f.rule + "|" + f.severity + "|" + join(rows, ",");
}

// The fastest repetition of each pair (the counter .ci/bench-pr adds), when every repetition has one.
std::map<double, double> fastest_per_pair(const row_record& r) {
  std::map<double, double> out;
  const auto it = r.counters.find("pair");
  if (it == r.counters.end() || it->second.size() != r.times_ms.size()) return out;
  for (std::size_t i = 0; i < r.times_ms.size(); ++i) {
    const auto [at, fresh] = out.emplace(it->second[i], r.times_ms[i]);
    if (!fresh) at->second = std::min(at->second, r.times_ms[i]);
  }
  return out;
}

}  // namespace

std::vector<double> paired_ratios(const row_record& base, const row_record& contender) {
  const auto b = fastest_per_pair(base), n = fastest_per_pair(contender);
  std::vector<double> ratios;
  for (const auto& [pair, ms] : b)
    if (const auto it = n.find(pair); it != n.end() && ms > 0) ratios.push_back(it->second / ms);
  return ratios;
}

std::optional<double> gate_noise_pct(const row_record& r) {
  std::optional<double> within = r.noise_pct();
  // The interval of the median of the repetitions, not their range: the range grows with every
  // repetition and is set by the worst one (on a loaded 2-core machine, 40-200% of the median).
  std::optional<double> between = median_noise_pct(r.times_ms, limits::noise_confidence);
  if (!within) return between;
  if (!between) return within;
  return std::max(*within, *between);
}

bool comparison::failed() const {
  return !new_timing_bugs.empty() ||
         std::any_of(rows.begin(), rows.end(), [](const row_change& r) { return r.fails(); });
}

std::vector<std::string> comparison::suspects() const {
  std::vector<std::string> out;
  for (const auto& r : rows)
    if (r.status == "slower" || (r.status == "same" && r.change_pct && *r.change_pct > limits::gate_floor_pct))
      out.push_back(r.name);
  return out;
}

comparison compare_runs(const run_summary& base, const run_summary& contender) {
  comparison c;
  for (const auto& b : base.rows) {
    row_change ch;
    ch.id = b.id;
    ch.name = b.name;
    ch.base_repetitions = b.times_ms.size();
    if (b.ok()) ch.base_ms = b.median_ms();
    const row_record* n = find_id(contender, b.id);
    if (n) {
      ch.new_repetitions = n->times_ms.size();
      if (n->ok()) ch.new_ms = n->median_ms();
    }
    if (!b.passed()) {
      ch.status = "base-failed";
      ch.why = failure_text(b) + " in the baseline";
    } else if (!n) {
      ch.status = "missing";
      ch.why = "not in the contender";
    } else if (!n->passed()) {
      ch.status = failure_status(*n);
      ch.why = failure_text(*n);
    } else {
      ch.base_noise_pct = gate_noise_pct(b);
      ch.new_noise_pct = gate_noise_pct(*n);
      const std::vector<double> ratios = paired_ratios(b, *n);
      if (ratios.size() >= 2) {
        // Pairs timed back to back: the neighbours' load and the machine's drift fall on both
        // sides of a pair alike, and cancel in its ratio.
        ch.pairs = ratios.size();
        ch.change_pct = 100.0 * (median(ratios) - 1);
        ch.pair_noise_pct = median_noise_pct(ratios, limits::gate_confidence);
        ch.threshold_pct = std::max(limits::gate_floor_pct, ch.pair_noise_pct.value_or(0));
        ch.why = format(
            "%+.1f%% over %zu pairs run back to back (each side's fastest repetition) against a threshold "
            "of %.1f%% (the pairs' %.0f%% interval %.1f%%, at least %.1f%%)",
            *ch.change_pct, ratios.size(), *ch.threshold_pct, 100 * limits::gate_confidence,
            ch.pair_noise_pct.value_or(0), limits::gate_floor_pct);
      } else {
        ch.change_pct = 100.0 * (*ch.new_ms / *ch.base_ms - 1);
        ch.threshold_pct =
            std::max(limits::gate_floor_pct, ch.base_noise_pct.value_or(0) + ch.new_noise_pct.value_or(0));
        ch.why = format("%+.1f%% against a threshold of %.1f%% (noise %.1f%% + %.1f%%, at least %.1f%%)",
                        *ch.change_pct, *ch.threshold_pct, ch.base_noise_pct.value_or(0), ch.new_noise_pct.value_or(0),
                        limits::gate_floor_pct);
      }
      if (*ch.change_pct > *ch.threshold_pct) ch.status = "slower";
      else if (*ch.change_pct < -*ch.threshold_pct) ch.status = "faster";
      else ch.status = "same";
    }
    c.rows.push_back(std::move(ch));
  }
  for (const auto& n : contender.rows) {
    if (find_id(base, n.id)) continue;
    row_change ch;
    ch.id = n.id;
    ch.name = n.name;
    ch.new_repetitions = n.times_ms.size();
    if (n.ok()) ch.new_ms = n.median_ms();
    ch.status = n.passed() ? "new" : failure_status(n);
    if (!n.passed()) ch.why = failure_text(n);
    c.rows.push_back(std::move(ch));
  }
  std::map<std::string, bool> in_base;
  for (const auto& f : run_audit(base).findings) in_base[finding_key(f)] = true;
  for (const auto& f : run_audit(contender).findings)
    if (f.severity == std::string(severity_timing_bug) && !in_base.count(finding_key(f)))
      c.new_timing_bugs.push_back(f);
  return c;
}

json comparison_json(const comparison& c) {
  json rows = json::array();
  for (const auto& r : c.rows)
    rows.push_back({{"row", r.name},
                    {"id", to_json(r.id)},
                    {"status", r.status},
                    {"fails", r.fails()},
                    {"why", r.why},
                    {"base_ms", number(r.base_ms)},
                    {"new_ms", number(r.new_ms)},
                    {"change_pct", number(r.change_pct)},
                    {"threshold_pct", number(r.threshold_pct)},
                    {"base_noise_pct", number(r.base_noise_pct)},
                    {"new_noise_pct", number(r.new_noise_pct)},
                    {"pairs", r.pairs},
                    {"pair_noise_pct", number(r.pair_noise_pct)},
                    {"base_repetitions", r.base_repetitions},
                    {"new_repetitions", r.new_repetitions}});
  json bugs = json::array();
  for (const auto& f : c.new_timing_bugs) {
    json names = json::array();
    for (const auto& id : f.rows) names.push_back(id.name());
    bugs.push_back({{"rule", f.rule}, {"severity", f.severity}, {"rows", names}, {"message", f.message}});
  }
  std::map<std::string, int> tally;
  for (const auto& r : c.rows) ++tally[r.status];
  json counts = json::object();
  for (const auto& [k, v] : tally) counts[k] = v;
  return {{"failed", c.failed()},
          {"counts", counts},
          {"suspects", c.suspects()},
          {"rows", rows},
          {"new_timing_bugs", bugs},
          {"rule",
           "slower: the contender's median is above the baseline's by more than both runs' noise (each the larger of "
           "the 95% interval of the median of its samples and that of the median of its repetitions), and by at "
           "least " +
               sig3(limits::gate_floor_pct) +
               "%; for repetitions tagged as pairs run back to back, the median over the pairs of the ratio of each "
               "side's fastest repetition, against the " +
               sig3(100 * limits::gate_confidence) +
               "% interval of that median, and at least the same floor. Suspects (to confirm by a re-run): the "
               "slower rows and those that moved by the floor within their noise"}};
}

std::string comparison_text(const comparison& c) {
  std::string out;
  std::map<std::string, int> tally;
  for (const auto& r : c.rows) {
    ++tally[r.status];
    if (r.status == "same" || r.status == "new") continue;
    out += format("  %-11s %s: %s\n", (r.fails() ? [&] {
                                        std::string s = r.status;
                                        for (auto& ch : s) ch = static_cast<char>(std::toupper(ch));
                                        return s;
                                      }()
                                                 : r.status)
                                          .c_str(),
                  r.name.c_str(), r.why.c_str());
  }
  for (const auto& f : c.new_timing_bugs) out += "  NEW timing bug " + f.rule + ": " + f.message + "\n";
  std::vector<std::string> parts;
  for (const auto& [k, v] : tally) parts.push_back(std::to_string(v) + " " + k);
  return std::string(c.failed() ? "compare: FAILED" : "compare: passed") + " (" + join(parts, ", ") + ")\n" + out;
}

std::string comparison_markdown(const comparison& c, const std::vector<std::string>& base_files,
                                const std::vector<std::string>& new_files) {
  std::string out = std::string("## solve_bench regression gate: ") + (c.failed() ? "FAILED" : "passed") + "\n\n";
  out += "Baseline `" + join(base_files, " ") + "`, contender `" + join(new_files, " ") +
         "`. A row is slower when its median moved by more than both runs' measured noise (and at least " +
         sig3(limits::gate_floor_pct) + "%); it fails when it errs, its resid reaches " + sig3(limits::resid) +
         " or it is missing; the run fails on a timing bug its audit finds and the baseline's did not.\n\n";
  out +=
      "| status | row | base ms | new ms | change | threshold | noise base / new |\n| --- | --- | ---: | ---: | ---: | "
      "---: | ---: |\n";
  for (const auto& r : c.rows)
    out += "| " + r.status + " | `" + r.name + "` | " + sig3(r.base_ms) + " | " + sig3(r.new_ms) + " | " +
           (r.change_pct ? format("%+.1f%%", *r.change_pct) : "–") + " | " +
           (r.threshold_pct ? format("%.1f%%", *r.threshold_pct) : "–") + " | " +
           (r.base_noise_pct ? format("%.1f%%", *r.base_noise_pct) : "–") + " / " +
           (r.new_noise_pct ? format("%.1f%%", *r.new_noise_pct) : "–") + " |\n";
  for (const auto& f : c.new_timing_bugs) out += "\n- **new timing bug** `" + f.rule + "`: " + f.message + "\n";
  return out;
}

}  // namespace solvebench::bench
