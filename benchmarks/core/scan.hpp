// The size scan (issue 34): --sizes=scan:LO..HI (or --nrhs=scan:LO..HI) runs the selected rows
// on a coarse grid (checks/cliffs.hpp coarse_grid), then passes of midpoints between neighbours
// whose time per flop jumps by more than limits::cliff_factor and their noise (checks/cliffs.hpp
// neighbour_pairs), each pass rows of the same run and rows log, until no pair is left to narrow,
// --scan_extra rows have been added or --scan_budget seconds have gone. The audit's cliffs rule
// then reports each cliff as an interval.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "checks/record.hpp"
#include "core/options.hpp"

namespace solvebench::bench {

class size_scan {
 public:
  explicit size_scan(const common_options& o);
  bool active() const { return active_; }
  // The rows of the next pass, after the rows so far (`run`): the midpoint of each suspect pair
  // (widest jump first) that `exists` (registered and selected; `o`'s scanned list is set to the
  // midpoints and `register_more` called first), at most what the bound leaves; none when the scan
  // is done, and then `why_done` says why.
  std::vector<row_id> next_pass(const run_summary& run, common_options& o, const std::function<void()>& register_more,
                                const std::function<bool(const row_id&)>& exists);
  const std::string& why_done() const { return why_done_; }
  int added() const { return added_; }
  const std::string& axis() const { return range_.axis; }

 private:
  bool active_ = false;
  scan_range range_;
  int extra_ = 0;
  double budget_s_ = 0;
  int added_ = 0;
  std::string why_done_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

// The rows of each scanned family together, in the order of the scanned axis (the table reads as a
// curve), each family where its first row was; other rows keep their places.
void in_scan_order(run_summary& run, const std::string& axis);

// A pass's midpoints, pure (tested without a run): for each suspect pair of `run` along `axis`
// that is wider than neighbouring sizes, its row at the midpoint, widest jump first, at most `room`.
std::vector<row_id> scan_midpoints(const run_summary& run, const std::string& axis, std::size_t room);

}  // namespace solvebench::bench
