// The mixed-precision avenues of issue 16: cuSOLVER's simple API (cusolverDn<t1><t2>gesv)
// against the expert one, the IRS tolerance taking effect, and the two-level refinements.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "gpu_test.hpp"
#include "solvebench/conditioned.hpp"
#include "solvebench/device_generate.hpp"
#include "solvebench/device_known_solution.hpp"
#include "solvebench/device_residual.hpp"
#include "solvebench/errors.hpp"
#include "solvebench/iterative_refinement.hpp"
#include "solvebench/residual.hpp"

namespace sb = solvebench;
namespace cuda = solvebench::cuda;

namespace {

// One solve of a system whose A is either a generated kind or a prescribed-condition matrix;
// keeps x on the device for comparisons.
struct test_system {
  std::int64_t n;
  cuda::device_buffer<double> a0, a, b, x;
};

test_system make_system(cuda::context& ctx, std::int64_t n, double cond) {
  const auto un = static_cast<std::size_t>(n);
  test_system s{n, cuda::device_buffer<double>(un * un), cuda::device_buffer<double>(un * un),
                cuda::device_buffer<double>(un), cuda::device_buffer<double>(un)};
  if (cond > 0) {
    const auto spec = sb::make_conditioned(n, cond, 5);
    cuda::generate_conditioned(s.a0.data(), spec, ctx.stream());
  } else {
    cuda::generate_matrix(s.a0.data(), sb::matrix_kind::diagdom, n, 5, ctx.stream());
  }
  cuda::generate_rhs(s.b.data(), n, 1, 5, ctx.stream());
  return s;
}

struct outcome {
  cuda::irs_result result;
  double resid;
};

outcome solve(cuda::context& ctx, test_system& s, const cuda::irs_options& opt) {
  const auto bytes = static_cast<std::size_t>(s.n * s.n) * sizeof(double);
  EXPECT_EQ(cudaMemcpyAsync(s.a.data(), s.a0.data(), bytes, cudaMemcpyDeviceToDevice, ctx.stream()), cudaSuccess);
  cuda::irs_solver solver(ctx, s.n, 1, opt);
  solver.prepare();
  solver.solve(s.a.data(), s.b.data(), s.x.data());
  solver.check_info();
  return {solver.outcome(), cuda::hpl_scaled_residual(s.a0.data(), s.x.data(), s.b.data(), s.n, 1, ctx.stream())};
}

const char* describe(const cuda::irs_options& opt) {
  static std::string text;
  text = std::string(cuda::op_name(opt.lowest)) + "/" + cuda::to_string(opt.api) + "/" + cuda::to_string(opt.solver);
  return text.c_str();
}

}  // namespace

class IrsOptions : public GpuTest {};

TEST_F(IrsOptions, SimpleApiAgreesWithTheExpertApi) {
  cuda::context ctx;
  const std::int64_t n = 1000;
  auto s = make_system(ctx, n, 0);  // diagdom
  cuda::device_buffer<double> x_expert(static_cast<std::size_t>(n));
  for (auto p : {cuda::factor_precision::fp16, cuda::factor_precision::bf16, cuda::factor_precision::tf32,
                 cuda::factor_precision::fp32}) {
    cuda::irs_options expert;
    expert.lowest = p;
    const auto e = solve(ctx, s, expert);
    ASSERT_EQ(cudaMemcpyAsync(x_expert.data(), s.x.data(), x_expert.size_bytes(), cudaMemcpyDeviceToDevice,
                              ctx.stream()),
              cudaSuccess);
    cuda::irs_options simple = expert;
    simple.api = cuda::irs_api::simple;
    const auto m = solve(ctx, s, simple);
    std::printf("[ numbers  ] %s: expert niters %d, simple niters %d; resid %.3g vs %.3g\n", cuda::op_name(p),
                e.result.niters, m.result.niters, e.resid, m.resid);
    SCOPED_TRACE(cuda::op_name(p));
    EXPECT_GT(e.result.niters, 0);
    EXPECT_GT(m.result.niters, 0);
    EXPECT_FALSE(m.result.fell_back);
    EXPECT_EQ(m.result.outer_niters, m.result.niters);
    EXPECT_LT(e.resid, sb::residual_threshold);
    EXPECT_LT(m.resid, sb::residual_threshold);
    // Both fp64-accurate on a cond ~1.5 system, so they agree to a few eps.
    EXPECT_LT(cuda::forward_error(s.x.data(), x_expert.data(), n, 1, ctx.stream()), 1e-13);
  }
  cuda::irs_options dd;
  dd.lowest = cuda::factor_precision::fp64;
  dd.api = cuda::irs_api::simple;
  EXPECT_LT(solve(ctx, s, dd).resid, sb::residual_threshold) << "cusolverDnDDgesv";
}

