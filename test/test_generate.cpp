// Generators: determinism, the properties each kind promises, and host/entry agreement.
#include <gtest/gtest.h>

#include <lapacke.h>

#include <cmath>

#include "solvebench/errors.hpp"
#include "solvebench/generate.hpp"

namespace sb = solvebench;

TEST(Generate, SameSeedSameMatrixOtherSeedOtherMatrix) {
  const auto a = sb::generate_matrix<double>(sb::matrix_kind::uniform, 37, 5);
  const auto b = sb::generate_matrix<double>(sb::matrix_kind::uniform, 37, 5);
  const auto c = sb::generate_matrix<double>(sb::matrix_kind::uniform, 37, 6);
  int differ = 0;
  for (std::int64_t j = 0; j < 37; ++j)
    for (std::int64_t i = 0; i < 37; ++i) {
      EXPECT_EQ(a(i, j), b(i, j));
      differ += a(i, j) != c(i, j);
    }
  EXPECT_GT(differ, 37 * 37 - 5);
}

TEST(Generate, EntriesMatchThePointwiseDefinition) {
  // What a GPU kernel or an MPI rank computes from global indices is what the host fills.
  const std::int64_t n = 23;
  const auto key = sb::rng::matrix_key(11);
  for (auto kind : {sb::matrix_kind::uniform, sb::matrix_kind::diagdom, sb::matrix_kind::spd,
                    sb::matrix_kind::singular}) {
    const auto a = sb::generate_matrix<float>(kind, n, 11);
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < n; ++i)
        EXPECT_EQ(a(i, j), static_cast<float>(sb::matrix_entry(kind, key, n, i, j))) << sb::to_string(kind);
  }
}

TEST(Generate, UniformLooksLikeNumpyRand) {
  const auto a = sb::generate_matrix<double>(sb::matrix_kind::uniform, 300, 1);
  double sum = 0, lo = 1, hi = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    sum += a.data()[k];
    lo = std::min(lo, a.data()[k]);
    hi = std::max(hi, a.data()[k]);
  }
  EXPECT_GE(lo, 0.0);
  EXPECT_LT(hi, 1.0);
  EXPECT_NEAR(sum / static_cast<double>(a.size()), 0.5, 0.005);  // 90000 samples: sd of mean ~0.001
  EXPECT_LT(lo, 1e-3);
  EXPECT_GT(hi, 1 - 1e-3);
}

TEST(Generate, DiagdomIsStrictlyDiagonallyDominant) {
  const std::int64_t n = 200;
  const auto a = sb::generate_matrix<double>(sb::matrix_kind::diagdom, n, 3);
  bool symmetric = true;
  for (std::int64_t i = 0; i < n; ++i) {
    double off = 0;
    for (std::int64_t j = 0; j < n; ++j)
      if (j != i) {
        off += std::fabs(a(i, j));
        symmetric = symmetric && a(i, j) == a(j, i);
      }
    EXPECT_GT(std::fabs(a(i, i)), off) << "row " << i;
  }
  EXPECT_FALSE(symmetric) << "diagdom is meant to be a general matrix";
}

TEST(Generate, SpdIsSymmetricPositiveDefiniteAndWellConditioned) {
  for (std::int64_t n : {1, 2, 50, 400}) {
    auto a = sb::generate_matrix<double>(sb::matrix_kind::spd, n, 9);
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(a(i, j), a(j, i));
    const double anorm = LAPACKE_dlange(LAPACK_COL_MAJOR, '1', static_cast<int>(n), static_cast<int>(n),
                                        a.data(), static_cast<int>(n));
    ASSERT_EQ(LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', static_cast<int>(n), a.data(), static_cast<int>(n)), 0)
        << "Cholesky must succeed for n = " << n;
    double rcond = 0;
    ASSERT_EQ(LAPACKE_dpocon(LAPACK_COL_MAJOR, 'L', static_cast<int>(n), a.data(), static_cast<int>(n), anorm,
                             &rcond),
              0);
    EXPECT_GT(rcond, 1.0 / 3.0) << "cond_1 estimate " << 1 / rcond << " at n = " << n;
  }
}

TEST(Generate, SingularHasAZeroColumnAtHalfN) {
  const auto a = sb::generate_matrix<double>(sb::matrix_kind::singular, 9, 2);
  for (std::int64_t i = 0; i < 9; ++i) EXPECT_EQ(a(i, 4), 0.0);
  EXPECT_NE(a(0, 3), 0.0);
}

TEST(Generate, RhsUsesItsOwnStream) {
  const auto a = sb::generate_matrix<double>(sb::matrix_kind::uniform, 16, 4);
  const auto b = sb::generate_rhs<double>(16, 1, 4);
  EXPECT_NE(a(0, 0), b(0, 0));
  EXPECT_EQ(b(5, 0), sb::rhs_entry(sb::rng::rhs_key(4), 16, 5, 0));
}

TEST(Generate, KindNamesRoundTripAndUnknownIsRejected) {
  for (auto kind : {sb::matrix_kind::uniform, sb::matrix_kind::diagdom, sb::matrix_kind::spd,
                    sb::matrix_kind::singular})
    EXPECT_EQ(sb::parse_matrix_kind(sb::to_string(kind)), kind);
  try {
    sb::parse_matrix_kind("hilbert");
    FAIL() << "expected invalid_argument";
  } catch (const sb::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("hilbert"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("uniform"), std::string::npos);
  }
}

TEST(Generate, RejectsBadSizes) {
  EXPECT_THROW(sb::generate_matrix<double>(sb::matrix_kind::uniform, 0, 1), sb::invalid_argument);
  EXPECT_THROW(sb::generate_matrix<double>(sb::matrix_kind::uniform, -3, 1), sb::invalid_argument);
}
