// Cliffs (issue 34): sizes between which a row's rate per flop jumps by more than a smooth curve
// and the rows' noise explain (OpenBLAS 0.3.26's dgesv at n = 9999 takes 7.7x the time per flop
// of n = 10000), and a library's known limit (a row refused just above it). The size scan
// (core/scan.hpp) bisects the pairs this file calls suspect; the audit's cliffs rule reports
// what the scan narrowed. Pure logic over a run_summary.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checks/record.hpp"

namespace solvebench::bench {

// A scanned axis: "n" (--sizes=scan:LO..HI) or "nrhs" (--nrhs=scan:LO..HI).
struct scan_range {
  std::string axis;
  std::int64_t lo = 0, hi = 0;
  std::string text() const;  // "n:8192..12288"
};
// "LO..HI" (the part after "scan:"), 1 <= LO < HI <= max; nullopt when malformed.
std::optional<scan_range> parse_scan_range(const std::string& axis, const std::string& text, std::int64_t max);
// The coarse pass: scan_coarse_points sizes spaced evenly in log between lo and hi, both ends included.
inline constexpr int scan_coarse_points = 9;
std::vector<std::int64_t> coarse_grid(std::int64_t lo, std::int64_t hi);

// The value of the scanned axis in a row's id (nrhs: 0 when the row has none).
std::int64_t axis_value(const row_id& id, const std::string& axis);
row_id with_axis_value(row_id id, const std::string& axis, std::int64_t v);

// Two neighbouring measured sizes of one row family (every field but the scanned axis alike).
struct cliff_pair {
  row_id below, above;              // the measured rows at the interval's ends (axis value below < above)
  double factor = 1;                // the slower end's time per flop over the faster end's (>= 1)
  bool slower_above = false;        // the rate drops going up the axis
  std::optional<double> noise_pct;  // what the two medians' noise allows their ratio (95%); none: unknown
  std::string refusal;              // non-empty: `above` was refused (a library's limit, memory), `below` ran
  bool suspect = false;             // beyond cliff_factor and beyond the noise (or a refusal): worth bisecting
  std::int64_t lo = 0, hi = 0;      // the axis values of below and above
};
// Every neighbouring pair of every family along `axis`, families in the order their rows ran.
std::vector<cliff_pair> neighbour_pairs(const run_summary& run, const std::string& axis);

// What a scan found: each suspect pair that is a step (the rows beyond both ends agree with their
// end), narrowed or not; a spike (one size alone off its both neighbours) is not a cliff.
struct cliff {
  cliff_pair pair;
  bool narrowed = false;  // the ends are neighbouring sizes (or a refusal's limit is found)
  bool spike = false;     // the slow end is alone: its other neighbour is as fast as the fast end
};
std::vector<cliff> find_cliffs(const run_summary& run, const std::string& axis);
// One or two sentences; `not_judged` (the load during its rows, audit_rules.hpp load_during) turns
// a step into a jump that is not called a cliff, with the reason.
std::string cliff_text(const cliff& c, const std::string& axis, const std::string& not_judged = "");

}  // namespace solvebench::bench
