// ScaLAPACK backend under mpirun: the distributed matrix is the single-node one, answers
// agree with LAPACKE, the distributed residual equals the host one, and every error is
// thrown alike on every rank (a rank that threw alone would leave the others hanging).
#include <gtest/gtest.h>
#include <lapacke.h>
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <type_traits>
#include <vector>

#include "../precision_types.hpp"
#include "solvebench/errors.hpp"
#include "solvebench/generate.hpp"
#include "solvebench/lapack.hpp"
#include "solvebench/residual.hpp"
#include "solvebench/scalapack.hpp"

namespace sb = solvebench;
namespace sp = solvebench::scalapack;

namespace {

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int world_size() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

// The whole matrix on every rank (tests only, small n): each entry has one owner, so a sum
// over ranks of "my entries, zeros elsewhere" rebuilds it exactly.
template <class T>
sb::host_matrix<T> gather(const sp::process_grid& grid, const sp::distributed_matrix<T>& m) {
  std::vector<double> all(static_cast<std::size_t>(m.rows() * m.cols()), 0.0);
  for (std::int64_t j = 0; j < m.local_cols(); ++j)
    for (std::int64_t i = 0; i < m.local_rows(); ++i)
      all[static_cast<std::size_t>(m.global_col(j) * m.rows() + m.global_row(i))] = static_cast<double>(m.local(i, j));
  MPI_Allreduce(MPI_IN_PLACE, all.data(), static_cast<int>(all.size()), MPI_DOUBLE, MPI_SUM, grid.comm());
  sb::host_matrix<T> out(m.rows(), m.cols());
  for (std::int64_t j = 0; j < m.cols(); ++j)
    for (std::int64_t i = 0; i < m.rows(); ++i)
      out(i, j) = static_cast<T>(all[static_cast<std::size_t>(j * m.rows() + i)]);
  return out;
}

// kappa_inf(A) estimated by LAPACK (dgecon on a double copy): bounds how far two
// backward-stable solutions of A x = b may differ.
template <class T>
double condition_inf(const sb::host_matrix<T>& a) {
  const auto n = static_cast<lapack_int>(a.rows());
  std::vector<double> lu(a.size());
  for (std::size_t k = 0; k < lu.size(); ++k) lu[k] = static_cast<double>(a.data()[k]);
  const double a_norm = LAPACKE_dlange(LAPACK_COL_MAJOR, 'I', n, n, lu.data(), n);
  std::vector<lapack_int> ipiv(static_cast<std::size_t>(n));
  if (LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, lu.data(), n, ipiv.data()) != 0) return INFINITY;
  double rcond = 0;
  LAPACKE_dgecon(LAPACK_COL_MAJOR, 'I', n, lu.data(), n, a_norm, &rcond);
  return 1.0 / rcond;
}

template <class T>
double max_abs_difference(const sb::host_matrix<T>& x, const sb::host_matrix<T>& y, double* x_norm) {
  double diff = 0, norm = 0;
  for (std::int64_t j = 0; j < x.cols(); ++j)
    for (std::int64_t i = 0; i < x.rows(); ++i) {
      diff = std::max(diff, std::fabs(static_cast<double>(x(i, j)) - static_cast<double>(y(i, j))));
      norm = std::max(norm, std::fabs(static_cast<double>(y(i, j))));
    }
  *x_norm = norm;
  return diff;
}

// Every rank's value of `v`, so a test can check that all ranks saw the same thing.
std::vector<long long> on_all_ranks(long long v) {
  std::vector<long long> all(static_cast<std::size_t>(world_size()));
  MPI_Allgather(&v, 1, MPI_LONG_LONG, all.data(), 1, MPI_LONG_LONG, MPI_COMM_WORLD);
  return all;
}

