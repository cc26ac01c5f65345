// How long one round of a row samples, and the rule that stops it.
#pragma once

#include <chrono>
#include <optional>
#include <vector>

namespace solvebench::bench {

// How long one round of a row samples: until it has min_samples calls and min_time seconds
// timed; then, where it has noise_samples calls or more, until its median is known to
// max_noise_pct or it has max_time seconds, or its calls drift (below); but never longer than
// max_wall_factor x min_time of wall clock once it has noise_samples calls; exact > 0: exactly
// that many calls. Calls that speed up beyond chance are still warming up: the earlier half is
// dropped as warm-up and the round samples on, within max_wall_factor x max_time (of wall
// clock, and of timed calls, the dropped ones included); calls that slow down stop it where
// they are. A row's first call in a process is an untimed warm-up (and in later rounds too
// when a call takes less than min_time); a first call of long_cap seconds or more is its
// round's only sample. A row gets no further round in a process once its rounds there have
// taken round_budget seconds a round asked for (wall time: building, sampling and checking;
// core/rounds.hpp), so that a row of long calls or a costly problem is not run R times.
struct sampling {
  int min_samples = 1;
  double min_time = 0.05;
  int noise_samples = 6;  // the fewest calls whose median has a 95% interval (order statistics)
  double max_noise_pct = 1.0;
  double max_time = 0.2;
  double max_wall_factor = 2;
  double long_cap = 5.0;
  // A CPU row's warm-up lasts until this long after another pool's last row: its threads spin
  // before they sleep (OpenBLAS 2^28 cycles, about 0.1 s; MKL's KMP_BLOCKTIME 0.2 s).
  double pool_settle = 0.2;
  double round_budget = 1.0;
  long long exact = 0;
  // Drift: the later half of the calls differs from the earlier half by more than max_noise_pct
  // (their medians) and beyond chance (rank-sum |z| above this: two-sided p < 0.001).
  double drift_z = 3.29;
};

// Mann-Whitney's rank-sum statistic of `later` against `earlier` as a z-score (normal
// approximation; ties at mid-rank, the variance corrected for them): positive when later calls
// take longer. 0 when either is empty or every time is equal.
double rank_shift_z(const std::vector<double>& earlier, const std::vector<double>& later);

// One round's sampling loop: add each timed call until enough() says stop.
class sampler {
 public:
  explicit sampler(const sampling& s) : s_(s), wall0_(std::chrono::steady_clock::now()) {}
  bool enough();
  void add(double seconds);
  const std::vector<double>& ms() const { return ms_; }
  // Where the round stopped on drift: the later half's median against the earlier half's, in %.
  std::optional<double> drift_pct() const { return drift_pct_; }
  // The calls dropped as warm-up because the calls after them ran faster.
  long long warm_up_calls() const { return warm_up_calls_; }
  double warm_up_s() const { return warm_up_s_; }  // their timed seconds

 private:
  std::optional<double> drift() const;

  const sampling& s_;
  std::chrono::steady_clock::time_point wall0_;
  std::vector<double> ms_;
  double timed_ = 0;
  double warm_up_s_ = 0;  // the timed seconds of the calls dropped as warm-up
  long long warm_up_calls_ = 0;
  long long next_check_ = 0;
  std::optional<double> drift_pct_;
};

}  // namespace solvebench::bench
