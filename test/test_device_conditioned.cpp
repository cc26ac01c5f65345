// The prescribed-condition generator and the known solution on the GPU: the host's matrix up to
// rounding, column blocks from global indices, fast at n = 32768; b = A x, forward error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "gpu_test.hpp"
#include "solvebench/conditioned.hpp"
#include "solvebench/cusolver.hpp"
#include "solvebench/device_generate.hpp"
#include "solvebench/device_known_solution.hpp"
#include "solvebench/device_residual.hpp"
#include "solvebench/iterative_refinement.hpp"
#include "solvebench/known_solution.hpp"
#include "solvebench/residual.hpp"

namespace sb = solvebench;
namespace cuda = solvebench::cuda;

class DeviceConditioned : public GpuTest {};

TEST_F(DeviceConditioned, TheHostMatrixUpToRounding) {
  cuda::context ctx;
  for (std::int64_t n : {50, 200, 1000})
    for (double cond : {1e1, 1e8}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", cond = " + sb::format_condition_number(cond));
      const auto spec = sb::make_conditioned(n, cond, 13);
      const auto un = static_cast<std::size_t>(n);
      cuda::device_buffer<double> d(un * un);
      cuda::device_buffer<float> f(un * un);
      cuda::generate_conditioned(d.data(), spec, ctx.stream());
      cuda::generate_conditioned(f.data(), spec, ctx.stream());
      const auto dev = to_host(d.data(), d.size());
      const auto devf = to_host(f.data(), f.size());
      const auto host = sb::generate_conditioned<double>(spec);
      double worst = 0, worst_f = 0;
      for (std::size_t k = 0; k < dev.size(); ++k) {
        worst = std::max(worst, std::fabs(dev[k] - host.data()[k]));
        // float: the doubles differ in their last bits, so a rounding to float may differ by an ulp
        worst_f = std::max(worst_f, std::fabs(static_cast<double>(devf[k]) - host.data()[k]) /
                                        (std::fabs(host.data()[k]) + 1e-30));
      }
      EXPECT_LT(worst, 1e-14) << "||A||_2 = 1: entries agree to a few eps";
      EXPECT_LT(worst_f, 1.2e-7);
    }
}

TEST_F(DeviceConditioned, ColumnBlocksFromGlobalIndicesAssembleTheMatrix) {
  cuda::context ctx;
  const std::int64_t n = 300, lda = 320;
  const auto spec = sb::make_conditioned(n, 1e6, 21, 5);
  cuda::device_buffer<double> whole(static_cast<std::size_t>(n * n)), blocks(static_cast<std::size_t>(lda * n));
  cuda::generate_conditioned(whole.data(), spec, ctx.stream());
  // Three uneven blocks, as three devices of a column-distributed layout would make them.
  const std::int64_t edges[] = {0, 37, 201, n};
  for (int b = 0; b < 3; ++b)
    cuda::generate_conditioned_columns(blocks.data() + edges[b] * lda, lda, spec, edges[b], edges[b + 1] - edges[b],
                                       ctx.stream());
  const auto w = to_host(whole.data(), whole.size()), p = to_host(blocks.data(), blocks.size());
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < n; ++i)
      ASSERT_EQ(p[static_cast<std::size_t>(j * lda + i)], w[static_cast<std::size_t>(j * n + i)]) << i << ", " << j;
  // And the same bits again on a second run.
  cuda::generate_conditioned(blocks.data(), spec, ctx.stream());
  const auto again = to_host(blocks.data(), w.size());
  EXPECT_TRUE(std::equal(again.begin(), again.end(), w.begin()));
}

