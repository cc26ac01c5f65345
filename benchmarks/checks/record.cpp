// Medians, their noise, and the pooling of repetitions into rows.
#include "checks/record.hpp"

#include "checks/thresholds.hpp"

namespace solvebench::bench {
namespace {

// The 0-based rank j of the lower end of the median's interval (the upper end is m - 1 - j):
// the largest j with P(B <= j) <= (1 - confidence) / 2 for B ~ Binomial(m, 1/2), so that
// [x_j, x_(m-1-j)] covers the median with at least `confidence`; -1 when not even the range does.
long long lower_rank(long long m, double confidence) {
  const double tail = (1 - confidence) / 2;
  const double dm = static_cast<double>(m), log_total = std::lgamma(dm + 1) - dm * std::log(2.0);
  double cdf = 0;
  long long j = -1;
  for (long long k = 0; k < m / 2; ++k) {
    const double dk = static_cast<double>(k);
    cdf += std::exp(log_total - std::lgamma(dk + 1) - std::lgamma(dm - dk + 1));
    if (cdf > tail) break;
    j = k;
  }
  return j;
}

}  // namespace

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

std::optional<double> median_noise_pct(std::vector<double> samples, double confidence) {
  if (samples.size() < 2) return std::nullopt;
  std::sort(samples.begin(), samples.end());
  const double mid = median(samples);
  if (!(mid > 0)) return std::nullopt;
  const auto m = static_cast<long long>(samples.size());
  const long long j = lower_rank(m, confidence);
  const double lo = j < 0 ? samples.front() : samples[static_cast<std::size_t>(j)];
  const double hi = j < 0 ? samples.back() : samples[static_cast<std::size_t>(m - 1 - j)];
  return 100.0 * 0.5 * (hi - lo) / mid;
}

std::optional<double> row_record::noise_pct() const {
  // The run's own figure first: it comes from every sample, where the rows log keeps a subsample.
  if (const auto computed = counter("noise_pct")) return computed;
  if (const auto pooled = median_noise_pct(samples_ms, limits::noise_confidence)) return pooled;
  return median_noise_pct(times_ms, limits::noise_confidence);
}

bool row_record::passed() const {
  if (!ok() || !(median_ms() > 0)) return false;
  const auto it = counters.find("resid");
  if (it == counters.end()) return true;
  return std::all_of(it->second.begin(), it->second.end(), [](double v) { return v < limits::resid; });
}

namespace {
row_record& row_for(run_summary& run, const row_id& id) {
  for (auto& r : run.rows)
    if (r.id == id) return r;
  row_record r;
  r.id = id;
  r.name = id.name();
  run.rows.push_back(std::move(r));
  return run.rows.back();
}
}  // namespace

void add_repetition(run_summary& run, const row_id& id, double time_ms, const std::vector<double>& samples_ms,
                    const std::map<std::string, double>& counters) {
  row_record& r = row_for(run, id);
  r.times_ms.push_back(time_ms);
  r.samples_ms.insert(r.samples_ms.end(), samples_ms.begin(), samples_ms.end());
  for (const auto& [key, value] : counters) r.counters[key].push_back(value);
}

void add_failure(run_summary& run, const row_id& id, const std::string& error, bool skipped) {
  row_record& r = row_for(run, id);
  if (r.error.empty()) {
    r.error = error;
    r.skipped = skipped;
  }
}

}  // namespace solvebench::bench
