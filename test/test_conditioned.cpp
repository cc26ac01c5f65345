// Prescribed-condition matrices: the singular values are the request, U and V are orthogonal
// products of the reflectors, the per-entry algebra equals U S V^T, and it is deterministic.
#include <gtest/gtest.h>

#include <lapacke.h>

#include <cmath>
#include <vector>

#include "solvebench/conditioned.hpp"
#include "solvebench/errors.hpp"

namespace sb = solvebench;

namespace {

// Singular values of A (destroyed copy), decreasing.
std::vector<double> singular_values(sb::host_matrix<double> a) {
  const int n = static_cast<int>(a.rows());
  std::vector<double> s(static_cast<std::size_t>(n)), superb(static_cast<std::size_t>(n));
  const int info =
      LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', 'N', n, n, a.data(), n, s.data(), nullptr, 1, nullptr, 1, superb.data());
  EXPECT_EQ(info, 0);
  return s;
}

using dense = std::vector<std::vector<double>>;

dense identity(std::int64_t n) {
  dense m(static_cast<std::size_t>(n), std::vector<double>(static_cast<std::size_t>(n), 0.0));
  for (std::int64_t i = 0; i < n; ++i) m[static_cast<std::size_t>(i)][static_cast<std::size_t>(i)] = 1;
  return m;
}

// H_0 H_1 ... H_{k-1} built directly from the raw stream vectors, without the WY algebra
// the generator uses: H_m = I - 2 v v^T / (v^T v).
dense reflector_product(std::uint64_t key, std::int64_t n, int k) {
  dense q = identity(n);
  const auto un = static_cast<std::size_t>(n);
  for (int m = 0; m < k; ++m) {
    std::vector<double> v(un);
    double vv = 0;
    for (std::size_t i = 0; i < un; ++i) {
      v[i] = sb::rng::reflector_component(key, n, m, static_cast<std::int64_t>(i));
      vv += v[i] * v[i];
    }
    // q := q H_m = q - (2 / vv) (q v) v^T
    for (std::size_t r = 0; r < un; ++r) {
      double qv = 0;
      for (std::size_t c = 0; c < un; ++c) qv += q[r][c] * v[c];
      for (std::size_t c = 0; c < un; ++c) q[r][c] -= 2.0 / vv * qv * v[c];
    }
  }
  return q;
}

double orthogonality_error(const dense& q) {
  const std::size_t n = q.size();
  double worst = 0;
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b) {
      double dot = 0;
      for (std::size_t r = 0; r < n; ++r) dot += q[r][a] * q[r][b];
      worst = std::max(worst, std::fabs(dot - (a == b ? 1.0 : 0.0)));
    }
  return worst;
}

}  // namespace

TEST(Conditioned, SingularValuesAreTheGeometricRequest) {
  for (std::int64_t n : {50, 120, 200})
    for (double cond : {1e1, 1e4, 1e8}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", cond = " + sb::format_condition_number(cond));
      const auto spec = sb::make_conditioned(n, cond, 7);
      const auto s = singular_values(sb::generate_conditioned<double>(spec));
      const double realised = s.front() / s.back();
      EXPECT_NEAR(realised / cond, 1.0, 0.1) << "the issue's bar";
      EXPECT_NEAR(realised / cond, 1.0, 1e-6) << "what the construction actually gives";
      // Weyl: each computed singular value is within ||rounding of A||_2 of the exact one.
      const double ratio = std::pow(cond, 1.0 / static_cast<double>(n - 1));
      for (std::int64_t i = 0; i < n; ++i) {
        const double want = std::pow(cond, -static_cast<double>(i) / static_cast<double>(n - 1));
        EXPECT_NEAR(s[static_cast<std::size_t>(i)], want, 1e-13) << "sigma_" << i;
        EXPECT_NEAR(sb::conditioned_sigma(spec, i), want, 1e-13 * want) << "sigma_" << i;  // exp vs pow
      }
      // Geometric spread: consecutive ratios are all cond^(1/(n-1)).
      for (std::size_t i = 0; i + 1 < s.size(); ++i)
        if (s[i + 1] > 1e-6) {
          EXPECT_NEAR(s[i] / s[i + 1], ratio, 1e-6 * ratio) << "i = " << i;
        }
    }
}

TEST(Conditioned, LargeConditionNumbersStillHold) {
  for (double cond : {1e10, 1e12}) {
    const auto s = singular_values(sb::generate_conditioned<double>(sb::make_conditioned(200, cond, 7)));
    EXPECT_NEAR(s.front() / s.back() / cond, 1.0, 0.01) << "cond = " << cond;
  }
}

