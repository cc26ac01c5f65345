// LAWN 41 counts against operation counts taken from textbook algorithms.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "solvebench/flops.hpp"

namespace sb = solvebench;

namespace {

// A scalar that counts every arithmetic operation done on it (+, -, *, /, sqrt).
struct counted {
  double v = 0;
  static inline long ops = 0;
};
counted operator+(counted a, counted b) { ++counted::ops; return {a.v + b.v}; }
counted operator-(counted a, counted b) { ++counted::ops; return {a.v - b.v}; }
counted operator*(counted a, counted b) { ++counted::ops; return {a.v * b.v}; }
counted operator/(counted a, counted b) { ++counted::ops; return {a.v / b.v}; }
counted sqrt(counted a) { ++counted::ops; return {std::sqrt(a.v)}; }

// Square matrix of counted ones, indexed with ints like the textbook loops below.
class mat {
 public:
  explicit mat(int n) : n_(n), v_(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), counted{1.0}) {}
  counted& operator()(int i, int j) { return v_[static_cast<std::size_t>(j * n_ + i)]; }

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
  counted::ops = 0;
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
  counted::ops = 0;
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
  counted::ops = 0;
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
  counted::ops = 0;
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
  counted::ops = 0;
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

INSTANTIATE_TEST_SUITE_P(SmallOrders, FlopCounts, ::testing::Values(1, 2, 3, 7, 16, 33));

TEST(FlopCounts, Lawn41ClosedForms) {
  // The formulas, spelled out at n = 1000.
  EXPECT_DOUBLE_EQ(sb::getrf_flops(1000), 2.0 / 3.0 * 1e9 - 0.5 * 1e6 + 5.0 / 6.0 * 1e3);
  EXPECT_DOUBLE_EQ(sb::getrs_flops(1000, 4), 4 * (2e6 - 1e3));
  EXPECT_DOUBLE_EQ(sb::potrf_flops(1000), 1e9 / 3 + 1e6 / 2 + 1e3 / 6);
  EXPECT_DOUBLE_EQ(sb::potrs_flops(1000, 4), 2 * 4 * 1e6);
  EXPECT_DOUBLE_EQ(sb::gemm_flops(1000, 1000, 1000), 2e9);
}
