// GPU mixed precision: cusolverDnIRSXgesv (fp64 in/out, fp32/tf32/fp16/bf16 factorization,
// classical or GMRES refinement) beside plain dgesv on the same matrix, in the same run.
// Rows: GPU/dhgesv/n:N/nrhs:1/kind:K/refine:R and GPU/dgesv/n:N/nrhs:1/kind:K.
#include <optional>

#include "gpu_context.hpp"
#include "harness.hpp"
#include "options.hpp"
#include "solvebench/device_generate.hpp"
#include "solvebench/device_residual.hpp"
#include "solvebench/flops.hpp"
#include "solvebench/iterative_refinement.hpp"
#include "solvebench/residual.hpp"

namespace solvebench::bench {
namespace {

using cuda::device_buffer;

class gpu_mixed_fixture {
 public:
  // `irs` empty: the plain fp64 getrf + getrs baseline.
  gpu_mixed_fixture(cuda::context& ctx, std::string row, std::int64_t n, matrix_kind kind, std::uint64_t seed,
                    std::optional<cuda::irs_options> irs)
      : watch_(row), ctx_(ctx), row_(std::move(row)), n_(n) {
    const auto un = static_cast<std::size_t>(n);
    const std::size_t work = irs ? cuda::irs_solver::query(ctx, n, 1, *irs)
                                 : cuda::lu_solver<double>::query(ctx, n, cuda::cusolver_api::generic64).device_bytes;
    cuda::require_device_memory((2 * un * un + 3 * un) * sizeof(double) + work + 4 * un * sizeof(double));
    a0_ = device_buffer<double>(un * un);
    a_ = device_buffer<double>(un * un);
    b0_ = device_buffer<double>(un);
    b_ = device_buffer<double>(un);
    x_ = device_buffer<double>(un);
    cuda::generate_matrix(a0_.data(), kind, n, seed, ctx.stream());
    cuda::generate_rhs(b0_.data(), n, 1, seed, ctx.stream());
    if (irs) irs_.emplace(ctx, n, 1, *irs);
    else lu_.emplace(ctx, n, 1);
    run_once();  // warm-up
    check_info();
  }

  double run_once() {
    const cudaStream_t s = ctx_.stream();
    SB_CUDA_CHECK(cudaMemcpyAsync(a_.data(), a0_.data(), a_.size_bytes(), cudaMemcpyDeviceToDevice, s));
    SB_CUDA_CHECK(cudaMemcpyAsync(b_.data(), b0_.data(), b_.size_bytes(), cudaMemcpyDeviceToDevice, s));
    if (irs_) irs_->prepare();
    timer_.start(s);
    if (irs_) {
      irs_->solve(a_.data(), b_.data(), x_.data());
    } else {
      lu_->factor(a_.data());
      lu_->solve(a_.data(), b_.data());
    }
    timer_.stop(s);
    const double t = timer_.elapsed_seconds();
    if (irs_) {
      last_ = irs_->outcome();
      fell_back_ = fell_back_ || last_.fell_back;
    }
    return t;
  }

  double check() {
    check_info();
    const double resid =
        cuda::hpl_scaled_residual(a0_.data(), irs_ ? x_.data() : b_.data(), b0_.data(), n_, 1, ctx_.stream());
    if (irs_ && !(resid < residual_threshold)) irs_->diagnose(a_.data(), a0_.data());  // singular: say so
    check_residual(row_, resid);
    return resid;
  }

  // fp64-equivalent: the dgesv count, whatever precision did the work.
  double flops() const { return gesv_flops(static_cast<double>(n_), 1); }

  void add_counters(benchmark::State& state) const {
    state.counters["n"] = static_cast<double>(n_);
    if (irs_) {
      state.counters["niters"] = last_.niters;
      state.counters["outer_iters"] = last_.outer_niters;
      state.counters["fell_back"] = fell_back_ ? 1 : 0;
    }
  }

 private:
  void check_info() const {
    if (irs_) irs_->check_info();
    else lu_->check_info();
  }

  device_memory_watch watch_;  // first: checks, last, that the rest returned its memory
  cuda::context& ctx_;
  std::string row_;
  std::int64_t n_;
  device_buffer<double> a0_, a_, b0_, b_, x_;
  std::optional<cuda::irs_solver> irs_;
  std::optional<cuda::lu_solver<double>> lu_;
  cuda::event_timer timer_;
  cuda::irs_result last_;
  bool fell_back_ = false;
};

void register_one(const std::string& row, std::int64_t n, matrix_kind kind, std::uint64_t seed,
                  std::optional<cuda::irs_options> irs) {
  register_row(row, [=](benchmark::State& state) {
    run_gpu_row<gpu_mixed_fixture>(state, row, [&](cuda::context& ctx) {
      return std::make_unique<gpu_mixed_fixture>(ctx, row, n, kind, seed, irs);
    });
  });
}

}  // namespace

void register_gpu_mixed_rows(const options& opt) {
  bool has_d = false;
  for (const auto& p : opt.precisions) has_d = has_d || p == "d";
  if (!has_d) return;  // fp64 in and out
  const cuda::factor_precision lowest[] = {cuda::factor_precision::fp32, cuda::factor_precision::tf32,
                                           cuda::factor_precision::fp16, cuda::factor_precision::bf16};
  for (auto n : gpu_mixed_sizes(opt))
    for (auto kind : opt.mixed_kinds) {
      const std::string tail = "/n:" + std::to_string(n) + "/nrhs:1/kind:" + to_string(kind);
      register_one("GPU/dgesv" + tail, n, kind, opt.seed, std::nullopt);
      for (auto p : lowest)
        for (const auto& r : opt.refine) {
          cuda::irs_options irs;
          irs.lowest = p;
          irs.solver = cuda::parse_refinement(r);
          irs.max_iters = static_cast<int>(opt.irs_max_iters);
          register_one(std::string("GPU/") + cuda::op_name(p) + tail + "/refine:" + r, n, kind, opt.seed, irs);
        }
    }
}

}  // namespace solvebench::bench
