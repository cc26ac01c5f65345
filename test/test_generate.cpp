// Generators: determinism, the properties each kind promises, and host/entry agreement.
#include <gtest/gtest.h>

#include <complex>
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "precision_types.hpp"
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
  for (auto kind :
       {sb::matrix_kind::uniform, sb::matrix_kind::diagdom, sb::matrix_kind::spd, sb::matrix_kind::singular}) {
    const auto a = sb::generate_matrix<float>(kind, n, 11);
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < n; ++i)
        EXPECT_EQ(a(i, j), static_cast<float>(sb::matrix_entry(kind, key, n, i, j))) << sb::to_string(kind);
  }
}

TEST(Generate, ABatchIsItsSystemsOneByOne) {
  // System s of a batch is the matrix and right-hand side of seed + s, as the device's batches.
  const std::int64_t n = 9, count = 4;
  for (auto kind : {sb::matrix_kind::uniform, sb::matrix_kind::spd}) {
    std::vector<double> a(static_cast<std::size_t>(n * n * count), -1), b(static_cast<std::size_t>(n * count), -1);
    sb::generate_matrix_batch(a.data(), kind, n, count, 40);
    sb::generate_rhs_batch(b.data(), n, count, 40);
    for (std::int64_t s = 0; s < count; ++s) {
      const auto one = sb::generate_matrix<double>(kind, n, 40 + static_cast<std::uint64_t>(s));
      const auto rhs = sb::generate_rhs<double>(n, 1, 40 + static_cast<std::uint64_t>(s));
      for (std::int64_t j = 0; j < n; ++j) {
        for (std::int64_t i = 0; i < n; ++i)
          ASSERT_EQ(a[static_cast<std::size_t>(s * n * n + j * n + i)], one(i, j)) << s << " " << i << " " << j;
      }
      for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(b[static_cast<std::size_t>(s * n + i)], rhs(i, 0));
    }
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
    const double anorm =
        LAPACKE_dlange(LAPACK_COL_MAJOR, '1', static_cast<int>(n), static_cast<int>(n), a.data(), static_cast<int>(n));
    ASSERT_EQ(LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', static_cast<int>(n), a.data(), static_cast<int>(n)), 0)
        << "Cholesky must succeed for n = " << n;
    double rcond = 0;
    ASSERT_EQ(LAPACKE_dpocon(LAPACK_COL_MAJOR, 'L', static_cast<int>(n), a.data(), static_cast<int>(n), anorm, &rcond),
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
  for (auto kind :
       {sb::matrix_kind::uniform, sb::matrix_kind::diagdom, sb::matrix_kind::spd, sb::matrix_kind::singular})
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

TEST(Generate, RealEntriesArePinned) {
  // Entries of the default seed at n = 100 as every earlier version gave them: the s and d rows
  // must keep solving the same systems whatever is added beside them.
  const auto key = sb::rng::matrix_key(sb::default_seed);
  EXPECT_EQ(sb::matrix_entry(sb::matrix_kind::uniform, key, 100, 0, 0), 0x1.0ffd7d85dab73p-1);
  EXPECT_EQ(sb::matrix_entry(sb::matrix_kind::uniform, key, 100, 3, 7), 0x1.b9c0cabc9e23cp-3);
  EXPECT_EQ(sb::matrix_entry(sb::matrix_kind::uniform, key, 100, 63, 64), 0x1.1318ff6edff8p-7);
  EXPECT_EQ(sb::matrix_entry(sb::matrix_kind::diagdom, key, 100, 0, 0), 100.0);
  EXPECT_EQ(sb::matrix_entry(sb::matrix_kind::diagdom, key, 100, 7, 3), 0x1.56447bc84a38dp-1);
  EXPECT_EQ(sb::matrix_entry(sb::matrix_kind::spd, key, 100, 7, 3), 0x1.b9c0cabc9e23cp-3);
  EXPECT_EQ(sb::matrix_entry(sb::matrix_kind::spd, key, 100, 99, 0), 0x1.ccaed56247f4ep-1);
  EXPECT_EQ(sb::rhs_entry(sb::rng::rhs_key(sb::default_seed), 100, 5, 2), 0x1.48ebb98043824p-2);
  const auto f = sb::generate_matrix<float>(sb::matrix_kind::uniform, 100, sb::default_seed);
  EXPECT_EQ(f(99, 0), 0x1.678b24p-1f);
  EXPECT_EQ(f(63, 64), 0x1.1319p-7f);
}

// ---- complex -------------------------------------------------------------------------------

template <class T>
class GenerateComplex : public ::testing::Test {};
TYPED_TEST_SUITE(GenerateComplex, ComplexPrecisions, PrecisionLetter);

TYPED_TEST(GenerateComplex, EntriesMatchThePointwiseDefinitionAndTheRealGenerator) {
  using T = TypeParam;
  using R = typename T::value_type;
  const std::int64_t n = 23;
  const auto key = sb::rng::matrix_key(11);
  for (auto kind :
       {sb::matrix_kind::uniform, sb::matrix_kind::diagdom, sb::matrix_kind::spd, sb::matrix_kind::singular}) {
    const auto a = sb::generate_matrix<T>(kind, n, 11);
    const auto real = sb::generate_matrix<R>(kind, n, 11);
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < n; ++i) {
        const sb::complex_entry e = sb::complex_matrix_entry(kind, key, n, i, j);
        ASSERT_EQ(a(i, j), T(static_cast<R>(e.re), static_cast<R>(e.im))) << sb::to_string(kind);
        // Off the diagonal the real part is the real matrix's entry, bit for bit.
        if (i != j) {
          ASSERT_EQ(a(i, j).real(), real(i, j)) << sb::to_string(kind) << " " << i << "," << j;
        }
      }
  }
  const auto b = sb::generate_rhs<T>(n, 2, 11);
  const auto rb = sb::generate_rhs<R>(n, 2, 11);
  for (std::int64_t i = 0; i < n; ++i) {
    EXPECT_EQ(b(i, 1).real(), rb(i, 1));
    EXPECT_NE(b(i, 1).imag(), rb(i, 1));
  }
}

TYPED_TEST(GenerateComplex, UniformHasBothPartsLikeNumpyRand) {
  const auto a = sb::generate_matrix<TypeParam>(sb::matrix_kind::uniform, 300, 1);
  double re_sum = 0, im_sum = 0, lo = 1, hi = 0, same = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    const auto v = a.data()[k];
    re_sum += static_cast<double>(v.real());
    im_sum += static_cast<double>(v.imag());
    lo = std::min({lo, static_cast<double>(v.real()), static_cast<double>(v.imag())});
    hi = std::max({hi, static_cast<double>(v.real()), static_cast<double>(v.imag())});
    same += v.real() == v.imag();
  }
  const auto count = static_cast<double>(a.size());
  EXPECT_GE(lo, 0.0);
  EXPECT_LT(hi, 1.0);
  EXPECT_NEAR(re_sum / count, 0.5, 0.005);
  EXPECT_NEAR(im_sum / count, 0.5, 0.005);
  EXPECT_EQ(same, 0) << "the imaginary parts must come from their own stream";
}

TYPED_TEST(GenerateComplex, DiagdomIsStrictlyDiagonallyDominantInModulus) {
  const std::int64_t n = 200;
  const auto a = sb::generate_matrix<TypeParam>(sb::matrix_kind::diagdom, n, 3);
  bool hermitian = true;
  for (std::int64_t i = 0; i < n; ++i) {
    double row = 0, column = 0;
    for (std::int64_t j = 0; j < n; ++j)
      if (j != i) {
        row += std::abs(std::complex<double>(a(i, j)));
        column += std::abs(std::complex<double>(a(j, i)));
        hermitian = hermitian && a(i, j) == std::conj(a(j, i));
      }
    EXPECT_EQ(a(i, i).imag(), 0);
    EXPECT_GT(static_cast<double>(a(i, i).real()), row) << "row " << i;
    EXPECT_GT(static_cast<double>(a(i, i).real()), column) << "column " << i;
  }
  EXPECT_FALSE(hermitian) << "diagdom is meant to be a general matrix";
}

TEST(GenerateComplexHpd, SpdIsHermitianPositiveDefiniteAndWellConditioned) {
  using T = std::complex<double>;
  for (std::int64_t n : {1, 2, 50, 400}) {
    auto a = sb::generate_matrix<T>(sb::matrix_kind::spd, n, 9);
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(a(i, j), std::conj(a(j, i))) << i << "," << j;
    for (std::int64_t i = 0; i < n; ++i) ASSERT_GT(a(i, i).real(), 0.0);
    if (n > 1) {
      EXPECT_NE(a(1, 0).imag(), 0.0) << "Hermitian, not merely real symmetric";
    }
    const int m = static_cast<int>(n);
    const double anorm = LAPACKE_zlanhe(LAPACK_COL_MAJOR, '1', 'L', m, a.data(), m);
    ASSERT_EQ(LAPACKE_zpotrf(LAPACK_COL_MAJOR, 'L', m, a.data(), m), 0) << "Cholesky must succeed for n = " << n;
    double rcond = 0;
    ASSERT_EQ(LAPACKE_zpocon(LAPACK_COL_MAJOR, 'L', m, a.data(), m, anorm, &rcond), 0);
    EXPECT_GT(rcond, 1.0 / 3.0) << "cond_1 estimate " << 1 / rcond << " at n = " << n;  // ~1.9
  }
}

TYPED_TEST(GenerateComplex, SingularAndNanAsForReal) {
  using T = TypeParam;
  const auto s = sb::generate_matrix<T>(sb::matrix_kind::singular, 9, 2);
  for (std::int64_t i = 0; i < 9; ++i) EXPECT_EQ(s(i, 4), T(0));
  EXPECT_NE(s(0, 3), T(0));
  const auto bad = sb::generate_matrix<T>(sb::matrix_kind::nan, 9, 2);
  EXPECT_TRUE(std::isnan(bad(4, 4).real()) && std::isnan(bad(4, 4).imag()));
  try {
    sb::require_finite("A", bad);
    FAIL() << "expected non_finite_input";
  } catch (const sb::non_finite_input& e) {
    EXPECT_NE(std::string(e.what()).find('A'), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(sb::require_finite("A", s));
  auto inf_imag = s;
  inf_imag(2, 7) = T(1, std::numeric_limits<typename T::value_type>::infinity());
  try {
    sb::require_finite("A", inf_imag);
    FAIL() << "an Inf imaginary part alone must be caught";
  } catch (const sb::non_finite_input& e) {
    EXPECT_NE(std::string(e.what()).find("Inf at (2,7)"), std::string::npos) << e.what();
  }
}
