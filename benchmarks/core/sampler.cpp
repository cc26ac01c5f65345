// The stopping rule of a round's sampling loop (core/sampler.hpp).
#include "core/sampler.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "checks/record.hpp"
#include "core/harness.hpp"

namespace solvebench::bench {

double rank_shift_z(const std::vector<double>& earlier, const std::vector<double>& later) {
  const double n1 = static_cast<double>(earlier.size()), n2 = static_cast<double>(later.size());
  if (earlier.empty() || later.empty()) return 0;
  // Sort once and rank (O(m log m): a fast row's round holds thousands of calls).
  std::vector<std::pair<double, bool>> all;  // (time, from later)
  for (double t : earlier) all.emplace_back(t, false);
  for (double t : later) all.emplace_back(t, true);
  std::sort(all.begin(), all.end());
  double later_ranks = 0, ties = 0;  // ties: the sum of t^3 - t over groups of t equal times
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double mid_rank = 0.5 * static_cast<double>(i + 1 + j);  // ranks i+1 .. j share their mean
    for (std::size_t k = i; k < j; ++k)
      if (all[k].second) later_ranks += mid_rank;
    const double t = static_cast<double>(j - i);
    ties += t * t * t - t;
    i = j;
  }
  const double n = n1 + n2, u = later_ranks - n2 * (n2 + 1) / 2;
  const double var = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)));
  return var > 0 ? (u - n1 * n2 / 2) / std::sqrt(var) : 0;
}

bool sampler::enough() {
  const auto m = static_cast<long long>(ms_.size());
  if (s_.exact > 0) return m >= s_.exact;
  if (m >= 1 && timed_ >= s_.long_cap) return true;
  // A call far shorter than what surrounds it (the GPU's hold, a restore) would take many times
  // min_time of wall clock to add up to min_time: GPU/dgemm/n:256's 6 us took 0.56 s a round.
  const double wall_cap = s_.max_wall_factor * (warm_up_calls_ > 0 ? s_.max_time : s_.min_time);
  if (m >= s_.noise_samples && seconds_since(wall0_) >= wall_cap) return true;
  if (m < s_.min_samples || timed_ < s_.min_time) return false;
  if (timed_ >= s_.max_time) return true;
  // A round of a few long calls stops at min_time: more of them would narrow this round's own
  // interval, where the row's +- comes from its rounds.
  if (m < s_.noise_samples) return true;
  // The noise is looked at again only once the sample has grown by a tenth, so that fast rows
  // with many samples stay cheap.
  if (m < next_check_) return false;
  next_check_ = std::max(m + 1, m + m / 10);
  const auto noise = median_noise_pct(ms_);
  if (noise && *noise <= s_.max_noise_pct) return true;
  // Calls that drift (a power cap engaging, a clock stepping down) do not settle: more of them
  // move the median by where the loop stops, which differs between processes (GPU/dgemm/n:4096
  // on the H200: 2.23 ms in 23-call rounds, 2.29-2.37 ms in those that went on to 38).
  drift_pct_ = drift();
  if (!drift_pct_) return false;
  // Calls that speed up are still warming up (CPU/sgetrs/n:4096's 64 MiB of factors settling in
  // the 2-core VM's cache: 5.2 ms a call falling to 2.7 ms over 5-16 calls, so that its median
  // was where the round stopped); calls that slow down do not settle.
  const double allowance = s_.max_wall_factor * s_.max_time;
  if (*drift_pct_ < 0 && timed_ + warm_up_s_ < allowance && seconds_since(wall0_) < allowance) {
    const auto half = ms_.begin() + static_cast<std::ptrdiff_t>(ms_.size() / 2);
    const double dropped = std::accumulate(ms_.begin(), half, 0.0) / 1e3;
    warm_up_calls_ += half - ms_.begin();
    ms_.erase(ms_.begin(), half);
    warm_up_s_ += dropped;
    timed_ -= dropped;
    next_check_ = 0;
    drift_pct_.reset();
    return false;
  }
  return true;
}

std::optional<double> sampler::drift() const {
  const auto half = ms_.begin() + static_cast<std::ptrdiff_t>(ms_.size() / 2);
  const std::vector<double> earlier(ms_.begin(), half), later(half, ms_.end());
  const double pct = 100.0 * (median(later) / median(earlier) - 1);
  if (!(std::abs(pct) > s_.max_noise_pct) || !(std::abs(rank_shift_z(earlier, later)) > s_.drift_z))
    return std::nullopt;
  return pct;
}

void sampler::add(double seconds) {
  ms_.push_back(seconds * 1e3);
  timed_ += seconds;
}

}  // namespace solvebench::bench
