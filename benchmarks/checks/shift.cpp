// Hodges-Lehmann and the Mann-Whitney distribution.
#include "checks/shift.hpp"

#include <algorithm>
#include <cmath>

namespace solvebench::bench {
namespace {

constexpr std::size_t exact_up_to = 30;

// P(U = u) for u = 0 .. m * n under the null (every ordering of the m + n draws equally likely):
// the count of orderings with u (y > x) pairs, f(m, n, u) = f(m - 1, n, u - n) + f(m, n - 1, u),
// as probabilities (each step splits by which sample holds the largest draw).
std::vector<double> u_distribution(std::size_t m, std::size_t n) {
  // table[i][j] holds the distribution for i and j draws.
  std::vector<std::vector<std::vector<double>>> table(m + 1, std::vector<std::vector<double>>(n + 1));
  for (std::size_t i = 0; i <= m; ++i)
    for (std::size_t j = 0; j <= n; ++j) {
      auto& p = table[i][j];
      p.assign(i * j + 1, 0.0);
      if (i == 0 || j == 0) {
        p[0] = 1;
        continue;
      }
      const double px = static_cast<double>(i) / static_cast<double>(i + j);  // the largest is an x: no pair added
      const auto &a = table[i - 1][j], &b = table[i][j - 1];
      for (std::size_t u = 0; u < a.size(); ++u) p[u] += px * a[u];
      for (std::size_t u = 0; u < b.size(); ++u) p[u + i] += (1 - px) * b[u];  // the largest is a y: above all i x's
    }
  return table[m][n];
}

// The standard normal quantile (Acklam's rational approximation refined by one Newton step).
double normal_quantile(double p) {
  const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                      1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
                      -1.328068155288572e+01};
  const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                      -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00};
  double x;
  if (p < 0.02425) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p > 1 - 0.02425) {
    return -normal_quantile(1 - p);
  } else {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
  return x - e * std::sqrt(2 * std::acos(-1.0)) * std::exp(x * x / 2);
}

}  // namespace

long long mann_whitney_cut(std::size_t m, std::size_t n, double confidence) {
  if (m == 0 || n == 0) return -1;
  const double tail = (1 - confidence) / 2;
  if (m <= exact_up_to && n <= exact_up_to) {
    const auto p = u_distribution(m, n);
    double cdf = 0;
    long long cut = -1;
    for (std::size_t u = 0; u < p.size(); ++u) {
      cdf += p[u];
      if (cdf > tail * (1 + 1e-12)) break;
      cut = static_cast<long long>(u);
    }
    return cut;
  }
  const double dm = static_cast<double>(m), dn = static_cast<double>(n);
  const double z = -normal_quantile(tail);
  return static_cast<long long>(std::floor(dm * dn / 2 - z * std::sqrt(dm * dn * (dm + dn + 1) / 12) - 0.5));
}

std::optional<shift_interval> hodges_lehmann(const std::vector<double>& x, const std::vector<double>& y,
                                             double confidence) {
  const long long cut = mann_whitney_cut(x.size(), y.size(), confidence);
  if (cut < 0) return std::nullopt;
  std::vector<double> d;
  d.reserve(x.size() * y.size());
  for (double b : x)
    for (double a : y) d.push_back(a - b);
  std::sort(d.begin(), d.end());
  const std::size_t k = d.size(), c = static_cast<std::size_t>(cut);
  shift_interval s;
  s.estimate = k % 2 ? d[k / 2] : 0.5 * (d[k / 2 - 1] + d[k / 2]);
  s.lo = d[c];          // the (C + 1)-th smallest
  s.hi = d[k - 1 - c];  // the (C + 1)-th largest
  return s;
}

}  // namespace solvebench::bench
