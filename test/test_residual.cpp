// The HPL scaled residual: zero for exact answers, large for wrong ones, Inf for NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include "precision_types.hpp"
#include "solvebench/errors.hpp"
#include "solvebench/generate.hpp"
#include "solvebench/lapack.hpp"
#include "solvebench/residual.hpp"

namespace sb = solvebench;

TEST(Residual, ExactAnswerGivesZero) {
  sb::host_matrix<double> a(2, 2), x(2, 1), b(2, 1);
  a(0, 0) = 2;
  a(0, 1) = 1;
  a(1, 0) = 4;
  a(1, 1) = 1;
  x(0, 0) = 1;
  x(1, 0) = 3;
  b(0, 0) = 5;
  b(1, 0) = 7;
  EXPECT_EQ(sb::hpl_scaled_residual(a, x, b), 0.0);
}

TEST(Residual, MatchesTheFormulaOnAHandExample) {
  // r = b - A x = [0.5, 0]; ||A||_inf = 5, ||x||_inf = 3, ||b||_inf = 7, n = 2.
  sb::host_matrix<double> a(2, 2), x(2, 1), b(2, 1);
  a(0, 0) = 2;
  a(0, 1) = 1;
  a(1, 0) = 4;
  a(1, 1) = 1;
  x(0, 0) = 1;
  x(1, 0) = 3;
  b(0, 0) = 5.5;
  b(1, 0) = 7;
  const double eps = std::ldexp(1.0, -53);
  EXPECT_DOUBLE_EQ(sb::hpl_scaled_residual(a, x, b), 0.5 / (eps * (5 * 3 + 7) * 2));
}

TEST(Residual, PerturbedSolutionFailsAndWorstColumnCounts) {
  const std::int64_t n = 64;
  const auto a0 = sb::generate_matrix<double>(sb::matrix_kind::uniform, n, 3);
  const auto b0 = sb::generate_rhs<double>(n, 2, 3);
  auto a = a0;
  auto x = b0;
  std::vector<sb::lapack::index_t> ipiv(n);
  sb::lapack::gesv(a, ipiv, x);
  const double good = sb::hpl_scaled_residual(a0, x, b0);
  EXPECT_LT(good, 1.0);
  x(7, 1) *= 1 + 1e-9;  // one entry of the second column, off by 1e-9 relative
  EXPECT_GT(sb::hpl_scaled_residual(a0, x, b0), sb::residual_threshold);
}

TEST(Residual, FloatUsesFloatEpsilon) {
  const std::int64_t n = 40;
  const auto a0 = sb::generate_matrix<float>(sb::matrix_kind::diagdom, n, 3);
  const auto b0 = sb::generate_rhs<float>(n, 1, 3);
  auto a = a0;
  auto x = b0;
  std::vector<sb::lapack::index_t> ipiv(n);
  sb::lapack::gesv(a, ipiv, x);
  const double r = sb::hpl_scaled_residual(a0, x, b0);
  EXPECT_LT(r, sb::residual_threshold);
  EXPECT_GT(r, 0.0) << "a float solve has rounding error visible in double";
}

TEST(Residual, NonFiniteAnswersFail) {
  sb::host_matrix<double> a(1, 1), x(1, 1), b(1, 1);
  a(0, 0) = 1;
  b(0, 0) = 1;
  x(0, 0) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isinf(sb::hpl_scaled_residual(a, x, b)));
  x(0, 0) = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(std::isinf(sb::hpl_scaled_residual(a, x, b)));
  try {
    sb::check_residual("CPU/dgesv/n:1", sb::hpl_scaled_residual(a, x, b));
    FAIL();
  } catch (const sb::residual_check_failed& e) {
    EXPECT_NE(std::string(e.what()).find("NaN or Inf"), std::string::npos);
  }
  EXPECT_THROW(sb::check_residual("x", 16.0), sb::residual_check_failed);
  EXPECT_NO_THROW(sb::check_residual("x", 15.9));
}

TEST(Residual, RejectsMismatchedShapes) {
  sb::host_matrix<double> a(3, 3), x(2, 1), b(3, 1);
  EXPECT_THROW(sb::hpl_scaled_residual(a, x, b), sb::invalid_argument);
}

// ---- complex -------------------------------------------------------------------------------

