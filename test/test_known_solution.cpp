// Known solution and forward error: x is what it promises, b = A x is exact to one rounding,
// and the forward error of an LU solve grows with the condition number while the HPL
// residual does not.
#include <gtest/gtest.h>

#include <lapacke.h>

#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>
#include <vector>

#include "solvebench/conditioned.hpp"
#include "solvebench/known_solution.hpp"
#include "solvebench/residual.hpp"

namespace sb = solvebench;

// Known solutions and prescribed-condition matrices exist for real T only: a complex use must
// not compile (rather than link to nothing or compute something real-valued).
template <class T, class = void>
inline constexpr bool has_known_solution = false;
template <class T>
inline constexpr bool
    has_known_solution<T, std::void_t<decltype(sb::generate_known_solution<T>(1, 1, 1)),
                                      decltype(sb::forward_error(std::declval<const sb::host_matrix<T>&>(),
                                                                 std::declval<const sb::host_matrix<T>&>()))>> = true;
template <class T, class = void>
inline constexpr bool has_conditioned = false;
template <class T>
inline constexpr bool has_conditioned<T, std::void_t<decltype(sb::generate_conditioned<T>(sb::conditioned_spec{}))>> =
    true;
static_assert(has_known_solution<double> && has_known_solution<float>);
static_assert(!has_known_solution<std::complex<double>> && !has_known_solution<std::complex<float>>);
static_assert(has_conditioned<double> && has_conditioned<float>);
static_assert(!has_conditioned<std::complex<double>> && !has_conditioned<std::complex<float>>);

TEST(KnownSolution, EntriesAreInTheirRangeAndDeterministic) {
  const auto x = sb::generate_known_solution<double>(500, 2, 3);
  const auto y = sb::generate_known_solution<double>(500, 2, 3);
  double lo = 2, hi = 0;
  for (std::int64_t c = 0; c < 2; ++c)
    for (std::int64_t i = 0; i < 500; ++i) {
      EXPECT_EQ(x(i, c), y(i, c));
      EXPECT_EQ(x(i, c), sb::solution_entry(sb::rng::solution_key(3), 500, i, c));
      lo = std::min(lo, x(i, c));
      hi = std::max(hi, x(i, c));
    }
  EXPECT_GE(lo, 0.5);
  EXPECT_LT(hi, 1.5);
  EXPECT_LT(lo, 0.51);
  EXPECT_GT(hi, 1.49);
}

TEST(KnownSolution, RhsIsTheProductRoundedOnce) {
  const std::int64_t n = 300;
  const auto a = sb::generate_conditioned<float>(sb::make_conditioned(n, 1e3, 4));
  const auto x = sb::generate_known_solution<float>(n, 2, 4);
  const auto b = sb::rhs_from_solution(a, x);
  for (std::int64_t c = 0; c < 2; ++c)
    for (std::int64_t i = 0; i < n; ++i) {
      long double exact = 0;
      for (std::int64_t j = 0; j < n; ++j)
        exact += static_cast<long double>(a(i, j)) * static_cast<long double>(x(j, c));
      // Summed in double, rounded once to float: within one float ulp of the exact product,
      // where a float accumulation of 300 terms could be off by many.
      EXPECT_LE(std::fabs(static_cast<double>(b(i, c)) - static_cast<double>(exact)),
                std::ldexp(std::fabs(static_cast<double>(exact)), -23))
          << i;
    }
}

TEST(KnownSolution, ForwardErrorFollowsItsDefinition) {
  sb::host_matrix<double> x(3, 2), xh(3, 2);
  for (std::int64_t c = 0; c < 2; ++c)
    for (std::int64_t i = 0; i < 3; ++i) x(i, c) = xh(i, c) = 1.0 + static_cast<double>(i);
  EXPECT_EQ(sb::forward_error(xh, x), 0.0);
  xh(1, 1) += 0.03;                                          // column 1: 0.03 / 3
  xh(0, 0) -= 0.003;                                         // column 0: 0.003 / 3
  EXPECT_NEAR(sb::forward_error(xh, x), 0.03 / 3.0, 1e-15);  // 2 + 0.03 is rounded
  xh(2, 0) = std::nan("");
  EXPECT_EQ(sb::forward_error(xh, x), std::numeric_limits<double>::infinity());
  xh(2, 0) = -std::numeric_limits<double>::infinity();
  EXPECT_EQ(sb::forward_error(xh, x), std::numeric_limits<double>::infinity());
}

TEST(KnownSolution, ForwardErrorOfLuGrowsWithCondWhileTheResidualPasses) {
  const std::int64_t n = 200;
  const double eps = sb::unit_roundoff<double>();
  double err[2] = {};
  const double conds[2] = {1e2, 1e8};
  for (int t = 0; t < 2; ++t) {
    const auto a0 = sb::generate_conditioned<double>(sb::make_conditioned(n, conds[t], 9));
    const auto x0 = sb::generate_known_solution<double>(n, 1, 9);
    const auto b0 = sb::rhs_from_solution(a0, x0);
    auto a = a0;
    auto x = b0;
    std::vector<lapack_int> ipiv(static_cast<std::size_t>(n));
    ASSERT_EQ(LAPACKE_dgesv(LAPACK_COL_MAJOR, static_cast<int>(n), 1, a.data(), static_cast<int>(n), ipiv.data(),
                            x.data(), static_cast<int>(n)),
              0);
    err[t] = sb::forward_error(x, x0);
    SCOPED_TRACE("cond = " + sb::format_condition_number(conds[t]) + ", forward error " + std::to_string(err[t]));
    EXPECT_LT(err[t], conds[t] * static_cast<double>(n) * eps);
    EXPECT_GT(err[t], eps);
    EXPECT_LT(sb::hpl_scaled_residual(a0, x, b0), sb::residual_threshold) << "backward stable either way";
  }
  EXPECT_GT(err[1], 1e3 * err[0]) << "the honest number: digits lost grow with cond";
}