// Prints a failed assertion of a non-root rank, tagged with the rank (rank 0 keeps the
// usual gtest output; the others would only repeat it).
class rank_failure_printer : public ::testing::EmptyTestEventListener {
 public:
  explicit rank_failure_printer(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (result.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: %s\n", rank_, result.file_name() ? result.file_name() : "?",
                   result.line_number(), result.summary());
  }

 private:
  int rank_;
};

}  // namespace

TEST(ScalapackGrid, NearSquareShapes) {
  const int ranks[] = {1, 2, 3, 4, 6, 7, 8, 12, 16, 64};
  const sp::grid_shape expected[] = {{1, 1}, {1, 2}, {1, 3}, {2, 2}, {2, 3}, {1, 7}, {2, 4}, {3, 4}, {4, 4}, {8, 8}};
  for (std::size_t k = 0; k < std::size(ranks); ++k) {
    const auto s = sp::near_square_grid(ranks[k]);
    EXPECT_EQ(s.rows, expected[k].rows) << ranks[k];
    EXPECT_EQ(s.cols, expected[k].cols) << ranks[k];
  }
  EXPECT_THROW(sp::near_square_grid(0), sb::invalid_argument);
}

TEST(ScalapackGrid, CoversEveryRankOnceAndMovesOwnership) {
  sp::process_grid grid(MPI_COMM_WORLD);
  EXPECT_EQ(grid.ranks(), world_size());
  EXPECT_GE(grid.context(), 0);
  // Row-major placement: rank = row * Q + col.
  EXPECT_EQ(grid.my_row() * grid.shape().cols + grid.my_col(), grid.rank());
  sp::process_grid moved(std::move(grid));
  EXPECT_EQ(grid.context(), -1);  // NOLINT(bugprone-use-after-move): the moved-from grid owns nothing
  EXPECT_GE(moved.context(), 0);
  EXPECT_THROW(sp::process_grid(MPI_COMM_WORLD, {world_size() + 1, 1}), sb::invalid_argument);
}

