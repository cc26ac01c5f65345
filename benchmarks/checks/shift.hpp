// The shift between two small samples, distribution-free: the Hodges-Lehmann estimate (the
// median of all differences y_j - x_i) and its confidence interval from the exact Mann-Whitney
// distribution. What the regression gate judges processes by, where a row's time takes one of a
// few modes from process to process (a 2-core machine: CPU/dpotrs/n:256 at 0.029 or 0.044 ms,
// each process steady to 0.5%), which a normal model with three processes a side reads as a
// certain difference whenever the three on one side happen to share a mode.
#pragma once

#include <optional>
#include <vector>

namespace solvebench::bench {

struct shift_interval {
  double estimate = 0;  // the median of the differences
  double lo = 0, hi = 0;
};

// None when x or y is empty, or when they are too few for any interval at `confidence` (3 and
// 3 reach 90%, 5 and 5 99%, 7 and 7 99.9%). Exact up to 30 a side, the normal approximation
// (with continuity correction) beyond.
std::optional<shift_interval> hodges_lehmann(const std::vector<double>& x, const std::vector<double>& y,
                                             double confidence);

// The number of the smallest differences left out at each end of that interval: the largest C
// with P(U <= C) <= (1 - confidence) / 2 for the Mann-Whitney U of m and n draws; -1 when none.
long long mann_whitney_cut(std::size_t m, std::size_t n, double confidence);

}  // namespace solvebench::bench
