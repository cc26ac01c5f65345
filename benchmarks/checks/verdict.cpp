// The verdict's computation: one pass over a finished run's rows, by their ids.
#include "checks/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "checks/operation.hpp"
#include "checks/text.hpp"
#include "checks/thresholds.hpp"
#include "checks/verdict_detail.hpp"

namespace solvebench::bench {
namespace {

using namespace verdict_detail;

const char* const energy_key = "J/solve";
const char* const gflop_per_j_key = "GFLOP/J";
const char* const machine_keys[] = {"gpu_name", "host_name", "blas_vendor", "blas_version", "gpu_rows", "cpu_energy"};
// Axes that say how a mixed-precision row solves, not which matrix it solves.
bool method_axis(const std::string& k) { return k == "refine" || k == "api" || k == "tol"; }

long long round_half_up(double x) { return static_cast<long long>(std::floor(x + 0.5)); }

// The matrix a row solves: its axes that are not method axes ("kind:diagdom", "cond:1e4").
std::string matrix_of(const row_id& id) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : id.axes)
    if (!method_axis(k)) parts.push_back(v.empty() ? k : k + ":" + v);
  return join(parts, "/");
}

std::optional<solve_verdict> solve_entry(const operation& operation, char precision,
                                         const std::vector<const row_record*>& rows, const audit_index& audit,
                                         const library_names& names) {
  const std::string op = operation.name;
  std::vector<const row_record*> cpu_rows, gpu_rows;
  std::set<long long> cpu_nrhs, gpu_nrhs;
  for (const auto* r : rows) {
    if (r->id.op != op || r->id.precision != precision || !plain_solve(r->id)) continue;
    if (cpu_side(r->id)) {
      cpu_rows.push_back(r);
      cpu_nrhs.insert(*r->id.nrhs);
    } else if (gpu_side(r->id)) {
      gpu_rows.push_back(r);
      gpu_nrhs.insert(*r->id.nrhs);
    }
  }
  std::optional<long long> nrhs;
  for (auto k : cpu_nrhs)
    if (gpu_nrhs.count(k)) {
      nrhs = k;  // the smallest both sides have
      break;
    }
  if (!nrhs) return std::nullopt;

  // (placement, n) -> the GPU's row, the first wins.
  std::map<std::pair<row_placement, long long>, const row_record*> by;
  std::set<std::string> used;
  for (const auto* r : gpu_rows)
    if (*r->id.nrhs == *nrhs && by.emplace(std::make_pair(r->id.placement, r->id.n), r).second) used.insert(r->name);
  const auto row_at = [&](row_placement placement, long long n) -> const row_record* {
    const auto it = by.find({placement, n});
    return it == by.end() ? nullptr : it->second;
  };
  std::map<long long, const row_record*> best;  // n -> the fastest CPU row
  const bool several_libraries = libraries_of(cpu_rows).size() > 1;
  solve_verdict e;
  e.op = std::string(1, precision) + op;
  e.operation = op;
  e.precision = precision;
  e.nrhs = *nrhs;
  for (const auto* r : cpu_rows)
    if (*r->id.nrhs == *nrhs) used.insert(r->name);
  for (const auto& [n, at] : cpu_best_at(cpu_rows, *nrhs, names)) {
    best[n] = at.first;
    e.cpu_best.push_back(at.second);
  }
  for (const row_placement placement : {row_placement::resident, row_placement::pinned, row_placement::pageable}) {
    gpu_form form;
    form.placement = text_of(placement);
    for (const auto& [key, r] : by) {
      if (key.first != placement || !best.count(key.second)) continue;
      form.backend = r->id.backend;
      const row_record* cpu = best[key.second];
      form.points.push_back({key.second, cpu->median_ms(), r->median_ms(), cpu->median_ms() / r->median_ms(),
                             combined_noise(*cpu, *r), cpu->name, r->name});
    }
    if (form.points.empty()) continue;
    form.cross = *find_crossover(form.points);
    e.forms.push_back(std::move(form));
  }
  // Rows of the same operation spread over devices or ranks (MGPU, MPI), one form per backend and axes.
  std::map<std::string, gpu_form> others;
  for (const auto* r : rows) {
    const row_id& id = r->id;
    if (id.role != row_role::spread || id.op != op || id.precision != precision || id.mixed() || id.batched() ||
        id.nrhs != nrhs || !best.count(id.n))
      continue;
    std::string label = id.backend;
    for (const auto& [k, v] : id.axes) label += " " + k + ":" + v;
    gpu_form& f = others[label];
    f.backend = label;
    f.placement = text_of(id.placement);
    const row_record* cpu = best[id.n];
    f.points.push_back({id.n, cpu->median_ms(), r->median_ms(), cpu->median_ms() / r->median_ms(),
                        combined_noise(*cpu, *r), cpu->name, r->name});
    used.insert(r->name);
  }
  for (auto& [label, f] : others) {
    std::sort(f.points.begin(), f.points.end(), [](const auto& a, const auto& b) { return a.n < b.n; });
    f.cross = *find_crossover(f.points);
    e.others.push_back(std::move(f));
  }
  if (!e.forms.empty() && e.forms.front().placement == text_of(row_placement::resident)) {
    const auto& last = e.forms.front().points.back();
    const row_record* cpu_row = best[last.n];
    const row_record* gpu_row = row_at(row_placement::resident, last.n);
    e.largest = largest_n_result{last.n,
                                 last.cpu_ms,
                                 cpu_row->id.backend,
                                 several_libraries ? cpu_row->id.library : std::string(),
                                 several_libraries ? names.at(cpu_row->id.library) : std::string(),
                                 last.gpu_ms,
                                 last.speedup,
                                 last.noise_pct};
    const auto cpu_j = finite_counter(*cpu_row, energy_key), gpu_j = finite_counter(*gpu_row, energy_key);
    if (!cpu_j || *cpu_j <= 0) e.energy_missing.push_back(row_device::cpu);
    if (!gpu_j || *gpu_j <= 0) e.energy_missing.push_back(row_device::gpu);
    if (e.energy_missing.empty())
      e.energy = energy_result{last.n,
                               *cpu_j,
                               *gpu_j,
                               *cpu_j / *gpu_j,
                               finite_counter(*cpu_row, gflop_per_j_key),
                               finite_counter(*gpu_row, gflop_per_j_key)};
  }
  e.caveats = audit.attached(used);
  return e;
}

