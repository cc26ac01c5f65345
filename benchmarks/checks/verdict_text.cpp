// The verdict in sentences (console and Markdown share them) and as a Markdown page.
#include <algorithm>

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
  if (f.placement == "pinned") return "GPU with pinned transfers";
  if (f.placement == "pageable") return "GPU with pageable transfers";
  return f.backend;
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

void caveat_lines(std::vector<std::string>& lines, const std::string& label, const std::vector<verdict_caveat>& cs) {
  for (const auto& c : cs) lines.push_back(label + " " + caveat_text(c));
}

std::optional<std::string> machine_value(const run_verdict& v, const std::string& key) {
  for (const auto& [k, value] : v.machine)
    if (k == key) return value;
  return std::nullopt;
}

}  // namespace

std::string caveat_text(const verdict_caveat& c) {
  std::string out = "caveat (" + c.rule + ", " + c.severity + "): " + c.message;
  if (c.findings > 1)
    out += " (" + std::to_string(c.findings - 1) + " more " + c.rule + " finding" + (c.findings == 2 ? "" : "s") +
           " on these numbers)";
  return out;
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
      text += format(" At n = %lld: GPU %s ms, CPU %s ms (%s): ", big.n, sig3(big.gpu_ms).c_str(),
                     sig3(big.cpu_ms).c_str(), big.cpu_path.c_str()) +
              who_wins(big.speedup, big.noise_pct) + ".";
    }
    lines.push_back(text);
  }
  const bool any_largest =
      std::any_of(v.solves.begin(), v.solves.end(), [](const auto& e) { return e.largest.has_value(); });
  const bool no_energy = any_largest && std::all_of(v.solves.begin(), v.solves.end(), [](const auto& e) {
                           return !e.largest || e.energy_missing.size() == 2;
                         });
  if (no_energy) lines.push_back("Energy was not measured on either side (no J/solve counters).");
  for (const auto& e : v.solves) {
    if (e.energy) {
      const double ratio = e.energy->ratio;
      lines.push_back(format("%s energy at n = %lld: CPU %s J, GPU %s J per solve: the %s uses ", e.op.c_str(),
                             e.energy->n, sig3(e.energy->cpu_j).c_str(), sig3(e.energy->gpu_j).c_str(),
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
                           sig3(f.ratio).c_str(), f.one_in, f.n, sig3(f.dgemm_gflops).c_str(),
                           sig3(f.sgemm_gflops).c_str()) +
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
    lines.push_back(text + ".");
    caveat_lines(lines, "mixed " + (m.matrix.empty() ? std::string("default") : m.matrix), m.caveats);
  }
  for (const auto& b : v.batched) {
    std::string text = format("%s, batch %lld: GPU speedup ", b.op.c_str(), b.batch) + times(b.best.speedup) +
                       format(" at n = %lld (CPU %s ms, GPU %s ms)", b.best.n, sig3(b.best.cpu_ms).c_str(),
                              sig3(b.best.gpu_ms).c_str());
    if (b.worst.n != b.best.n)
      text += ", " + times(b.worst.speedup) +
              format(" at n = %lld (CPU %s ms, GPU %s ms)", b.worst.n, sig3(b.worst.cpu_ms).c_str(),
                     sig3(b.worst.gpu_ms).c_str());
    lines.push_back(text + ".");
    caveat_lines(lines, b.op, b.caveats);
  }
  for (const auto& c : v.caveats) lines.push_back("Run-wide " + caveat_text(c));
  if (v.rows_failed > 0)
    lines.push_back(format("%zu row%s failed or %s skipped: the verdict above leaves them out.", v.rows_failed,
                           v.rows_failed == 1 ? "" : "s", v.rows_failed == 1 ? "was" : "were"));
  return lines;
}

namespace {

std::string crossover_cell(const gpu_form* f) {
  if (f == nullptr) return "–";
  const crossover& c = f->cross;
  if (c.kind == "gpu_always") return format("≤ %lld", c.n);
  if (c.kind == "cpu_always") return format("never (to %lld)", c.n);
  if (c.kind == "crossing") return format("≈ %lld", c.n);
  return "only " + join_n(c.gpu_wins_at);
}

std::string point_cell(const speedup_point& p) {
  return times(p.speedup) +
         format(" at n = %lld (CPU %s ms, GPU %s ms)", p.n, sig3(p.cpu_ms).c_str(), sig3(p.gpu_ms).c_str());
}

}  // namespace

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
  out.push_back("");
  if (!v.solves.empty()) {
    out.insert(out.end(),
               {"## Solves: the GPU against the CPU's best path", "",
                "Speedup = the CPU's best ms (the faster of CPU and CPU-driver at each n) / GPU ms, ± the two rows' "
                "noise combined (95%). GPU: A and b on the device; GPU-pinned, GPU-pageable: transfers included. "
                "\"GPU from\": the n above which the GPU is faster, interpolated in log-log between measured sizes.",
                "",
                "| op | nrhs | GPU from | GPU-pinned from | GPU-pageable from | largest n | CPU ms (path) "
                "| GPU ms | speedup | energy CPU / GPU (J/solve) |",
                "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"});
    for (const auto& e : v.solves) {
      std::vector<std::string> cells = {e.op, std::to_string(e.nrhs)};
      for (const char* placement : {"resident", "pinned", "pageable"}) {
        const gpu_form* f = nullptr;
        for (const auto& form : e.forms)
          if (form.placement == placement) f = &form;
        cells.push_back(crossover_cell(f));
      }
      if (e.largest) {
        cells.insert(cells.end(), {std::to_string(e.largest->n),
                                   sig3(e.largest->cpu_ms) + " (" + e.largest->cpu_path + ")", sig3(e.largest->gpu_ms),
                                   times(e.largest->speedup) +
                                       (e.largest->noise_pct ? " ±" + sig3(*e.largest->noise_pct) + "%" : "")});
      } else {
        cells.insert(cells.end(), 4, "–");
      }
      if (e.energy) cells.push_back(sig3(e.energy->cpu_j) + " / " + sig3(e.energy->gpu_j));
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
                           sig3(f->dgemm_gflops).c_str(), sig3(f->sgemm_gflops).c_str(), f->n, sig3(f->ratio).c_str(),
                           f->one_in, f->klass.c_str()));
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
                    " | " + fastest + " | " + sig3(m.ms) + " | " + sig3(m.dgesv_ms) + " | " +
                    (m.speedup ? times(*m.speedup) : "–") + " | " + (m.niters ? whole(*m.niters) : "–") + " | " + fell +
                    " | " + std::to_string(m.rejected.size()) + " |");
    }
    out.push_back("");
  }
  if (!v.batched.empty()) {
    out.insert(out.end(),
               {"## Batched: many small systems", "", "| op | batch | largest GPU speedup | smallest GPU speedup |",
                "| --- | ---: | --- | --- |"});
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
      out.push_back("- **" + c.rule + "** (" + c.severity + ") on " + where + ": " + c.message +
                    (c.findings > 1 ? " (" + std::to_string(c.findings - 1) + " more)" : ""));
      any = true;
    }
  if (!any) out.push_back("No audit finding touches these numbers.");
  out.push_back("");
  return join(out, "\n");
}

}  // namespace solvebench::bench
