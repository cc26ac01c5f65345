// The verdict in sentences (console and Markdown share them) and as a Markdown page.
#include <algorithm>
#include <map>
#include <set>

#include "checks/render.hpp"
#include "checks/text.hpp"
#include "checks/verdict.hpp"

namespace solvebench::bench {
namespace {

std::string join_n(const std::vector<long long>& ns) {
  std::vector<std::string> parts;
  for (auto n : ns) parts.push_back(std::to_string(n));
  return join(parts, ", ");
}

std::string form_words(const gpu_form& f) {
  if (f.placement == text_of(row_placement::resident)) return f.backend;
  return std::string(device_name(row_device::gpu)) + " with " + f.placement + " transfers";
}

std::string crossover_phrase(const gpu_form& f) {
  const std::string who = form_words(f);
  const crossover& c = f.cross;
  if (c.kind == "gpu_always") return format("%s faster at every n measured (from n = %lld)", who.c_str(), c.n);
  if (c.kind == "cpu_always") return format("%s slower at every n measured (up to n = %lld)", who.c_str(), c.n);
  if (c.kind == "crossing")
    return format("%s faster from n ≈ %lld (interpolated between %lld and %lld)", who.c_str(), c.n, c.between->first,
                  c.between->second);
  return who + " faster only at n = " + join_n(c.gpu_wins_at) + ", slower above";
}

std::string who_wins(double speedup, std::optional<double> noise) {
  const std::string pm = noise ? " (±" + sig3(*noise) + "%)" : "";
  return speedup >= 1 ? "the GPU is " + times(speedup) + " faster" + pm
                      : "the CPU is " + times(1 / speedup) + " faster" + pm;
}

// " Caveat: driver_vs_halves (warning) †1, †2." after an entry's sentence; "" without caveats.
std::string citations(const std::vector<verdict_caveat>& cs, const std::string& label = " Caveat") {
  if (cs.empty()) return "";
  std::vector<std::string> parts;
  for (const auto& c : cs) parts.push_back(caveat_text(c));
  return label + (cs.size() == 1 ? ": " : "s: ") + join(parts, "; ") + ".";
}

std::optional<std::string> machine_value(const run_verdict& v, const std::string& key) {
  for (const auto& [k, value] : v.machine)
    if (k == key) return value;
  return std::nullopt;
}

// Energy per solve: a line per entry where both sides measured it; where a side did not, one
// line for the run, with the reason the run recorded (RAPL's, in the context), naming the entries.
void energy_lines(std::vector<std::string>& lines, const run_verdict& v) {
  std::map<std::vector<row_device>, std::vector<const solve_verdict*>> missing;  // sides -> entries
  for (const auto& e : v.solves) {
    if (e.energy) {
      const double ratio = e.energy->ratio;
      lines.push_back(format("%s energy at n = %lld: CPU %s J, GPU %s J per solve: the %s uses ", e.op.c_str(),
                             e.energy->n, sig3(e.energy->cpu_j).c_str(), sig3(e.energy->gpu_j).c_str(),
                             device_name(ratio >= 1 ? row_device::gpu : row_device::cpu)) +
                      times(ratio >= 1 ? ratio : 1 / ratio) + " less energy.");
    } else if (e.largest) {
      missing[e.energy_missing].push_back(&e);
    }
  }
  const auto cpu_reason = machine_value(v, "cpu_energy");
  for (const auto& [sides, entries] : missing) {
    std::vector<std::string> why;
    for (const auto side : sides) {
      const bool rapl = side == row_device::cpu && cpu_reason && cpu_reason->rfind("RAPL not readable", 0) == 0;
      why.push_back((sides.size() > 1 ? std::string(device_name(side)) + ": " : std::string()) +
                    (rapl ? *cpu_reason : "no J/solve counter on its rows"));
    }
    std::vector<std::string> ops;
    for (const auto* e : entries) ops.push_back(e->op);
    std::set<long long> ns;
    for (const auto* e : entries) ns.insert(e->largest->n);
    std::string where = join(ops, ", ");
    if (ns.size() == 1) where += " at n = " + std::to_string(*ns.begin());
    lines.push_back(
        "Energy per solve not measured on " +
        (sides.size() > 1 ? std::string("either side") : "the " + std::string(device_name(sides.front())) + " side") +
        " (" + join(why, "; ") + "): " + where + ".");
  }
}

// "dgesv (nrhs 1) on the CPU, libraries OpenBLAS 0.3.21 (linked), BLIS 0.9.0 (blis): BLIS 0.9.0
// (blis) is fastest at n = 256, 512 (at n = 512 CPU[blis]/... 12.1 ms, 1.25× faster than the
// runner-up OpenBLAS 0.3.21 (linked)'s 15.1 ms ±3%); OpenBLAS 0.3.21 (linked) at n = 64 (...)."
std::string cpu_library_line(const cpu_library_verdict& c) {
  std::vector<std::string> order;  // winners in the order they first win
  std::map<std::string, std::vector<long long>> wins;
  std::map<std::string, const cpu_best_point*> largest;  // each winner's largest n
  for (const auto& p : c.points) {
    if (!wins.count(p.library)) order.push_back(p.library);
    wins[p.library].push_back(p.n);
    largest[p.library] = &p;
  }
  std::vector<std::string> parts;
  for (const auto& library : order) {
    const cpu_best_point& p = *largest[library];
    const std::string pm = p.noise_pct ? " ±" + sig3(*p.noise_pct) + "%" : "";
    parts.push_back(p.library_name + (parts.empty() ? " is fastest" : "") + " at n = " + join_n(wins[library]) +
                    " (at n = " + std::to_string(p.n) + " " + p.row + " " + sig3(p.ms) + " ms, " +
                    times(*p.runner_up_ms / p.ms) + " faster than the runner-up " + *p.runner_up_name + "'s " +
                    sig3(*p.runner_up_ms) + " ms" + pm + ")");
  }
  return format("%s (nrhs %lld) on the CPU, libraries ", c.op.c_str(), c.nrhs) + join(c.library_names, ", ") + ": " +
         join(parts, "; ") + "." + citations(c.caveats);
}

}  // namespace

std::string caveat_text(const verdict_caveat& c) {
  std::vector<std::string> marks;
  for (const auto i : c.findings) marks.push_back(finding_mark(i));
  return c.rule + " (" + c.severity + ") " + join(marks, ", ");
}

std::vector<std::string> verdict_lines(const run_verdict& v) {
  std::vector<std::string> lines;
  if (v.rows_passed == 0) {
    lines.push_back("No row passed: nothing to judge.");
    return lines;
  }
  if (!v.has_gpu_rows) {
    const auto why = machine_value(v, "gpu_rows");
    lines.push_back("No GPU rows in this run" + (why ? " (gpu_rows: " + *why + ")" : std::string()) +
                    ": nothing to compare the CPU with.");
  } else if (v.solves.empty()) {
    lines.push_back("No solve ran on both the CPU and the GPU: no crossover to give.");
  }
  for (const auto& e : v.solves) {
    std::vector<std::string> phrases;
    for (const auto& f : e.forms) phrases.push_back(crossover_phrase(f));
    std::string text = format("%s (nrhs %lld): ", e.op.c_str(), e.nrhs) + join(phrases, "; ") + ".";
    if (e.largest) {
      const auto& big = *e.largest;
      const std::string cpu_row =
          big.cpu_library_name.empty() ? big.cpu_path : big.cpu_path + ", " + big.cpu_library_name;
      text += format(" At n = %lld: GPU %s ms, CPU %s ms (%s): ", big.n, sig3(big.gpu_ms).c_str(),
                     sig3(big.cpu_ms).c_str(), cpu_row.c_str()) +
              who_wins(big.speedup, big.noise_pct) + ".";
    }
    lines.push_back(text + citations(e.caveats));
  }
  for (const auto& c : v.cpu_libraries) lines.push_back(cpu_library_line(c));
  for (auto& line : ceiling_lines(v.ceilings)) lines.push_back(std::move(line));
  energy_lines(lines, v);
  if (v.fp64_fp32) {
    const auto& f = *v.fp64_fp32;
    lines.push_back(format("fp64:fp32 GEMM ratio %s (1/%lld) at n = %lld, GPU/dgemm %s vs GPU/sgemm %s GFLOP/s: ",
                           sig3(f.ratio).c_str(), f.one_in, f.n, sig3(f.dgemm_gflops).c_str(),
                           sig3(f.sgemm_gflops).c_str()) +
                    f.klass + "; advice: " + f.advice + "." + citations(f.caveats));
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
      text = label + ": GPU/dgesv itself is the fastest fp64-accurate solve (" + sig3(m.ms) + " ms)";
    } else {
      text = label + ": the fastest fp64-accurate solve is GPU/" + *m.op +
             (m.refine ? " (refine " + *m.refine + ")" : std::string()) + " at " + sig3(m.ms) + " ms";
      if (m.speedup) text += ", " + times(*m.speedup) + " the speed of GPU/dgesv";
      if (m.niters) text += ", " + whole(*m.niters) + " iterations";
      if (m.fell_back && *m.fell_back >= 1) text += ", fell back to fp64";
    }
    if (!m.rejected.empty())
      text += format("; %zu row%s not fp64-accurate", m.rejected.size(), m.rejected.size() == 1 ? "" : "s");
    lines.push_back(text + "." + citations(m.caveats));
  }
  for (const auto& b : v.batched) {
    std::string text = format("%s, batch %lld: GPU speedup ", b.op.c_str(), b.batch) + times(b.best.speedup) +
                       format(" at n = %lld (CPU %s ms, GPU %s ms)", b.best.n, sig3(b.best.cpu_ms).c_str(),
                              sig3(b.best.gpu_ms).c_str());
    if (b.worst.n != b.best.n)
      text += ", " + times(b.worst.speedup) +
              format(" at n = %lld (CPU %s ms, GPU %s ms)", b.worst.n, sig3(b.worst.cpu_ms).c_str(),
                     sig3(b.worst.gpu_ms).c_str());
    lines.push_back(text + "." + citations(b.caveats));
  }
  if (!v.caveats.empty()) lines.push_back(citations(v.caveats, "Run-wide caveat"));
  if (v.rows_failed > 0)
    lines.push_back(format("%zu row%s failed or %s skipped: the verdict above leaves them out.", v.rows_failed,
                           v.rows_failed == 1 ? "" : "s", v.rows_failed == 1 ? "was" : "were"));
  return lines;
}

