// The rows layer's own pieces that need no backend: the largest n that fits (--sizes=max).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/row.hpp"
#include "solvebench/errors.hpp"

namespace bench = solvebench::bench;

namespace {

// n x n doubles, refused past `addressable` as the size check refuses an n whose matrix cannot
// be addressed (lib/src/errors.cpp).
std::uint64_t matrix_bytes(std::int64_t n, std::int64_t addressable) {
  if (n > addressable) throw solvebench::invalid_argument("n = " + std::to_string(n) + " is too large to address");
  return static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n) * 8;
}

TEST(LargestFittingN, AnOrderTheSizeCheckRefusesDoesNotFit) {
  // The CPU search's bound is LAPACK's index limit, far past what the size check lets through:
  // it used to throw out of the search and abort solve_bench --sizes=max.
  const auto n =
      bench::largest_fitting_n([](std::int64_t m) { return matrix_bytes(m, 1073741823); }, 20ULL << 30, 2147483647);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 51776);  // the largest multiple of 64 with 8 n^2 <= 20 GiB
  EXPECT_LE(matrix_bytes(*n, INT64_MAX), 20ULL << 30);
  EXPECT_GT(matrix_bytes(*n + 64, INT64_MAX), 20ULL << 30);
}

TEST(LargestFittingN, EveryOrderUpToTheLimitFitting) {
  EXPECT_EQ(bench::largest_fitting_n([](std::int64_t m) { return matrix_bytes(m, INT64_MAX); }, UINT64_MAX, 46340),
            46340);
  // ... and refused past a limit lower than the search's: the largest the check lets through.
  EXPECT_EQ(bench::largest_fitting_n([](std::int64_t m) { return matrix_bytes(m, 1000); }, UINT64_MAX, 1 << 24), 1000);
}

TEST(LargestFittingN, NothingFitsOrARefusalAtOneIsABug) {
  EXPECT_FALSE(bench::largest_fitting_n([](std::int64_t m) { return matrix_bytes(m, INT64_MAX); }, 4, 1000));
  EXPECT_THROW(bench::largest_fitting_n([](std::int64_t m) { return matrix_bytes(m, 0); }, UINT64_MAX, 1000),
               solvebench::invalid_argument);
}

}  // namespace
