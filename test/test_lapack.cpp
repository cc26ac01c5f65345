// CPU backend: exact small systems, random systems of odd sizes, and every error path.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include "precision_types.hpp"
#include "solvebench/errors.hpp"
#include "solvebench/generate.hpp"
#include "solvebench/lapack.hpp"
#include "solvebench/precision.hpp"
#include "solvebench/residual.hpp"

namespace sb = solvebench;
namespace lapack = solvebench::lapack;

namespace {

template <class T>
sb::host_matrix<T> from_rows(std::initializer_list<std::initializer_list<double>> rows) {
  const auto m = static_cast<std::int64_t>(rows.size()), n = static_cast<std::int64_t>(rows.begin()->size());
  sb::host_matrix<T> a(m, n);
  std::int64_t i = 0;
  for (const auto& r : rows) {
    std::int64_t j = 0;
    for (double v : r) a(i, j++) = T(static_cast<typename sb::precision<T>::real>(v));
    ++i;
  }
  return a;
}

std::vector<lapack::index_t> pivots(std::int64_t n) {
  return std::vector<lapack::index_t>(static_cast<std::size_t>(n));
}

}  // namespace

template <class T>
class Lapack : public ::testing::Test {};
TYPED_TEST_SUITE(Lapack, RealPrecisions, PrecisionLetter);

TYPED_TEST(Lapack, GesvSolvesAnExactSystemExactly) {
  // P A = L U with L = [1 0; 1/2 1], U = [4 1; 0 1/2]: every step is exact in binary.
  auto a = from_rows<TypeParam>({{2, 1}, {4, 1}});
  auto b = from_rows<TypeParam>({{5}, {7}});
  auto ipiv = pivots(2);
  lapack::gesv(a, ipiv, b);
  EXPECT_EQ(b(0, 0), TypeParam(1));
  EXPECT_EQ(b(1, 0), TypeParam(3));
  EXPECT_EQ(ipiv[0], 2) << "the larger first-column entry (row 2) is the pivot";
}

TYPED_TEST(Lapack, PosvSolvesAnExactSystemExactly) {
  auto a = from_rows<TypeParam>({{4, 2}, {2, 5}});  // L = [2 0; 1 2]
  auto b = from_rows<TypeParam>({{8}, {12}});
  lapack::posv(a, b);
  EXPECT_EQ(b(0, 0), TypeParam(1));
  EXPECT_EQ(b(1, 0), TypeParam(2));
  EXPECT_EQ(a(0, 0), TypeParam(2));
  EXPECT_EQ(a(1, 0), TypeParam(1));
  EXPECT_EQ(a(1, 1), TypeParam(2));
}

class LapackRandom : public ::testing::TestWithParam<std::int64_t> {};

template <class T>
void random_systems(std::int64_t n) {
  const std::int64_t nrhs = 3;
  const auto a0 = sb::generate_matrix<T>(sb::matrix_kind::uniform, n, 100 + static_cast<std::uint64_t>(n));
  const auto s0 = sb::generate_matrix<T>(sb::matrix_kind::spd, n, 200 + static_cast<std::uint64_t>(n));
  const auto b0 = sb::generate_rhs<T>(n, nrhs, 300);

  auto a = a0;
  auto x = b0;
  auto ipiv = pivots(n);
  lapack::gesv(a, ipiv, x);
  EXPECT_LT(sb::hpl_scaled_residual(a0, x, b0), sb::residual_threshold) << "gesv n=" << n;

  auto lu = a0;
  auto y = b0;
  lapack::getrf(lu, ipiv);
  lapack::getrs(lu, ipiv, y);
  EXPECT_LT(sb::hpl_scaled_residual(a0, y, b0), sb::residual_threshold) << "getrf+getrs n=" << n;
  // gesv is getrf + getrs; OpenBLAS may block them differently, so agree to cond * eps.
  const double tol = std::is_same_v<T, float> ? 1e-3 : 1e-10;
  for (std::int64_t j = 0; j < nrhs; ++j)
    for (std::int64_t i = 0; i < n; ++i)
      EXPECT_NEAR(static_cast<double>(x(i, j)), static_cast<double>(y(i, j)),
                  tol * (1 + std::fabs(static_cast<double>(x(i, j)))));

  auto c = s0;
  auto z = b0;
  lapack::posv(c, z);
  EXPECT_LT(sb::hpl_scaled_residual(s0, z, b0), sb::residual_threshold) << "posv n=" << n;

  auto l = s0;
  auto w = b0;
  lapack::potrf(l);
  lapack::potrs(l, w);
  EXPECT_LT(sb::hpl_scaled_residual(s0, w, b0), sb::residual_threshold) << "potrf+potrs n=" << n;
}

