// The audit's table of rules and what they share.
#include "checks/audit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "checks/audit_rules.hpp"
#include "checks/text.hpp"
#include "checks/thresholds.hpp"

namespace solvebench::bench {
namespace audit_detail {

namespace {
std::optional<double> number_in(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || !std::isfinite(v)) return std::nullopt;
  return v;
}
}  // namespace

std::optional<double> rule_input::number(const std::string& key) const { return number_in(context(key)); }

std::string rule_input::fact(const row_record& r, const std::string& key) const {
  const auto it = r.facts.find(key);
  return it != r.facts.end() && !it->second.empty() ? it->second : context(key);
}

std::optional<double> rule_input::fact_number(const row_record& r, const std::string& key) const {
  if (const auto c = r.counter(key)) return c;  // a number the row carries is one of its counters
  return number_in(fact(r, key));
}

std::vector<const row_record*> rule_input::cpu_rows() const {
  std::vector<const row_record*> out;
  for (const auto* r : rows)
    if (r->id.device == row_device::cpu) out.push_back(r);
  return out;
}

std::vector<std::pair<std::string, std::string>> other_axes(const row_id& id, const std::string& without) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& a : id.axes)
    if (a.first != without) out.push_back(a);
  std::sort(out.begin(), out.end());
  return out;
}

std::string load_met(const row_record& r) {
  const auto busy = r.counter("cpu_other_busy"), steal = r.counter("cpu_steal_pct"), wait = r.counter("cpu_wait_pct");
  std::vector<std::string> what;
  if (busy && *busy >= limits::other_busy_cores) what.push_back(sig3(*busy) + " cores busy");
  if (wait && *wait >= limits::cpu_wait_pct)
    what.push_back("a task waiting for a CPU " + sig3(*wait) + "% of the time");
  if (steal && *steal >= limits::steal_pct) what.push_back(sig3(*steal) + "% steal");
  return join(what, ", ");
}

std::string load_during(std::initializer_list<const row_record*> rows) {
  std::vector<std::string> parts;
  for (const auto* r : rows)
    if (const std::string what = load_met(*r); !what.empty()) parts.push_back(r->name + " (" + what + ")");
  if (parts.empty()) return "";
  return "Not judged: other processes loaded the host during " + join(parts, ", ") +
         ", and a load can open any gap between rows measured at different moments; rerun on a quiet machine.";
}

std::string count(std::size_t n, const std::string& what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

std::string row_list(const std::vector<row_id>& rows, std::size_t shown) {
  std::string out;
  for (std::size_t i = 0; i < rows.size() && i < shown; ++i) out += (i ? ", " : "") + rows[i].name();
  if (rows.size() > shown) out += " and " + std::to_string(rows.size() - shown) + " more";
  return out;
}

}  // namespace audit_detail

std::string finding_mark(std::size_t index) { return "†" + std::to_string(index + 1); }

bool audit_report::clean() const {
  return std::none_of(findings.begin(), findings.end(), [](const finding& f) { return f.severity != severity_note; });
}

namespace {
std::vector<audit_detail::rule> all_rules() {
  std::vector<audit_detail::rule> out;
  for (const auto* family : {&audit_detail::row_rules(), &audit_detail::machine_rules(), &audit_detail::gpu_rules(),
                             &audit_detail::scan_rules()})
    out.insert(out.end(), family->begin(), family->end());
  return out;
}
}  // namespace

std::vector<std::string> audit_rule_ids() {
  std::vector<std::string> ids;
  for (const auto& r : all_rules()) ids.emplace_back(r.id);
  return ids;
}

audit_report run_audit(const run_summary& run) {
  audit_detail::rule_input in{run, {}};
  audit_report report;
  for (const auto& r : run.rows) {
    if (r.ok()) in.rows.push_back(&r);
    else ++report.rows_failed;
  }
  report.rows_checked = in.rows.size();
  for (const auto& r : all_rules()) {
    if (auto why_not = r.check(in, report.findings)) report.rules_skipped.push_back({r.id, *why_not});
    else report.rules_checked.emplace_back(r.id);
  }
  // Worst first, so that a finding's number (its place) is also the order it is printed in.
  const auto rank = [](const finding& f) {
    return std::find(std::begin(severities), std::end(severities), f.severity) - std::begin(severities);
  };
  std::stable_sort(report.findings.begin(), report.findings.end(),
                   [&](const finding& a, const finding& b) { return rank(a) < rank(b); });
  return report;
}

}  // namespace solvebench::bench