// ------------------------------------------------------------------ mixed precision

using cell_key = std::tuple<row_device, std::string, long long, long long>;  // device, matrix, nrhs, n

cell_key key_of(const row_id& id) { return {id.device, matrix_of(id), id.nrhs.value_or(1), id.n}; }

// The fp64 answer a mixed-precision row is held against: dgesv's halves on its device, by the
// CPU's reference or an accelerator's candidate (not a spread).
bool is_reference(const row_id& id) {
  return id.op == ops::gesv.name && id.precision == 'd' && !id.mixed() && !id.batched() &&
         id.path == row_path::halves && id.nrhs && !id.axis("refine") && id.role != row_role::spread;
}

std::vector<mixed_cell> mixed_map(const run_summary& run) {
  std::map<cell_key, const row_record*> refs;
  std::map<cell_key, std::vector<const row_record*>> methods;
  for (const auto& r : run.rows) {
    if (!r.id.nrhs || r.id.batched()) continue;
    if (r.id.mixed() && r.id.precision == 'd') methods[key_of(r.id)].push_back(&r);
    else if (is_reference(r.id) && !matrix_of(r.id).empty()) refs.emplace(key_of(r.id), &r);
  }
  std::vector<mixed_cell> out;
  for (const auto& [key, rows] : methods) {
    mixed_cell c;
    c.backend = rows.front()->id.backend;
    c.role = rows.front()->id.role;
    std::tie(std::ignore, c.matrix, c.nrhs, c.n) = key;
    const auto ref_it = refs.find(key);
    const row_record* ref = ref_it == refs.end() ? nullptr : ref_it->second;
    if (ref) {
      c.reference = ref->name;
      if (ref->passed()) c.dgesv_ms = ref->median_ms();
      else c.reference_error = ref->error.empty() ? "resid at or above the HPL limit" : ref->error;
    }
    for (const auto* r : rows) {
      mixed_method m;
      m.row = r->name;
      m.op = r->id.op_name();
      m.refine = r->id.axis("refine").value_or("");
      if (r->ok()) m.ms = r->median_ms();
      if (m.ms && c.dgesv_ms) m.speedup = *c.dgesv_ms / *m.ms;
      m.accurate = is_fp64_accurate(*r, c.dgesv_ms ? ref : nullptr, &m.why_not);
      m.niters = finite_counter(*r, "niters");
      m.outer_iters = finite_counter(*r, "outer_iters");
      m.fell_back = finite_counter(*r, "fell_back");
      c.methods.push_back(std::move(m));
    }
    for (std::size_t i = 0; i < c.methods.size(); ++i) {
      const auto& m = c.methods[i];
      if (m.accurate && m.speedup && *m.speedup > 1 && (!c.winner || *m.speedup > *c.methods[*c.winner].speedup))
        c.winner = i;
    }
    if (c.dgesv_ms) c.speedup = c.winner ? *c.methods[*c.winner].speedup : 1.0;
    out.push_back(std::move(c));
  }
  return out;
}

