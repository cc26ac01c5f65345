// The probes' checks (lapack_probes.hpp): the update's check from its checked columns alone, as
// the GPU's probe copies them back, is the check of the whole answer, and catches what it did.
#include <gtest/gtest.h>

#include "precision_types.hpp"
#include "solvebench/errors.hpp"
#include "solvebench/generate.hpp"
#include "solvebench/lapack_probes.hpp"
#include "solvebench/residual.hpp"

namespace sb = solvebench;
namespace lapack = solvebench::lapack;

namespace {

template <class T>
class LapackProbes : public ::testing::Test {};
TYPED_TEST_SUITE(LapackProbes, RealPrecisions, PrecisionLetter);

TEST(LapackProbesColumns, FirstMiddleAndLast) {
  EXPECT_EQ(lapack::checked_columns(9), (std::vector<std::int64_t>{0, 4, 8}));
  EXPECT_EQ(lapack::checked_columns(2), (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(lapack::checked_columns(1), (std::vector<std::int64_t>{0}));
}

TYPED_TEST(LapackProbes, UpdateCheckFromItsColumnsIsTheCheckOfTheWhole) {
  using T = TypeParam;
  const std::int64_t m = 65, k = 8;
  const auto a = sb::generate_rhs<T>(m, k, 1), b = sb::generate_rhs<T>(k, m, 2), c0 = sb::generate_rhs<T>(m, m, 3);
  auto c = c0;
  lapack::gemm_update(a, b, c);
  const auto columns = [&](const sb::host_matrix<T>& x) { return lapack::checked_columns_of(x); };
  const double whole = lapack::gemm_update_residual(a, b, c0, c);
  EXPECT_LT(whole, sb::residual_threshold);
  EXPECT_EQ(lapack::gemm_update_columns_residual(a, columns(b), columns(c0), columns(c)), whole);
  // One entry off in the middle column: both see it; off outside the checked columns: neither.
  auto wrong = c;
  wrong(m - 1, m / 2) += T(1);
  EXPECT_GT(lapack::gemm_update_residual(a, b, c0, wrong), sb::residual_threshold);
  EXPECT_GT(lapack::gemm_update_columns_residual(a, columns(b), columns(c0), columns(wrong)), sb::residual_threshold);
  auto unchecked = c;
  unchecked(0, 1) += T(1);
  EXPECT_EQ(lapack::gemm_update_residual(a, b, c0, unchecked), whole);
}

TYPED_TEST(LapackProbes, UpdateColumnsCheckRefusesMismatchedShapes) {
  using T = TypeParam;
  const auto a = sb::generate_rhs<T>(16, 4, 1), b = sb::generate_rhs<T>(4, 3, 2), c = sb::generate_rhs<T>(16, 2, 3);
  EXPECT_THROW(lapack::gemm_update_columns_residual(a, b, c, c), sb::invalid_argument);
}

}  // namespace
