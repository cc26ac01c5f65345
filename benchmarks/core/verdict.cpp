// The verdict: one pass over a finished run's rows; tools/verdict.py is its twin, line for line.
#include "core/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include "solvebench/errors.hpp"

namespace solvebench::bench {
namespace {

// Axes that name how a mixed-precision row solves (n and nrhs aside), not which matrix it solves.
bool method_axis(const std::string& k) { return k == "n" || k == "nrhs" || k == "refine" || k == "api" || k == "tol"; }


constexpr double resid_limit = 16.0;             // the HPL pass mark
constexpr double first_class_ratio = 1.0 / 8.0;  // H100/H200/A100: 1/2 to 1/1; consumer cards: 1/32 to 1/64
constexpr double fwd_err_slack = 10.0;           // a mixed row may lose one digit against dgesv, no more
const char* const energy_key = "J/solve";
const char* const gflop_per_j_key = "GFLOP/J";
const char* const first_class_advice = "fp64 solves run at full speed on this GPU";
const std::vector<std::string> solve_ops = {"dgesv", "sgesv", "dposv", "sposv"};
const std::vector<std::string> gpu_forms = {"GPU", "GPU-pinned", "GPU-pageable"};
const std::vector<std::string> mixed_ops = {"dsgesv", "dxgesv", "dhgesv", "dbgesv"};
const std::vector<std::string> machine_keys = {"gpu_name", "host_name", "blas_vendor", "blas_version", "gpu_rows"};

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  char buf[512];
  const int len = std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  if (len < 0) return {};
  if (static_cast<std::size_t>(len) < sizeof buf) return std::string(buf, static_cast<std::size_t>(len));
  std::string out(static_cast<std::size_t>(len) + 1, '\0');
  va_start(args, fmt);
  std::vsnprintf(out.data(), out.size(), fmt, args);
  va_end(args);
  out.pop_back();
  return out;
}

// Three significant digits without exponents (1235, 12.3, 0.0123), as verdict.py's fmt_sig.
std::string fmt_sig(std::optional<double> x) {
  if (!x || !std::isfinite(*x)) return "–";
  if (*x == 0) return "0";
  const int decimals = std::max(0, 2 - static_cast<int>(std::floor(std::log10(std::fabs(*x)))));
  return format("%.*f", decimals, *x);
}

std::string times(double x) { return fmt_sig(x) + "×"; }

long long round_half_up(double x) { return static_cast<long long>(std::floor(x + 0.5)); }

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

std::string join_n(const std::vector<long long>& ns) {
  std::vector<std::string> parts;
  for (auto n : ns) parts.push_back(std::to_string(n));
  return join(parts, ", ");
}

// ------------------------------------------------------------------------------- rows

std::optional<double> finite_counter(const row_record& r, const std::string& key) {
  const auto v = r.counter(key);
  return v && std::isfinite(*v) ? v : std::nullopt;
}

// Timed to the end; its answer may still have failed the accuracy check.
bool ran(const row_record& r) { return r.ok() && r.median_ms() > 0; }

// Ran, and every repetition's resid passed (NaN fails), as sbjson.Row.ok.
bool passed(const row_record& r) {
  if (!ran(r)) return false;
  const auto it = r.counters.find("resid");
  if (it == r.counters.end()) return true;
  return std::all_of(it->second.begin(), it->second.end(), [](double v) { return v < resid_limit; });
}

// The axes are exactly `keys`, each once, each an integer.
bool has_exactly(const row_record& r, std::vector<std::string> keys) {
  std::vector<std::string> names;
  for (const auto& [k, v] : r.axes) names.push_back(k);
  std::sort(names.begin(), names.end());
  std::sort(keys.begin(), keys.end());
  if (names != keys) return false;
  return std::all_of(keys.begin(), keys.end(), [&](const std::string& k) { return r.int_axis(k).has_value(); });
}

std::string matrix_of(const row_record& r) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : r.axes)
    if (!method_axis(k)) parts.push_back(v.empty() ? k : k + ":" + v);
  return join(parts, "/");
}

class audit_index {
 public:
  explicit audit_index(const std::vector<finding>& findings) {
    for (const auto& f : findings) {
      entry e{{f.rule, f.severity, f.message}, {}};
      for (const auto& row : f.rows) e.rows.insert(parse_row_name(row).name);
      entries_.push_back(std::move(e));
    }
  }
  std::vector<verdict_caveat> attached(const std::set<std::string>& used) const {
    std::vector<verdict_caveat> out;
    for (const auto& e : entries_) {
      const bool touches =
          std::any_of(e.rows.begin(), e.rows.end(), [&](const std::string& r) { return used.count(r) > 0; });
      if (touches && std::find(out.begin(), out.end(), e.caveat) == out.end()) out.push_back(e.caveat);
    }
    return out;
  }
  std::vector<verdict_caveat> run_wide() const {
    std::vector<verdict_caveat> out;
    for (const auto& e : entries_)
      if (e.rows.empty() && std::find(out.begin(), out.end(), e.caveat) == out.end()) out.push_back(e.caveat);
    return out;
  }

