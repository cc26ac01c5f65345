// Batched GPU solves agree with one-by-one CPU solves; bad members are named by index.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "gpu_test.hpp"
#include "precision_types.hpp"
#include "solvebench/cusolver_batched.hpp"
#include "solvebench/device_generate.hpp"
#include "solvebench/device_residual.hpp"
#include "solvebench/errors.hpp"
#include "solvebench/generate.hpp"
#include "solvebench/lapack.hpp"
#include "solvebench/residual.hpp"

namespace sb = solvebench;
namespace cuda = solvebench::cuda;

template <class T>
class CusolverBatched : public GpuTest {};
TYPED_TEST_SUITE(CusolverBatched, RealPrecisions, PrecisionLetter);

TYPED_TEST(CusolverBatched, AgreesWithOneByOneLapacke) {
  using T = TypeParam;
  cuda::context ctx;
  for (bool chol : {false, true})
    for (std::int64_t n : {1, 4, 32, 100}) {
      const std::int64_t count = 37;
      const auto kind = chol ? sb::matrix_kind::spd : sb::matrix_kind::uniform;
      cuda::device_buffer<T> a(static_cast<std::size_t>(n * n * count)), a0(a.size()),
          b(static_cast<std::size_t>(n * count)), b0(b.size());
      cuda::generate_matrix_batch(a.data(), kind, n, count, 50, ctx.stream());
      cuda::generate_matrix_batch(a0.data(), kind, n, count, 50, ctx.stream());
      cuda::generate_rhs_batch(b.data(), n, count, 50, ctx.stream());
      cuda::generate_rhs_batch(b0.data(), n, count, 50, ctx.stream());
      if (chol) {
        cuda::batched_cholesky<T> s(ctx, a.data(), b.data(), n, count);
        s.factor();
        s.solve();
        s.check_info();
      } else {
        cuda::batched_lu<T> s(ctx, a.data(), b.data(), n, count);
        s.factor();
        s.solve();
        s.check_info();
      }
      const auto worst = cuda::batched_hpl_scaled_residual(a0.data(), b.data(), b0.data(), n, count, ctx.stream());
      EXPECT_LT(worst.worst, sb::residual_threshold) << "n=" << n << " chol=" << chol;
      std::vector<T> x(b.size());
      ASSERT_EQ(cudaMemcpy(x.data(), b.data(), b.size_bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
      for (std::int64_t s = 0; s < count; s += 9) {
        auto as = sb::generate_matrix<T>(kind, n, 50 + static_cast<std::uint64_t>(s));
        auto xs = sb::generate_rhs<T>(n, 1, 50 + static_cast<std::uint64_t>(s));
        std::vector<sb::lapack::index_t> ipiv(static_cast<std::size_t>(n));
        if (chol) sb::lapack::posv(as, xs);
        else sb::lapack::gesv(as, ipiv, xs);
        double diff = 0, norm = 0;
        for (std::int64_t i = 0; i < n; ++i) {
          diff = std::max(diff, std::fabs(static_cast<double>(x[static_cast<std::size_t>(s * n + i)] - xs(i, 0))));
          norm = std::max(norm, std::fabs(static_cast<double>(xs(i, 0))));
        }
        const double tol = std::is_same_v<T, float> ? 1e-2 : 1e-9;
        EXPECT_LE(diff / norm, tol) << "system " << s << " n=" << n;
      }
    }
}

class CusolverBatchedErrors : public GpuTest {};

TEST_F(CusolverBatchedErrors, SingularMemberIsNamedByIndex) {
  cuda::context ctx;
  const std::int64_t n = 8, count = 30;
  cuda::device_buffer<double> a(static_cast<std::size_t>(n * n * count)), b(static_cast<std::size_t>(n * count));
  cuda::generate_matrix_batch(a.data(), sb::matrix_kind::uniform, n, count, 1, ctx.stream());
  cuda::generate_rhs_batch(b.data(), n, count, 1, ctx.stream());
  // system 21 gets the singular kind: zero column 4, zero pivot at 5
  cuda::generate_matrix_columns(a.data() + 21 * n * n, n, sb::matrix_kind::singular, 7, n, 0, n, ctx.stream());
  cuda::batched_lu<double> s(ctx, a.data(), b.data(), n, count);
  s.factor();
  s.solve();
  try {
    s.check_info();
    FAIL();
  } catch (const sb::singular_matrix& e) {
    EXPECT_EQ(e.pivot(), 5) << e.what();
    EXPECT_NE(std::string(e.what()).find("system 21 of the batch"), std::string::npos) << e.what();
  }
}

TEST_F(CusolverBatchedErrors, IndefiniteMemberIsNamedByIndex) {
  cuda::context ctx;
  const std::int64_t n = 6, count = 12;
  cuda::device_buffer<float> a(static_cast<std::size_t>(n * n * count)), b(static_cast<std::size_t>(n * count));
  cuda::generate_matrix_batch(a.data(), sb::matrix_kind::spd, n, count, 1, ctx.stream());
  cuda::generate_rhs_batch(b.data(), n, count, 1, ctx.stream());
  const float minus_one = -1;
  ctx.synchronize();
  ASSERT_EQ(cudaMemcpy(a.data() + 5 * n * n + 3 * n + 3, &minus_one, sizeof minus_one, cudaMemcpyHostToDevice),
            cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cuda::batched_cholesky<float> s(ctx, a.data(), b.data(), n, count);
  s.factor();
  try {
    s.check_info();
    FAIL();
  } catch (const sb::not_positive_definite& e) {
    EXPECT_EQ(e.minor_order(), 4) << e.what();
    EXPECT_NE(std::string(e.what()).find("system 5 of the batch"), std::string::npos) << e.what();
  }
}
