// Batched small solves on the CPU: the parallel loop equals one-by-one solves; a singular or
// indefinite member is named by its index; the loop keeps its team.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "precision_types.hpp"
#include "solvebench/errors.hpp"
#include "solvebench/generate.hpp"
#include "solvebench/lapack.hpp"
#include "solvebench/lapack_batched.hpp"
#include "solvebench/residual.hpp"

namespace sb = solvebench;
namespace lapack = solvebench::lapack;

namespace {

// count systems of order n, system s generated with seed + s (as the batched rows do).
template <class T>
void fill_batch(std::vector<T>& a, std::vector<T>& b, sb::matrix_kind kind, std::int64_t n, std::int64_t count,
                std::uint64_t seed) {
  const auto nn = static_cast<std::size_t>(n * n), un = static_cast<std::size_t>(n);
  a.resize(nn * static_cast<std::size_t>(count));
  b.resize(un * static_cast<std::size_t>(count));
  for (std::int64_t s = 0; s < count; ++s) {
    const auto as = sb::generate_matrix<T>(kind, n, seed + static_cast<std::uint64_t>(s));
    const auto bs = sb::generate_rhs<T>(n, 1, seed + static_cast<std::uint64_t>(s));
    std::copy(as.data(), as.data() + nn, a.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(s) * nn));
    std::copy(bs.data(), bs.data() + un, b.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(s) * un));
  }
}

}  // namespace

template <class T>
class LapackBatched : public ::testing::Test {};
TYPED_TEST_SUITE(LapackBatched, RealPrecisions, PrecisionLetter);

TYPED_TEST(LapackBatched, EqualsOneByOneSolves) {
  using T = TypeParam;
  for (bool chol : {false, true})
    for (std::int64_t n : {1, 4, 33}) {
      const std::int64_t count = 57;
      std::vector<T> a, b;
      fill_batch(a, b, chol ? sb::matrix_kind::spd : sb::matrix_kind::uniform, n, count, 10);
      const auto a_orig = a, b_orig = b;
      lapack::batch_workspace ws(n, count);
      {
        lapack::blas_threads_guard one(1);
        if (chol) lapack::posv_batched(a.data(), b.data(), ws);
        else lapack::gesv_batched(a.data(), b.data(), ws);
      }
      ws.check_info("batched", chol ? sb::factorization::cholesky : sb::factorization::lu);
      for (std::int64_t s = 0; s < count; ++s) {
        auto as = sb::generate_matrix<T>(chol ? sb::matrix_kind::spd : sb::matrix_kind::uniform, n,
                                         10 + static_cast<std::uint64_t>(s));
        const auto a0 = as;
        auto x = sb::generate_rhs<T>(n, 1, 10 + static_cast<std::uint64_t>(s));
        const auto b0 = x;
        std::vector<lapack::index_t> ipiv(static_cast<std::size_t>(n));
        if (chol) lapack::posv(as, x);
        else lapack::gesv(as, ipiv, x);
        // One thread inside the batch vs OpenBLAS's threaded path: equal up to rounding.
        const double tol = std::is_same_v<T, float> ? 1e-3 : 1e-10;
        for (std::int64_t i = 0; i < n; ++i)
          ASSERT_NEAR(static_cast<double>(b[static_cast<std::size_t>(s * n + i)]), static_cast<double>(x(i, 0)),
                      tol * (1 + std::fabs(static_cast<double>(x(i, 0)))))
              << "system " << s << " n=" << n;
        EXPECT_LT(sb::hpl_scaled_residual(a0, x, b0), sb::residual_threshold);
      }
    }
}

TEST(LapackBatchedErrors, SingularMemberIsNamedByIndex) {
  const std::int64_t n = 6, count = 20;
  std::vector<double> a, b;
  fill_batch(a, b, sb::matrix_kind::uniform, n, count, 3);
  const auto bad = sb::generate_matrix<double>(sb::matrix_kind::singular, n, 99);
  std::copy(bad.data(), bad.data() + n * n, a.begin() + 13 * n * n);  // system 13: zero column 3
  lapack::batch_workspace ws(n, count);
  lapack::gesv_batched(a.data(), b.data(), ws);
  try {
    ws.check_info("LAPACKE_dgesv", sb::factorization::lu);
    FAIL();
  } catch (const sb::singular_matrix& e) {
    EXPECT_EQ(e.pivot(), 4);
    EXPECT_NE(std::string(e.what()).find("system 13 of the batch"), std::string::npos) << e.what();
  }
}

TEST(LapackBatchedErrors, IndefiniteMemberIsNamedByIndex) {
  const std::int64_t n = 5, count = 9;
  std::vector<float> a, b;
  fill_batch(a, b, sb::matrix_kind::spd, n, count, 3);
  a[static_cast<std::size_t>(7 * n * n + 2 * n + 2)] = -1;  // system 7, a(2,2)
  lapack::batch_workspace ws(n, count);
  lapack::posv_batched(a.data(), b.data(), ws);
  try {
    ws.check_info("LAPACKE_sposv", sb::factorization::cholesky);
    FAIL();
  } catch (const sb::not_positive_definite& e) {
    EXPECT_EQ(e.minor_order(), 3);
    EXPECT_NE(std::string(e.what()).find("system 7 of the batch"), std::string::npos) << e.what();
  }
}

TEST(LapackBatchedErrors, ThreadsGuardRestores) {
  const int before = lapack::blas_threads();
  {
    lapack::blas_threads_guard one(1);
    EXPECT_EQ(lapack::blas_threads(), 1);
  }
  EXPECT_EQ(lapack::blas_threads(), before);
}

// OpenBLAS's openmp variant sets its thread count with omp_set_num_threads, which is also the
// loop's team: the loop keeps the team its workspace was made with (lapack_batched.hpp).
TEST(LapackBatchedErrors, AnOpenMpBlasThreadSetterLeavesTheLoopsTeam) {
  const int team = omp_get_max_threads();
  if (team < 2) GTEST_SKIP() << "one OpenMP thread here (OMP_NUM_THREADS or one core): no team to keep";
  std::vector<double> a, b;
  fill_batch(a, b, sb::matrix_kind::spd, 8, 64, 3);
  lapack::batch_workspace ws(8, 64);
  omp_set_num_threads(1);  // what openblas_set_num_threads(1) does in that variant
  lapack::posv_batched(a.data(), b.data(), ws);
  omp_set_num_threads(team);
  ws.check_info("batched", sb::factorization::cholesky);
  EXPECT_EQ(ws.team(), team);
  EXPECT_EQ(ws.team_ran(), team);
}
