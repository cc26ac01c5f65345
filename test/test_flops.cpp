// LAWN 41 counts against operation counts taken from textbook algorithms, and their weights.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <vector>

#include "solvebench/flops.hpp"

namespace sb = solvebench;

namespace {

// A scalar that counts every arithmetic operation done on it: additions (+, -) and, as LAWN
// 41 counts them, multiplications (*, /, sqrt).
struct counted {
  double v = 0;
  static inline long ops = 0, mults = 0;
};
counted operator+(counted a, counted b) {
  ++counted::ops;
  return {a.v + b.v};
}
counted operator-(counted a, counted b) {
  ++counted::ops;
  return {a.v - b.v};
}
counted operator*(counted a, counted b) {
  ++counted::ops;
  ++counted::mults;
  return {a.v * b.v};
}
counted operator/(counted a, counted b) {
  ++counted::ops;
  ++counted::mults;
  return {a.v / b.v};
}
counted sqrt(counted a) {
  ++counted::ops;
  ++counted::mults;
  return {std::sqrt(a.v)};
}
// What the last count_*() saw: {multiplications, additions}.
sb::flop_counts last_count() {
  return {static_cast<double>(counted::mults), static_cast<double>(counted::ops - counted::mults)};
}

// Square matrix of counted ones, indexed with ints like the textbook loops below.
class mat {
 public:
  explicit mat(int n) : n_(n), v_(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), counted{1.0}) {}
  counted& operator()(int i, int j) {
    return v_[static_cast<std::size_t>(j) * static_cast<std::size_t>(n_) + static_cast<std::size_t>(i)];
  }

 private:
  int n_;
  std::vector<counted> v_;
};
struct vec {
  explicit vec(int n) : v(static_cast<std::size_t>(n), counted{1.0}) {}
  counted& operator[](int i) { return v[static_cast<std::size_t>(i)]; }
  std::vector<counted> v;
};

long count_lu(int n) {  // right-looking, no pivoting; one reciprocal per column as LAPACK's dgetf2
  mat a(n);
  counted::ops = counted::mults = 0;
  for (int k = 0; k < n; ++k) {
    const counted r = counted{1.0} / a(k, k);
    for (int i = k + 1; i < n; ++i) a(i, k) = a(i, k) * r;
    for (int j = k + 1; j < n; ++j)
      for (int i = k + 1; i < n; ++i) a(i, j) = a(i, j) - a(i, k) * a(k, j);
  }
  return counted::ops;
}

long count_lu_solve(int n) {  // forward with unit L, backward with U
  mat a(n);
  vec x(n);
  counted::ops = counted::mults = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < i; ++j) x[i] = x[i] - a(i, j) * x[j];
  for (int i = n - 1; i >= 0; --i) {
    for (int j = i + 1; j < n; ++j) x[i] = x[i] - a(i, j) * x[j];
    x[i] = x[i] / a(i, i);
  }
  return counted::ops;
}

long count_cholesky(int n) {  // right-looking, lower triangle
  mat a(n);
  counted::ops = counted::mults = 0;
  for (int k = 0; k < n; ++k) {
    a(k, k) = sqrt(a(k, k));
    for (int i = k + 1; i < n; ++i) a(i, k) = a(i, k) / a(k, k);
    for (int j = k + 1; j < n; ++j)
      for (int i = j; i < n; ++i) a(i, j) = a(i, j) - a(i, k) * a(j, k);
  }
  return counted::ops;
}

long count_cholesky_solve(int n) {  // L y = b, then L^T x = y
  mat a(n);
  vec x(n);
  counted::ops = counted::mults = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < i; ++j) x[i] = x[i] - a(i, j) * x[j];
    x[i] = x[i] / a(i, i);
  }
  for (int i = n - 1; i >= 0; --i) {
    for (int j = i + 1; j < n; ++j) x[i] = x[i] - a(j, i) * x[j];
    x[i] = x[i] / a(i, i);
  }
  return counted::ops;
}

