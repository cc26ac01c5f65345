// The rows layer's own pieces that need no backend: the largest n that fits (--sizes=max), the
// refusal of SOLVE_BENCH_* variables that no program of the suite reads, usage errors in one line,
// and every main's last resort for an exception that escaped.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/escaped.hpp"
#include "core/options.hpp"
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

// parse_flags with no argv but these environment entries.
void parse_env(std::vector<std::string> entries) {
  std::vector<char*> env;
  for (auto& e : entries) env.push_back(e.data());
  env.push_back(nullptr);
  bench::common_options common;
  char program[] = "solve_bench";
  char* argv[] = {program, nullptr};
  bench::parse_flags(bench::common_flags(common, ""), 1, argv, common, env.data());
}

TEST(SuiteVariables, AnotherProgramsVariableIsLeftAlone) {
  // tools/regress's, solve_bench_mpi's and solve_bench's GPU flags, given to a binary with only the common flags.
  EXPECT_NO_THROW(parse_env({"SOLVE_BENCH_CHECKS=/opt/solve_bench_checks", "SOLVE_BENCH_NB=64",
                             "SOLVE_BENCH_BLAS_THREADS=2", "SOLVE_BENCH_CUSOLVER_API=legacy32",
                             "SOLVE_BENCH_MGPU_SIZES=4096", "SOLVE_BENCH_MPIEXEC=mpirun", "PATH=/usr/bin"}));
}

TEST(SuiteVariables, AMisspellingIsRefusedByName) {
  try {
    parse_env({"SOLVE_BENCH_CHECKS=x", "SOLVE_BENCH_SIZS=32"});
    FAIL() << "SOLVE_BENCH_SIZS was accepted";
  } catch (const bench::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("environment variable SOLVE_BENCH_SIZS names no flag"), std::string::npos)
        << e.what();
  }
}

TEST(UsageError, AValueWithControlCharactersStaysOneLine) {
  const bench::usage_error e("--sizes: '1\n2\x1e' is not an integer");
  EXPECT_STREQ(e.what(), "--sizes: '1\\n2\\x1e' is not an integer");
}

TEST(RunGuarded, AnEscapedExceptionIsOneLineAndExitOne) {
  bool after = false;
  testing::internal::CaptureStderr();
  const int status = bench::run_guarded(
      "solve_bench", []() -> int { throw std::out_of_range("stoi"); }, [&] { after = true; });
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(status, 1);
  EXPECT_TRUE(after);  // solve_bench_mpi's MPI_Abort
  EXPECT_EQ(said, "solve_bench: internal error: stoi (a bug, not a usage error: please report it)\n");

  testing::internal::CaptureStderr();
  EXPECT_EQ(bench::run_guarded("solve_bench_checks", []() -> int { throw 42; }), 1);
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "solve_bench_checks: internal error: an exception of unknown type (a bug, not a usage error: please report "
            "it)\n");
  EXPECT_EQ(bench::run_guarded("solve_bench", [] { return 4; }), 4);  // what the program says, untouched
}

}  // namespace
