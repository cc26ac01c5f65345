// Medians, their noise, and the pooling of repetitions into rows.
#include "checks/record.hpp"

#include <map>

#include "checks/operation.hpp"
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

// The continued fraction of the regularized incomplete beta function (Lentz's method).
double beta_fraction(double a, double b, double x) {
  const double tiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  d = 1 / (std::fabs(d) < tiny ? tiny : d);
  double h = d;
  for (int m = 1; m <= 300; ++m) {
    const double dm = m;
    double aa = dm * (b - dm) * x / ((a + 2 * dm - 1) * (a + 2 * dm));
    for (int step = 0; step < 2; ++step) {
      d = 1 + aa * d;
      d = 1 / (std::fabs(d) < tiny ? tiny : d);
      c = 1 + aa / c;
      if (std::fabs(c) < tiny) c = tiny;
      h *= d * c;
      aa = -(a + dm) * (a + b + dm) * x / ((a + 2 * dm) * (a + 2 * dm + 1));
      if (step == 1 && std::fabs(d * c - 1) < 1e-15) return h;
    }
  }
  return h;
}

// I_x(a, b), the regularized incomplete beta function.
double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front =
      std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log(1 - x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

// P(T <= t) for Student's t with df degrees of freedom.
double student_t_cdf(double t, double df) {
  const double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));
  return t >= 0 ? 1 - tail : tail;
}

// The factor by which the variance of the median of m draws exceeds that of their mean (normal
// draws): 1 up to two, then close to the exact values (1.34 at 3, 1.43 at 5) and pi/2 in the limit.
double median_variance_factor(std::size_t m) {
  if (m <= 2) return 1;
  const double pi_2 = 2 * std::atan(1.0), dm = static_cast<double>(m);
  return pi_2 * dm / (dm + pi_2 - 1);
}

double sample_variance(const std::vector<double>& v) {
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return ss / static_cast<double>(v.size() - 1);
}

}  // namespace

