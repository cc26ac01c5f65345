// The size scan's passes: see scan.hpp.
#include "core/scan.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "checks/cliffs.hpp"

namespace solvebench::bench {

std::vector<row_id> scan_midpoints(const run_summary& run, const std::string& axis, std::size_t room) {
  auto pairs = neighbour_pairs(run, axis);
  pairs.erase(std::remove_if(pairs.begin(), pairs.end(),
                             [](const cliff_pair& p) { return !p.suspect || p.hi - p.lo < 2; }),
              pairs.end());
  // A refusal first (it costs nothing to narrow), then the largest jumps.
  std::stable_sort(pairs.begin(), pairs.end(), [](const cliff_pair& a, const cliff_pair& b) {
    const bool ra = !a.refusal.empty(), rb = !b.refusal.empty();
    return ra != rb ? ra : a.factor > b.factor;
  });
  std::vector<row_id> out;
  std::set<std::string> seen;
  for (const auto& p : pairs) {
    if (out.size() >= room) break;
    const row_id mid = with_axis_value(p.below, axis, p.lo + (p.hi - p.lo) / 2);
    if (seen.insert(mid.name()).second && !run.find(mid.name())) out.push_back(mid);
  }
  return out;
}

void in_scan_order(run_summary& run, const std::string& axis) {
  std::map<std::string, std::size_t> first;
  for (std::size_t i = 0; i < run.rows.size(); ++i) first.emplace(with_axis_value(run.rows[i].id, axis, 0).name(), i);
  const auto key = [&](const row_record& r) {
    return std::make_pair(first.at(with_axis_value(r.id, axis, 0).name()), axis_value(r.id, axis));
  };
  std::stable_sort(run.rows.begin(), run.rows.end(),
                   [&](const row_record& a, const row_record& b) { return key(a) < key(b); });
}

size_scan::size_scan(const common_options& o)
    : active_(o.scan.has_value()), extra_(o.scan_extra), budget_s_(o.scan_budget_s) {
  if (o.scan) range_ = *o.scan;
}

std::vector<row_id> size_scan::next_pass(const run_summary& run, common_options& o,
                                         const std::function<void()>& register_more,
                                         const std::function<bool(const row_id&)>& exists) {
  if (!active_) return {};
  const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  const std::size_t room = added_ < extra_ ? static_cast<std::size_t>(extra_ - added_) : 0;
  const auto mids = scan_midpoints(run, range_.axis, room + 1);
  if (mids.empty()) {
    why_done_ = "no pair of neighbours left to narrow";
    return {};
  }
  if (room == 0) {
    why_done_ = "the bound on extra rows is reached (--scan_extra=" + std::to_string(extra_) + ")";
    return {};
  }
  if (spent >= budget_s_) {
    why_done_ = "the time budget is spent (--scan_budget=" + std::to_string(static_cast<long long>(budget_s_)) + ")";
    return {};
  }
  std::vector<std::int64_t> values;
  for (const auto& id : mids) {
    const auto v = axis_value(id, range_.axis);
    if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
  }
  (range_.axis == "nrhs" ? o.nrhs : o.sizes) = values;
  register_more();
  std::vector<row_id> out;
  for (std::size_t i = 0; i < mids.size() && out.size() < room; ++i)
    if (exists(mids[i])) out.push_back(mids[i]);
  added_ += static_cast<int>(out.size());
  if (out.empty()) why_done_ = "the midpoints' rows are not registered";
  return out;
}

}  // namespace solvebench::bench