 private:
  struct entry {
    verdict_caveat caveat;
    std::set<std::string> rows;
  };
  std::vector<entry> entries_;
};

// ------------------------------------------------------------------------------- the parts

std::optional<solve_verdict> solve_entry(const std::string& op, const std::vector<const row_record*>& rows,
                                         const audit_index& audit) {
  std::vector<const row_record*> mine;
  std::set<long long> cpu_nrhs, gpu_nrhs;
  for (const auto* r : rows) {
    if (r->op != op || !has_exactly(*r, {"n", "nrhs"})) continue;
    mine.push_back(r);
    if (r->backend == "CPU" || r->backend == "CPU-driver") cpu_nrhs.insert(*r->int_axis("nrhs"));
    if (contains(gpu_forms, r->backend)) gpu_nrhs.insert(*r->int_axis("nrhs"));
  }
  std::optional<long long> nrhs;
  for (auto k : cpu_nrhs)
    if (gpu_nrhs.count(k)) {
      nrhs = k;  // the smallest both sides have
      break;
    }
  if (!nrhs) return std::nullopt;

  std::map<std::pair<std::string, long long>, const row_record*> by;  // (backend, n): the first row wins
  std::set<std::string> used;
  for (const auto* r : mine)
    if (*r->int_axis("nrhs") == *nrhs && by.emplace(std::make_pair(r->backend, *r->int_axis("n")), r).second)
      used.insert(r->name);
  auto row_at = [&](const std::string& backend, long long n) -> const row_record* {
    const auto it = by.find({backend, n});
    return it == by.end() ? nullptr : it->second;
  };
  std::map<long long, const row_record*> best;  // n -> the CPU row used
  for (const auto& [key, r] : by) {
    if (key.first != "CPU" && key.first != "CPU-driver") continue;
    const long long n = key.second;
    const row_record* plain = row_at("CPU", n);
    const row_record* driver = row_at("CPU-driver", n);
    best[n] = plain == nullptr || (driver != nullptr && driver->median_ms() < plain->median_ms()) ? driver : plain;
  }

  solve_verdict e;
  e.op = op;
  e.nrhs = *nrhs;
  for (const auto& [n, r] : best) e.cpu_best.push_back({n, r->median_ms(), r->backend});
  for (const auto& backend : gpu_forms) {
    gpu_form form;
    form.backend = backend;
    for (const auto& [key, r] : by) {
      if (key.first != backend || !best.count(key.second)) continue;
      const double cpu_ms = best[key.second]->median_ms();
      form.points.push_back({key.second, cpu_ms, r->median_ms(), cpu_ms / r->median_ms()});
    }
    if (form.points.empty()) continue;
    form.cross = *find_crossover(form.points);
    e.forms.push_back(std::move(form));
  }
  for (const auto& form : e.forms) {
    if (form.backend != "GPU") continue;
    const auto& last = form.points.back();
    const row_record* cpu_row = best[last.n];
    const row_record* gpu_row = row_at("GPU", last.n);
    e.largest = largest_n_result{last.n, last.cpu_ms, cpu_row->backend, last.gpu_ms, last.speedup};
    const auto cpu_j = finite_counter(*cpu_row, energy_key);
    const auto gpu_j = finite_counter(*gpu_row, energy_key);
    if (!cpu_j || *cpu_j <= 0) e.energy_missing.push_back("CPU");
    if (!gpu_j || *gpu_j <= 0) e.energy_missing.push_back("GPU");
    if (e.energy_missing.empty())
      e.energy = energy_result{last.n, *cpu_j, *gpu_j, *cpu_j / *gpu_j, finite_counter(*cpu_row, gflop_per_j_key),
                               finite_counter(*gpu_row, gflop_per_j_key)};
  }
  e.caveats = audit.attached(used);
  return e;
}

using mixed_key = std::tuple<std::string, long long, long long>;  // matrix, nrhs, n

struct gpu_mixed_rows {
  std::vector<const row_record*> mixed;                // GPU/d{s,x,h,b}gesv rows that ran
  std::map<mixed_key, const row_record*> baseline;     // passed GPU/dgesv rows
};

mixed_key key_of(const row_record& r) { return {matrix_of(r), *r.int_axis("nrhs"), *r.int_axis("n")}; }

gpu_mixed_rows gpu_mixed(const run_summary& run) {
  gpu_mixed_rows out;
  for (const auto& r : run.rows) {
    if (r.backend != "GPU" || !r.int_axis("n") || !r.int_axis("nrhs") || !ran(r)) continue;
    if (contains(mixed_ops, r.op)) out.mixed.push_back(&r);
    else if (r.op == "dgesv" && !r.axis("refine") && passed(r)) out.baseline.emplace(key_of(r), &r);
  }
  return out;
}

std::string range_times(double lo, double hi) {
  return fmt_sig(lo) == fmt_sig(hi) ? times(lo) : fmt_sig(lo) + "–" + times(hi);
}

