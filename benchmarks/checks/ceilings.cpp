// Each solve against its machine: shares of the theoretical peak and of the run's GEMM, and the
// bound of blocked LU and Cholesky from the run's own probes (docs/ceilings.md).
#include "checks/ceilings.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "checks/operation.hpp"
#include "checks/text.hpp"
#include "checks/thresholds.hpp"
#include "solvebench/flops.hpp"

namespace solvebench::bench {
namespace {

bool plain(const row_id& id) { return !id.mixed() && !id.batched() && id.path != row_path::probe; }

// The context's peak of a device for a precision (complex: its real type's).
std::optional<double> peak_of(const run_summary& run, row_device device, char precision) {
  const bool fp64 = precision == 'd' || precision == 'z';
  const std::string text =
      run.context_value(std::string(text_of(device)) + "_peak_" + (fp64 ? "fp64" : "fp32") + "_GFLOPs");
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == text.c_str() || !(v > 0) || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string fact(const row_record& r, const char* key) {
  const auto it = r.facts.find(key);
  return it == r.facts.end() ? std::string() : it->second;
}

// Rows that can stand for a solve's device: the same device, role and precision, the same CPU
// library (its rows' cpu_library fact), the arithmetic's data resident (a pinned row's GEMM is
// the device's own).
bool same_device(const row_record& r, const row_record& of) {
  return r.id.device == of.id.device && r.id.role == of.id.role && r.id.precision == of.id.precision &&
         r.id.placement == row_placement::resident && !r.id.mixed() &&
         fact(r, "cpu_library") == fact(of, "cpu_library");
}

const row_record* nearest_gemm(const run_summary& run, const row_record& of) {
  const row_record* best = nullptr;
  double best_distance = 0;
  for (const auto& g : run.rows) {
    if (!g.ok() || g.id.op != ops::gemm.name || g.id.path == row_path::probe || !same_device(g, of) ||
        !g.counter("GFLOP/s"))
      continue;
    const double d = std::fabs(std::log(static_cast<double>(g.id.n) / static_cast<double>(of.id.n)));
    if (!best || d < best_distance || (d == best_distance && g.id.n > best->id.n)) {
      best = &g;
      best_distance = d;
    }
  }
  return best;
}

probe_rates rates_for(const run_summary& run, const row_record& of) {
  probe_rates out;
  for (const auto& p : run.rows) {
    if (!p.ok() || p.id.path != row_path::probe || !same_device(p, of)) continue;
    const auto rate = p.counter("GFLOP/s");
    const auto nb = p.id.int_axis("nb");
    if (!rate || !(*rate > 0) || !nb || (out.nb && *nb != out.nb)) continue;
    out.nb = *nb;
    out.rows.push_back(p.name);
    out.noise_pct = std::max(out.noise_pct, rerun_noise_pct(p));
    probe_curve* curve = p.id.op == ops::gemm_update.name   ? &out.update
                         : p.id.op == ops::getrf_panel.name ? &out.panel
                         : p.id.op == ops::trsm_panel.name  ? &out.trsm
                         : p.id.op == ops::potrf_block.name ? &out.block
                                                            : nullptr;
    if (curve) curve->add(static_cast<double>(p.id.n), *rate, p.median_ms());
  }
  return out;
}

// A driver's solve with its factors: the same run's getrs or potrs row of its device (resident: a
// pinned row's copies are its transfer term), n, nrhs and axes.
const row_record* solve_half_of(const run_summary& run, const row_record& driver, const operation& op) {
  for (const auto& s : run.rows)
    if (s.ok() && plain(s.id) && s.id.op == op.solve_half->name && same_device(s, driver) && s.id.n == driver.id.n &&
        s.id.nrhs == driver.id.nrhs && s.id.axes == driver.id.axes)
      return &s;
  return nullptr;
}

// A driver's solve term, or what its bound lacks without one.
void add_solve(const run_summary& run, const row_record& driver, const operation& op, bound_terms& t, row_ceiling& c) {
  if (const row_record* s = solve_half_of(run, driver, op)) {
    t.solve_ms = s->median_ms();
    c.solve_row = s->name;
    c.bound_noise_pct = std::max(c.bound_noise_pct, rerun_noise_pct(*s));
    return;
  }
  const row_id& id = driver.id;
  c.bound_leaves_out = std::string("solve not measured: add the ") + id.precision + op.solve_half->name +
                       " row (n = " + std::to_string(id.n) +
                       (id.nrhs ? ", nrhs = " + std::to_string(*id.nrhs) : std::string()) + ") on the " +
                       device_name(id.device);
}

// One piece of a block as a call of its own: its time, and the part of it that is the call's
// latency (its probe's, at most the piece's own time: a piece smaller than its probe's smallest
// call costs no more than the serial sum says).
struct piece {
  double ms = 0, latency_ms = 0;
  double work_ms() const { return ms - latency_ms; }
};

piece timed(const probe_curve& c, flop_counts counts, double m) {
  const double gflops = c.rate_at(m);
  const double ms = gflops > 0 ? flops<double>(counts) / gflops / 1e6 : 0.0;
  return {ms, std::min(ms, c.latency_ms)};
}

const char* const term_names[] = {"update", "panel", "transfer", "solve"};

}  // namespace

std::string bound_terms::dominant() const {
  const double v[] = {update_ms, panel_ms, transfer_ms, solve_ms};
  return term_names[std::max_element(std::begin(v), std::end(v)) - std::begin(v)];
}

double bound_terms::share(const std::string& term) const {
  const double total = total_ms();
  if (!(total > 0)) return 0;
  if (term == "update") return update_ms / total;
  if (term == "panel") return panel_ms / total;
  if (term == "solve") return solve_ms / total;
  return transfer_ms / total;
}

void probe_curve::add(double m, double gflops, double ms) {
  if (points.empty() || m < points.front().first) latency_ms = ms;
  points.insert(std::upper_bound(points.begin(), points.end(), std::make_pair(m, gflops)), {m, gflops});
}

double probe_curve::rate_at(double m) const {
  if (points.empty()) return 0;
  if (m <= points.front().first) return points.front().second;
  if (m >= points.back().first) return points.back().second;
  const auto hi = std::lower_bound(points.begin(), points.end(), std::make_pair(m, 0.0));
  const auto lo = hi - 1;
  const double t = std::log(m / lo->first) / std::log(hi->first / lo->first);
  return lo->second + t * (hi->second - lo->second);
}

bool probe_rates::covers(factorization f) const {
  if (nb <= 0 || update.empty() || trsm.empty()) return false;
  return f == factorization::lu ? !panel.empty() : !block.empty();
}

bound_terms blocked_bound(const probe_rates& r, factorization family, std::int64_t n) {
  bound_terms t;
  if (!r.covers(family) || n <= 0) return t;
  std::vector<std::pair<double, double>> blocks;  // (P_k, U_k): panel with the block's latency, update
  for (std::int64_t k = 0; k < n; k += r.nb) {
    const double m = static_cast<double>(n - k), w = static_cast<double>(std::min(r.nb, n - k)), rest = m - w;
    const piece panel =
        family == factorization::lu ? timed(r.panel, getrf_counts(m, w), m) : timed(r.block, potrf_counts(w), w);
    piece trsm, update;
    if (rest > 0) {
      trsm = timed(r.trsm, trsm_counts(w, rest), rest);
      update = timed(r.update, family == factorization::lu ? gemm_counts(rest, rest, w) : syrk_counts(rest, w), rest);
    }
    t.serial_ms += panel.ms + trsm.ms + update.ms;
    // A library that runs a block's pieces back to back, or fused, pays one call's latency for them.
    const double latency = std::max({panel.latency_ms, trsm.latency_ms, update.latency_ms});
    blocks.emplace_back(latency + panel.work_ms() + trsm.work_ms(), update.work_ms());
  }
  // The critical path: each block's update beside the next block's panel, whichever is longer.
  t.panel_ms = blocks.front().first;
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    const double next_panel = k + 1 < blocks.size() ? blocks[k + 1].first : 0.0;
    if (next_panel > blocks[k].second) t.panel_ms += next_panel;
    else t.update_ms += blocks[k].second;
  }
  return t;
}

const row_ceiling* ceilings_report::find(const std::string& row) const& {
  for (const auto& c : rows)
    if (c.row == row) return &c;
  return nullptr;
}

ceilings_report ceilings_of(const run_summary& run) {
  ceilings_report out;
  for (const auto& r : run.rows)
    if (r.ok() && r.id.path == row_path::probe) out.probes = true;
  for (const auto& r : run.rows) {
    const operation* op = find_operation(r.id.op);
    if (!r.ok() || !plain(r.id) || !op || op->multiplies || op->probe || r.id.role == row_role::spread) continue;
    row_ceiling c;
    c.id = r.id;
    c.row = r.name;
    c.ms = r.median_ms();
    c.gflops = r.counter("GFLOP/s");
    c.peak_gflops = peak_of(run, r.id.device, r.id.precision);
    if (c.gflops && c.peak_gflops) c.pct_of_peak = 100 * *c.gflops / *c.peak_gflops;
    if (const row_record* g = nearest_gemm(run, r); g && c.gflops) {
      c.gemm_row = g->name;
      c.pct_of_gemm = 100 * *c.gflops / *g->counter("GFLOP/s");
    }
    if (op->factors) {  // the bound: getrf, potrf and the drivers gesv, posv
      const probe_rates rates = rates_for(run, r);
      const bool real = r.id.precision == 'd' || r.id.precision == 's';
      if (!out.probes) c.no_bound = "the run timed no probes (--ceilings=on times them)";
      else if (!real) c.no_bound = "no probes for complex precisions";
      else if (!rates.covers(op->family)) c.no_bound = "no probes for this device and precision";
      else if (r.id.n < limits::bound_min_blocks * rates.nb)
        c.no_bound = "n = " + std::to_string(r.id.n) + " < " + std::to_string(limits::bound_min_blocks) +
                     " nb = " + std::to_string(limits::bound_min_blocks * rates.nb) +
                     ": one call's start-up and the library's own recursive panel beat three calls timed apart";
      else {
        bound_terms t = blocked_bound(rates, op->family, r.id.n);
        if (const auto share = r.counter("xfer_share")) t.transfer_ms = *share * c.ms;
        c.nb = rates.nb;
        c.probe_rows = rates.rows;
        c.bound_noise_pct = rates.noise_pct;
        if (op->is_driver()) add_solve(run, r, *op, t, c);
        if (t.total_ms() > 0) {
          c.bound = t;
          c.headroom = c.ms / t.total_ms();
        }
      }
    }
    out.rows.push_back(std::move(c));
  }
  return out;
}

std::vector<std::string> ceiling_lines(const ceilings_report& report) {
  std::vector<std::string> lines;
  // Each driver and precision (dgesv, dposv ...): every backend's row at its largest n.
  std::map<std::string, std::vector<const row_ceiling*>> largest;  // op name -> one row per backend
  for (const auto& c : report.rows) {
    const operation* op = find_operation(c.id.op);
    if (!op || !op->is_driver() || !c.id.axes.empty()) continue;  // the dense sweep's rows, not a matrix's own
    auto& list = largest[c.id.op_name()];
    const auto it = std::find_if(list.begin(), list.end(), [&](const row_ceiling* o) {
      return o->id.backend == c.id.backend && o->id.nrhs == c.id.nrhs;
    });
    if (it == list.end()) list.push_back(&c);
    else if (c.id.n > (*it)->id.n) *it = &c;
  }
  for (const auto& [name, list] : largest) {
    std::vector<std::string> parts;
    for (const auto* c : list) {
      std::string part = c->id.backend + "/" + name + " at n = " + std::to_string(c->id.n);
      if (c->headroom) {
        const std::string term = c->bound->dominant();
        part += " runs at " + times(*c->headroom) + " its bound; the " + (term == "update" ? "updates" : term + "s") +
                " are " + percent(c->bound->share(term)) + " of the bound";
        if (!c->bound_leaves_out.empty()) part += " (" + c->bound_leaves_out + ")";
      } else if (c->pct_of_peak) {
        part += " runs at " + percent(*c->pct_of_peak / 100) + " of peak";
      } else {
        continue;
      }
      if (c->pct_of_gemm) part += " (" + percent(*c->pct_of_gemm / 100) + " of " + c->gemm_row + ")";
      parts.push_back(part);
    }
    if (!parts.empty()) lines.push_back("Ceilings, " + name + ": " + join(parts, "; ") + ".");
  }
  if (!report.probes && !largest.empty())
    lines.push_back(
        "No bound from this run's own pieces: it timed no probes; --ceilings=on times them "
        "(docs/ceilings.md).");
  return lines;
}

}  // namespace solvebench::bench