TEST(ScalapackMatrix, PiecesAreTheSingleNodeMatrix) {
  sp::process_grid grid(MPI_COMM_WORLD);
  const std::int64_t n = 37;
  for (auto kind : {sb::matrix_kind::uniform, sb::matrix_kind::spd, sb::matrix_kind::singular})
    for (sp::index_t nb : {1, 4, 5, 64}) {
      const auto a = sp::generate_matrix<double>(grid, kind, n, nb, 9);
      const auto host = sb::generate_matrix<double>(kind, n, 9);
      long long owned = 0, wrong = 0;
      for (std::int64_t j = 0; j < a.local_cols(); ++j)
        for (std::int64_t i = 0; i < a.local_rows(); ++i, ++owned)
          wrong += a.local(i, j) != host(a.global_row(i), a.global_col(j));
      EXPECT_EQ(wrong, 0) << sb::to_string(kind) << " nb " << nb;
      MPI_Allreduce(MPI_IN_PLACE, &owned, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
      EXPECT_EQ(owned, n * n) << "every entry has exactly one owner";
      EXPECT_EQ(gather(grid, a)(n - 1, 3), host(n - 1, 3));
    }
  const auto b = sp::generate_rhs<float>(grid, n, 3, 4, 9);
  const auto host_b = sb::generate_rhs<float>(n, 3, 9);
  const auto all_b = gather(grid, b);
  for (std::int64_t j = 0; j < 3; ++j)
    for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(all_b(i, j), host_b(i, j));
}

template <class T>
class ScalapackSolve : public ::testing::Test {};
TYPED_TEST_SUITE(ScalapackSolve, RealPrecisions, PrecisionLetter);

TYPED_TEST(ScalapackSolve, GesvAgreesWithLapacke) {
  using T = TypeParam;
  sp::process_grid grid(MPI_COMM_WORLD);
  struct problem {
    std::int64_t n, nrhs;
    sp::index_t nb;
    sb::matrix_kind kind;
  };
  for (const problem p : {problem{1, 1, 4, sb::matrix_kind::uniform}, problem{37, 1, 4, sb::matrix_kind::uniform},
                          problem{100, 2, 16, sb::matrix_kind::uniform}, problem{65, 1, 64, sb::matrix_kind::diagdom},
                          problem{150, 1, 7, sb::matrix_kind::diagdom}}) {
    SCOPED_TRACE("n " + std::to_string(p.n) + " nb " + std::to_string(p.nb) + " " + sb::to_string(p.kind));
    const auto a0 = sp::generate_matrix<T>(grid, p.kind, p.n, p.nb, 3);
    const auto b0 = sp::generate_rhs<T>(grid, p.n, p.nrhs, p.nb, 3);
    auto a = a0, x = b0;
    auto ipiv = sp::pivots_for(a);
    sp::gesv(grid, a, ipiv, x);

    auto ha = sb::generate_matrix<T>(p.kind, p.n, 3);
    auto hx = sb::generate_rhs<T>(p.n, p.nrhs, 3);
    std::vector<sb::lapack::index_t> hpiv(static_cast<std::size_t>(p.n));
    sb::lapack::gesv(ha, hpiv, hx);

    const auto x_all = gather(grid, x);
    double x_norm = 0;
    const double diff = max_abs_difference(x_all, hx, &x_norm);
    const double kappa = condition_inf(sb::generate_matrix<T>(p.kind, p.n, 3));
    // Both are backward stable: each is within ~n eps kappa of the exact solution.
    EXPECT_LE(diff, 4.0 * static_cast<double>(p.n) * sb::unit_roundoff<T>() * kappa * x_norm) << "kappa " << kappa;

    const double resid = sp::hpl_scaled_residual(grid, a0, x, b0);
    EXPECT_LT(resid, sb::residual_threshold);
    EXPECT_TRUE(std::isfinite(resid));
  }
}

TYPED_TEST(ScalapackSolve, PosvAgreesWithLapacke) {
  using T = TypeParam;
  sp::process_grid grid(MPI_COMM_WORLD);
  const std::int64_t n = 90;
  for (sp::index_t nb : {3, 32}) {
    const auto a0 = sp::generate_matrix<T>(grid, sb::matrix_kind::spd, n, nb, 4);
    const auto b0 = sp::generate_rhs<T>(grid, n, 1, nb, 4);
    auto a = a0, x = b0;
    sp::posv(grid, a, x);
    auto ha = sb::generate_matrix<T>(sb::matrix_kind::spd, n, 4);
    auto hx = sb::generate_rhs<T>(n, 1, 4);
    sb::lapack::posv(ha, hx);
    double x_norm = 0;
    const double diff = max_abs_difference(gather(grid, x), hx, &x_norm);
    // cond ~ 1.5 (generate.hpp): the answers agree to a few ulps of x.
    EXPECT_LE(diff, 20.0 * n * sb::unit_roundoff<T>() * x_norm) << "nb " << nb;
    EXPECT_LT(sp::hpl_scaled_residual(grid, a0, x, b0), sb::residual_threshold);
  }
}

TYPED_TEST(ScalapackSolve, DistributedResidualIsTheHostResidualAndCanFail) {
  using T = TypeParam;
  sp::process_grid grid(MPI_COMM_WORLD);
  const std::int64_t n = 70;
  const auto a0 = sp::generate_matrix<T>(grid, sb::matrix_kind::uniform, n, 8, 5);
  const auto b0 = sp::generate_rhs<T>(grid, n, 1, 8, 5);
  auto a = a0, x = b0;
  auto ipiv = sp::pivots_for(a);
  sp::gesv(grid, a, ipiv, x);
  const auto ha = gather(grid, a0), hb = gather(grid, b0);

  const double resid = sp::hpl_scaled_residual(grid, a0, x, b0);
  const double host = sb::hpl_scaled_residual(ha, gather(grid, x), hb);
  EXPECT_LT(resid, sb::residual_threshold);
  // Same formula in double, other summation order. For fp32 answers the double arithmetic is
  // exact enough to agree closely; for fp64 ones R = B - A X is itself at rounding level, so
  // the two evaluations may differ by O(1) in units of the scaled residual.
  const double tolerance = std::is_same_v<T, float> ? 1e-6 * host : 1.0;
  EXPECT_NEAR(resid, host, tolerance);

  // A wrong answer must fail the check: perturb x(n/2) on the rank that owns it.
  for (std::int64_t i = 0; i < x.local_rows(); ++i)
    if (x.global_row(i) == n / 2 && x.local_cols() > 0) x.local(i, 0) += 1 + std::fabs(x.local(i, 0));
  const double bad = sp::hpl_scaled_residual(grid, a0, x, b0);
  EXPECT_GT(bad, sb::residual_threshold);
  EXPECT_NEAR(bad, sb::hpl_scaled_residual(ha, gather(grid, x), hb), 1e-9 * bad);
  EXPECT_EQ(on_all_ranks(static_cast<long long>(bad)),
            std::vector<long long>(static_cast<std::size_t>(world_size()), static_cast<long long>(bad)));
}

TYPED_TEST(ScalapackSolve, SingularMatrixThrowsTheSamePivotOnEveryRank) {
  using T = TypeParam;
  sp::process_grid grid(MPI_COMM_WORLD);
  const std::int64_t n = 40;  // `singular`: column 20 is zero, so LU stops at pivot 21
  for (sp::index_t nb : {1, 4, 7, 64}) {
    auto a = sp::generate_matrix<T>(grid, sb::matrix_kind::singular, n, nb, 6);
    auto b = sp::generate_rhs<T>(grid, n, 1, nb, 6);
    auto ipiv = sp::pivots_for(a);
    long long pivot = -1;
    std::string message;
    try {
      sp::gesv(grid, a, ipiv, b);
    } catch (const sb::singular_matrix& e) {
      pivot = e.pivot();
      message = e.what();
    }
    EXPECT_EQ(on_all_ranks(pivot), std::vector<long long>(static_cast<std::size_t>(world_size()), n / 2 + 1))
        << "nb " << nb;
    EXPECT_NE(message.find(sp::routine_name<T>("gesv") + ": singular matrix"), std::string::npos) << message;
  }
}

TYPED_TEST(ScalapackSolve, NotPositiveDefiniteNamesLapackesMinorOnEveryRank) {
  using T = TypeParam;
  sp::process_grid grid(MPI_COMM_WORLD);
  const std::int64_t n = 50;
  auto ha = sb::generate_matrix<T>(sb::matrix_kind::uniform, n, 8);  // not symmetric, not SPD
  auto hb = sb::generate_rhs<T>(n, 1, 8);
  long long lapack_minor = -1;
  try {
    sb::lapack::posv(ha, hb);
  } catch (const sb::not_positive_definite& e) {
    lapack_minor = e.minor_order();
  }
  ASSERT_GT(lapack_minor, 0);
  for (sp::index_t nb : {2, 16}) {
    auto a = sp::generate_matrix<T>(grid, sb::matrix_kind::uniform, n, nb, 8);
    auto b = sp::generate_rhs<T>(grid, n, 1, nb, 8);
    long long minor = -1;
    try {
      sp::posv(grid, a, b);
    } catch (const sb::not_positive_definite& e) {
      minor = e.minor_order();
      EXPECT_NE(std::string(e.what()).find("Cholesky minor " + std::to_string(minor)), std::string::npos);
    }
    EXPECT_EQ(on_all_ranks(minor), std::vector<long long>(static_cast<std::size_t>(world_size()), lapack_minor))
        << "nb " << nb;
  }
}

TEST(ScalapackErrors, InfoSeenByOneRankIsThrownByAll) {
  sp::process_grid grid(MPI_COMM_WORLD);
  const int last = world_size() - 1;
  // A pivot only the last rank saw, and an illegal argument only rank 0 saw.
  EXPECT_THROW(sp::throw_on_grid_info(grid, "pdgetrf", grid.rank() == last ? 7 : 0, sb::factorization::lu),
               sb::singular_matrix);
  try {
    sp::throw_on_grid_info(grid, "pdgesv", grid.rank() == 0 ? -3 : (grid.rank() == last ? 9 : 0),
                           sb::factorization::lu);
    ADD_FAILURE() << "no exception";
  } catch (const sb::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("argument 3"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(sp::throw_on_grid_info(grid, "pdposv", 0, sb::factorization::cholesky));
}

TEST(ScalapackErrors, AFailureOnOneRankIsThrownByAll) {
  const int last = world_size() - 1;
  try {
    sp::on_every_rank(MPI_COMM_WORLD, [&] {
      if (world_rank() == last) throw sb::invalid_argument("bad block size");
    });
    ADD_FAILURE() << "no exception";
  } catch (const sb::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "rank " + std::to_string(last) + ": bad block size");
  }
  EXPECT_THROW(sp::on_every_rank(MPI_COMM_WORLD, [] { throw std::bad_alloc(); }), sb::error);
  EXPECT_NO_THROW(sp::on_every_rank(MPI_COMM_WORLD, [] {}));
}

TEST(ScalapackErrors, BadShapesAreRejected) {
  sp::process_grid grid(MPI_COMM_WORLD);
  auto a = sp::generate_matrix<double>(grid, sb::matrix_kind::uniform, 20, 4, 1);
  auto b = sp::generate_rhs<double>(grid, 21, 1, 4, 1);
  auto c = sp::generate_rhs<double>(grid, 20, 1, 5, 1);
  auto ipiv = sp::pivots_for(a);
  EXPECT_THROW(sp::gesv(grid, a, ipiv, b), sb::invalid_argument);
  EXPECT_THROW(sp::posv(grid, a, c), sb::invalid_argument);
  std::vector<sp::index_t> short_pivots(1);
  auto d = sp::generate_rhs<double>(grid, 20, 1, 4, 1);
  EXPECT_THROW(sp::gesv(grid, a, short_pivots, d), sb::invalid_argument);
  EXPECT_THROW(sp::distributed_matrix<double>(grid, 0, 4, 4), sb::invalid_argument);
  EXPECT_THROW(sp::distributed_matrix<double>(grid, 4, 4, 0), sb::invalid_argument);
}

TEST(ScalapackCollectives, MaxOverRanksAndNodeMemory) {
  EXPECT_EQ(sp::max_over_ranks(MPI_COMM_WORLD, world_rank() + 0.5), world_size() - 0.5);
  EXPECT_NO_THROW(sp::require_node_memory(MPI_COMM_WORLD, 1 << 20));
  // More than any node has, asked by one rank only: every rank throws.
  EXPECT_THROW(sp::require_node_memory(MPI_COMM_WORLD, world_rank() == 0 ? (1ULL << 62) : 0), sb::out_of_memory);
}

TEST(ScalapackCollectives, RuntimeInfoNamesTheLibraries) {
  const auto info = sp::mpi_runtime_info(MPI_COMM_WORLD);
  EXPECT_FALSE(info.mpi_library.empty());
  EXPECT_NE(info.scalapack_library.find("scalapack"), std::string::npos) << info.scalapack_library;
  EXPECT_FALSE(info.blas_library.empty());
  EXPECT_NE(info.hosts.find(':'), std::string::npos) << info.hosts;
}

int main(int argc, char** argv) {
  sp::mpi_session mpi(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (mpi.rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new rank_failure_printer(mpi.rank()));
  }
  int failed = RUN_ALL_TESTS();
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return failed;
}