// The summary: per GPU matrix, the fastest fp64-accurate solve at its largest n.
std::vector<mixed_verdict> mixed_entries(const std::vector<mixed_cell>& cells, const audit_index& audit) {
  std::map<std::pair<std::string, long long>, const mixed_cell*> largest;
  for (const auto& c : cells) {
    if (c.role != row_role::candidate) continue;
    auto& slot = largest[{c.matrix, c.nrhs}];
    if (!slot || c.n > slot->n) slot = &c;
  }
  std::vector<mixed_verdict> out;
  for (const auto& [key, c] : largest) {
    mixed_verdict m;
    m.matrix = c->matrix;
    m.nrhs = c->nrhs;
    m.n = c->n;
    m.dgesv_ms = c->dgesv_ms;
    std::set<std::string> used;
    if (!c->reference.empty()) used.insert(c->reference);
    for (const auto& method : c->methods) {
      used.insert(method.row);
      if (!method.accurate && method.ms) m.rejected.push_back(method.row);  // ran, but not fp64-accurate
    }
    const mixed_method* best = nullptr;
    for (const auto& method : c->methods)
      if (method.accurate && method.ms && (!best || *method.ms < *best->ms)) best = &method;
    if (c->dgesv_ms && (!best || *c->dgesv_ms <= *best->ms)) {
      m.best = c->reference;
      m.op = "dgesv";
      m.ms = c->dgesv_ms;
      m.speedup = 1.0;
    } else if (best) {
      m.best = best->row;
      m.op = best->op;
      if (!best->refine.empty()) m.refine = best->refine;
      m.ms = best->ms;
      m.speedup = best->speedup;
      m.niters = best->niters;
      m.fell_back = best->fell_back;
    }
    m.caveats = audit.attached(used);
    out.push_back(std::move(m));
  }
  return out;
}

