// GPU backend against the CPU backend on the same generated matrices, and its error paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu_test.hpp"
#include "solvebench/cuda_errors.hpp"
#include "solvebench/cusolver.hpp"
#include "solvebench/device_generate.hpp"
#include "solvebench/device_residual.hpp"
#include "solvebench/errors.hpp"
#include "solvebench/generate.hpp"
#include "solvebench/lapack.hpp"
#include "solvebench/residual.hpp"

namespace sb = solvebench;
namespace cuda = solvebench::cuda;

class DeviceGenerate : public GpuTest {};

TEST_F(DeviceGenerate, BitForBitTheHostMatrix) {
  cuda::context ctx;
  for (auto kind :
       {sb::matrix_kind::uniform, sb::matrix_kind::diagdom, sb::matrix_kind::spd, sb::matrix_kind::singular}) {
    const std::int64_t n = 97;
    cuda::device_buffer<double> d(n * n);
    cuda::generate_matrix(d.data(), kind, n, 77, ctx.stream());
    ctx.synchronize();
    const auto host = sb::generate_matrix<double>(kind, n, 77);
    const auto dev = to_host(d);
    EXPECT_TRUE(std::equal(dev.begin(), dev.end(), host.data())) << sb::to_string(kind);
  }
  cuda::device_buffer<float> b(50 * 3);
  cuda::generate_rhs(b.data(), 50, 3, 5, ctx.stream());
  ctx.synchronize();
  const auto hb = sb::generate_rhs<float>(50, 3, 5);
  const auto db = to_host(b);
  EXPECT_TRUE(std::equal(db.begin(), db.end(), hb.data()));
}

TEST_F(DeviceGenerate, ColumnBlocksAndBatches) {
  cuda::context ctx;
  const std::int64_t n = 40, first = 13, cols = 9;
  cuda::device_buffer<double> part(n * cols);
  cuda::generate_matrix_columns(part.data(), n, sb::matrix_kind::spd, 3, n, first, cols, ctx.stream());
  cuda::device_buffer<double> batch(5 * 8 * 8), rhs(5 * 8);
  cuda::generate_matrix_batch(batch.data(), sb::matrix_kind::diagdom, 8, 5, 100, ctx.stream());
  cuda::generate_rhs_batch(rhs.data(), 8, 5, 100, ctx.stream());
  ctx.synchronize();
  const auto whole = sb::generate_matrix<double>(sb::matrix_kind::spd, n, 3);
  const auto p = to_host(part);
  for (std::int64_t c = 0; c < cols; ++c)
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(p[static_cast<std::size_t>(c * n + i)], whole(i, first + c));
  const auto hb = to_host(batch), hr = to_host(rhs);
  for (std::int64_t s = 0; s < 5; ++s) {
    const auto one = sb::generate_matrix<double>(sb::matrix_kind::diagdom, 8, 100 + static_cast<std::uint64_t>(s));
    const auto b1 = sb::generate_rhs<double>(8, 1, 100 + static_cast<std::uint64_t>(s));
    EXPECT_TRUE(std::equal(one.data(), one.data() + 64, hb.begin() + s * 64)) << "system " << s;
    EXPECT_TRUE(std::equal(b1.data(), b1.data() + 8, hr.begin() + s * 8)) << "system " << s;
  }
}

template <class T>
class Cusolver : public GpuTest {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Cusolver, Precisions);

// Solves on both backends and compares: residual on the GPU, relative difference to the CPU.
TYPED_TEST(Cusolver, AgreesWithLapackeForBothApis) {
  using T = TypeParam;
  cuda::context ctx;
  for (auto api : {cuda::cusolver_api::generic64, cuda::cusolver_api::legacy32})
    for (std::int64_t n : {1, 2, 31, 200, 513}) {
      const std::int64_t nrhs = 3;
      for (bool chol : {false, true}) {
        const auto a0 = sb::generate_matrix<T>(chol ? sb::matrix_kind::spd : sb::matrix_kind::uniform, n, 5);
        const auto b0 = sb::generate_rhs<T>(n, nrhs, 5);
        auto a = to_device(a0), x = to_device(b0), d_a0 = to_device(a0), d_b0 = to_device(b0);
        if (chol) {
          cuda::cholesky_solver<T> s(ctx, n, nrhs, api);
          s.factor(a.data());
          s.solve(a.data(), x.data());
          s.check_info();
        } else {
          cuda::lu_solver<T> s(ctx, n, nrhs, api);
          s.factor(a.data());
          s.solve(a.data(), x.data());
          s.check_info();
        }
        const double resid = cuda::hpl_scaled_residual(d_a0.data(), x.data(), d_b0.data(), n, nrhs, ctx.stream());
        EXPECT_LT(resid, sb::residual_threshold) << cuda::to_string(api) << " n=" << n << " chol=" << chol;

        auto ca = a0;
        auto cx = b0;
        std::vector<sb::lapack::index_t> ipiv(static_cast<std::size_t>(n));
        if (chol) sb::lapack::posv(ca, cx);
        else sb::lapack::gesv(ca, ipiv, cx);
        const auto gx = to_host(x);
        double diff = 0, norm = 0;
        for (std::size_t k = 0; k < gx.size(); ++k) {
          diff = std::max(diff, std::fabs(static_cast<double>(gx[k]) - static_cast<double>(cx.data()[k])));
          norm = std::max(norm, std::fabs(static_cast<double>(cx.data()[k])));
        }
        // Both are backward stable; forward differences scale with cond(A) * eps.
        const double tol = std::is_same_v<T, float> ? 5e-2 : 1e-9;
        EXPECT_LE(diff / norm, tol) << cuda::to_string(api) << " n=" << n << " chol=" << chol;
      }
    }
}

