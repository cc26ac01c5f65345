// GPU backend against the CPU backend on the same generated matrices, and its error paths, for
// every precision (s, d, c, z): device generators bit for bit the host's, cuSOLVER solves
// against LAPACKE, the device residuals against the host's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu_test.hpp"
#include "precision_types.hpp"
#include "solvebench/cuda_errors.hpp"
#include "solvebench/cusolver.hpp"
#include "solvebench/device_generate.hpp"
#include "solvebench/device_residual.hpp"
#include "solvebench/errors.hpp"
#include "solvebench/generate.hpp"
#include "solvebench/lapack.hpp"
#include "solvebench/precision.hpp"
#include "solvebench/residual.hpp"

namespace sb = solvebench;
namespace cuda = solvebench::cuda;

namespace {

// Bit for bit part by part, except that any NaN matches any NaN (a GPU may give a NaN other
// bits than the host's when it rounds one to float).
template <class R>
bool same_part(R d, R h) {
  return std::memcmp(&d, &h, sizeof d) == 0 || (std::isnan(d) && std::isnan(h));
}
template <class T>
bool same_entry(T d, T h) {
  if constexpr (sb::is_complex_v<T>) return same_part(d.real(), h.real()) && same_part(d.imag(), h.imag());
  else return same_part(d, h);
}
template <class T>
bool same_entries(const std::vector<T>& dev, const sb::host_matrix<T>& host) {
  if (dev.size() != host.size()) return false;
  for (std::size_t k = 0; k < dev.size(); ++k)
    if (!same_entry(dev[k], host.data()[k])) return false;
  return true;
}

// What the residuals accumulate in (double or complex<double>): |x - y| for either kind.
template <class T>
using wide = typename sb::precision<T>::wide;
template <class T>
bool is_single() {
  return std::is_same_v<typename sb::precision<T>::real, float>;
}
// The name cuSOLVER's generic API goes by in messages: cusolverDnXgetrf<complex<float>>.
template <class T>
std::string generic_type_name() {
  switch (sb::precision<T>::letter) {
    case 's': return "float";
    case 'd': return "double";
    case 'c': return "complex<float>";
    default: return "complex<double>";
  }
}

// The largest |gpu - cpu| over the largest |cpu|, in the wide type.
template <class T>
double relative_difference(const std::vector<T>& gpu, const sb::host_matrix<T>& cpu) {
  double diff = 0, norm = 0;
  for (std::size_t k = 0; k < gpu.size(); ++k) {
    diff = std::max(diff, std::abs(wide<T>(gpu[k]) - wide<T>(cpu.data()[k])));
    norm = std::max(norm, std::abs(wide<T>(cpu.data()[k])));
  }
  return diff / norm;
}

}  // namespace

class DeviceGenerate : public GpuTest {};

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
TYPED_TEST_SUITE(Cusolver, AllPrecisions, PrecisionLetter);

TYPED_TEST(Cusolver, DeviceGeneratorsAreTheHosts) {
  using T = TypeParam;
  cuda::context ctx;
  for (auto kind : {sb::matrix_kind::uniform, sb::matrix_kind::diagdom, sb::matrix_kind::spd, sb::matrix_kind::singular,
                    sb::matrix_kind::nan})
    for (std::int64_t n : {1, 2, 97, 300}) {
      cuda::device_buffer<T> d(static_cast<std::size_t>(n * n));
      cuda::generate_matrix(d.data(), kind, n, 77, ctx.stream());
      ctx.synchronize();
      EXPECT_TRUE(same_entries(to_host(d), sb::generate_matrix<T>(kind, n, 77))) << sb::to_string(kind) << " n=" << n;
    }
  cuda::device_buffer<T> b(50 * 3);
  cuda::generate_rhs(b.data(), 50, 3, 5, ctx.stream());
  // One device's share of a column-distributed matrix: columns 13..21 of the whole.
  const std::int64_t n = 40, first = 13, cols = 9;
  cuda::device_buffer<T> part(static_cast<std::size_t>(n * cols));
  cuda::generate_matrix_columns(part.data(), n, sb::matrix_kind::spd, 3, n, first, cols, ctx.stream());
  ctx.synchronize();
  EXPECT_TRUE(same_entries(to_host(b), sb::generate_rhs<T>(50, 3, 5)));
  const auto whole = sb::generate_matrix<T>(sb::matrix_kind::spd, n, 3);
  const auto p = to_host(part);
  for (std::int64_t c = 0; c < cols; ++c)
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(p[static_cast<std::size_t>(c * n + i)], whole(i, first + c));
}

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
        // Both are backward stable; forward differences scale with cond(A) * eps.
        const double tol = is_single<T>() ? 5e-2 : 1e-9;
        EXPECT_LE(relative_difference(to_host(x), cx), tol) << cuda::to_string(api) << " n=" << n << " chol=" << chol;
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
  x(17, 1) *= T(1) + static_cast<typename sb::precision<T>::real>(0.001) * one_off<T>();  // digits to compare
  const double host = sb::hpl_scaled_residual(a0, x, b0);
  auto da = to_device(a0), dx = to_device(x), db = to_device(b0);
  const double dev = cuda::hpl_scaled_residual(da.data(), dx.data(), db.data(), n, 2, ctx.stream());
  EXPECT_NEAR(dev, host, 1e-9 * host);
  // Regenerating A on the device gives the same row sums and products as reading it.
  using W = wide<T>;
  std::vector<W> hx(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) hx[static_cast<std::size_t>(i)] = W(x(i, 0));
  cuda::device_buffer<W> d_x(hx.size()), stored(hx.size()), regenerated(hx.size());
  cuda::device_buffer<double> stored_rows(hx.size()), regenerated_rows(hx.size());
  ASSERT_EQ(cudaMemcpy(d_x.data(), hx.data(), d_x.size_bytes(), cudaMemcpyHostToDevice), cudaSuccess);
  for (auto* d : {&stored, &regenerated}) ASSERT_EQ(cudaMemset(d->data(), 0, d->size_bytes()), cudaSuccess);
  for (auto* d : {&stored_rows, &regenerated_rows}) ASSERT_EQ(cudaMemset(d->data(), 0, d->size_bytes()), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cuda::accumulate_ax(da.data(), n, n, 0, n, d_x.data(), stored.data(), stored_rows.data(), ctx.stream());
  cuda::accumulate_ax_generated<T>(sb::matrix_kind::uniform, 8, n, 0, n, d_x.data(), regenerated.data(),
                                   regenerated_rows.data(), ctx.stream());
  ctx.synchronize();
  const auto s = to_host(stored), r = to_host(regenerated);
  const auto sr = to_host(stored_rows), rr = to_host(regenerated_rows);
  for (std::size_t i = 0; i < s.size(); ++i) {
    ASSERT_NEAR(std::abs(s[i] - r[i]), 0.0, 1e-12 * std::abs(s[i])) << i;
    ASSERT_NEAR(sr[i], rr[i], 1e-12 * sr[i]) << i;
  }
}