long count_gemm(int n) {
  mat a(n), b(n), c(n);
  counted::ops = counted::mults = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      counted s = a(i, 0) * b(0, j);
      for (int k = 1; k < n; ++k) s = s + a(i, k) * b(k, j);
      c(i, j) = s + counted{0.0};  // beta*C: LAWN 41 counts 2mnk
    }
  return counted::ops;
}

}  // namespace

class FlopCounts : public ::testing::TestWithParam<int> {};

TEST_P(FlopCounts, MatchTextbookAlgorithms) {
  const int n = GetParam();
  const double dn = n;
  EXPECT_DOUBLE_EQ(sb::getrf_flops(dn), static_cast<double>(count_lu(n)));
  EXPECT_DOUBLE_EQ(sb::getrs_flops(dn, 1), static_cast<double>(count_lu_solve(n)));
  EXPECT_DOUBLE_EQ(sb::getrs_flops(dn, 3), 3.0 * static_cast<double>(count_lu_solve(n)));
  EXPECT_NEAR(sb::potrf_flops(dn), static_cast<double>(count_cholesky(n)), 1e-9 * dn * dn * dn);
  EXPECT_DOUBLE_EQ(sb::potrs_flops(dn, 1), static_cast<double>(count_cholesky_solve(n)));
  EXPECT_DOUBLE_EQ(sb::gemm_flops(dn, dn, dn), static_cast<double>(count_gemm(n)));
  EXPECT_DOUBLE_EQ(sb::gesv_flops(dn, 2), sb::getrf_flops(dn) + sb::getrs_flops(dn, 2));
  EXPECT_DOUBLE_EQ(sb::posv_flops(dn, 2), sb::potrf_flops(dn) + sb::potrs_flops(dn, 2));
}

TEST_P(FlopCounts, MultiplicationsAndAdditionsMatchTextbookAlgorithms) {
  const int n = GetParam();
  const double dn = n;
  const auto expect_counts = [](sb::flop_counts lawn, const char* what) {
    const sb::flop_counts seen = last_count();
    EXPECT_DOUBLE_EQ(lawn.mults, seen.mults) << what;
    EXPECT_NEAR(lawn.adds, seen.adds, 1e-12 * (1 + seen.adds)) << what;  // total - mults: see flops.hpp
  };
  count_lu(n);
  expect_counts(sb::getrf_counts(dn), "getrf");
  count_lu_solve(n);
  expect_counts(sb::getrs_counts(dn, 1), "getrs");
  count_cholesky(n);
  expect_counts(sb::potrf_counts(dn), "potrf");
  count_cholesky_solve(n);
  expect_counts(sb::potrs_counts(dn, 1), "potrs");
  count_gemm(n);
  expect_counts(sb::gemm_counts(dn, dn, dn), "gemm");
}

INSTANTIATE_TEST_SUITE_P(SmallOrders, FlopCounts, ::testing::Values(1, 2, 3, 7, 16, 33));

TEST(FlopCounts, RealTotalsAreTheClosedFormsBitForBit) {
  // The formulas the s and d rows reported before counts were split (any change would show
  // in every GFLOP/s of the default rows), spelled out as they were written.
  const auto getrf = [](double n) { return 2.0 / 3.0 * n * n * n - 0.5 * n * n + 5.0 / 6.0 * n; };
  const auto getrs = [](double n, double k) { return k * (2.0 * n * n - n); };
  const auto potrf = [](double n) { return n * n * n / 3.0 + n * n / 2.0 + n / 6.0; };
  const auto potrs = [](double n, double k) { return 2.0 * k * n * n; };
  std::vector<double> orders;
  for (int n = 1; n <= 5000; ++n) orders.push_back(n);
  for (double n : {8192.0, 10000.0, 12345.0, 16384.0, 20000.0, 32768.0, 40000.0, 46341.0, 65536.0, 100000.0})
    orders.push_back(n);
  for (double n : orders) {
    ASSERT_EQ(sb::getrf_flops(n), getrf(n)) << n;
    ASSERT_EQ(sb::potrf_flops(n), potrf(n)) << n;
    ASSERT_EQ(sb::gemm_flops(n, n, n), 2.0 * n * n * n) << n;
    for (double k : {1.0, 2.0, 3.0, 16.0, 1000.0}) {
      ASSERT_EQ(sb::getrs_flops(n, k), getrs(n, k)) << n << " " << k;
      ASSERT_EQ(sb::potrs_flops(n, k), potrs(n, k)) << n << " " << k;
      ASSERT_EQ(sb::gesv_flops(n, k), getrf(n) + getrs(n, k)) << n << " " << k;
      ASSERT_EQ(sb::posv_flops(n, k), potrf(n) + potrs(n, k)) << n << " " << k;
      // The precision-generic path gives the same totals for real T.
      ASSERT_EQ(sb::flops<double>(sb::gesv_counts(n, k)), sb::gesv_flops(n, k)) << n << " " << k;
      ASSERT_EQ(sb::flops<float>(sb::posv_counts(n, k)), sb::posv_flops(n, k)) << n << " " << k;
    }
  }
}

