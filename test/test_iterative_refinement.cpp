// Mixed precision on the GPU: every factorization precision reaches fp64 accuracy on
// well-conditioned systems; on a hard one it converges or says truthfully that it fell back.
#include <gtest/gtest.h>

#include "gpu_test.hpp"
#include "solvebench/device_generate.hpp"
#include "solvebench/device_residual.hpp"
#include "solvebench/errors.hpp"
#include "solvebench/iterative_refinement.hpp"
#include "solvebench/residual.hpp"

namespace sb = solvebench;
namespace cuda = solvebench::cuda;

namespace {

struct solved {
  cuda::irs_result outcome;
  double resid;
};

solved solve(cuda::context& ctx, sb::matrix_kind kind, std::int64_t n, const cuda::irs_options& opt) {
  const auto un = static_cast<std::size_t>(n);
  cuda::device_buffer<double> a0(un * un), a(un * un), b(un), x(un);
  cuda::generate_matrix(a0.data(), kind, n, 3, ctx.stream());
  cuda::generate_matrix(a.data(), kind, n, 3, ctx.stream());
  cuda::generate_rhs(b.data(), n, 1, 3, ctx.stream());
  cuda::irs_solver s(ctx, n, 1, opt);
  s.prepare();
  s.solve(a.data(), b.data(), x.data());
  s.check_info();
  return {s.outcome(), cuda::hpl_scaled_residual(a0.data(), x.data(), b.data(), n, 1, ctx.stream())};
}

}  // namespace

class IterativeRefinement : public GpuTest {};

TEST_F(IterativeRefinement, EveryPrecisionConvergesOnWellConditionedSystems) {
  cuda::context ctx;
  for (auto p : {cuda::factor_precision::fp32, cuda::factor_precision::tf32, cuda::factor_precision::fp16,
                 cuda::factor_precision::bf16})
    for (auto r : {cuda::refinement::classical, cuda::refinement::gmres})
      for (auto kind : {sb::matrix_kind::diagdom, sb::matrix_kind::spd}) {
        cuda::irs_options opt;
        opt.lowest = p;
        opt.solver = r;
        const auto got = solve(ctx, kind, 1000, opt);
        SCOPED_TRACE(std::string(cuda::op_name(p)) + "/" + cuda::to_string(r) + "/" + sb::to_string(kind));
        EXPECT_GT(got.outcome.niters, 0);
        EXPECT_FALSE(got.outcome.fell_back);
        EXPECT_LT(got.resid, sb::residual_threshold);
      }
}

TEST_F(IterativeRefinement, HardSystemConvergesOrReportsItsFallback) {
  cuda::context ctx;
  cuda::irs_options opt;
  opt.lowest = cuda::factor_precision::fp16;
  opt.max_iters = 5;  // too few for fp16 on a random matrix: it must fall back, and say so
  const auto with = solve(ctx, sb::matrix_kind::uniform, 2000, opt);
  if (with.outcome.niters > 0) {
    EXPECT_FALSE(with.outcome.fell_back);
  } else {
    EXPECT_TRUE(with.outcome.fell_back);
  }
  EXPECT_LT(with.resid, sb::residual_threshold) << "with fallback the answer is fp64-quality either way";

  opt.fallback = false;
  const auto without = solve(ctx, sb::matrix_kind::uniform, 2000, opt);
  EXPECT_FALSE(without.outcome.fell_back) << "fallback disabled: never claims to have fallen back";
  if (without.outcome.niters < 0) {
    EXPECT_EQ(with.outcome.niters < 0, true) << "the same system did not converge with fallback either";
  }
}

TEST_F(IterativeRefinement, SingularMatrixIsTheUsualError) {
  cuda::context ctx;
  singular_system sys(64, 3, ctx.stream());
  const std::int64_t n = sys.n;
  cuda::irs_options opt;
  opt.lowest = cuda::factor_precision::fp32;
  cuda::irs_solver s(ctx, n, 1, opt);
  try {
    // cuSOLVER may flag it itself (info > 0) or only fail to converge...
    s.solve(sys.a.data(), sys.b.data(), sys.x.data());
    s.check_info();
    EXPECT_LT(s.outcome().niters, 0) << "a singular system cannot converge";
    EXPECT_FALSE(cuda::hpl_scaled_residual(sys.a0.data(), sys.x.data(), sys.b.data(), n, 1, ctx.stream()) <
                 sb::residual_threshold);
    // ...then the diagnosis names the pivot, as for every other solve.
    s.diagnose(sys.a.data(), sys.a0.data());
    FAIL() << "diagnose() must throw for a singular matrix";
  } catch (const sb::singular_matrix& e) {
    EXPECT_EQ(e.pivot(), 33) << e.what();
  }
}

TEST_F(IterativeRefinement, DiagnoseLeavesRegularMatricesAlone) {
  cuda::context ctx;
  const std::int64_t n = 100;
  cuda::device_buffer<double> a0(n * n), scratch(n * n);
  cuda::generate_matrix(a0.data(), sb::matrix_kind::uniform, n, 3, ctx.stream());
  cuda::irs_solver s(ctx, n, 1, cuda::irs_options{});
  EXPECT_NO_THROW(s.diagnose(scratch.data(), a0.data()));
}

TEST_F(IterativeRefinement, NamesAndParsing) {
  EXPECT_STREQ(cuda::op_name(cuda::factor_precision::fp16), "dhgesv");
  EXPECT_STREQ(cuda::op_name(cuda::factor_precision::bf16), "dbgesv");
  EXPECT_STREQ(cuda::op_name(cuda::factor_precision::tf32), "dxgesv");
  EXPECT_EQ(cuda::parse_refinement("gmres"), cuda::refinement::gmres);
  EXPECT_THROW(cuda::parse_refinement("jacobi"), sb::invalid_argument);
}