TEST_F(DeviceConditioned, GeneratesN32768InWellUnderASecond) {
  const std::int64_t n = 32768;
  const auto un = static_cast<std::size_t>(n);
  cuda::require_device_memory(un * un * sizeof(double));
  cuda::context ctx;
  const auto spec = sb::make_conditioned(n, 1e8, 3);
  cuda::device_buffer<double> a(un * un);
  cuda::generate_conditioned(a.data(), spec, ctx.stream());  // warm-up: loads the kernel
  ctx.synchronize();
  cuda::event_timer t;
  t.start(ctx.stream());
  cuda::generate_conditioned(a.data(), spec, ctx.stream());
  t.stop(ctx.stream());
  const double seconds = t.elapsed_seconds();
  std::printf("[ timing   ] generate_conditioned<double> n = 32768: %.1f ms (%.0f GB/s written)\n", seconds * 1e3,
              static_cast<double>(un * un * sizeof(double)) / seconds / 1e9);
  RecordProperty("generate_ms", std::to_string(seconds * 1e3));
  EXPECT_LT(seconds, 1.0);
  // Spot checks against the host entry function: first, last and a middle column.
  for (std::int64_t j : {std::int64_t{0}, n / 2 + 1, n - 1}) {
    const auto col = to_host(a.data() + j * n, un);
    for (std::int64_t i = 0; i < n; i += 97)
      ASSERT_NEAR(col[static_cast<std::size_t>(i)], sb::conditioned_entry(spec, i, j), 1e-14) << i << ", " << j;
    ASSERT_NEAR(col[static_cast<std::size_t>(j)], sb::conditioned_entry(spec, j, j), 1e-14) << "diagonal " << j;
  }
}

class DeviceKnownSolution : public GpuTest {};

TEST_F(DeviceKnownSolution, SolutionRhsAndForwardErrorMatchTheHost) {
  cuda::context ctx;
  const std::int64_t n = 700, nrhs = 2;
  const auto un = static_cast<std::size_t>(n);
  const auto a = sb::generate_conditioned<double>(sb::make_conditioned(n, 1e4, 8));
  const auto x = sb::generate_known_solution<double>(n, nrhs, 8);
  const auto b = sb::rhs_from_solution(a, x);

  auto da = to_device(a);
  cuda::device_buffer<double> dx(un * nrhs), db(un * nrhs), db2(un * nrhs);
  cuda::generate_known_solution(dx.data(), n, nrhs, 8, ctx.stream());
  const auto hx = to_host(dx.data(), dx.size());
  EXPECT_TRUE(std::equal(hx.begin(), hx.end(), x.data())) << "bit for bit";

  cuda::rhs_from_solution(da.data(), n, dx.data(), db.data(), n, nrhs, ctx.stream());
  cuda::rhs_from_solution(da.data(), n, dx.data(), db2.data(), n, nrhs, ctx.stream());
  const auto hb = to_host(db.data(), db.size()), hb2 = to_host(db2.data(), db2.size());
  EXPECT_TRUE(std::equal(hb.begin(), hb.end(), hb2.begin())) << "a fixed summation order: the same b every run";
  for (std::size_t k = 0; k < hb.size(); ++k) EXPECT_NEAR(hb[k], b.data()[k], 1e-14 * std::fabs(b.data()[k]) + 1e-16);

  // Forward error of a perturbed copy: the device value is the host value.
  auto xh = x;
  xh(3, 0) += 1e-9;
  xh(n - 1, 1) -= 3e-7;
  auto dxh = to_device(xh);
  EXPECT_DOUBLE_EQ(cuda::forward_error(dxh.data(), dx.data(), n, nrhs, ctx.stream()), sb::forward_error(xh, x));
  xh(5, 1) = std::nan("");
  dxh = to_device(xh);
  EXPECT_EQ(cuda::forward_error(dxh.data(), dx.data(), n, nrhs, ctx.stream()), std::numeric_limits<double>::infinity());

  // fp32 data: b summed in double from the float matrix, rounded once.
  const auto af = sb::generate_conditioned<float>(sb::make_conditioned(n, 1e4, 8));
  const auto xf = sb::generate_known_solution<float>(n, 1, 8);
  const auto bf = sb::rhs_from_solution(af, xf);
  auto daf = to_device(af), dxf = to_device(xf);
  cuda::device_buffer<float> dbf(un);
  cuda::rhs_from_solution(daf.data(), n, dxf.data(), dbf.data(), n, 1, ctx.stream());
  const auto hbf = to_host(dbf.data(), un);
  for (std::size_t k = 0; k < un; ++k)
    EXPECT_LE(std::fabs(hbf[k] - bf.data()[k]), std::ldexp(std::fabs(bf.data()[k]), -23)) << "within one float ulp";
}