TEST(Conditioned, EntriesAreUSigmaVtWithOrthogonalReflectorProducts) {
  // The per-entry formula (compact WY, W = T1 Y1^T S Y2 T2^T) against the plain product of
  // explicit Householder matrices, for several k: the algebra, not just the spectrum.
  const std::int64_t n = 40;
  for (int k : {1, 2, 3, 8}) {
    SCOPED_TRACE("k = " + std::to_string(k));
    const auto spec = sb::make_conditioned(n, 1e3, 11, k, 2.5);
    const dense u = reflector_product(spec.key_u, n, k), v = reflector_product(spec.key_v, n, k);
    EXPECT_LT(orthogonality_error(u), 1e-14);
    EXPECT_LT(orthogonality_error(v), 1e-14);
    double moved = 0;  // the reflectors do mix: U is far from I
    for (std::size_t a = 0; a < u.size(); ++a)
      for (std::size_t b = 0; b < u.size(); ++b) moved = std::max(moved, std::fabs(u[a][b] - (a == b ? 1.0 : 0.0)));
    EXPECT_GT(moved, 0.05);

    const auto a = sb::generate_conditioned<double>(spec);
    double worst = 0, off_diagonal = 0;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double want = 0;  // (U S V^T)_ij
        for (std::int64_t l = 0; l < n; ++l)
          want += u[static_cast<std::size_t>(i)][static_cast<std::size_t>(l)] * sb::conditioned_sigma(spec, l) *
                  v[static_cast<std::size_t>(j)][static_cast<std::size_t>(l)];
        worst = std::max(worst, std::fabs(a(i, j) - want));
        if (i != j) off_diagonal = std::max(off_diagonal, std::fabs(a(i, j)));
      }
    EXPECT_LT(worst, 1e-14 * spec.sigma_max);
    EXPECT_GT(off_diagonal, 1e-3) << "dense, not diagonal";
  }
}

TEST(Conditioned, DeterministicAndTheEntryFunctionIsTheGenerator) {
  const auto spec = sb::make_conditioned(37, 1e6, 5);
  const auto a = sb::generate_conditioned<double>(spec);
  const auto b = sb::generate_conditioned<double>(sb::make_conditioned(37, 1e6, 5));
  const auto c = sb::generate_conditioned<double>(sb::make_conditioned(37, 1e6, 6));
  const auto f = sb::generate_conditioned<float>(spec);
  int differ = 0;
  for (std::int64_t j = 0; j < 37; ++j)
    for (std::int64_t i = 0; i < 37; ++i) {
      ASSERT_EQ(a(i, j), b(i, j)) << "same seed, same bits";
      differ += a(i, j) != c(i, j);
      // What a GPU column block or an MPI rank computes from global indices.
      ASSERT_EQ(a(i, j), sb::conditioned_entry(spec, i, j));
      ASSERT_EQ(f(i, j), static_cast<float>(sb::conditioned_entry(spec, i, j)));
    }
  EXPECT_GT(differ, 37 * 37 - 5);
}

TEST(Conditioned, SigmaMaxScalesTheMatrix) {
  const auto one = sb::generate_conditioned<double>(sb::make_conditioned(30, 1e4, 2, 3, 1.0));
  const auto big = sb::generate_conditioned<double>(sb::make_conditioned(30, 1e4, 2, 3, 1024.0));
  for (std::int64_t j = 0; j < 30; ++j)
    for (std::int64_t i = 0; i < 30; ++i) EXPECT_NEAR(big(i, j), 1024.0 * one(i, j), 1e-12);
  const auto s = singular_values(big);
  EXPECT_NEAR(s.front(), 1024.0, 1e-9);
  EXPECT_NEAR(s.back(), 1024.0 / 1e4, 1e-9);
}

TEST(Conditioned, RejectsBadRequestsByName) {
  EXPECT_THROW(sb::make_conditioned(0, 1e4), sb::invalid_argument);
  EXPECT_THROW(sb::make_conditioned(10, 0.5), sb::invalid_argument);
  EXPECT_THROW(sb::make_conditioned(10, std::nan("")), sb::invalid_argument);
  EXPECT_THROW(sb::make_conditioned(10, 1e17), sb::invalid_argument);
  EXPECT_THROW(sb::make_conditioned(1, 10.0), sb::invalid_argument);
  EXPECT_NO_THROW(sb::make_conditioned(1, 1.0));
  EXPECT_THROW(sb::make_conditioned(10, 1e4, 1, 0), sb::invalid_argument);
  EXPECT_THROW(sb::make_conditioned(10, 1e4, 1, sb::conditioned_max_reflectors + 1), sb::invalid_argument);
  EXPECT_THROW(sb::make_conditioned(10, 1e4, 1, 3, 0.0), sb::invalid_argument);
  try {
    sb::make_conditioned(10, 0.5);
    FAIL();
  } catch (const sb::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cond = 0.5"), std::string::npos) << e.what();
  }
}

TEST(Conditioned, ConditionNumberTextRoundTrips) {
  EXPECT_EQ(sb::parse_condition_number("1e4"), 1e4);
  EXPECT_EQ(sb::parse_condition_number("250"), 250.0);
  for (double c : {1.0, 1e1, 1e4, 1e8, 1e12, 1e16})
    EXPECT_EQ(sb::parse_condition_number(sb::format_condition_number(c)), c);
  EXPECT_EQ(sb::format_condition_number(1e4), "1e4");
  EXPECT_EQ(sb::format_condition_number(1.0), "1e0");
  EXPECT_EQ(sb::format_condition_number(250.0), "250");
  for (const char* bad : {"", "abc", "1e4x", "0.5", "-3", "inf", "nan", "1e400"})
    EXPECT_THROW(sb::parse_condition_number(bad), sb::invalid_argument) << bad;
}