TYPED_TEST(Cusolver, DeviceResidualMatchesHostResidual) {
  using T = TypeParam;
  cuda::context ctx;
  const std::int64_t n = 300;
  const auto a0 = sb::generate_matrix<T>(sb::matrix_kind::uniform, n, 8);
  const auto b0 = sb::generate_rhs<T>(n, 2, 8);
  auto a = a0;
  auto x = b0;
  std::vector<sb::lapack::index_t> ipiv(n);
  sb::lapack::gesv(a, ipiv, x);
  x(17, 1) *= static_cast<T>(1.001);  // make the residual large enough to compare digits
  const double host = sb::hpl_scaled_residual(a0, x, b0);
  auto da = to_device(a0), dx = to_device(x), db = to_device(b0);
  const double dev = cuda::hpl_scaled_residual(da.data(), dx.data(), db.data(), n, 2, ctx.stream());
  EXPECT_NEAR(dev, host, 1e-9 * host);
}

TYPED_TEST(Cusolver, GemmAndItsCheck) {
  using T = TypeParam;
  cuda::context ctx;
  const std::int64_t n = 256;
  const auto a = sb::generate_matrix<T>(sb::matrix_kind::uniform, n, 1);
  const auto b = sb::generate_matrix<T>(sb::matrix_kind::uniform, n, 2);
  auto da = to_device(a), db = to_device(b);
  cuda::device_buffer<T> dc(n * n);
  cuda::gemm(ctx, n, da.data(), db.data(), dc.data());
  ctx.synchronize();
  EXPECT_LT(cuda::gemm_scaled_residual(da.data(), db.data(), dc.data(), n, ctx.stream()), sb::residual_threshold);
  sb::host_matrix<T> c(n, n);
  sb::lapack::gemm(a, b, c);
  EXPECT_LT(sb::gemm_scaled_residual(a, b, c), sb::residual_threshold);
  // A wrong row 5 (entries off by 1, ~1.5%): far more than rounding, whatever v is.
  ctx.synchronize();
  for (std::int64_t j = 0; j < n; ++j) {
    T entry{};
    ASSERT_EQ(cudaMemcpy(&entry, dc.data() + j * n + 5, sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    entry += 1;
    ASSERT_EQ(cudaMemcpy(dc.data() + j * n + 5, &entry, sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_GT(cuda::gemm_scaled_residual(da.data(), db.data(), dc.data(), n, ctx.stream()), sb::residual_threshold);
}

class CusolverErrors : public GpuTest {};

TEST_F(CusolverErrors, SingularMatrixNamesThePivot) {
  cuda::context ctx;
  for (auto api : {cuda::cusolver_api::generic64, cuda::cusolver_api::legacy32}) {
    const std::int64_t n = 300;
    cuda::device_buffer<double> a(n * n), b(n);
    cuda::generate_matrix(a.data(), sb::matrix_kind::singular, n, 1, ctx.stream());
    cuda::generate_rhs(b.data(), n, 1, 1, ctx.stream());
    cuda::lu_solver<double> s(ctx, n, 1, api);
    s.factor(a.data());
    s.solve(a.data(), b.data());
    try {
      s.check_info();
      FAIL() << cuda::to_string(api);
    } catch (const sb::singular_matrix& e) {
      EXPECT_EQ(e.pivot(), 151) << e.what();
      EXPECT_NE(std::string(e.what()).find("getrf"), std::string::npos) << e.what();
    }
  }
}

TEST_F(CusolverErrors, NotPositiveDefiniteNamesTheMinor) {
  cuda::context ctx;
  const std::int64_t n = 300;
  auto host = sb::generate_matrix<float>(sb::matrix_kind::spd, n, 1);
  host(200, 200) = -1.0f;
  auto a = to_device(host);
  cuda::cholesky_solver<float> s(ctx, n, 1);
  s.factor(a.data());
  try {
    s.check_info();
    FAIL();
  } catch (const sb::not_positive_definite& e) {
    EXPECT_EQ(e.minor_order(), 201) << e.what();
  }
}

TEST_F(CusolverErrors, LegacyApiRefusesSizesPastInt32) {
  cuda::context ctx;
  EXPECT_THROW(cuda::lu_solver<double>::query(ctx, std::int64_t{1} << 32, cuda::cusolver_api::legacy32),
               sb::invalid_argument);
}

TEST_F(CusolverErrors, SolverMemoryComesBack) {
  cuda::context ctx;
  const auto use = [&ctx] {
    cuda::device_buffer<double> a(2048 * 2048);
    cuda::generate_matrix(a.data(), sb::matrix_kind::spd, 2048, 1, ctx.stream());
    cuda::lu_solver<double> lu(ctx, 2048, 1);
    cuda::cholesky_solver<double> ch(ctx, 2048, 1);
    lu.factor(a.data());
    ch.factor(a.data());
    ctx.synchronize();
  };
  use();  // the first use loads kernels (lazy module loading), which stay resident
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto before = cuda::memory_info().free_bytes;
  use();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cuda::memory_info().free_bytes, before);
}

// The legacy 32-bit API's real limits: its n, lda and lwork are int. n = 46341 is only where
// n * n passes 2^31 - 1, which cuSOLVER indexes in 64 bits anyway, so it must solve there;
// what it cannot take is an n or a workspace (in elements) past 2^31 - 1.
class CusolverLegacy32 : public GpuTest {};

TEST_F(CusolverLegacy32, SolvesPastTheInt32ElementCount) {
  const std::int64_t n = 46341;  // n * n = 2147488281 > 2^31 - 1
  static_assert(46341LL * 46341LL > 2147483647LL);
  cuda::context ctx;
  const auto api = cuda::cusolver_api::legacy32;
  const std::size_t workspace = std::max(cuda::lu_solver<double>::query(ctx, n, api).device_bytes,
                                         cuda::cholesky_solver<double>::query(ctx, n, api).device_bytes);
  const std::size_t needed = static_cast<std::size_t>(n * n) * sizeof(double) + workspace + (1u << 30);
  if (cuda::memory_info().free_bytes < needed)
    GTEST_SKIP() << "needs " << needed << " bytes of device memory, " << cuda::memory_info().free_bytes << " free";
  cuda::device_buffer<double> a(n * n), x(n), b(n);
  for (bool chol : {false, true}) {
    const auto kind = chol ? sb::matrix_kind::spd : sb::matrix_kind::uniform;
    cuda::generate_matrix(a.data(), kind, n, 11, ctx.stream());
    cuda::generate_rhs(x.data(), n, 1, 11, ctx.stream());
    if (chol) {
      cuda::cholesky_solver<double> s(ctx, n, 1, api);
      s.factor(a.data());
      s.solve(a.data(), x.data());
      s.check_info();
    } else {
      cuda::lu_solver<double> s(ctx, n, 1, api);
      s.factor(a.data());
      s.solve(a.data(), x.data());
      s.check_info();
    }
    // The factors are spent: regenerate A (bit for bit) and b for the residual.
    cuda::generate_matrix(a.data(), kind, n, 11, ctx.stream());
    cuda::generate_rhs(b.data(), n, 1, 11, ctx.stream());
    const double resid = cuda::hpl_scaled_residual(a.data(), x.data(), b.data(), n, 1, ctx.stream());
    std::printf("legacy32 %s n=%lld: resid %.3g\n", chol ? "dposv" : "dgesv", static_cast<long long>(n), resid);
    EXPECT_LT(resid, sb::residual_threshold) << (chol ? "dposv" : "dgesv");
  }
}

TEST_F(CusolverLegacy32, RefusesWhatItsIntsCannotHold) {
  cuda::context ctx;
  const std::int64_t past = std::int64_t{1} << 31;  // the first n no int holds
  for (const auto& query : {cuda::lu_solver<double>::query, cuda::cholesky_solver<double>::query}) {
    try {
      query(ctx, past, cuda::cusolver_api::legacy32);
      ADD_FAILURE() << "n = 2^31 accepted by the legacy API";
    } catch (const sb::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("legacy 32-bit"), std::string::npos) << e.what();
    }
  }
  // Up to the largest n an int holds, a workspace query gives a size an int of elements can
  // count, or is refused by name: never a wrapped (negative) lwork read as exabytes.
  for (const std::int64_t n : {46341LL, 65536LL, 100000LL, 1LL << 20, 1LL << 24, 1LL << 28, 1LL << 30, 2147483647LL}) {
    const auto check = [&](const char* op, auto query, std::size_t element) {
      try {
        const auto ws = query(ctx, n, cuda::cusolver_api::legacy32);
        std::printf("legacy32 %s n=%lld: workspace %zu bytes\n", op, static_cast<long long>(n), ws.device_bytes);
        EXPECT_LE(ws.device_bytes, std::size_t{2147483647} * element) << op << " n=" << n;
      } catch (const sb::invalid_argument& e) {
        std::printf("legacy32 %s n=%lld: refused: %s\n", op, static_cast<long long>(n), e.what());
        EXPECT_NE(std::string(e.what()).find("lwork"), std::string::npos) << e.what();
      } catch (const cuda::cusolver_error& e) {
        std::printf("legacy32 %s n=%lld: cuSOLVER refused: %s\n", op, static_cast<long long>(n), e.what());
      }
    };
    check("dgetrf", cuda::lu_solver<double>::query, sizeof(double));
    check("dpotrf", cuda::cholesky_solver<double>::query, sizeof(double));
    check("sgetrf", cuda::lu_solver<float>::query, sizeof(float));
    check("spotrf", cuda::cholesky_solver<float>::query, sizeof(float));
  }
}