std::optional<fp64_verdict> fp64_entry(const std::vector<const row_record*>& rows, const std::vector<mixed_cell>& cells,
                                       const audit_index& audit) {
  std::map<long long, const row_record*> dgemm, sgemm;
  for (const auto* r : rows) {
    const row_id& id = r->id;
    if (id.role != row_role::candidate || id.op != ops::gemm.name || !id.axes.empty() ||
        (id.precision != 'd' && id.precision != 's'))
      continue;
    const auto rate = finite_counter(*r, "GFLOP/s");
    if (rate && *rate > 0) (id.precision == 'd' ? dgemm : sgemm).emplace(id.n, r);
  }
  std::optional<long long> n;
  for (const auto& [size, r] : dgemm)
    if (sgemm.count(size)) n = size;  // the largest both have
  if (!n) return std::nullopt;
  fp64_verdict f;
  f.n = *n;
  f.dgemm_gflops = *finite_counter(*dgemm[*n], "GFLOP/s");
  f.sgemm_gflops = *finite_counter(*sgemm[*n], "GFLOP/s");
  f.ratio = f.dgemm_gflops / f.sgemm_gflops;
  f.one_in = round_half_up(1.0 / f.ratio);
  std::set<std::string> used = {dgemm[*n]->name, sgemm[*n]->name};
  dsgesv_speedup ds;
  std::vector<double> speedups;
  for (const auto& c : cells)
    for (const auto& m : c.methods)
      if (c.role == row_role::candidate && m.op == "dsgesv" && m.accurate && m.speedup) ds.n = std::max(ds.n, c.n);
  for (const auto& c : cells)
    for (const auto& m : c.methods)
      if (c.role == row_role::candidate && m.op == "dsgesv" && m.accurate && m.speedup && c.n == ds.n) {
        speedups.push_back(*m.speedup);
        used.insert(m.row);
        used.insert(c.reference);
      }
  if (!speedups.empty()) {
    ds.min = *std::min_element(speedups.begin(), speedups.end());
    ds.max = *std::max_element(speedups.begin(), speedups.end());
    ds.count = static_cast<long long>(speedups.size());
    f.dsgesv = ds;
  }
  const bool first_class = f.ratio >= limits::first_class_fp64;
  f.klass = first_class ? "fp64-first-class" : "fp64-reduced";
  if (first_class) {
    f.advice = "fp64 solves run at full speed on this GPU";
  } else {
    f.advice = format(
        "fp64 runs at 1/%lld of fp32 on this GPU: put fp64 solves on the CPU or use mixed precision "
        "(dsgesv: fp32 factorization refined to fp64 accuracy)",
        f.one_in);
    if (f.dsgesv) {
      const std::string range = sig3(f.dsgesv->min) == sig3(f.dsgesv->max)
                                    ? times(f.dsgesv->min)
                                    : sig3(f.dsgesv->min) + "–" + times(f.dsgesv->max);
      f.advice += "; here GPU/dsgesv ran at " + range + " the speed of GPU/dgesv at n = " + std::to_string(f.dsgesv->n);
    }
  }
  f.caveats = audit.attached(used);
  return f;
}