std::optional<fp64_verdict> fp64_entry(const run_summary& run, const std::vector<const row_record*>& rows,
                                       const audit_index& audit) {
  std::map<long long, const row_record*> dgemm, sgemm;
  for (const auto* r : rows) {
    if (r->backend != "GPU" || (r->op != "dgemm" && r->op != "sgemm") || !has_exactly(*r, {"n"})) continue;
    const auto rate = finite_counter(*r, "GFLOP/s");
    if (rate && *rate > 0) (r->op == "dgemm" ? dgemm : sgemm).emplace(*r->int_axis("n"), r);
  }
  std::optional<long long> n;
  for (const auto& [size, r] : dgemm)
    if (sgemm.count(size)) n = size;  // the largest both have
  if (!n) return std::nullopt;
  const row_record* d = dgemm[*n];
  const row_record* s = sgemm[*n];
  fp64_verdict f;
  f.n = *n;
  f.dgemm_gflops = *finite_counter(*d, "GFLOP/s");
  f.sgemm_gflops = *finite_counter(*s, "GFLOP/s");
  f.ratio = f.dgemm_gflops / f.sgemm_gflops;
  f.one_in = round_half_up(1.0 / f.ratio);
  std::set<std::string> used = {d->name, s->name};

  const auto mixed = gpu_mixed(run);
  std::vector<std::pair<const row_record*, const row_record*>> pairs;  // dsgesv, its dgesv
  for (const auto* r : mixed.mixed) {
    const auto base = mixed.baseline.find(key_of(*r));
    if (r->op == "dsgesv" && passed(*r) && base != mixed.baseline.end()) pairs.emplace_back(r, base->second);
  }
  if (!pairs.empty()) {
    dsgesv_speedup ds;
    for (const auto& [r, base] : pairs) ds.n = std::max(ds.n, *r->int_axis("n"));
    std::vector<double> speedups;
    for (const auto& [r, base] : pairs) {
      if (*r->int_axis("n") != ds.n) continue;
      speedups.push_back(base->median_ms() / r->median_ms());
      used.insert(r->name);
      used.insert(base->name);
    }
    ds.min = *std::min_element(speedups.begin(), speedups.end());
    ds.max = *std::max_element(speedups.begin(), speedups.end());
    ds.count = static_cast<long long>(speedups.size());
    f.dsgesv = ds;
  }
  const bool first_class = f.ratio >= first_class_ratio;
  f.klass = first_class ? "fp64-first-class" : "fp64-reduced";
  if (first_class) {
    f.advice = first_class_advice;
  } else {
    f.advice = format("fp64 runs at 1/%lld of fp32 on this GPU: put fp64 solves on the CPU or use mixed precision "
                      "(dsgesv: fp32 factorization refined to fp64 accuracy)",
                      f.one_in);
    if (f.dsgesv)
      f.advice += "; here GPU/dsgesv ran at " + range_times(f.dsgesv->min, f.dsgesv->max) +
                  " the speed of GPU/dgesv at n = " + std::to_string(f.dsgesv->n);
  }
  f.caveats = audit.attached(used);
  return f;
}

