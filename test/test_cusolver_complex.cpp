// GPU backend for c and z: device generators bit for bit the host's, cuSOLVER solves against
// LAPACKE on the same matrices, the device residuals against the host's, and the error paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu_test.hpp"
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
template <class T>
bool same_entries(const std::vector<T>& dev, const sb::host_matrix<T>& host) {
  const auto same = [](auto d, auto h) {
    return std::memcmp(&d, &h, sizeof d) == 0 || (std::isnan(d) && std::isnan(h));
  };
  if (dev.size() != host.size()) return false;
  for (std::size_t k = 0; k < dev.size(); ++k)
    if (!same(dev[k].real(), host.data()[k].real()) || !same(dev[k].imag(), host.data()[k].imag())) return false;
  return true;
}

template <class T>
std::string type_name() {
  return std::is_same_v<T, std::complex<double>> ? "complex<double>" : "complex<float>";
}

}  // namespace

template <class T>
class CusolverComplex : public GpuTest {};
using ComplexPrecisions = ::testing::Types<std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(CusolverComplex, ComplexPrecisions);

TYPED_TEST(CusolverComplex, DeviceGeneratorsAreTheHosts) {
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
TYPED_TEST(CusolverComplex, GesvAndPosvAgreeWithLapackeForBothApis) {
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
          diff = std::max(diff, std::abs(std::complex<double>(gx[k]) - std::complex<double>(cx.data()[k])));
          norm = std::max(norm, std::abs(std::complex<double>(cx.data()[k])));
        }
        // Both are backward stable; forward differences scale with cond(A) * eps.
        const double tol = std::is_same_v<T, std::complex<float>> ? 5e-2 : 1e-9;
        EXPECT_LE(diff / norm, tol) << cuda::to_string(api) << " n=" << n << " chol=" << chol;
      }
    }
}

TYPED_TEST(CusolverComplex, DeviceResidualMatchesHostResidual) {
  using T = TypeParam;
  cuda::context ctx;
  const std::int64_t n = 300;
  const auto a0 = sb::generate_matrix<T>(sb::matrix_kind::uniform, n, 8);
  const auto b0 = sb::generate_rhs<T>(n, 2, 8);
  auto a = a0;
  auto x = b0;
  std::vector<sb::lapack::index_t> ipiv(n);
  sb::lapack::gesv(a, ipiv, x);
  x(17, 1) *= T(1, static_cast<typename T::value_type>(0.001));  // large enough to compare digits
  const double host = sb::hpl_scaled_residual(a0, x, b0);
  auto da = to_device(a0), dx = to_device(x), db = to_device(b0);
  const double dev = cuda::hpl_scaled_residual(da.data(), dx.data(), db.data(), n, 2, ctx.stream());
  EXPECT_NEAR(dev, host, 1e-9 * host);
  // Regenerating A on the device gives the same row sums and products as reading it.
  using W = std::complex<double>;
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

TYPED_TEST(CusolverComplex, GemmAndItsCheck) {
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
  const auto gc = to_host(dc);
  double diff = 0, norm = 0;
  for (std::size_t k = 0; k < gc.size(); ++k) {
    diff = std::max(diff, std::abs(std::complex<double>(gc[k]) - std::complex<double>(c.data()[k])));
    norm = std::max(norm, std::abs(std::complex<double>(c.data()[k])));
  }
  const double tol = std::is_same_v<T, std::complex<float>> ? 1e-5 : 1e-13;
  EXPECT_LE(diff / norm, tol);
  // A wrong row 5 (imaginary parts off by 1, ~1% of an entry): far more than rounding.
  for (std::int64_t j = 0; j < n; ++j) {
    T entry{};
    ASSERT_EQ(cudaMemcpy(&entry, dc.data() + j * n + 5, sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    entry += T(0, 1);
    ASSERT_EQ(cudaMemcpy(dc.data() + j * n + 5, &entry, sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_GT(cuda::gemm_scaled_residual(da.data(), db.data(), dc.data(), n, ctx.stream()), sb::residual_threshold);
}

TYPED_TEST(CusolverComplex, SingularMatrixNamesThePivot) {
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
      EXPECT_NE(std::string(e.what()).find("getrf"), std::string::npos) << e.what();
      const std::string name = api == cuda::cusolver_api::legacy32 ? sb::nvidia_routine_name<T>("cusolverDn", "getrf")
                                                                   : "cusolverDnXgetrf<" + type_name<T>() + ">";
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
}

TYPED_TEST(CusolverComplex, NotPositiveDefiniteNamesTheMinor) {
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