TEST(FlopCounts, ComplexWeighsMultiplicationsSixAndAdditionsTwo) {
  for (double n : {1.0, 5.0, 64.0, 1000.0, 4096.0}) {
    for (const auto& c : {sb::getrf_counts(n), sb::getrs_counts(n, 3), sb::potrf_counts(n), sb::potrs_counts(n, 2),
                          sb::gesv_counts(n, 1), sb::posv_counts(n, 4), sb::gemm_counts(n, n, n)}) {
      EXPECT_EQ(sb::flops<std::complex<double>>(c), 6 * c.mults + 2 * c.adds);
      EXPECT_EQ(sb::flops<std::complex<float>>(c), 6 * c.mults + 2 * c.adds);
      EXPECT_EQ(sb::flops<double>(c), c.mults + c.adds);
    }
  }
  // By hand, n = 3: getrf does 3 reciprocals, 3 scalings and 5 multiply-subtracts (4 at k = 0,
  // 1 at k = 1): 11 multiplications, 5 additions; 16 real flops, 6*11 + 2*5 = 76 complex.
  EXPECT_EQ(sb::getrf_counts(3).mults, 11);
  EXPECT_DOUBLE_EQ(sb::getrf_counts(3).adds, 5);
  EXPECT_DOUBLE_EQ(sb::flops<double>(sb::getrf_counts(3)), 16);
  EXPECT_DOUBLE_EQ(sb::flops<std::complex<double>>(sb::getrf_counts(3)), 76);
  // zgemm at n = 1000: 8 n^3, four times dgemm's 2 n^3.
  EXPECT_EQ(sb::flops<std::complex<double>>(sb::gemm_counts(1000, 1000, 1000)), 8e9);
  // zgesv, nrhs = 1: 6 (n^3/3 + n^2 + 2n/3) + 2 (n^3/3 + n^2/2 - 5n/6) = 8/3 n^3 + 7 n^2 + 7/3 n.
  EXPECT_NEAR(sb::flops<std::complex<double>>(sb::gesv_counts(1000, 1)), 8.0 / 3.0 * 1e9 + 7e6 + 7000.0 / 3.0, 1e-3);
}

TEST(FlopCounts, Lawn41ClosedForms) {
  // The formulas, spelled out at n = 1000.
  EXPECT_DOUBLE_EQ(sb::getrf_flops(1000), 2.0 / 3.0 * 1e9 - 0.5 * 1e6 + 5.0 / 6.0 * 1e3);
  EXPECT_DOUBLE_EQ(sb::getrs_flops(1000, 4), 4 * (2e6 - 1e3));
  EXPECT_DOUBLE_EQ(sb::potrf_flops(1000), 1e9 / 3 + 1e6 / 2 + 1e3 / 6);
  EXPECT_DOUBLE_EQ(sb::potrs_flops(1000, 4), 2 * 4 * 1e6);
  EXPECT_DOUBLE_EQ(sb::gemm_flops(1000, 1000, 1000), 2e9);
}