TEST_P(LapackRandom, DoubleSystemsPassTheResidualCheck) { random_systems<double>(GetParam()); }
TEST_P(LapackRandom, FloatSystemsPassTheResidualCheck) { random_systems<float>(GetParam()); }
INSTANTIATE_TEST_SUITE_P(OddSizes, LapackRandom, ::testing::Values(1, 2, 3, 17, 101, 255, 257));

// ---- every precision (s, d, c, z) -----------------------------------------------------------

template <class T>
class LapackAll : public ::testing::Test {};
TYPED_TEST_SUITE(LapackAll, AllPrecisions, PrecisionLetter);

TYPED_TEST(LapackAll, GemmMatchesANaiveProductAndPassesItsCheck) {
  using T = TypeParam;
  using W = typename sb::precision<T>::wide;
  const std::int64_t n = 45;
  const auto a = sb::generate_matrix<T>(sb::matrix_kind::uniform, n, 1);
  const auto b = sb::generate_matrix<T>(sb::matrix_kind::uniform, n, 2);
  sb::host_matrix<T> c(n, n);
  lapack::gemm(a, b, c);
  for (std::int64_t i = 0; i < n; i += 7)
    for (std::int64_t j = 0; j < n; j += 5) {
      W s = 0;
      for (std::int64_t k = 0; k < n; ++k) s += W(a(i, k)) * W(b(k, j));
      EXPECT_LE(std::abs(W(c(i, j)) - s), 1e-4 * std::abs(s)) << i << "," << j;
    }
  EXPECT_LT(sb::gemm_scaled_residual(a, b, c), sb::residual_threshold);
  c(3, 4) += one_off<T>();  // ~5-10% of the entry
  EXPECT_GT(sb::gemm_scaled_residual(a, b, c), sb::residual_threshold) << "a wrong entry must fail the check";
}