double student_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df > 0)) return std::nan("");
  if (p < 0.5) return -student_t_quantile(1 - p, df);
  double lo = 0, hi = 1;
  while (student_t_cdf(hi, df) < p && hi < 1e12) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (student_t_cdf(mid, df) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double rerun_spread::rerun_pct(double confidence) const {
  const double h = student_t_quantile(0.5 + confidence / 2, df) * std::sqrt(2 * centre_var);
  return 100.0 * std::expm1(h);
}

double rerun_spread::difference_pct(const rerun_spread& other, double confidence) const {
  const double v = centre_var + other.centre_var;
  if (!(v > 0)) return 0;
  const double welch = v * v / (centre_var * centre_var / df + other.centre_var * other.centre_var / other.df);
  return 100.0 * std::expm1(student_t_quantile(0.5 + confidence / 2, welch) * std::sqrt(v));
}

std::optional<rerun_spread> rerun_spread_of(const std::vector<double>& round_ms, const std::vector<int>& process_of,
                                            double round_var_floor, double process_var_floor) {
  std::map<int, std::vector<double>> by_process;
  for (std::size_t i = 0; i < round_ms.size(); ++i) {
    if (!(round_ms[i] > 0) || !std::isfinite(round_ms[i])) return std::nullopt;
    by_process[i < process_of.size() ? process_of[i] : 0].push_back(std::log(round_ms[i]));
  }
  const std::size_t m = round_ms.size();
  if (m < 2) return std::nullopt;
  rerun_spread s;
  s.rounds = static_cast<int>(m);
  s.processes = static_cast<int>(by_process.size());
  // Within processes: the rounds' pooled variance, for the median of all m rounds.
  double ss_within = 0;
  std::size_t df_within = 0;
  std::vector<double> means;
  for (const auto& [key, logs] : by_process) {
    double mean = 0;
    for (double x : logs) mean += x;
    mean /= static_cast<double>(logs.size());
    means.push_back(mean);
    for (double x : logs) ss_within += (x - mean) * (x - mean);
    df_within += logs.size() - 1;
  }
  const double round_var = df_within > 0 ? std::max(ss_within / static_cast<double>(df_within), round_var_floor) : 0;
  const double within = median_variance_factor(m) * round_var / static_cast<double>(m);
  s.round_var = round_var;
  // Between processes: the variance of their means, for the mean of k of them.
  const std::size_t k = means.size();
  s.process_var = k >= 2 ? std::max(sample_variance(means), process_var_floor) : 0;
  const double between = s.process_var / static_cast<double>(k);
  if (k >= 2 && between >= within) {
    s.centre_var = between;
    s.df = static_cast<double>(k - 1);
  } else if (df_within > 0) {
    s.centre_var = within;
    s.df = static_cast<double>(df_within);
  } else {
    return std::nullopt;
  }
  return s;
}

// The median of chi-squared(df) / df (Wilson-Hilferty; 0.70 at 2, exact 0.69): what the median
// of many rows' variances, each from df degrees of freedom, is of their common variance. With 3
// processes (df 2) the plain median of the rows' estimates is 0.69 of it.
namespace {
double median_of_chi2_over_df(int df) {
  if (df <= 0) return 1;
  const double c = 1 - 2.0 / (9.0 * df);
  return c * c * c;
}
}  // namespace

// Rows that time one system's solve (a driver's two halves back to back, or the library's one
// call) and the rows that time its parts: held to each other in hold_solves_to_their_parts.
namespace {
bool same_system(const row_id& a, const row_id& b) {
  return a.device == b.device && a.placement == b.placement && a.library == b.library && a.precision == b.precision &&
         !a.mixed() && !b.mixed() && !a.batched() && !b.batched() && a.n == b.n && a.axes == b.axes;
}
}  // namespace

void hold_solves_to_their_parts(run_summary& run) {
  std::vector<std::optional<rerun_spread>> own(run.rows.size());
  for (std::size_t i = 0; i < run.rows.size(); ++i)
    if (run.rows[i].ok()) own[i] = rerun_spread_of(run.rows[i].times_ms, run.rows[i].process_of);
  for (std::size_t i = 0; i < run.rows.size(); ++i) {
    row_record& r = run.rows[i];
    const operation* op = find_operation(r.id.op);
    if (!own[i] || !op || !op->is_driver() || !r.id.nrhs ||
        (r.id.path != row_path::halves && r.id.path != row_path::driver))
      continue;
    for (std::size_t j = 0; j < run.rows.size(); ++j) {
      const row_id& p = run.rows[j].id;
      if (j == i || !own[j] || !same_system(r.id, p)) continue;
      const bool twin = p.op == r.id.op && p.nrhs == r.id.nrhs && p.path != r.id.path &&
                        (p.path == row_path::halves || p.path == row_path::driver);
      const bool factor = p.op == op->factor_half->name && p.path == row_path::halves;
      if (!twin && !factor) continue;
      // Its share of the solve's time: log-variances add as the squares of the shares.
      const double share = twin ? 1.0 : std::min(1.0, run.rows[j].median_ms() / r.median_ms());
      r.pooled_round_var = std::max(r.pooled_round_var, share * share * own[j]->round_var);
      if (own[i]->processes >= 2 && own[j]->processes >= 2)
        r.pooled_process_var = std::max(r.pooled_process_var, share * share * own[j]->process_var);
    }
  }
}

void pool_device_noise(run_summary& run) {
  // Pools of rows: the device's, and each family's on it (the same path and operation).
  using pool = std::pair<row_device, std::string>;
  const auto family = [](const row_id& id) { return pool{id.device, std::string(text_of(id.path)) + "/" + id.op}; };
  const auto device = [](const row_id& id) { return pool{id.device, ""}; };
  std::map<pool, std::vector<double>> round_vars, process_vars;
  std::map<pool, int> process_dfs;  // the largest processes' degrees of freedom of the pool's rows
  for (const auto& r : run.rows) {
    if (!r.ok()) continue;
    const auto s = rerun_spread_of(r.times_ms, r.process_of);
    for (const pool& p : {device(r.id), family(r.id)}) {
      if (s && s->round_var > 0) round_vars[p].push_back(s->round_var);
      if (s && s->processes >= 2) {
        process_vars[p].push_back(s->process_var);
        process_dfs[p] = std::max(process_dfs[p], s->processes - 1);
      }
    }
  }
  const auto median_of = [](const std::map<pool, std::vector<double>>& by, const pool& p) {
    const auto it = by.find(p);
    return it == by.end() ? 0.0 : median(it->second);
  };
  for (auto& r : run.rows) {
    double round_var = 0, process_var = 0;
    for (const pool& p : {device(r.id), family(r.id)}) {
      round_var = std::max(round_var, median_of(round_vars, p));
      process_var = std::max(process_var, median_of(process_vars, p) / median_of_chi2_over_df(process_dfs[p]));
    }
    r.pooled_round_var = round_var;
    r.pooled_process_var = process_var;
  }
  hold_solves_to_their_parts(run);
}

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

std::optional<rerun_spread> row_record::spread() const {
  auto own = rerun_spread_of(times_ms, process_of, pooled_round_var, pooled_process_var);
  // The wider interval, not the larger variance: a record of many runs knows its variance
  // better (more degrees of freedom), and a floor must never narrow what the run itself says.
  if (!history_run || !ok() ||
      (own && own->rerun_pct(limits::noise_confidence) >= history_run->rerun_pct(limits::noise_confidence)))
    return own;
  rerun_spread h = *history_run;
  h.rounds = own ? own->rounds : static_cast<int>(times_ms.size());
  h.processes = own ? own->processes : 1;
  return h;
}

std::optional<double> row_record::noise_pct() const {
  if (times_ms.size() >= 2 || history_run) {
    if (const auto s = spread()) return s->rerun_pct(limits::noise_confidence);
    return std::nullopt;
  }
  if (has_rounds()) return std::nullopt;  // one round says nothing about a re-run
  return noise_within_pct();              // an earlier version's one repetition: what it said
}

std::optional<double> row_record::noise_within_pct() const {
  // The run's own figure first: it comes from every sample, where the rows log keeps a subsample.
  if (const auto computed = counter("noise_within_pct")) return computed;
  if (!has_rounds())
    if (const auto computed = counter("noise_pct")) return computed;
  return median_noise_pct(samples_ms, limits::noise_confidence);
}

double rerun_noise_pct(const row_record& r) {
  double n = r.noise_pct().value_or(0);
  if (const auto s = r.spread()) n = std::max(n, s->rerun_pct(limits::noise_confidence));
  return std::isfinite(n) ? n : 0;
}

bool row_record::passed() const {
  if (!ok() || !(median_ms() > 0)) return false;
  const auto it = counters.find("resid");
  if (it == counters.end()) return true;
  return std::all_of(it->second.begin(), it->second.end(), [](double v) { return v < limits::resid; });
}

namespace {
constexpr int processes_per_segment = 1 << 16;

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
                    const std::map<std::string, double>& counters, const std::map<std::string, std::string>& facts) {
  row_record& r = row_for(run, id);
  r.facts.insert(facts.begin(), facts.end());
  r.times_ms.push_back(time_ms);
  const auto process = counters.find("process");
  r.process_of.push_back(run.segment * processes_per_segment +
                         (process == counters.end() ? 0 : static_cast<int>(process->second)));
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