TEST(ResidualComplex, UsesTheModulusOnAHandExample) {
  using C = std::complex<double>;
  // A = [1+i 0; 0 2], x = [1; i], b = A x + [0.5i; 0]: r = b - A x = [0.5i; 0], |r|_inf = 0.5;
  // ||A||_inf = max(|1+i|, 2) = 2, ||x||_inf = 1, ||b||_inf = max(|1+1.5i|, |2i|) = 2, n = 2.
  sb::host_matrix<C> a(2, 2), x(2, 1), b(2, 1);
  a(0, 0) = C(1, 1);
  a(0, 1) = 0;
  a(1, 0) = 0;
  a(1, 1) = 2;
  x(0, 0) = 1;
  x(1, 0) = C(0, 1);
  b(0, 0) = C(1, 1);
  b(1, 0) = C(0, 2);
  EXPECT_EQ(sb::hpl_scaled_residual(a, x, b), 0.0);
  b(0, 0) = C(1, 1.5);
  const double eps = std::ldexp(1.0, -53);
  EXPECT_DOUBLE_EQ(sb::hpl_scaled_residual(a, x, b), 0.5 / (eps * (2 * 1 + 2) * 2));
}

TEST(ResidualComplex, EpsIsTheRealTypes) {
  EXPECT_EQ(sb::unit_roundoff<std::complex<double>>(), sb::unit_roundoff<double>());
  EXPECT_EQ(sb::unit_roundoff<std::complex<float>>(), sb::unit_roundoff<float>());
  EXPECT_EQ(sb::unit_roundoff<std::complex<float>>(), std::ldexp(1.0, -24));
}

template <class T>
class ResidualComplexSolve : public ::testing::Test {};
TYPED_TEST_SUITE(ResidualComplexSolve, ComplexPrecisions, PrecisionLetter);

TYPED_TEST(ResidualComplexSolve, SolveIsSmallAndAPerturbedAnswerFails) {
  using T = TypeParam;
  const std::int64_t n = 64;
  const auto a0 = sb::generate_matrix<T>(sb::matrix_kind::uniform, n, 3);
  const auto b0 = sb::generate_rhs<T>(n, 2, 3);
  auto a = a0;
  auto x = b0;
  std::vector<sb::lapack::index_t> ipiv(n);
  sb::lapack::gesv(a, ipiv, x);
  const double good = sb::hpl_scaled_residual(a0, x, b0);
  EXPECT_LT(good, 1.0);
  EXPECT_GT(good, 0.0);
  // The largest entry of the second column off by a relative 1e-2 (float) or 1e-9 (double),
  // in the imaginary direction only: the complex residual must see it.
  std::int64_t big = 0;
  for (std::int64_t i = 0; i < n; ++i)
    if (std::abs(x(i, 1)) > std::abs(x(big, 1))) big = i;
  const double off = std::is_same_v<T, std::complex<float>> ? 1e-2 : 1e-9;
  x(big, 1) += x(big, 1) * T(0, static_cast<typename T::value_type>(off));
  EXPECT_GT(sb::hpl_scaled_residual(a0, x, b0), sb::residual_threshold);
}

TYPED_TEST(ResidualComplexSolve, NonFiniteAnswersGiveInf) {
  using T = TypeParam;
  using R = typename T::value_type;
  sb::host_matrix<T> a(1, 1), x(1, 1), b(1, 1);
  a(0, 0) = 1;
  b(0, 0) = 1;
  x(0, 0) = T(1, std::numeric_limits<R>::quiet_NaN());
  EXPECT_TRUE(std::isinf(sb::hpl_scaled_residual(a, x, b)));
  x(0, 0) = T(std::numeric_limits<R>::infinity(), 0);
  EXPECT_TRUE(std::isinf(sb::hpl_scaled_residual(a, x, b)));
  EXPECT_THROW(sb::check_residual("CPU/zgesv/n:1", sb::hpl_scaled_residual(a, x, b)), sb::residual_check_failed);
}

TEST(Errors, OutOfMemoryStatesNeededAndAvailable) {
  const sb::out_of_memory e("device", 3ull << 30, 1ull << 30);
  const std::string msg = e.what();
  EXPECT_NE(msg.find("needed 3.00 GiB"), std::string::npos) << msg;
  EXPECT_NE(msg.find("available 1.00 GiB"), std::string::npos) << msg;
  EXPECT_EQ(e.needed_bytes(), 3ull << 30);
  EXPECT_THROW(sb::require_host_memory(std::uint64_t{1} << 62), sb::out_of_memory);
  EXPECT_NO_THROW(sb::require_host_memory(1024));
}
