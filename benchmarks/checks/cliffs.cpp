// Neighbouring sizes, their rates and noise, and which pairs are cliffs: see cliffs.hpp.
#include "checks/cliffs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "checks/audit_rules.hpp"
#include "checks/text.hpp"
#include "checks/thresholds.hpp"
#include "solvebench/known_causes.hpp"

namespace solvebench::bench {

std::string scan_range::text() const { return axis + ":" + std::to_string(lo) + ".." + std::to_string(hi); }

std::optional<scan_range> parse_scan_range(const std::string& axis, const std::string& text, std::int64_t max) {
  const auto dots = text.find("..");
  if (dots == std::string::npos || dots == 0 || dots + 2 >= text.size()) return std::nullopt;
  const auto number = [&](const std::string& s) -> std::optional<std::int64_t> {
    if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    const long long v = std::atoll(s.c_str());
    if (v < 1 || v > max) return std::nullopt;
    return v;
  };
  const auto lo = number(text.substr(0, dots)), hi = number(text.substr(dots + 2));
  if (!lo || !hi || *lo >= *hi) return std::nullopt;
  return scan_range{axis, *lo, *hi};
}

std::vector<std::int64_t> coarse_grid(std::int64_t lo, std::int64_t hi) {
  std::vector<std::int64_t> out;
  const double step = std::log(static_cast<double>(hi) / static_cast<double>(lo)) / (scan_coarse_points - 1);
  for (int i = 0; i < scan_coarse_points; ++i) {
    const auto v = i == scan_coarse_points - 1 ? hi : std::llround(static_cast<double>(lo) * std::exp(step * i));
    if (out.empty() || v > out.back()) out.push_back(std::min<std::int64_t>(v, hi));
  }
  return out;
}

std::int64_t axis_value(const row_id& id, const std::string& axis) {
  return axis == "nrhs" ? id.nrhs.value_or(0) : id.n;
}

row_id with_axis_value(row_id id, const std::string& axis, std::int64_t v) {
  if (axis == "nrhs") id.nrhs = v;
  else id.n = v;
  return id;
}

namespace {

// The family a row belongs to along the axis: its name with the axis value zeroed.
std::string family_of(const row_id& id, const std::string& axis) { return with_axis_value(id, axis, 0).name(); }

double time_per_flop(const row_record& r) {
  const auto rate = r.counter("GFLOP/s");
  return rate && *rate > 0 ? 1 / *rate : std::nan("");
}

// A row's re-run spread; a row of one round (its calls so long that the round budget gave it no
// second) borrows the widest one-round variance of its family's rows that have rounds.
std::optional<rerun_spread> spread_or_family(const row_record& r, const std::vector<const row_record*>& family) {
  if (auto s = r.spread()) return s;
  std::optional<rerun_spread> widest;
  for (const auto* other : family)
    if (const auto s = other->spread()) {
      rerun_spread one = *s;
      one.centre_var = s->centre_var * s->rounds;  // one round's variance is about m times the centre's
      one.rounds = 1;
      if (!widest || one.centre_var > widest->centre_var) widest = one;
    }
  return widest;
}

}  // namespace

std::vector<cliff_pair> neighbour_pairs(const run_summary& run, const std::string& axis) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const row_record*>> families;
  for (const auto& r : run.rows) {
    if (axis == "nrhs" && !r.id.nrhs) continue;
    if (!r.ok() && !r.skipped) continue;  // a failure says nothing about the rate
    const std::string key = family_of(r.id, axis);
    if (!families.count(key)) order.push_back(key);
    families[key].push_back(&r);
  }
  std::vector<cliff_pair> out;
  for (const auto& key : order) {
    auto rows = families[key];
    std::sort(rows.begin(), rows.end(), [&](const row_record* a, const row_record* b) {
      return axis_value(a->id, axis) < axis_value(b->id, axis);
    });
    std::vector<const row_record*> ran;
    for (const auto* r : rows)
      if (r->ok()) ran.push_back(r);
    for (std::size_t i = 0; i + 1 < rows.size(); ++i) {
      const row_record &a = *rows[i], &b = *rows[i + 1];
      if (!a.ok()) continue;  // beyond a refusal: refused too, or a second limit the first hides
      cliff_pair p;
      p.below = a.id;
      p.above = b.id;
      p.lo = axis_value(a.id, axis);
      p.hi = axis_value(b.id, axis);
      if (b.skipped) {
        p.refusal = b.error;
        p.suspect = true;
        out.push_back(p);
        continue;
      }
      const double ta = time_per_flop(a), tb = time_per_flop(b);
      if (!(ta > 0) || !(tb > 0)) continue;
      p.slower_above = tb > ta;
      p.factor = std::max(ta, tb) / std::min(ta, tb);
      const auto sa = spread_or_family(a, ran), sb = spread_or_family(b, ran);
      if (sa && sb) p.noise_pct = sa->difference_pct(*sb, limits::noise_confidence);
      p.suspect = p.factor > limits::cliff_factor && (!p.noise_pct || 100 * (p.factor - 1) > *p.noise_pct);
      out.push_back(p);
    }
  }
  return out;
}