TEST_F(DeviceKnownSolution, ForwardErrorOfGpuDgesvGrowsWithCond) {
  cuda::context ctx;
  const std::int64_t n = 1000;
  const auto un = static_cast<std::size_t>(n);
  const double eps = sb::unit_roundoff<double>();
  double err[2] = {};
  const double conds[2] = {1e2, 1e8};
  for (int t = 0; t < 2; ++t) {
    const auto spec = sb::make_conditioned(n, conds[t], 4);
    cuda::device_buffer<double> a0(un * un), a(un * un), x0(un), b(un), x(un);
    cuda::generate_conditioned(a0.data(), spec, ctx.stream());
    cuda::generate_conditioned(a.data(), spec, ctx.stream());
    cuda::generate_known_solution(x0.data(), n, 1, 4, ctx.stream());
    cuda::rhs_from_solution(a0.data(), n, x0.data(), b.data(), n, 1, ctx.stream());
    EXPECT_EQ(cudaMemcpyAsync(x.data(), b.data(), un * sizeof(double), cudaMemcpyDeviceToDevice, ctx.stream()),
              cudaSuccess);
    cuda::lu_solver<double> lu(ctx, n, 1);
    lu.factor(a.data());
    lu.solve(a.data(), x.data());
    lu.check_info();
    err[t] = cuda::forward_error(x.data(), x0.data(), n, 1, ctx.stream());
    const double resid = cuda::hpl_scaled_residual(a0.data(), x.data(), b.data(), n, 1, ctx.stream());
    std::printf("[ numbers  ] GPU dgesv n = %lld cond = %g: forward error %.3g, scaled residual %.3g\n",
                static_cast<long long>(n), conds[t], err[t], resid);
    EXPECT_LT(err[t], conds[t] * static_cast<double>(n) * eps);
    EXPECT_GT(err[t], eps);
    EXPECT_LT(resid, sb::residual_threshold);
  }
  EXPECT_GT(err[1], 1e3 * err[0]);
}

TEST_F(DeviceKnownSolution, MixedPrecisionIterationsAcrossConditions) {
  // Not a pass/fail bar on cuSOLVER: the numbers the map will be made of, printed for the
  // record. What must hold is the contract: converged -> fp64 backward error; not -> fell back.
  cuda::context ctx;
  const std::int64_t n = 2000;
  const auto un = static_cast<std::size_t>(n);
  for (double cond : {1e1, 1e3, 1e5, 1e7})
    for (auto p : {cuda::factor_precision::fp16, cuda::factor_precision::bf16, cuda::factor_precision::tf32,
                   cuda::factor_precision::fp32})
      for (auto r : {cuda::refinement::classical, cuda::refinement::gmres}) {
        const auto spec = sb::make_conditioned(n, cond, 6);
        cuda::device_buffer<double> a0(un * un), a(un * un), x0(un), b(un), x(un);
        cuda::generate_conditioned(a0.data(), spec, ctx.stream());
        cuda::generate_conditioned(a.data(), spec, ctx.stream());
        cuda::generate_known_solution(x0.data(), n, 1, 6, ctx.stream());
        cuda::rhs_from_solution(a0.data(), n, x0.data(), b.data(), n, 1, ctx.stream());
        cuda::irs_options opt;
        opt.lowest = p;
        opt.solver = r;
        cuda::irs_solver s(ctx, n, 1, opt);
        s.prepare();
        s.solve(a.data(), b.data(), x.data());
        s.check_info();
        const auto out = s.outcome();
        const double resid = cuda::hpl_scaled_residual(a0.data(), x.data(), b.data(), n, 1, ctx.stream());
        const double fwd = cuda::forward_error(x.data(), x0.data(), n, 1, ctx.stream());
        std::printf("[ numbers  ] n = %lld cond = %-6g %s/%-9s niters %3d fell_back %d resid %.3g fwd_err %.3g\n",
                    static_cast<long long>(n), cond, cuda::op_name(p), cuda::to_string(r), out.niters,
                    out.fell_back ? 1 : 0, resid, fwd);
        EXPECT_EQ(out.niters < 0, out.fell_back);
        EXPECT_LT(resid, sb::residual_threshold);
      }
}