std::vector<batched_verdict> batched_entries(const std::vector<const row_record*>& rows, const audit_index& audit) {
  // op name -> (role, batch, n) -> row
  std::map<std::string, std::map<std::tuple<row_role, long long, long long>, const row_record*>> by;
  for (const auto* r : rows) {
    const row_id& id = r->id;
    const auto batch = id.int_axis("batch");
    if (id.path != row_path::batched || !batch || id.axes.size() != 1) continue;
    by[id.op_name()].emplace(std::make_tuple(id.role, *batch, id.n), r);
  }
  constexpr row_role cpu = row_role::reference, gpu = row_role::candidate;
  std::vector<batched_verdict> out;
  for (const auto& [op, table] : by) {
    std::optional<long long> batch;
    for (const auto& [key, r] : table)
      if (std::get<0>(key) == cpu && table.count({gpu, std::get<1>(key), std::get<2>(key)}))
        batch = std::max(batch.value_or(std::get<1>(key)), std::get<1>(key));
    if (!batch) continue;
    batched_verdict b;
    b.op = op;
    b.batch = *batch;
    std::set<std::string> used;
    for (const auto& [key, row] : table) {
      if (std::get<0>(key) != cpu || std::get<1>(key) != *batch) continue;
      const auto other = table.find({gpu, *batch, std::get<2>(key)});
      if (other == table.end()) continue;
      const double cpu_ms = row->median_ms(), gpu_ms = other->second->median_ms();
      b.points.push_back({std::get<2>(key), cpu_ms, gpu_ms, cpu_ms / gpu_ms, combined_noise(*row, *other->second),
                          row->name, other->second->name});
      used.insert(row->name);
      used.insert(other->second->name);
    }
    b.best = b.worst = b.points.front();
    for (const auto& p : b.points) {
      if (p.speedup > b.best.speedup) b.best = p;
      if (p.speedup < b.worst.speedup) b.worst = p;
    }
    b.caveats = audit.attached(used);
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace

bool is_fp64_accurate(const row_record& mixed, const row_record* dgesv, std::string* why_not) {
  const auto no = [&](const std::string& why) {
    if (why_not) *why_not = why;
    return false;
  };
  if (mixed.id.axis("refine") == std::optional<std::string>("none")) return no("no refinement");
  if (!mixed.ok()) return no(mixed.skipped ? "skipped" : "failed");
  if (!mixed.passed()) return no("resid at or above " + sig3(limits::resid));
  const auto mine = mixed.counter("fwd_err");
  const auto theirs = dgesv ? dgesv->counter("fwd_err") : std::nullopt;
  if (mine && theirs) {
    const double limit = limits::fwd_err_slack * std::max(*theirs, limits::fwd_err_floor);
    if (!(*mine <= limit))
      return no("fwd_err " + plain(*mine) + " > " + sig3(limits::fwd_err_slack) + "× dgesv's " + plain(*theirs));
  }
  if (why_not) why_not->clear();
  return true;
}

std::optional<crossover> find_crossover(const std::vector<speedup_point>& points) {
  if (points.empty()) return std::nullopt;
  crossover c;
  const bool all_win = std::all_of(points.begin(), points.end(), [](const auto& p) { return p.speedup >= 1; });
  const bool all_lose = std::all_of(points.begin(), points.end(), [](const auto& p) { return p.speedup < 1; });
  if (all_win) {
    c.kind = "gpu_always";
    c.n = points.front().n;
  } else if (all_lose) {
    c.kind = "cpu_always";
    c.n = points.back().n;
  } else if (points.back().speedup < 1) {
    c.kind = "mixed";
    for (const auto& p : points)
      if (p.speedup >= 1) c.gpu_wins_at.push_back(p.n);
    c.n = c.gpu_wins_at.back();
  } else {
    std::size_t i = 0;
    for (std::size_t j = 0; j < points.size(); ++j)
      if (points[j].speedup < 1) i = j;
    const auto& a = points[i];
    const auto& b = points[i + 1];
    const double t = -std::log(a.speedup) / (std::log(b.speedup) - std::log(a.speedup));
    const double log_n = std::log(static_cast<double>(a.n)) +
                         (std::log(static_cast<double>(b.n)) - std::log(static_cast<double>(a.n))) * t;
    c.kind = "crossing";
    c.n = round_half_up(std::exp(log_n));
    c.interpolated = true;
    c.between = std::make_pair(a.n, b.n);
  }
  return c;
}

run_verdict make_verdict(const run_summary& run, const std::vector<finding>& findings) {
  run_verdict v;
  for (const char* key : machine_keys) {
    const std::string value = run.context_value(key);
    v.machine.emplace_back(key, value.empty() ? std::nullopt : std::optional<std::string>(value));
  }
  std::vector<const row_record*> rows;
  for (const auto& r : run.rows) {
    if (r.id.device == row_device::gpu) v.has_gpu_rows = true;
    if (r.passed()) {
      rows.push_back(&r);
      ++v.rows_passed;
    } else {
      ++v.rows_failed;
    }
  }
  const audit_index audit(findings);
  const library_names names = cpu_library_names(run);
  for (const operation* op : ops::solve_family)  // the drivers: what a user calls to solve
    if (op->is_driver())
      for (const char precision : {'d', 's', 'z', 'c'}) {
        if (auto e = solve_entry(*op, precision, rows, audit, names)) v.solves.push_back(std::move(*e));
        if (auto c = cpu_library_entry(*op, precision, rows, audit, names)) v.cpu_libraries.push_back(std::move(*c));
      }
  v.mixed_map = mixed_map(run);
  v.fp64_fp32 = fp64_entry(rows, v.mixed_map, audit);
  v.mixed = mixed_entries(v.mixed_map, audit);
  v.batched = batched_entries(rows, audit);
  v.ceilings = ceilings_of(run);
  v.caveats = audit.run_wide();
  v.cited = audit.cited(v);
  v.lines = verdict_lines(v);
  return v;
}

}  // namespace solvebench::bench