std::vector<mixed_verdict> mixed_entries(const run_summary& run, const audit_index& audit) {
  const auto rows = gpu_mixed(run);
  std::set<std::pair<std::string, long long>> keys;
  for (const auto* r : rows.mixed) keys.emplace(matrix_of(*r), *r->int_axis("nrhs"));
  std::vector<mixed_verdict> out;
  for (const auto& [matrix, nrhs] : keys) {
    long long n = 0;
    for (const auto* r : rows.mixed)
      if (matrix_of(*r) == matrix && *r->int_axis("nrhs") == nrhs) n = std::max(n, *r->int_axis("n"));
    const mixed_key key{matrix, nrhs, n};
    const auto base_it = rows.baseline.find(key);
    const row_record* base = base_it == rows.baseline.end() ? nullptr : base_it->second;
    const auto base_fwd = base ? finite_counter(*base, "fwd_err") : std::nullopt;
    mixed_verdict m;
    m.matrix = matrix;
    m.nrhs = nrhs;
    m.n = n;
    std::vector<const row_record*> candidates;
    std::set<std::string> used;
    if (base) {
      candidates.push_back(base);
      used.insert(base->name);
    }
    for (const auto* r : rows.mixed) {
      if (key_of(*r) != key) continue;
      used.insert(r->name);
      const auto fwd = finite_counter(*r, "fwd_err");
      const bool accurate = passed(*r) && r->axis("refine") != std::optional<std::string>("none") &&
                            !(base_fwd && fwd && *fwd > fwd_err_slack * *base_fwd);
      if (accurate) candidates.push_back(r);
      else m.rejected.push_back(r->name);
    }
    const row_record* best = nullptr;
    for (const auto* r : candidates)
      if (best == nullptr || r->median_ms() < best->median_ms()) best = r;
    if (best) {
      m.best = best->name;
      m.op = best->op;
      if (const auto refine = best->axis("refine")) m.refine = *refine;
      m.ms = best->median_ms();
      m.niters = finite_counter(*best, "niters");
      m.fell_back = finite_counter(*best, "fell_back");
    }
    if (base) m.dgesv_ms = base->median_ms();
    if (base && best) m.speedup = base->median_ms() / best->median_ms();
    m.caveats = audit.attached(used);
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<batched_verdict> batched_entries(const std::vector<const row_record*>& rows, const audit_index& audit) {
  // op -> (backend, batch, n) -> row
  std::map<std::string, std::map<std::tuple<std::string, long long, long long>, const row_record*>> by;
  for (const auto* r : rows) {
    const std::string suffix = "_batched";
    const bool batched = r->op.size() > suffix.size() &&
                         r->op.compare(r->op.size() - suffix.size(), suffix.size(), suffix) == 0;
    if (batched && (r->backend == "CPU" || r->backend == "GPU") && has_exactly(*r, {"n", "batch"}))
      by[r->op].emplace(std::make_tuple(r->backend, *r->int_axis("batch"), *r->int_axis("n")), r);
  }
  std::vector<batched_verdict> out;
  for (const auto& [op, table] : by) {
    std::optional<long long> batch;
    for (const auto& [key, r] : table)
      if (std::get<0>(key) == "CPU" && table.count({"GPU", std::get<1>(key), std::get<2>(key)}))
        batch = std::max(batch.value_or(std::get<1>(key)), std::get<1>(key));
    if (!batch) continue;
    batched_verdict b;
    b.op = op;
    b.batch = *batch;
    std::set<std::string> used;
    for (const auto& [key, cpu] : table) {
      if (std::get<0>(key) != "CPU" || std::get<1>(key) != *batch) continue;
      const auto gpu = table.find({"GPU", *batch, std::get<2>(key)});
      if (gpu == table.end()) continue;
      const double cpu_ms = cpu->median_ms(), gpu_ms = gpu->second->median_ms();
      b.points.push_back({std::get<2>(key), cpu_ms, gpu_ms, cpu_ms / gpu_ms});
      used.insert(cpu->name);
      used.insert(gpu->second->name);
    }
    b.best = b.worst = b.points.front();
    for (std::size_t i = 1; i < b.points.size(); ++i) {
      if (b.points[i].speedup > b.best.speedup) b.best = b.points[i];
      if (b.points[i].speedup < b.worst.speedup) b.worst = b.points[i];
    }
    b.caveats = audit.attached(used);
    out.push_back(std::move(b));
  }
  return out;
}

// ------------------------------------------------------------------------------- sentences

std::string form_words(const std::string& backend) {
  if (backend == "GPU-pinned") return "GPU with pinned transfers";
  if (backend == "GPU-pageable") return "GPU with pageable transfers";
  return backend;
}

std::string crossover_phrase(const std::string& backend, const crossover& c) {
  const std::string who = form_words(backend);
  if (c.kind == "gpu_always") return format("%s faster at every n measured (from n = %lld)", who.c_str(), c.n);
  if (c.kind == "cpu_always") return format("%s slower at every n measured (up to n = %lld)", who.c_str(), c.n);
  if (c.kind == "crossing")
    return format("%s faster from n ≈ %lld (interpolated between %lld and %lld)", who.c_str(), c.n, c.between->first,
                  c.between->second);
  return who + " faster only at n = " + join_n(c.gpu_wins_at) + ", slower above";
}

std::string who_wins(double speedup) {
  return speedup >= 1 ? "the GPU is " + times(speedup) + " faster" : "the CPU is " + times(1 / speedup) + " faster";
}

void caveat_lines(std::vector<std::string>& lines, const std::string& label, const std::vector<verdict_caveat>& cs) {
  for (const auto& c : cs) lines.push_back(label + " caveat (" + c.rule + "): " + c.message);
}

std::optional<std::string> machine_value(const run_verdict& v, const std::string& key) {
  for (const auto& [k, value] : v.machine)
    if (k == key) return value;
  return std::nullopt;
}

std::string g_format(double x) { return format("%g", x); }

std::vector<std::string> make_lines(const run_verdict& v) {
  std::vector<std::string> lines;
  if (!v.has_gpu_rows) {
    const auto why = machine_value(v, "gpu_rows");
    lines.push_back("No GPU rows in this run" + (why ? " (gpu_rows: " + *why + ")" : std::string()) +
                    ": nothing to compare the CPU with.");
  } else if (v.solves.empty()) {
    lines.push_back("No solve ran on both the CPU and the GPU: no crossover to give.");
  }
  for (const auto& e : v.solves) {
    std::vector<std::string> phrases;
    for (const auto& f : e.forms) phrases.push_back(crossover_phrase(f.backend, f.cross));
    std::string text = format("%s (nrhs %lld): ", e.op.c_str(), e.nrhs) + join(phrases, "; ") + ".";
    if (e.largest) {
      const auto& big = *e.largest;
      text += format(" At n = %lld: GPU %s ms, CPU %s ms (%s): ", big.n, fmt_sig(big.gpu_ms).c_str(),
                     fmt_sig(big.cpu_ms).c_str(), big.cpu_path.c_str()) +
              who_wins(big.speedup) + ".";
    }
    lines.push_back(text);
  }
  bool no_energy = false;
  for (const auto& e : v.solves) {
    if (!e.largest) continue;
    if (e.energy_missing.size() != 2) {
      no_energy = false;
      break;
    }
    no_energy = true;
  }
  if (no_energy) lines.push_back("Energy was not measured on either side (no J/solve counters).");
  for (const auto& e : v.solves) {
    if (e.energy) {
      const double ratio = e.energy->ratio;
      lines.push_back(format("%s energy at n = %lld: CPU %s J, GPU %s J per solve: the %s uses ", e.op.c_str(),
                             e.energy->n, fmt_sig(e.energy->cpu_j).c_str(), fmt_sig(e.energy->gpu_j).c_str(),
                             ratio >= 1 ? "GPU" : "CPU") +
                      times(ratio >= 1 ? ratio : 1 / ratio) + " less energy.");
    } else if (e.largest && !no_energy) {
      const std::string side = e.energy_missing.size() == 2 ? "either" : "the " + e.energy_missing.front();
      lines.push_back(
          format("%s energy at n = %lld: not measured on %s side.", e.op.c_str(), e.largest->n, side.c_str()));
    }
    caveat_lines(lines, e.op, e.caveats);
  }
  if (v.fp64_fp32) {
    const auto& f = *v.fp64_fp32;
    lines.push_back(format("fp64:fp32 GEMM ratio %s (1/%lld) at n = %lld, GPU/dgemm %s vs GPU/sgemm %s GFLOP/s: ",
                           fmt_sig(f.ratio).c_str(), f.one_in, f.n, fmt_sig(f.dgemm_gflops).c_str(),
                           fmt_sig(f.sgemm_gflops).c_str()) +
                    f.klass + "; advice: " + f.advice + ".");
    caveat_lines(lines, "fp64:fp32", f.caveats);
  } else if (v.has_gpu_rows) {
    lines.push_back("fp64:fp32 GEMM ratio not measured (no GPU/dgemm and GPU/sgemm rows at a common n).");
  }
  for (const auto& m : v.mixed) {
    const std::string label =
        format("Mixed precision, %s at n = %lld", m.matrix.empty() ? "default matrix" : m.matrix.c_str(), m.n);
    std::string text;
    if (!m.best) {
      text = label + ": no fp64-accurate row";
    } else if (*m.op == "dgesv") {
      text = label + ": GPU/dgesv itself is the fastest fp64-accurate solve (" + fmt_sig(m.ms) + " ms)";
    } else {
      text = label + ": the fastest fp64-accurate solve is GPU/" + *m.op +
             (m.refine ? " (refine " + *m.refine + ")" : std::string()) + " at " + fmt_sig(m.ms) + " ms";
      if (m.speedup) text += ", " + times(*m.speedup) + " the speed of GPU/dgesv";
      if (m.niters) text += ", " + g_format(*m.niters) + " iterations";
      if (m.fell_back && *m.fell_back >= 1) text += ", fell back to fp64";
    }
    if (!m.rejected.empty())
      text += format("; %zu row%s not fp64-accurate", m.rejected.size(), m.rejected.size() == 1 ? "" : "s");
    lines.push_back(text + ".");
    caveat_lines(lines, "mixed " + (m.matrix.empty() ? std::string("default") : m.matrix), m.caveats);
  }
  for (const auto& b : v.batched) {
    std::string text = format("%s, batch %lld: GPU speedup ", b.op.c_str(), b.batch) + times(b.best.speedup) +
                       format(" at n = %lld (CPU %s ms, GPU %s ms)", b.best.n, fmt_sig(b.best.cpu_ms).c_str(),
                              fmt_sig(b.best.gpu_ms).c_str());
    if (b.worst.n != b.best.n)
      text += ", " + times(b.worst.speedup) +
              format(" at n = %lld (CPU %s ms, GPU %s ms)", b.worst.n, fmt_sig(b.worst.cpu_ms).c_str(),
                     fmt_sig(b.worst.gpu_ms).c_str());
    lines.push_back(text + ".");
    caveat_lines(lines, b.op, b.caveats);
  }
  for (const auto& c : v.caveats) lines.push_back("Caveat (" + c.rule + ", " + c.severity + "): " + c.message);
  return lines;
}

// ------------------------------------------------------------------------------- JSON

// A small writer: objects and arrays in order, numbers as JSON can hold them (NaN -> null).
class json_writer {
 public:
  json_writer& open(char c) {
    comma();
    out_ += c;
    first_ = true;
    return *this;
  }
  json_writer& close(char c) {
    out_ += c;
    first_ = false;
    return *this;
  }
  json_writer& key(const std::string& k) {
    comma();
    string(k);
    out_ += ": ";
    first_ = true;  // the value follows without a comma
    return *this;
  }
  json_writer& value(const std::string& s) {
    comma();
    string(s);
    return *this;
  }
  json_writer& value(const char* s) { return value(std::string(s)); }
  json_writer& value(double x) {
    comma();
    out_ += std::isfinite(x) ? format("%.17g", x) : "null";
    return *this;
  }
  json_writer& value(long long x) {
    comma();
    out_ += std::to_string(x);
    return *this;
  }
  json_writer& value(bool b) {
    comma();
    out_ += b ? "true" : "false";
    return *this;
  }
  json_writer& null() {
    comma();
    out_ += "null";
    return *this;
  }
  template <class T>
  json_writer& value(const std::optional<T>& x) {
    return x ? value(*x) : null();
  }
  template <class T>
  json_writer& field(const std::string& k, const T& x) {
    key(k);
    return value(x);
  }
  std::string str() const { return out_ + "\n"; }

 private:
  void comma() {
    if (!first_) out_ += ", ";
    first_ = false;
  }
  void string(const std::string& s) {
    out_ += '"';
    for (const char ch : s) {
      const auto c = static_cast<unsigned char>(ch);
      if (c == '"' || c == '\\') {
        out_ += '\\';
        out_ += ch;
      } else if (c == '\n') {
        out_ += "\\n";
      } else if (c < 0x20) {
        out_ += format("\\u%04x", c);
      } else {
        out_ += ch;  // UTF-8 passes through, as json.dumps(ensure_ascii=False)
      }
    }
    out_ += '"';
  }
  std::string out_;
  bool first_ = true;
};

void write_caveats(json_writer& w, const std::vector<verdict_caveat>& cs) {
  w.key("caveats").open('[');
  for (const auto& c : cs) {
    w.open('{').field("rule", c.rule).field("severity", c.severity).field("message", c.message).close('}');
  }
  w.close(']');
}

void write_point(json_writer& w, const speedup_point& p) {
  w.open('{').field("n", p.n).field("cpu_ms", p.cpu_ms).field("gpu_ms", p.gpu_ms).field("speedup", p.speedup).close('}');
}

void write_points(json_writer& w, const std::vector<speedup_point>& ps) {
  w.key("points").open('[');
  for (const auto& p : ps) write_point(w, p);
  w.close(']');
}

void write_crossover(json_writer& w, const crossover& c) {
  w.key("crossover").open('{').field("kind", c.kind).field("n", c.n).field("interpolated", c.interpolated);
  w.key("between");
  if (c.between) w.open('[').value(c.between->first).value(c.between->second).close(']');
  else w.null();
  if (c.kind == "mixed") {
    w.key("gpu_wins_at").open('[');
    for (auto n : c.gpu_wins_at) w.value(n);
    w.close(']');
  }
  w.close('}');
}

void write_solve(json_writer& w, const solve_verdict& e) {
  w.open('{').field("op", e.op).field("nrhs", e.nrhs);
  w.key("cpu_best").open('[');
  for (const auto& p : e.cpu_best) w.open('{').field("n", p.n).field("ms", p.ms).field("path", p.path).close('}');
  w.close(']');
  w.key("forms").open('[');
  for (const auto& f : e.forms) {
    w.open('{').field("backend", f.backend);
    write_points(w, f.points);
    write_crossover(w, f.cross);
    w.close('}');
  }
  w.close(']');
  w.key("largest");
  if (e.largest)
    w.open('{')
        .field("n", e.largest->n)
        .field("cpu_ms", e.largest->cpu_ms)
        .field("cpu_path", e.largest->cpu_path)
        .field("gpu_ms", e.largest->gpu_ms)
        .field("speedup", e.largest->speedup)
        .close('}');
  else w.null();
  w.key("energy");
  if (e.energy)
    w.open('{')
        .field("n", e.energy->n)
        .field("cpu_J", e.energy->cpu_j)
        .field("gpu_J", e.energy->gpu_j)
        .field("ratio", e.energy->ratio)
        .field("cpu_GFLOP_per_J", e.energy->cpu_gflop_per_j)
        .field("gpu_GFLOP_per_J", e.energy->gpu_gflop_per_j)
        .close('}');
  else w.null();
  w.key("energy_missing").open('[');
  for (const auto& side : e.energy_missing) w.value(side);
  w.close(']');
  write_caveats(w, e.caveats);
  w.close('}');
}

void write_fp64(json_writer& w, const fp64_verdict& f) {
  w.open('{')
      .field("n", f.n)
      .field("dgemm_GFLOPs", f.dgemm_gflops)
      .field("sgemm_GFLOPs", f.sgemm_gflops)
      .field("ratio", f.ratio)
      .field("one_in", f.one_in)
      .field("class", f.klass)
      .field("advice", f.advice);
  w.key("dsgesv");
  if (f.dsgesv)
    w.open('{')
        .field("n", f.dsgesv->n)
        .field("min", f.dsgesv->min)
        .field("max", f.dsgesv->max)
        .field("count", f.dsgesv->count)
        .close('}');
  else w.null();
  write_caveats(w, f.caveats);
  w.close('}');
}

void write_mixed(json_writer& w, const mixed_verdict& m) {
  w.open('{')
      .field("matrix", m.matrix)
      .field("nrhs", m.nrhs)
      .field("n", m.n)
      .field("best", m.best)
      .field("op", m.op)
      .field("refine", m.refine)
      .field("ms", m.ms)
      .field("dgesv_ms", m.dgesv_ms)
      .field("speedup", m.speedup)
      .field("niters", m.niters)
      .field("fell_back", m.fell_back);
  w.key("rejected").open('[');
  for (const auto& r : m.rejected) w.value(r);
  w.close(']');
  write_caveats(w, m.caveats);
  w.close('}');
}

void write_batched(json_writer& w, const batched_verdict& b) {
  w.open('{').field("op", b.op).field("batch", b.batch);
  write_points(w, b.points);
  w.key("best");
  write_point(w, b.best);
  w.key("worst");
  write_point(w, b.worst);
  write_caveats(w, b.caveats);
  w.close('}');
}

// ------------------------------------------------------------------------------- Markdown

std::string crossover_cell(const crossover* c) {
  if (c == nullptr) return "–";
  if (c->kind == "gpu_always") return format("≤ %lld", c->n);
  if (c->kind == "cpu_always") return format("never (to %lld)", c->n);
  if (c->kind == "crossing") return format("≈ %lld", c->n);
  return "only " + join_n(c->gpu_wins_at);
}

std::string point_cell(const speedup_point& p) {
  return times(p.speedup) +
         format(" at n = %lld (CPU %s ms, GPU %s ms)", p.n, fmt_sig(p.cpu_ms).c_str(), fmt_sig(p.gpu_ms).c_str());
}

}  // namespace

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
  for (const auto& key : machine_keys) {
    const auto it = run.context.find(key);
    v.machine.emplace_back(key, it == run.context.end() || it->second.empty() ? std::nullopt
                                                                              : std::optional<std::string>(it->second));
  }
  std::vector<const row_record*> rows;
  for (const auto& r : run.rows) {
    if (r.backend.rfind("GPU", 0) == 0 || r.backend == "MGPU") v.has_gpu_rows = true;
    if (passed(r)) rows.push_back(&r);
  }
  const audit_index audit(findings);
  for (const auto& op : solve_ops)
    if (auto e = solve_entry(op, rows, audit)) v.solves.push_back(std::move(*e));
  v.fp64_fp32 = fp64_entry(run, rows, audit);
  v.mixed = mixed_entries(run, audit);
  v.batched = batched_entries(rows, audit);
  v.caveats = audit.run_wide();
  v.lines = make_lines(v);
  return v;
}

