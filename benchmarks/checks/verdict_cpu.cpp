// The verdict's CPU side: the fastest reference row at each n whatever its library, and which
// CPU library solves fastest where a run timed several.
#include <algorithm>

#include "checks/verdict_detail.hpp"

namespace solvebench::bench::verdict_detail {

library_names cpu_library_names(const run_summary& run) {
  library_names out;
  for (const auto& r : run.rows) {
    if (r.id.role != row_role::reference || out.count(r.id.library)) continue;
    const auto fact = [&](const char* key) {
      const auto it = r.facts.find(key);
      return it != r.facts.end() && !it->second.empty() ? it->second : run.context_value(key);
    };
    const std::string vendor = fact("blas_vendor"), version = fact("blas_version"), which = fact("cpu_library");
    out[r.id.library] = vendor.empty() ? r.id.library
                                       : vendor + (version.empty() ? "" : " " + version) + " (" +
                                             (which.empty() ? r.id.library : which) + ")";
  }
  return out;
}

namespace {
std::string name_of(const library_names& names, const std::string& library) {
  const auto it = names.find(library);
  return it == names.end() ? library : it->second;
}
}  // namespace

std::map<long long, std::pair<const row_record*, cpu_best_point>> cpu_best_at(
    const std::vector<const row_record*>& rows, long long nrhs, const library_names& names) {
  std::map<long long, std::vector<const row_record*>> at;
  for (const auto* r : rows)
    if (*r->id.nrhs == nrhs) at[r->id.n].push_back(r);
  std::map<long long, std::pair<const row_record*, cpu_best_point>> out;
  for (const auto& [n, candidates] : at) {
    const row_record* best = nullptr;
    for (const auto* r : candidates)  // the first of equals: the run's order
      if (!best || r->median_ms() < best->median_ms()) best = r;
    const row_record* other = nullptr;
    for (const auto* r : candidates)
      if (r->id.library != best->id.library && (!other || r->median_ms() < other->median_ms())) other = r;
    cpu_best_point p;
    p.n = n;
    p.ms = best->median_ms();
    p.path = best->id.backend;
    p.library = best->id.library;
    p.library_name = name_of(names, best->id.library);
    p.row = best->name;
    if (other) {
      p.runner_up_library = other->id.library;
      p.runner_up_name = name_of(names, other->id.library);
      p.runner_up_row = other->name;
      p.runner_up_ms = other->median_ms();
      p.noise_pct = combined_noise(*best, *other);
    }
    out.emplace(n, std::make_pair(best, p));
  }
  return out;
}

// The libraries of the CPU rows, in the run's order.
std::vector<std::string> libraries_of(const std::vector<const row_record*>& rows) {
  std::vector<std::string> out;
  for (const auto* r : rows)
    if (std::find(out.begin(), out.end(), r->id.library) == out.end()) out.push_back(r->id.library);
  return out;
}

// Which CPU library solves (op, precision) fastest, where the run timed several: at the smallest
// nrhs their rows share, each n's fastest reference row, and the best of another library there.
std::optional<cpu_library_verdict> cpu_library_entry(const operation& operation, char precision,
                                                     const std::vector<const row_record*>& rows,
                                                     const audit_index& audit, const library_names& names) {
  std::vector<const row_record*> mine;
  for (const auto* r : rows)
    if (r->id.op == operation.name && r->id.precision == precision && plain_solve(r->id) && cpu_side(r->id))
      mine.push_back(r);
  const std::vector<std::string> libraries = libraries_of(mine);
  if (libraries.size() < 2) return std::nullopt;
  std::map<long long, std::set<std::string>> libraries_at;  // nrhs -> the libraries with rows at it
  for (const auto* r : mine) libraries_at[*r->id.nrhs].insert(r->id.library);
  std::optional<long long> nrhs;
  for (const auto& [k, libs] : libraries_at)
    if (libs.size() > 1) {
      nrhs = k;
      break;
    }
  if (!nrhs) return std::nullopt;
  cpu_library_verdict c;
  c.op = std::string(1, precision) + operation.name;
  c.nrhs = *nrhs;
  c.libraries = libraries;
  for (const auto& library : libraries) c.library_names.push_back(name_of(names, library));
  std::set<std::string> used;
  for (const auto& [n, at] : cpu_best_at(mine, *nrhs, names)) {
    if (!at.second.runner_up_row) continue;  // one library at this n: nothing to choose between
    used.insert(at.second.row);
    used.insert(*at.second.runner_up_row);
    c.points.push_back(at.second);
  }
  if (c.points.empty()) return std::nullopt;
  c.caveats = audit.attached(used);
  return c;
}

}  // namespace solvebench::bench::verdict_detail