TYPED_TEST(LapackAll, SingularMatrixNamesThePivot) {
  using T = TypeParam;
  auto a = sb::generate_matrix<T>(sb::matrix_kind::singular, 300, 1);  // zero column 150
  auto b = sb::generate_rhs<T>(300, 1, 1);
  auto ipiv = pivots(300);
  try {
    lapack::gesv(a, ipiv, b);
    FAIL() << "expected singular_matrix";
  } catch (const sb::singular_matrix& e) {
    EXPECT_EQ(e.pivot(), 151);
    EXPECT_NE(std::string(e.what()).find("singular matrix"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("151"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(sb::routine_name<T>("LAPACKE_", "gesv")), std::string::npos) << e.what();
  }
  auto f = sb::generate_matrix<T>(sb::matrix_kind::singular, 7, 1);
  auto fp = pivots(7);
  try {
    lapack::getrf(f, fp);
    FAIL() << "expected singular_matrix";
  } catch (const sb::singular_matrix& e) {
    EXPECT_EQ(e.pivot(), 4);
  }
}

TYPED_TEST(LapackAll, NotPositiveDefiniteNamesTheMinor) {
  using T = TypeParam;
  auto a = sb::generate_matrix<T>(sb::matrix_kind::spd, 300, 1);
  a(200, 200) = T(-1);  // leading minors 1..200 stay SPD (HPD); minor 201 is not
  auto b = sb::generate_rhs<T>(300, 1, 1);
  try {
    lapack::posv(a, b);
    FAIL() << "expected not_positive_definite";
  } catch (const sb::not_positive_definite& e) {
    EXPECT_EQ(e.minor_order(), 201);
    EXPECT_NE(std::string(e.what()).find("not positive definite"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(sb::routine_name<T>("LAPACKE_", "posv")), std::string::npos) << e.what();
  }
  auto l = sb::generate_matrix<T>(sb::matrix_kind::spd, 40, 2);
  l(9, 9) = T(0);
  try {
    lapack::potrf(l);
    FAIL() << "expected not_positive_definite";
  } catch (const sb::not_positive_definite& e) {
    EXPECT_EQ(e.minor_order(), 10);
  }
  auto d = from_rows<T>({{1, 0, 0}, {0, -1, 0}, {0, 0, 1}});
  try {
    lapack::potrf(d);
    FAIL() << "expected not_positive_definite";
  } catch (const sb::not_positive_definite& e) {
    EXPECT_EQ(e.minor_order(), 2);
  }
}

TEST(LapackErrors, BadShapesAreRejectedBeforeLapackSeesThem) {
  sb::host_matrix<double> rect(3, 4), sq(3, 3), b4(4, 1), b3(3, 1);
  auto ipiv3 = pivots(3), ipiv2 = pivots(2);
  EXPECT_THROW(lapack::gesv(rect, ipiv3, b3), sb::invalid_argument);
  EXPECT_THROW(lapack::gesv(sq, ipiv3, b4), sb::invalid_argument);
  EXPECT_THROW(lapack::gesv(sq, ipiv2, b3), sb::invalid_argument);
  EXPECT_THROW(lapack::potrf(rect), sb::invalid_argument);
  EXPECT_THROW(sb::host_matrix<double>(0, 3), sb::invalid_argument);
  EXPECT_THROW(sb::host_matrix<double>(-1, -1), sb::invalid_argument);
}

TEST(LapackErrors, SizesOutsideTheIndexTypeAreRejected) {
  EXPECT_EQ(sb::checked_size("n", 4096, lapack::max_n), 4096);
  EXPECT_THROW(sb::checked_size("n", 0, lapack::max_n), sb::invalid_argument);
  EXPECT_THROW(sb::checked_size("n", -5, lapack::max_n), sb::invalid_argument);
  try {
    sb::checked_size("n", std::int64_t{1} << 31, lapack::max_n);
    FAIL() << "expected invalid_argument";
  } catch (const sb::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("overflows"), std::string::npos);
  }
}

TEST(LapackErrors, InfoBelowZeroIsAnInvalidArgument) {
  try {
    sb::throw_on_info("LAPACKE_dgesv", -4, sb::factorization::lu);
    FAIL();
  } catch (const sb::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("argument 4"), std::string::npos);
  }
  EXPECT_NO_THROW(sb::throw_on_info("x", 0, sb::factorization::cholesky));
}

TEST(LapackErrors, NanInputIsCaughtByTheResidualCheck) {
  auto a0 = sb::generate_matrix<double>(sb::matrix_kind::diagdom, 50, 1);
  a0(10, 20) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(sb::require_finite("A", a0), sb::non_finite_input);
  auto a = a0;
  const auto b0 = sb::generate_rhs<double>(50, 1, 1);
  auto x = b0;
  auto ipiv = pivots(50);
  lapack::gesv(a, ipiv, x);  // LAPACK itself does not notice
  const double r = sb::hpl_scaled_residual(a0, x, b0);
  EXPECT_FALSE(r < sb::residual_threshold);
  EXPECT_THROW(sb::check_residual("dgesv", r), sb::residual_check_failed);
}

TEST(LapackMixed, DsgesvReachesDoubleAccuracyWithFewIterations) {
  const std::int64_t n = 300;
  const auto a0 = sb::generate_matrix<double>(sb::matrix_kind::diagdom, n, 4);
  const auto b = sb::generate_rhs<double>(n, 2, 4);
  auto a = a0;
  sb::host_matrix<double> x(n, 2);
  lapack::dsgesv_solver solver(n, 2);
  const auto iter = solver.solve(a, b, x);
  EXPECT_GT(iter, 0) << "a well-conditioned system converges without falling back";
  EXPECT_LE(iter, 5);
  EXPECT_LT(sb::hpl_scaled_residual(a0, x, b), sb::residual_threshold);
}

// ---- complex (c, z) ------------------------------------------------------------------------

template <class T>
class LapackComplex : public ::testing::Test {};
TYPED_TEST_SUITE(LapackComplex, ComplexPrecisions, PrecisionLetter);

TYPED_TEST(LapackComplex, PosvSolvesAnExactHermitianSystemExactly) {
  using T = TypeParam;
  // A = [4 2i; -2i 5] = L L^H with L = [2 0; -i 2]; x = [1; 2i], b = A x = [0; 8i].
  sb::host_matrix<T> a(2, 2), b(2, 1);
  a(0, 0) = 4;
  a(0, 1) = T(0, 2);
  a(1, 0) = T(0, -2);
  a(1, 1) = 5;
  b(0, 0) = 0;
  b(1, 0) = T(0, 8);
  lapack::posv(a, b);
  EXPECT_EQ(b(0, 0), T(1));
  EXPECT_EQ(b(1, 0), T(0, 2));
  EXPECT_EQ(a(0, 0), T(2));
  EXPECT_EQ(a(1, 0), T(0, -1));
  EXPECT_EQ(a(1, 1), T(2));
}

template <class T>
void random_complex_systems(std::int64_t n) {
  const std::int64_t nrhs = 3;
  const auto a0 = sb::generate_matrix<T>(sb::matrix_kind::uniform, n, 100 + static_cast<std::uint64_t>(n));
  const auto h0 = sb::generate_matrix<T>(sb::matrix_kind::spd, n, 200 + static_cast<std::uint64_t>(n));
  const auto d0 = sb::generate_matrix<T>(sb::matrix_kind::diagdom, n, 400 + static_cast<std::uint64_t>(n));
  const auto b0 = sb::generate_rhs<T>(n, nrhs, 300);
  auto ipiv = pivots(n);
  for (const auto* m : {&a0, &d0}) {
    auto a = *m;
    auto x = b0;
    lapack::gesv(a, ipiv, x);
    EXPECT_LT(sb::hpl_scaled_residual(*m, x, b0), sb::residual_threshold) << "gesv n=" << n;
    auto lu = *m;
    auto y = b0;
    lapack::getrf(lu, ipiv);
    lapack::getrs(lu, ipiv, y);
    EXPECT_LT(sb::hpl_scaled_residual(*m, y, b0), sb::residual_threshold) << "getrf+getrs n=" << n;
  }
  auto c = h0;
  auto z = b0;
  lapack::posv(c, z);
  EXPECT_LT(sb::hpl_scaled_residual(h0, z, b0), sb::residual_threshold) << "posv n=" << n;
  auto l = h0;
  auto w = b0;
  lapack::potrf(l);
  lapack::potrs(l, w);
  EXPECT_LT(sb::hpl_scaled_residual(h0, w, b0), sb::residual_threshold) << "potrf+potrs n=" << n;
  // Solving with a real-symmetric reading of A (conj dropped) would fail: the check sees it.
  if (n > 1) {
    auto wrong = h0;
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = j + 1; i < n; ++i) wrong(j, i) = wrong(i, j);  // symmetric, not Hermitian
    auto v = b0;
    lapack::gesv(wrong, ipiv, v);
    EXPECT_GT(sb::hpl_scaled_residual(h0, v, b0), sb::residual_threshold) << "n=" << n;
  }
}