TYPED_TEST(Cusolver, GemmAndItsCheck) {
  using T = TypeParam;
  cuda::context ctx;
  const std::int64_t n = 256;
  const auto a = sb::generate_matrix<T>(sb::matrix_kind::uniform, n, 1);
  const auto b = sb::generate_matrix<T>(sb::matrix_kind::uniform, n, 2);
  auto da = to_device(a), db = to_device(b);
  cuda::device_buffer<T> dc(static_cast<std::size_t>(n * n));
  cuda::gemm(ctx, n, da.data(), db.data(), dc.data());
  ctx.synchronize();
  EXPECT_LT(cuda::gemm_scaled_residual(da.data(), db.data(), dc.data(), n, ctx.stream()), sb::residual_threshold);
  sb::host_matrix<T> c(n, n);
  sb::lapack::gemm(a, b, c);
  EXPECT_LT(sb::gemm_scaled_residual(a, b, c), sb::residual_threshold);
  EXPECT_LE(relative_difference(to_host(dc), c), is_single<T>() ? 1e-5 : 1e-13);
  // A wrong row 5 (entries, or their imaginary parts, off by 1: ~1% of an entry): far more
  // than rounding.
  for (std::int64_t j = 0; j < n; ++j) {
    T entry{};
    ASSERT_EQ(cudaMemcpy(&entry, dc.data() + j * n + 5, sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    entry += one_off<T>();
    ASSERT_EQ(cudaMemcpy(dc.data() + j * n + 5, &entry, sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_GT(cuda::gemm_scaled_residual(da.data(), db.data(), dc.data(), n, ctx.stream()), sb::residual_threshold);
}

TYPED_TEST(Cusolver, SingularMatrixNamesThePivot) {
  using T = TypeParam;
  cuda::context ctx;
  for (auto api : {cuda::cusolver_api::generic64, cuda::cusolver_api::legacy32}) {
    const std::int64_t n = 300;
    cuda::device_buffer<T> a(n * n), b(n);
    cuda::generate_matrix(a.data(), sb::matrix_kind::singular, n, 1, ctx.stream());
    cuda::generate_rhs(b.data(), n, 1, 1, ctx.stream());
    cuda::lu_solver<T> s(ctx, n, 1, api);
    s.factor(a.data());
    s.solve(a.data(), b.data());
    try {
      s.check_info();
      FAIL() << cuda::to_string(api);
    } catch (const sb::singular_matrix& e) {
      EXPECT_EQ(e.pivot(), 151) << e.what();
      const std::string name = api == cuda::cusolver_api::legacy32 ? sb::nvidia_routine_name<T>("cusolverDn", "getrf")
                                                                   : "cusolverDnXgetrf<" + generic_type_name<T>() + ">";
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
}

TYPED_TEST(Cusolver, NotPositiveDefiniteNamesTheMinor) {
  using T = TypeParam;
  cuda::context ctx;
  for (auto api : {cuda::cusolver_api::generic64, cuda::cusolver_api::legacy32}) {
    const std::int64_t n = 300;
    auto host = sb::generate_matrix<T>(sb::matrix_kind::spd, n, 1);
    host(200, 200) = T(-1);
    auto a = to_device(host);
    cuda::cholesky_solver<T> s(ctx, n, 1, api);
    s.factor(a.data());
    try {
      s.check_info();
      FAIL() << cuda::to_string(api);
    } catch (const sb::not_positive_definite& e) {
      EXPECT_EQ(e.minor_order(), 201) << e.what();
    }
  }
}

class CusolverErrors : public GpuTest {};

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
