// Console text and JSON of the audit and the verdict, and their sidecar files.
#include "checks/render.hpp"

#include <nlohmann/json.hpp>

#include <map>

#include "checks/operation.hpp"
#include "checks/output.hpp"
#include "checks/text.hpp"
#include "checks/thresholds.hpp"

namespace solvebench::bench {
namespace {

using json = nlohmann::ordered_json;
constexpr std::size_t console_width = 100;
constexpr std::size_t shown_per_rule = 3;

std::string count(std::size_t n, const std::string& what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

template <class T>
json optional_value(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}
json number(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }
json number(const std::optional<double>& x) { return x && std::isfinite(*x) ? json(*x) : json(nullptr); }

// A caveat cites its findings by number (audit.json's "number"); their messages are the audit's.
json caveats_json(const std::vector<verdict_caveat>& cs) {
  json out = json::array();
  for (const auto& c : cs) {
    json numbers = json::array();
    for (const auto i : c.findings) numbers.push_back(i + 1);
    out.push_back({{"rule", c.rule}, {"severity", c.severity}, {"findings", numbers}, {"rows", c.rows}});
  }
  return out;
}

json point_json(const speedup_point& p) {
  return {{"n", p.n},
          {"cpu_ms", number(p.cpu_ms)},
          {"gpu_ms", number(p.gpu_ms)},
          {"speedup", number(p.speedup)},
          {"noise_pct", number(p.noise_pct)},
          {"cpu_row", p.cpu_row},
          {"gpu_row", p.gpu_row}};
}

json points_json(const std::vector<speedup_point>& ps) {
  json out = json::array();
  for (const auto& p : ps) out.push_back(point_json(p));
  return out;
}

json crossover_json(const crossover& c) {
  json j = {{"kind", c.kind}, {"n", c.n}, {"interpolated", c.interpolated}};
  j["between"] = c.between ? json::array({c.between->first, c.between->second}) : json(nullptr);
  if (c.kind == "mixed") j["gpu_wins_at"] = c.gpu_wins_at;
  return j;
}

}  // namespace

std::string audit_console(const audit_report& report, const std::string& more_in) {
  std::map<std::string, std::size_t> by_severity;
  for (const auto& f : report.findings) ++by_severity[f.severity];
  std::string out = "audit: ";
  if (report.rows_checked == 0) {
    out += "nothing to check: no row finished (" + count(report.rows_failed, "row") + " failed or skipped)\n";
    return out;
  }
  const std::string scope = count(report.rules_checked.size(), "rule") + " on " + count(report.rows_checked, "row");
  if (report.clean()) {
    out += "clean (" + scope + ")";
    if (by_severity[severity_note]) out += "; " + count(by_severity[severity_note], "note");
  } else {
    std::vector<std::string> tally;
    if (by_severity[severity_timing_bug]) tally.push_back(count(by_severity[severity_timing_bug], "timing bug"));
    if (by_severity[severity_warning]) tally.push_back(count(by_severity[severity_warning], "warning"));
    if (by_severity[severity_note]) tally.push_back(count(by_severity[severity_note], "note"));
    out += join(tally, ", ") + " (" + scope + ")";
  }
  out += "\n";
  // Up to shown_per_rule findings of each rule and severity, each under its number; a cause
  // several share is said after the first, and referred to after the others.
  std::map<std::string, std::size_t> per_rule, shown, cause_said;
  std::map<std::string, std::vector<std::string>> hidden;
  std::vector<std::string> unsaid;  // causes only hidden findings carry
  for (const auto& f : report.findings) ++per_rule[f.rule + " " + f.severity];
  for (std::size_t i = 0; i < report.findings.size(); ++i) {
    const finding& f = report.findings[i];
    const std::string key = f.rule + " " + f.severity;
    if (++shown[key] > shown_per_rule) {
      hidden[key].push_back(finding_mark(i));
      if (!f.cause.empty() && cause_said.emplace(f.cause, i).second) unsaid.push_back(f.cause);
      if (hidden[key].size() < per_rule[key] - shown_per_rule) continue;
      const auto& marks = hidden[key];
      out += "  ... " + count(marks.size(), "more " + key) + " (" +
             (marks.size() <= 3 ? join(marks, ", ") : marks.front() + "–" + marks.back()) + ")" +
             (more_in.empty() ? "" : " in " + more_in) + "\n";
      for (const auto& cause : unsaid) out += wrap("      " + cause, console_width, "      ") + "\n";
      unsaid.clear();
      continue;
    }
    out +=
        wrap("  " + finding_mark(i) + " " + f.severity + " " + f.rule + ": " + f.message + cause_once(f, i, cause_said),
             console_width, "      ") +
        "\n";
  }
  for (const auto& s : report.rules_skipped)
    out += wrap("  not checked: " + s.rule + ": " + s.reason, console_width, "      ") + "\n";
  return out;
}

std::string cause_once(const finding& f, std::size_t index, std::map<std::string, std::size_t>& said) {
  if (f.cause.empty()) return "";
  const auto [it, first] = said.emplace(f.cause, index);
  return first ? " " + f.cause : " The same cause as " + finding_mark(it->second) + ".";
}

std::string verdict_console(const run_verdict& v) {
  std::string out = "verdict\n";
  for (const auto& line : v.lines) out += wrap("  " + line, console_width, "    ") + "\n";
  return out;
}

json thresholds_json() {
  json out = json::object();
  for (const auto& limit : limits::all) out[limit.name] = limit.value;
  return out;
}

json operations_json() {
  json out = json::object();
  for (const operation* op : ops::all) {
    const std::string key = std::string(op->name) + (op->batched ? "_batched" : "");
    json o = {{"op", op->name},       {"batched", op->batched},       {"factors", op->factors},
              {"solves", op->solves}, {"multiplies", op->multiplies}, {"has_rhs", op->has_rhs()},
              {"probe", op->probe},   {"halves", json::array()}};
    if (op->is_driver()) o["halves"] = {op->factor_half->name, op->solve_half->name};
    out[key] = o;
  }
  return out;
}

json audit_json(const audit_report& report) {
  json findings = json::array();
  for (const auto& f : report.findings) {
    json names = json::array(), ids = json::array();
    for (const auto& id : f.rows) {
      names.push_back(id.name());
      ids.push_back(to_json(id));
    }
    findings.push_back({{"number", findings.size() + 1},
                        {"rule", f.rule},
                        {"severity", f.severity},
                        {"rows", names},
                        {"ids", ids},
                        {"message", f.message},
                        {"cause", f.cause}});
  }
  json skipped = json::array();
  for (const auto& s : report.rules_skipped) skipped.push_back({{"rule", s.rule}, {"reason", s.reason}});
  return {{"clean", report.clean()},           {"rules_checked", report.rules_checked},
          {"rules_skipped", skipped},          {"rows_checked", report.rows_checked},
          {"rows_failed", report.rows_failed}, {"findings", findings},
          {"thresholds", thresholds_json()},   {"operations", operations_json()}};
}

namespace {
json device_names(const std::vector<row_device>& devices) {
  json out = json::array();
  for (const auto d : devices) out.push_back(device_name(d));
  return out;
}

json cpu_best_json(const cpu_best_point& p) {
  return {{"n", p.n},
          {"ms", number(p.ms)},
          {"path", p.path},
          {"library", p.library},
          {"library_name", p.library_name},
          {"row", p.row},
          {"runner_up_library", optional_value(p.runner_up_library)},
          {"runner_up_name", optional_value(p.runner_up_name)},
          {"runner_up_row", optional_value(p.runner_up_row)},
          {"runner_up_ms", number(p.runner_up_ms)},
          {"noise_pct", number(p.noise_pct)}};
}

}  // namespace

json ceiling_json(const row_ceiling& c) {
  json j = {{"row", c.row},
            {"id", to_json(c.id)},
            {"ms", number(c.ms)},
            {"GFLOPs", number(c.gflops)},
            {"peak_GFLOPs", number(c.peak_gflops)},
            {"pct_of_peak", number(c.pct_of_peak)},
            {"gemm_row", c.gemm_row.empty() ? json(nullptr) : json(c.gemm_row)},
            {"pct_of_gemm", number(c.pct_of_gemm)},
            {"headroom", number(c.headroom)},
            {"bound", nullptr}};
  if (c.bound)
    j["bound"] = {{"ms", number(c.bound->total_ms())},
                  {"update_ms", number(c.bound->update_ms)},
                  {"panel_ms", number(c.bound->panel_ms)},
                  {"transfer_ms", number(c.bound->transfer_ms)},
                  {"solve_ms", number(c.bound->solve_ms)},
                  {"serial_ms", number(c.bound->serial_total_ms())},
                  {"solve_row", c.solve_row.empty() ? json(nullptr) : json(c.solve_row)},
                  {"leaves_out", c.bound_leaves_out.empty() ? json(nullptr) : json(c.bound_leaves_out)},
                  {"dominant", c.bound->dominant()},
                  {"nb", c.nb},
                  {"probe_rows", c.probe_rows},
                  {"noise_pct", number(c.bound_noise_pct)}};
  else if (!c.no_bound.empty()) j["no_bound"] = c.no_bound;
  return j;
}

json verdict_json(const run_verdict& v) {
  json machine = json::object();
  for (const auto& [k, value] : v.machine) machine[k] = optional_value(value);
  json solves = json::array();
  for (const auto& e : v.solves) {
    json cpu_best = json::array(), forms = json::array(), others = json::array();
    for (const auto& p : e.cpu_best) cpu_best.push_back(cpu_best_json(p));
    for (const auto& f : e.forms)
      forms.push_back({{"backend", f.backend},
                       {"placement", f.placement},
                       {"points", points_json(f.points)},
                       {"crossover", crossover_json(f.cross)}});
    for (const auto& f : e.others)
      others.push_back({{"backend", f.backend},
                        {"placement", f.placement},
                        {"points", points_json(f.points)},
                        {"crossover", crossover_json(f.cross)}});
    json largest = nullptr, energy = nullptr;
    if (e.largest)
      largest = {{"n", e.largest->n},
                 {"cpu_ms", number(e.largest->cpu_ms)},
                 {"cpu_path", e.largest->cpu_path},
                 {"cpu_library", e.largest->cpu_library},
                 {"cpu_library_name", e.largest->cpu_library_name},
                 {"gpu_ms", number(e.largest->gpu_ms)},
                 {"speedup", number(e.largest->speedup)},
                 {"noise_pct", number(e.largest->noise_pct)}};
    if (e.energy)
      energy = {{"n", e.energy->n},
                {"cpu_J", number(e.energy->cpu_j)},
                {"gpu_J", number(e.energy->gpu_j)},
                {"ratio", number(e.energy->ratio)},
                {"cpu_GFLOP_per_J", number(e.energy->cpu_gflop_per_j)},
                {"gpu_GFLOP_per_J", number(e.energy->gpu_gflop_per_j)}};
    solves.push_back({{"op", e.op},
                      {"operation", e.operation},
                      {"precision", std::string(1, e.precision)},
                      {"nrhs", e.nrhs},
                      {"cpu_best", cpu_best},
                      {"forms", forms},
                      {"others", others},
                      {"largest", largest},
                      {"energy", energy},
                      {"energy_missing", device_names(e.energy_missing)},
                      {"caveats", caveats_json(e.caveats)}});
  }
  json cpu_libraries = json::array();
  for (const auto& c : v.cpu_libraries) {
    json points = json::array();
    for (const auto& p : c.points) points.push_back(cpu_best_json(p));
    cpu_libraries.push_back({{"op", c.op},
                             {"nrhs", c.nrhs},
                             {"libraries", c.libraries},
                             {"library_names", c.library_names},
                             {"points", points},
                             {"caveats", caveats_json(c.caveats)}});
  }
  json fp64 = nullptr;
  if (v.fp64_fp32) {
    const auto& f = *v.fp64_fp32;
    json ds = nullptr;
    if (f.dsgesv) ds = {{"n", f.dsgesv->n}, {"min", f.dsgesv->min}, {"max", f.dsgesv->max}, {"count", f.dsgesv->count}};
    fp64 = {{"n", f.n},
            {"dgemm_GFLOPs", number(f.dgemm_gflops)},
            {"sgemm_GFLOPs", number(f.sgemm_gflops)},
            {"ratio", number(f.ratio)},
            {"one_in", f.one_in},
            {"class", f.klass},
            {"advice", f.advice},
            {"dsgesv", ds},
            {"caveats", caveats_json(f.caveats)}};
  }
  json mixed = json::array();
  for (const auto& m : v.mixed)
    mixed.push_back({{"matrix", m.matrix},
                     {"nrhs", m.nrhs},
                     {"n", m.n},
                     {"best", optional_value(m.best)},
                     {"op", optional_value(m.op)},
                     {"refine", optional_value(m.refine)},
                     {"ms", number(m.ms)},
                     {"dgesv_ms", number(m.dgesv_ms)},
                     {"speedup", number(m.speedup)},
                     {"niters", number(m.niters)},
                     {"fell_back", number(m.fell_back)},
                     {"rejected", m.rejected},
                     {"caveats", caveats_json(m.caveats)}});
  json map = json::array();
  for (const auto& c : v.mixed_map) {
    json methods = json::array();
    for (const auto& m : c.methods)
      methods.push_back({{"row", m.row},
                         {"op", m.op},
                         {"refine", m.refine},
                         {"ms", number(m.ms)},
                         {"speedup", number(m.speedup)},
                         {"accurate", m.accurate},
                         {"why_not", m.why_not},
                         {"niters", number(m.niters)},
                         {"outer_iters", number(m.outer_iters)},
                         {"fell_back", number(m.fell_back)}});
    map.push_back({{"backend", c.backend},
                   {"matrix", c.matrix},
                   {"nrhs", c.nrhs},
                   {"n", c.n},
                   {"reference", c.reference},
                   {"dgesv_ms", number(c.dgesv_ms)},
                   {"reference_error", c.reference_error},
                   {"methods", methods},
                   {"winner", c.winner ? json(*c.winner) : json(nullptr)},
                   {"speedup", number(c.speedup)}});
  }
  json batched = json::array();
  for (const auto& b : v.batched)
    batched.push_back({{"op", b.op},
                       {"batch", b.batch},
                       {"points", points_json(b.points)},
                       {"best", point_json(b.best)},
                       {"worst", point_json(b.worst)},
                       {"caveats", caveats_json(b.caveats)}});
  json ceilings = json::array();
  for (const auto& c : v.ceilings.rows) ceilings.push_back(ceiling_json(c));
  return {{"machine", machine},
          {"has_gpu_rows", v.has_gpu_rows},
          {"rows_passed", v.rows_passed},
          {"rows_failed", v.rows_failed},
          {"solves", solves},
          {"cpu_libraries", cpu_libraries},
          {"fp64_fp32", fp64},
          {"mixed", mixed},
          {"mixed_map", map},
          {"batched", batched},
          {"ceilings", {{"probes", v.ceilings.probes}, {"rows", ceilings}}},
          {"caveats", caveats_json(v.caveats)},
          {"lines", v.lines},
          {"thresholds", thresholds_json()},
          {"operations", operations_json()}};
}

check_files check_files_for(const std::string& base) {
  return {base + ".audit.json", base + ".verdict.json", base + ".verdict.md"};
}

void write_check_files(const std::string& base, const audit_report& audit, const run_verdict& verdict) {
  const check_files files = check_files_for(base);
  write_file_atomically(files.audit, json_text(json{{"audit", audit_json(audit)}}, 1) + "\n");
  write_file_atomically(files.verdict_json, json_text(json{{"verdict", verdict_json(verdict)}}, 1) + "\n");
  write_file_atomically(files.verdict_markdown, verdict_markdown(verdict));
}

}  // namespace solvebench::bench