class LapackComplexRandom : public ::testing::TestWithParam<std::int64_t> {};
TEST_P(LapackComplexRandom, DoubleComplexSystemsPassTheResidualCheck) {
  random_complex_systems<std::complex<double>>(GetParam());
}
TEST_P(LapackComplexRandom, FloatComplexSystemsPassTheResidualCheck) {
  random_complex_systems<std::complex<float>>(GetParam());
}
INSTANTIATE_TEST_SUITE_P(OddSizes, LapackComplexRandom, ::testing::Values(1, 2, 3, 17, 101, 255, 257));

TYPED_TEST(LapackComplex, NanInputIsCaughtByTheResidualCheck) {
  using T = TypeParam;
  const auto a0 = sb::generate_matrix<T>(sb::matrix_kind::nan, 50, 1);
  EXPECT_THROW(sb::require_finite("A", a0), sb::non_finite_input);
  auto a = a0;
  const auto b0 = sb::generate_rhs<T>(50, 1, 1);
  auto x = b0;
  auto ipiv = pivots(50);
  try {
    lapack::gesv(a, ipiv, x);  // LAPACK may or may not notice; the residual must
  } catch (const sb::singular_matrix&) {
    return;
  }
  EXPECT_FALSE(sb::hpl_scaled_residual(a0, x, b0) < sb::residual_threshold);
}