// verdict.md: headings, a list, emphasis (what every Markdown renderer, the dashboard's included,
// shows as it is meant). The sentences once; each finding they cite once, under its number; a
// cause that several share once. The tables are tools/report's (table.md), from verdict.json.
std::string verdict_markdown(const run_verdict& v) {
  std::vector<std::string> out = {"# Verdict", ""};
  std::vector<std::string> facts;
  if (const auto gpu = machine_value(v, "gpu_name")) facts.push_back("GPU: " + *gpu);
  if (const auto host = machine_value(v, "host_name")) facts.push_back("host: " + *host);
  std::vector<std::string> blas;
  for (const char* key : {"blas_vendor", "blas_version"})
    if (const auto value = machine_value(v, key)) blas.push_back(*value);
  if (!blas.empty()) facts.push_back("BLAS: " + join(blas, " "));
  if (!facts.empty()) out.insert(out.end(), {join(facts, " · "), ""});
  for (const auto& line : v.lines) out.push_back("- " + line);
  out.insert(out.end(), {"", "## Caveats from the audit", ""});
  std::map<std::string, std::size_t> cause_said;  // cause -> the finding that said it
  for (const auto& c : v.cited) {
    out.push_back("- **" + finding_mark(c.index) + "** " + c.what.rule + " (" + c.what.severity +
                  "): " + c.what.message + cause_once(c.what, c.index, cause_said));
  }
  if (v.cited.empty()) out.push_back("No audit finding touches these numbers.");
  out.push_back("");
  return join(out, "\n");
}

}  // namespace solvebench::bench