std::vector<cliff> find_cliffs(const run_summary& run, const std::string& axis) {
  const auto pairs = neighbour_pairs(run, axis);
  std::vector<cliff> out;
  const auto same_family = [&](const cliff_pair& x, const cliff_pair& y) {
    return family_of(x.below, axis) == family_of(y.below, axis) && x.hi == y.lo;
  };
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const cliff_pair& p = pairs[i];
    if (!p.suspect) continue;
    cliff c{p, p.hi - p.lo == 1, false};
    if (p.refusal.empty()) {
      // The slow end alone, its other neighbour back up to speed: a spike, said once (from its left pair).
      const bool next_back = i + 1 < pairs.size() && same_family(p, pairs[i + 1]) && pairs[i + 1].suspect &&
                             pairs[i + 1].refusal.empty() && !pairs[i + 1].slower_above;
      const bool prev_back = i > 0 && same_family(pairs[i - 1], p) && pairs[i - 1].suspect &&
                             pairs[i - 1].refusal.empty() && pairs[i - 1].slower_above;
      if (!p.slower_above && prev_back) continue;
      c.spike = p.slower_above && next_back;
    }
    out.push_back(c);
  }
  return out;
}

std::string cliff_text(const cliff& c, const std::string& axis, const std::string& not_judged) {
  const cliff_pair& p = c.pair;
  const std::string at = axis + " = " + std::to_string(p.lo) + " and " + std::to_string(p.hi);
  if (!p.refusal.empty())
    return p.below.name() + " ran and " + p.above.name() + " is refused (" + p.refusal + "): a limit " +
           (c.narrowed ? "between " + at : "somewhere between " + at + " (not narrowed: the scan stopped)") + ".";
  const row_id& slow = p.slower_above ? p.above : p.below;
  const row_id& fast = p.slower_above ? p.below : p.above;
  const std::string noise = p.noise_pct ? " (the noise allows " + sig3(*p.noise_pct) + "%)" : " (noise unknown)";
  if (c.spike)
    return slow.name() + " takes " + sig3(p.factor) + "x the time per flop of " + fast.name() + noise +
           ", and its neighbour above is back up to speed: one slow size (an outlier or a load), not a step.";
  if (!not_judged.empty())
    return slow.name() + " takes " + sig3(p.factor) + "x the time per flop of " + fast.name() + noise +
           ", neighbours at " + at + ", and is not judged a cliff. " + not_judged;
  return slow.name() + " takes " + sig3(p.factor) + "x the time per flop of " + fast.name() + noise + ": a cliff " +
         (c.narrowed ? "between " + at
                     : "somewhere between " + at + " (not narrowed: the scan's extra sizes or time ran out)") +
         ", the rate " + (p.slower_above ? "drops going up" : "drops going down") + " by " + sig3(p.factor) + "x.";
}

namespace audit_detail {
namespace {

// The cliffs a size scan narrowed (solve_bench --sizes=scan:LO..HI or --nrhs=scan:LO..HI; the run's
// context key "scan" names the axis and range): a step in the time per flop is a warning, a limit
// and a lone slow size notes. A run without a scan has no neighbouring sizes to judge.
std::optional<std::string> cliffs(const rule_input& in, std::vector<finding>& out) {
  const std::string scan = in.context("scan");
  if (scan.empty()) return std::nullopt;  // a grid's sizes are far apart: their rates differ by design
  const std::string axis = scan.substr(0, scan.find(':'));
  for (const auto& c : find_cliffs(in.run, axis)) {
    // Neighbours a bisection measured passes apart compare only on a quiet host (load_during).
    const row_record *a = in.run.find(c.pair.below.name()), *b = in.run.find(c.pair.above.name());
    const std::string load = c.pair.refusal.empty() && a && b ? load_during({a, b}) : "";
    finding f{"cliffs",
              c.spike || !c.pair.refusal.empty() || !load.empty() ? severity_note : severity_warning,
              {c.pair.below, c.pair.above},
              cliff_text(c, axis, load)};
    const row_id& slow = c.pair.slower_above ? c.pair.above : c.pair.below;
    if (!c.spike && c.pair.refusal.empty() && load.empty() && slow.path == row_path::driver)
      f.cause = solvebench::cpu::known_driver_cause(in.context("blas_vendor"), in.context("blas_version"),
                                                    slow.precision, slow.n, slow.nrhs.value_or(1));
    out.push_back(f);
  }
  return std::nullopt;
}

}  // namespace

const std::vector<rule>& scan_rules() {
  static const std::vector<rule> rules{{"cliffs", cliffs}};
  return rules;
}

}  // namespace audit_detail
}  // namespace solvebench::bench