TEST_F(IrsOptions, SimpleApiRefusesSettingsItCannotApply) {
  cuda::context ctx;
  cuda::irs_options opt;
  opt.api = cuda::irs_api::simple;
  opt.lowest = cuda::factor_precision::fp16;
  EXPECT_NO_THROW(cuda::irs_solver::query(ctx, 100, 1, opt));
  auto refused = [&](cuda::irs_options o, const char* what) {
    try {
      cuda::irs_solver::query(ctx, 100, 1, o);
      ADD_FAILURE() << what << " was accepted";
    } catch (const sb::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("cusolverDnDHgesv"), std::string::npos) << e.what();
    }
  };
  auto o = opt;
  o.tolerance = 1e-10;
  refused(o, "tolerance");
  o = opt;
  o.max_iters = 10;
  refused(o, "max_iters");
  o = opt;
  o.solver = cuda::refinement::gmres;
  refused(o, "solver");
  o = opt;
  o.fallback = false;
  refused(o, "fallback");
}

TEST_F(IrsOptions, SingularMatrixIsTheUsualErrorThroughTheSimpleApi) {
  cuda::context ctx;
  singular_system sys(64, 3, ctx.stream());
  const std::int64_t n = sys.n;
  cuda::irs_options opt;
  opt.api = cuda::irs_api::simple;
  cuda::irs_solver s(ctx, n, 1, opt);
  try {
    s.solve(sys.a.data(), sys.b.data(), sys.x.data());
    s.check_info();
    EXPECT_FALSE(cuda::hpl_scaled_residual(sys.a0.data(), sys.x.data(), sys.b.data(), n, 1, ctx.stream()) <
                 sb::residual_threshold);
    s.diagnose(sys.a.data(), sys.a0.data());
    FAIL() << "diagnose() must throw for a singular matrix";
  } catch (const sb::singular_matrix& e) {
    EXPECT_EQ(e.pivot(), 33) << e.what();
    EXPECT_NE(std::string(e.what()).find("cusolverDnDSgesv"), std::string::npos) << e.what();
  }
}

TEST_F(IrsOptions, ToleranceIsAppliedAndReported) {
  // A system that fp16 refinement needs several steps for: then a looser tolerance must stop
  // sooner, and one that cannot be reached must not converge (falling back if allowed).
  cuda::context ctx;
  const std::int64_t n = 1000;
  auto s = make_system(ctx, n, 1e3);
  cuda::irs_options opt;
  opt.lowest = cuda::factor_precision::fp16;
  const auto base = solve(ctx, s, opt);
  EXPECT_EQ(base.result.tolerance, 0.0);
  ASSERT_GE(base.result.niters, 3) << "the test needs a system that takes several refinement steps";
  EXPECT_LT(base.resid, sb::residual_threshold);

  opt.tolerance = 1e-6;
  const auto loose = solve(ctx, s, opt);
  EXPECT_EQ(loose.result.tolerance, 1e-6);
  EXPECT_GT(loose.result.niters, 0);
  EXPECT_LT(loose.result.niters, base.result.niters);

  opt.tolerance = 1e-300;
  const auto unreachable = solve(ctx, s, opt);
  EXPECT_LT(unreachable.result.niters, 0);
  EXPECT_TRUE(unreachable.result.fell_back);
  EXPECT_LT(unreachable.resid, sb::residual_threshold) << "the fp64 fallback's answer";

  opt.fallback = false;
  const auto stuck = solve(ctx, s, opt);
  EXPECT_LT(stuck.result.niters, 0);
  EXPECT_FALSE(stuck.result.fell_back);
  std::printf(
      "[ numbers  ] dhgesv n = 1000 cond = 1e3: niters default %d, tol 1e-6 %d (resid %.3g), "
      "tol 1e-300 %d / %d without fallback\n",
      base.result.niters, loose.result.niters, loose.resid, unreachable.result.niters, stuck.result.niters);

  opt.tolerance = -1;
  EXPECT_THROW(cuda::irs_solver::query(ctx, n, 1, opt), sb::invalid_argument);
  opt.tolerance = std::nan("");
  EXPECT_THROW(cuda::irs_solver::query(ctx, n, 1, opt), sb::invalid_argument);
}