std::string verdict_json(const run_verdict& v) {
  json_writer w;
  w.open('{').key("verdict").open('{');
  w.key("machine").open('{');
  for (const auto& [k, value] : v.machine) w.field(k, value);
  w.close('}');
  w.field("has_gpu_rows", v.has_gpu_rows);
  w.key("solves").open('[');
  for (const auto& e : v.solves) write_solve(w, e);
  w.close(']');
  w.key("fp64_fp32");
  if (v.fp64_fp32) write_fp64(w, *v.fp64_fp32);
  else w.null();
  w.key("mixed").open('[');
  for (const auto& m : v.mixed) write_mixed(w, m);
  w.close(']');
  w.key("batched").open('[');
  for (const auto& b : v.batched) write_batched(w, b);
  w.close(']');
  write_caveats(w, v.caveats);
  w.key("lines").open('[');
  for (const auto& line : v.lines) w.value(line);
  w.close(']');
  w.close('}').close('}');
  return w.str();
}

std::string verdict_console(const run_verdict& v) {
  std::string out = "verdict\n";
  for (const auto& line : v.lines) out += "  " + line + "\n";
  return out;
}

std::string verdict_markdown(const run_verdict& v) {
  std::vector<std::string> out = {"# Verdict", ""};
  std::vector<std::string> facts;
  if (const auto gpu = machine_value(v, "gpu_name")) facts.push_back("GPU: " + *gpu);
  if (const auto host = machine_value(v, "host_name")) facts.push_back("host: " + *host);
  std::vector<std::string> blas;
  for (const char* key : {"blas_vendor", "blas_version"})
    if (const auto value = machine_value(v, key)) blas.push_back(*value);
  if (!blas.empty()) facts.push_back("BLAS: " + join(blas, " "));
  if (!facts.empty()) {
    out.push_back(join(facts, " · "));
    out.push_back("");
  }
  for (const auto& line : v.lines) out.push_back("- " + line);
  out.push_back("");
  if (!v.solves.empty()) {
    out.insert(out.end(),
               {"## Solves: the GPU against the CPU's best path", "",
                "Speedup = the CPU's best ms (the faster of CPU and CPU-driver at each n) / GPU ms. "
                "GPU: A and b on the device; GPU-pinned, GPU-pageable: transfers included. "
                "\"GPU from\": the n above which the GPU is faster, interpolated in log-log between measured sizes.",
                "",
                "| op | nrhs | GPU from | GPU-pinned from | GPU-pageable from | largest n | CPU ms (path) "
                "| GPU ms | speedup | energy CPU / GPU (J/solve) |",
                "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"});
    for (const auto& e : v.solves) {
      std::vector<std::string> cells = {e.op, std::to_string(e.nrhs)};
      for (const auto& backend : gpu_forms) {
        const crossover* c = nullptr;
        for (const auto& f : e.forms)
          if (f.backend == backend) c = &f.cross;
        cells.push_back(crossover_cell(c));
      }
      if (e.largest) {
        cells.insert(cells.end(), {std::to_string(e.largest->n),
                                   fmt_sig(e.largest->cpu_ms) + " (" + e.largest->cpu_path + ")",
                                   fmt_sig(e.largest->gpu_ms), times(e.largest->speedup)});
      } else {
        cells.insert(cells.end(), 4, "–");
      }
      if (e.energy) cells.push_back(fmt_sig(e.energy->cpu_j) + " / " + fmt_sig(e.energy->gpu_j));
      else if (e.largest) cells.push_back("not measured (" + join(e.energy_missing, ", ") + ")");
      else cells.push_back("–");
      out.push_back("| " + join(cells, " | ") + " |");
    }
    out.push_back("");
  }
  if (v.fp64_fp32 || v.has_gpu_rows) {
    out.insert(out.end(), {"## fp64 : fp32 on this GPU", ""});
    if (const auto& f = v.fp64_fp32) {
      out.push_back(format("GPU/dgemm %s GFLOP/s, GPU/sgemm %s GFLOP/s at n = %lld: ratio %s (1/%lld), **%s**.",
                           fmt_sig(f->dgemm_gflops).c_str(), fmt_sig(f->sgemm_gflops).c_str(), f->n,
                           fmt_sig(f->ratio).c_str(), f->one_in, f->klass.c_str()));
      out.insert(out.end(), {"", "Advice: " + f->advice + ".", ""});
    } else {
      out.insert(out.end(), {"Not measured: no GPU/dgemm and GPU/sgemm rows at a common n.", ""});
    }
  }
  if (!v.mixed.empty()) {
    out.insert(out.end(),
               {"## Mixed precision: the fastest fp64-accurate solve", "",
                "| matrix | n | fastest | ms | GPU/dgesv ms | speedup | niters | fell back | not fp64-accurate |",
                "| --- | ---: | --- | ---: | ---: | ---: | ---: | --- | ---: |"});
    for (const auto& m : v.mixed) {
      const std::string fastest = m.best ? *m.op + (m.refine ? " (" + *m.refine + ")" : std::string()) : "–";
      const std::string fell = !m.fell_back ? "–" : (*m.fell_back >= 1 ? "yes" : "no");
      out.push_back("| " + (m.matrix.empty() ? std::string("default") : m.matrix) + " | " + std::to_string(m.n) +
                    " | " + fastest + " | " + fmt_sig(m.ms) + " | " + fmt_sig(m.dgesv_ms) + " | " +
                    (m.speedup ? times(*m.speedup) : "–") + " | " + (m.niters ? g_format(*m.niters) : "–") + " | " +
                    fell + " | " + std::to_string(m.rejected.size()) + " |");
    }
    out.push_back("");
  }
  if (!v.batched.empty()) {
    out.insert(out.end(), {"## Batched: many small systems", "",
                           "| op | batch | largest GPU speedup | smallest GPU speedup |", "| --- | ---: | --- | --- |"});
    for (const auto& b : v.batched)
      out.push_back("| " + b.op + " | " + std::to_string(b.batch) + " | " + point_cell(b.best) + " | " +
                    point_cell(b.worst) + " |");
    out.push_back("");
  }
  std::vector<std::pair<std::string, const std::vector<verdict_caveat>*>> attached;
  for (const auto& e : v.solves) attached.emplace_back(e.op, &e.caveats);
  if (v.fp64_fp32) attached.emplace_back("fp64:fp32", &v.fp64_fp32->caveats);
  for (const auto& m : v.mixed) attached.emplace_back("mixed " + (m.matrix.empty() ? "default" : m.matrix), &m.caveats);
  for (const auto& b : v.batched) attached.emplace_back(b.op, &b.caveats);
  attached.emplace_back("the whole run", &v.caveats);
  out.insert(out.end(), {"## Caveats from the audit", ""});
  bool any = false;
  for (const auto& [where, caveats] : attached)
    for (const auto& c : *caveats) {
      out.push_back("- **" + c.rule + "** (" + c.severity + ") on " + where + ": " + c.message);
      any = true;
    }
  if (!any) out.push_back("No audit finding touches these numbers.");
  out.push_back("");
  return join(out, "\n");
}

verdict_paths verdict_paths_for(const std::string& benchmark_out) {
  std::string stem = benchmark_out;
  for (const std::string suffix : {".rows.jsonl", ".json", ".jsonl"})
    if (stem.size() >= suffix.size() && stem.compare(stem.size() - suffix.size(), suffix.size(), suffix) == 0) {
      stem.resize(stem.size() - suffix.size());
      break;
    }
  return {stem + ".verdict.json", stem + ".verdict.md"};
}

void write_verdict_files(const run_verdict& v, const std::string& benchmark_out) {
  const auto paths = verdict_paths_for(benchmark_out);
  for (const auto& [path, text] : {std::make_pair(paths.json, verdict_json(v)),
                                   std::make_pair(paths.markdown, verdict_markdown(v))}) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << text;
    f.close();
    if (!f) throw error("cannot write the verdict to " + path);
  }
}

}  // namespace solvebench::bench
