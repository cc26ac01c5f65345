// Host side of the prescribed-condition generator: the k x k precomputation and the fill.
#include "solvebench/conditioned.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

#include "parallel.hpp"
#include "solvebench/errors.hpp"
#include "solvebench/precision.hpp"

namespace solvebench {
namespace {

constexpr int K = conditioned_max_reflectors;

// Neumaier's compensated sum: the Gram matrices decide how orthogonal U and V come out, and a
// plain sum of n terms could lose up to n * eps of it.
class compensated_sum {
 public:
  void add(double x) {
    const double t = sum_ + x;
    carry_ += std::fabs(sum_) >= std::fabs(x) ? (sum_ - t) + x : (x - t) + sum_;
    sum_ = t;
  }
  double value() const { return sum_ + carry_; }

 private:
  double sum_ = 0, carry_ = 0;
};

// T of the compact WY form H_0 H_1 ... H_{k-1} = I - Y T Y^T with H_m = I - tau_m y_m y_m^T,
// tau_m = 2 / (y_m^T y_m): LAPACK's dlarft (forward, columnwise) from the Gram matrix Y^T Y.
void householder_t(const double* gram, int k, double* t) {
  for (int m = 0; m < k; ++m) {
    const double g = gram[m * K + m];
    const double tau = g > 0 ? 2.0 / g : 0.0;  // a zero vector (probability ~0): H_m = I
    t[m * K + m] = tau;
    for (int a = 0; a < m; ++a) {
      double s = 0;
      for (int b = a; b < m; ++b) s += t[a * K + b] * gram[b * K + m];
      t[a * K + m] = -tau * s;
    }
  }
}

std::string number_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

conditioned_spec make_conditioned(std::int64_t n, double cond, std::uint64_t seed, int reflectors, double sigma_max) {
  checked_size("make_conditioned: n", n, std::numeric_limits<std::int64_t>::max());
  if (!(cond >= 1.0 && cond <= 1e16))
    throw invalid_argument("make_conditioned: cond = " + number_text(cond) + " (expected 1 <= cond <= 1e16)");
  if (n == 1 && cond != 1.0)
    throw invalid_argument("make_conditioned: a 1 x 1 matrix has condition number 1, not " + number_text(cond));
  if (!(sigma_max > 0 && std::isfinite(sigma_max)))
    throw invalid_argument("make_conditioned: sigma_max = " + number_text(sigma_max) + " (expected finite and > 0)");
  if (reflectors < 1 || reflectors > K)
    throw invalid_argument("make_conditioned: reflectors = " + std::to_string(reflectors) + " (expected 1 to " +
                           std::to_string(K) + ")");

  conditioned_spec s;
  s.n = n;
  s.cond = cond;
  s.sigma_max = sigma_max;
  s.seed = seed;
  s.reflectors = reflectors;
  s.log_decay = n > 1 ? std::log(cond) / static_cast<double>(n - 1) : 0.0;
  s.key_u = rng::conditioned_u_key(seed);
  s.key_v = rng::conditioned_v_key(seed);
  const int k = reflectors;

  // Serial passes over the rows, so the spec (and hence A) does not depend on the thread count.
  compensated_sum norm_u[K], norm_v[K];
  for (std::int64_t i = 0; i < n; ++i)
    for (int m = 0; m < k; ++m) {
      const double ru = rng::reflector_component(s.key_u, n, m, i), rv = rng::reflector_component(s.key_v, n, m, i);
      norm_u[m].add(ru * ru);
      norm_v[m].add(rv * rv);
    }
  for (int m = 0; m < k; ++m) {
    s.scale_u[m] = norm_u[m].value() > 0 ? 1.0 / std::sqrt(norm_u[m].value()) : 0.0;
    s.scale_v[m] = norm_v[m].value() > 0 ? 1.0 / std::sqrt(norm_v[m].value()) : 0.0;
  }

  // Gram matrices of the normalised vectors exactly as the entry functions will see them
  // (conditioned_row_of), and M = Y1^T S Y2.
  compensated_sum gram_u[K * K], gram_v[K * K], m_sum[K * K];
  for (std::int64_t i = 0; i < n; ++i) {
    const conditioned_row r = conditioned_row_of(s, i);
    for (int a = 0; a < k; ++a)
      for (int b = 0; b < k; ++b) {
        if (b >= a) {
          gram_u[a * K + b].add(r.y_u[a] * r.y_u[b]);
          gram_v[a * K + b].add(r.y_v[a] * r.y_v[b]);
        }
        m_sum[a * K + b].add(r.sigma * r.y_u[a] * r.y_v[b]);
      }
  }
  double gu[K * K] = {}, gv[K * K] = {}, m[K * K] = {}, tu[K * K] = {}, tv[K * K] = {};
  for (int a = 0; a < k; ++a)
    for (int b = 0; b < k; ++b) {
      gu[a * K + b] = gram_u[(a <= b ? a * K + b : b * K + a)].value();
      gv[a * K + b] = gram_v[(a <= b ? a * K + b : b * K + a)].value();
      m[a * K + b] = m_sum[a * K + b].value();
    }
  householder_t(gu, k, tu);
  householder_t(gv, k, tv);

  for (int a = 0; a < k; ++a)
    for (int b = 0; b < k; ++b) {
      s.t_u[a * K + b] = tu[a * K + b];
      s.t_v_transposed[a * K + b] = tv[b * K + a];
      double w = 0;  // (T1 M T2^T)_ab
      for (int c = 0; c < k; ++c)
        for (int d = 0; d < k; ++d) w += tu[a * K + c] * m[c * K + d] * tv[b * K + d];
      s.w[a * K + b] = w;
    }
  return s;
}

double parse_condition_number(const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !(v >= 1.0) || !std::isfinite(v))
    throw invalid_argument("condition number '" + text + "' (expected a finite number >= 1, e.g. 1e4)");
  return v;
}

std::string format_condition_number(double cond) {
  if (cond > 0 && std::isfinite(cond)) {
    std::string power = "1e" + std::to_string(static_cast<long>(std::lround(std::log10(cond))));
    if (std::strtod(power.c_str(), nullptr) == cond) return power;
  }
  return number_text(cond);
}

template <class T, real_only<T>>
host_matrix<T> generate_conditioned(const conditioned_spec& spec) {
  const std::int64_t n = spec.n;
  host_matrix<T> a(n, n);
  std::vector<conditioned_row> rows(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static) if (worth_threads(n * n))
  for (std::int64_t i = 0; i < n; ++i) rows[static_cast<std::size_t>(i)] = conditioned_row_of(spec, i);
#pragma omp parallel for schedule(static) if (worth_threads(n * n))
  for (std::int64_t j = 0; j < n; ++j) {
    const conditioned_column c = conditioned_column_of(spec, j);
    for (std::int64_t i = 0; i < n; ++i)
      a(i, j) = static_cast<T>(conditioned_entry(rows[static_cast<std::size_t>(i)], c, i == j));
  }
  return a;
}

#define SB_INSTANTIATE(T) template host_matrix<T> generate_conditioned(const conditioned_spec&);
SOLVE_BENCH_FOR_EACH_REAL_PRECISION(SB_INSTANTIATE)
#undef SB_INSTANTIATE

}  // namespace solvebench