TEST_F(IrsOptions, TwoLevelRefinementsConverge) {
  cuda::context ctx;
  auto s = make_system(ctx, 1000, 0);  // diagdom
  for (auto p : {cuda::factor_precision::fp16, cuda::factor_precision::bf16})
    for (auto r : {cuda::refinement::classical_gmres, cuda::refinement::gmres_gmres}) {
      cuda::irs_options opt;
      opt.lowest = p;
      opt.solver = r;
      const auto got = solve(ctx, s, opt);
      SCOPED_TRACE(describe(opt));
      std::printf("[ numbers  ] %s diagdom n = 1000: niters %d outer %d resid %.3g\n", describe(opt), got.result.niters,
                  got.result.outer_niters, got.resid);
      EXPECT_GT(got.result.niters, 0);
      EXPECT_GE(got.result.outer_niters, 1);
      EXPECT_LE(got.result.outer_niters, got.result.niters) << "niters counts inner and outer steps";
      EXPECT_FALSE(got.result.fell_back);
      EXPECT_LT(got.resid, sb::residual_threshold);
    }
}

TEST_F(IrsOptions, NoRefinementIsTheLowPrecisionSolveAlone) {
  // refinement::none times the factorization alone; its answer has fp16 accuracy, not fp64.
  cuda::context ctx;
  const std::int64_t n = 1000;
  const auto un = static_cast<std::size_t>(n);
  auto s = make_system(ctx, n, 0);  // diagdom, cond ~1.5
  cuda::device_buffer<double> x_true(un);
  cuda::generate_known_solution(x_true.data(), n, 1, 5, ctx.stream());
  cuda::rhs_from_solution(s.a0.data(), n, x_true.data(), s.b.data(), n, 1, ctx.stream());
  cuda::irs_options opt;
  opt.lowest = cuda::factor_precision::fp16;
  opt.solver = cuda::refinement::none;
  opt.fallback = false;  // whatever cuSOLVER reports, keep the unrefined answer
  const auto raw = solve(ctx, s, opt);
  const double raw_error = cuda::forward_error(s.x.data(), x_true.data(), n, 1, ctx.stream());
  opt.solver = cuda::refinement::classical;
  opt.fallback = true;
  const auto refined = solve(ctx, s, opt);
  const double refined_error = cuda::forward_error(s.x.data(), x_true.data(), n, 1, ctx.stream());
  std::printf(
      "[ numbers  ] dhgesv none: niters %d resid %.3g fwd_err %.3g; classical: niters %d resid %.3g "
      "fwd_err %.3g\n",
      raw.result.niters, raw.resid, raw_error, refined.result.niters, refined.resid, refined_error);
  EXPECT_GT(raw.resid, sb::residual_threshold) << "an unrefined fp16 solve is not fp64-accurate";
  EXPECT_LT(raw_error, 0.05) << "but it is an fp16-quality solve of the right system";
  EXPECT_LT(refined.resid, sb::residual_threshold);
  EXPECT_LT(refined_error, 1e-12);
}

TEST(IrsOptionNames, ApiNamesRoundTrip) {  // host only: runs without a GPU too
  EXPECT_STREQ(cuda::to_string(cuda::irs_api::simple), "simple");
  EXPECT_EQ(cuda::parse_irs_api("expert"), cuda::irs_api::expert);
  EXPECT_EQ(cuda::parse_irs_api("simple"), cuda::irs_api::simple);
  EXPECT_THROW(cuda::parse_irs_api("lapack"), sb::invalid_argument);
  EXPECT_EQ(cuda::parse_refinement("none"), cuda::refinement::none);
  EXPECT_STREQ(cuda::to_string(cuda::refinement::none), "none");
}
