// Host side of the known solution: x, b = A x in double, and the forward error.
#include "solvebench/known_solution.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "parallel.hpp"
#include "solvebench/errors.hpp"
#include "solvebench/precision.hpp"
#include "tabulate.hpp"

namespace solvebench {
namespace {
constexpr std::int64_t row_block = 512;
}  // namespace

template <class T, real_only<T>>
host_matrix<T> generate_known_solution(std::int64_t n, std::int64_t nrhs, std::uint64_t seed) {
  const std::uint64_t key = rng::solution_key(seed);
  return tabulate<T>(n, nrhs, [&](std::int64_t i, std::int64_t j) { return solution_entry(key, n, i, j); });
}

template <class T, real_only<T>>
host_matrix<T> rhs_from_solution(const host_matrix<T>& a, const host_matrix<T>& x) {
  if (a.rows() != a.cols() || x.rows() != a.cols())
    throw invalid_argument("rhs_from_solution: A is " + std::to_string(a.rows()) + " x " + std::to_string(a.cols()) +
                           ", X has " + std::to_string(x.rows()) + " rows");
  const std::int64_t n = a.rows();
  host_matrix<T> b(n, x.cols());
  // Row blocks in parallel, columns in order inside each: every sum has one fixed order.
#pragma omp parallel if (worth_threads(n * n))
  {
    std::vector<double> acc(static_cast<std::size_t>(row_block));
    for (std::int64_t c = 0; c < x.cols(); ++c) {
#pragma omp for schedule(static)
      for (std::int64_t i0 = 0; i0 < n; i0 += row_block) {
        const std::int64_t i1 = std::min(n, i0 + row_block);
        std::fill(acc.begin(), acc.end(), 0.0);
        for (std::int64_t j = 0; j < n; ++j) {
          const double xj = static_cast<double>(x(j, c));
          for (std::int64_t i = i0; i < i1; ++i)
            acc[static_cast<std::size_t>(i - i0)] += static_cast<double>(a(i, j)) * xj;
        }
        for (std::int64_t i = i0; i < i1; ++i) b(i, c) = static_cast<T>(acc[static_cast<std::size_t>(i - i0)]);
      }
    }
  }
  return b;
}

template <class T, real_only<T>>
double forward_error(const host_matrix<T>& x_hat, const host_matrix<T>& x_true) {
  if (x_hat.rows() != x_true.rows() || x_hat.cols() != x_true.cols())
    throw invalid_argument("forward_error: shape mismatch");
  double worst = 0;
  for (std::int64_t c = 0; c < x_true.cols(); ++c) {
    double diff = 0, norm = 0;
    for (std::int64_t i = 0; i < x_true.rows(); ++i) {
      const double d = std::fabs(static_cast<double>(x_hat(i, c)) - static_cast<double>(x_true(i, c)));
      diff = std::isnan(d) ? d : std::max(diff, d);
      if (std::isnan(diff)) break;
      norm = std::max(norm, std::fabs(static_cast<double>(x_true(i, c))));
    }
    const double e = forward_error_from_norms(diff, norm);
    worst = std::max(worst, e);
  }
  return worst;
}

#define SB_INSTANTIATE(T)                                                                     \
  template host_matrix<T> generate_known_solution(std::int64_t, std::int64_t, std::uint64_t); \
  template host_matrix<T> rhs_from_solution(const host_matrix<T>&, const host_matrix<T>&);    \
  template double forward_error(const host_matrix<T>&, const host_matrix<T>&);
SOLVE_BENCH_FOR_EACH_REAL_PRECISION(SB_INSTANTIATE)
#undef SB_INSTANTIATE

}  // namespace solvebench
