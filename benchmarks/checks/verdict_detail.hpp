// Private to the verdict (verdict.cpp, verdict_cpu.cpp): which rows are each side of a
// comparison, the audit's findings as the caveats of an entry, and the CPU's best row across its
// paths and libraries.
#pragma once

#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "checks/operation.hpp"
#include "checks/verdict.hpp"

namespace solvebench::bench::verdict_detail {

inline std::optional<double> finite_counter(const row_record& r, const std::string& key) {
  const auto v = r.counter(key);
  return v && std::isfinite(*v) ? v : std::nullopt;
}

// The speedup's ±: both rows' noise between runs (what a re-run would see), not their samples'.
inline std::optional<double> combined_noise(const row_record& a, const row_record& b) {
  if (!(a.noise_pct() || a.spread()) || !(b.noise_pct() || b.spread())) return std::nullopt;
  const double na = rerun_noise_pct(a), nb = rerun_noise_pct(b);
  return std::sqrt(na * na + nb * nb);
}

inline bool plain_solve(const row_id& id) {
  return !id.mixed() && !id.batched() && id.axes.empty() && id.nrhs.has_value();
}

// The CPU's side: every reference row that solves with one call or its two halves, whatever its
// library. An accelerator's side: a candidate's halves.
inline bool cpu_side(const row_id& id) {
  return id.role == row_role::reference && (id.path == row_path::halves || id.path == row_path::driver);
}
inline bool gpu_side(const row_id& id) { return id.role == row_role::candidate && id.path == row_path::halves; }

// The audit's findings as caveats: those that name a row an entry uses, once per rule and
// severity, cited by number; notes are never caveats.
class audit_index {
 public:
  explicit audit_index(const std::vector<finding>& findings) : findings_(findings) {}
  std::vector<verdict_caveat> attached(const std::set<std::string>& used) const {
    std::vector<verdict_caveat> out;
    for (std::size_t i = 0; i < findings_.size(); ++i) {
      const finding& f = findings_[i];
      if (f.severity == std::string(severity_note) || f.rows.empty()) continue;
      std::vector<std::string> hit;
      for (const auto& id : f.rows)
        if (used.count(id.name())) hit.push_back(id.name());
      if (!hit.empty()) add(out, i, hit);
    }
    return out;
  }
  std::vector<verdict_caveat> run_wide() const {
    std::vector<verdict_caveat> out;
    for (std::size_t i = 0; i < findings_.size(); ++i)
      if (findings_[i].rows.empty() && findings_[i].severity != std::string(severity_note)) add(out, i, {});
    return out;
  }
  // Every finding the caveats of `v` cite, in the audit's order.
  std::vector<cited_finding> cited(const run_verdict& v) const {
    std::set<std::size_t> indices;
    const auto take = [&](const std::vector<verdict_caveat>& cs) {
      for (const auto& c : cs) indices.insert(c.findings.begin(), c.findings.end());
    };
    for (const auto& e : v.solves) take(e.caveats);
    if (v.fp64_fp32) take(v.fp64_fp32->caveats);
    for (const auto& m : v.mixed) take(m.caveats);
    for (const auto& b : v.batched) take(b.caveats);
    take(v.caveats);
    std::vector<cited_finding> out;
    for (const auto i : indices) out.push_back({i, findings_[i]});
    return out;
  }

 private:
  void add(std::vector<verdict_caveat>& out, std::size_t index, const std::vector<std::string>& rows) const {
    const finding& f = findings_[index];
    const verdict_caveat key{f.rule, f.severity, {index}, rows};
    const auto it = std::find(out.begin(), out.end(), key);
    if (it == out.end()) {
      out.push_back(key);
      return;
    }
    it->findings.push_back(index);
    for (const auto& r : rows)
      if (std::find(it->rows.begin(), it->rows.end(), r) == it->rows.end()) it->rows.push_back(r);
  }
  const std::vector<finding>& findings_;
};

// The CPU libraries of a run as a user knows them, by their ids' library label: the vendor and
// version their rows' facts give (the run's context where a row has none) and which of the run's
// libraries it is (cpu_library: linked, blis, ...): "OpenBLAS 0.3.21 (linked)"; the label where
// no vendor is known.
using library_names = std::map<std::string, std::string>;
library_names cpu_library_names(const run_summary& run);

// The fastest CPU row at each n of (op, precision, nrhs), across paths and libraries, and the
// runner-up: the fastest row of another library. `rows` are plain solves of the CPU's side.
std::map<long long, std::pair<const row_record*, cpu_best_point>> cpu_best_at(
    const std::vector<const row_record*>& rows, long long nrhs, const library_names& names);
// The libraries of the CPU rows, in the run's order.
std::vector<std::string> libraries_of(const std::vector<const row_record*>& rows);
// Which CPU library solves (op, precision) fastest, where the run timed several.
std::optional<cpu_library_verdict> cpu_library_entry(const operation& operation, char precision,
                                                     const std::vector<const row_record*>& rows,
                                                     const audit_index& audit, const library_names& names);

}  // namespace solvebench::bench::verdict_detail
