// cusolverDnIRSXgesv with every parameter set explicitly and its outcome reported.
#include "solvebench/iterative_refinement.hpp"

#include "solvebench/errors.hpp"

namespace solvebench::cuda {
namespace {

cusolverPrecType_t lowest_type(factor_precision p) {
  switch (p) {
    case factor_precision::fp64: return CUSOLVER_R_64F;
    case factor_precision::fp32: return CUSOLVER_R_32F;
    case factor_precision::tf32: return CUSOLVER_R_TF32;
    case factor_precision::fp16: return CUSOLVER_R_16F;
    case factor_precision::bf16: return CUSOLVER_R_16BF;
  }
  return CUSOLVER_R_64F;
}

cusolverIRSRefinement_t refinement_type(refinement r) {
  switch (r) {
    case refinement::classical: return CUSOLVER_IRS_REFINE_CLASSICAL;
    case refinement::gmres: return CUSOLVER_IRS_REFINE_GMRES;
    case refinement::classical_gmres: return CUSOLVER_IRS_REFINE_CLASSICAL_GMRES;
    case refinement::gmres_gmres: return CUSOLVER_IRS_REFINE_GMRES_GMRES;
  }
  return CUSOLVER_IRS_REFINE_CLASSICAL;
}

unique_handle<cusolverDnIRSParams_t, cusolverDnIRSParamsDestroy> make_params(const irs_options& opt) {
  cusolverDnIRSParams_t p{};
  SB_CUSOLVER_CHECK(cusolverDnIRSParamsCreate(&p));
  unique_handle<cusolverDnIRSParams_t, cusolverDnIRSParamsDestroy> owned(p);
  SB_CUSOLVER_CHECK(cusolverDnIRSParamsSetSolverPrecisions(p, CUSOLVER_R_64F, lowest_type(opt.lowest)));
  SB_CUSOLVER_CHECK(cusolverDnIRSParamsSetRefinementSolver(p, refinement_type(opt.solver)));
  SB_CUSOLVER_CHECK(cusolverDnIRSParamsSetMaxIters(p, opt.max_iters));
  if (opt.tolerance > 0) SB_CUSOLVER_CHECK(cusolverDnIRSParamsSetTol(p, opt.tolerance));
  if (opt.fallback) SB_CUSOLVER_CHECK(cusolverDnIRSParamsEnableFallback(p));
  else SB_CUSOLVER_CHECK(cusolverDnIRSParamsDisableFallback(p));
  return owned;
}

int checked_int(std::int64_t v, const char* what) {
  if (v > 2147483647) throw invalid_argument(std::string("cusolverDnIRSXgesv: ") + what + " = " + std::to_string(v) +
                                             " overflows its 32-bit index type");
  return static_cast<int>(v);
}

}  // namespace

std::size_t irs_solver::query(const context& ctx, std::int64_t n, std::int64_t nrhs, const irs_options& opt) {
  const auto params = make_params(opt);
  std::size_t bytes = 0;
  SB_CUSOLVER_CHECK(cusolverDnIRSXgesv_bufferSize(ctx.solver(), params.get(), checked_int(n, "n"),
                                                  checked_int(nrhs, "nrhs"), &bytes));
  return bytes;
}

irs_solver::irs_solver(const context& ctx, std::int64_t n, std::int64_t nrhs, const irs_options& opt)
    : ctx_(ctx), n_(checked_size("n", n, 2147483647)), nrhs_(checked_size("nrhs", nrhs, 2147483647)), opt_(opt),
      params_(make_params(opt)) {
  work_ = device_buffer<std::byte>(query(ctx, n, nrhs, opt));
  info_ = device_buffer<int>(1);
  SB_CUDA_CHECK(cudaMemsetAsync(info_.data(), 0, info_.size_bytes(), ctx.stream()));
}

void irs_solver::prepare() {
  cusolverDnIRSInfos_t raw{};
  SB_CUSOLVER_CHECK(cusolverDnIRSInfosCreate(&raw));
  infos_ = decltype(infos_)(raw);
}

void irs_solver::solve(double* a, double* b, double* x) {
  if (!infos_) prepare();
  const int n = static_cast<int>(n_), k = static_cast<int>(nrhs_);
  const cusolverStatus_t status = cusolverDnIRSXgesv(ctx_.solver(), params_.get(), infos_.get(), n, k, a, n, b, n, x,
                                                     n, work_.data(), work_.size(), &niters_, info_.data());
  // A singular matrix is a property of the input: the same typed error as the other solves.
  if (status == CUSOLVER_STATUS_IRS_MATRIX_SINGULAR) check_info();
  SB_CUSOLVER_CHECK(status);
}

irs_result irs_solver::outcome() const {
  irs_result r;
  r.niters = niters_;
  SB_CUSOLVER_CHECK(cusolverDnIRSInfosGetOuterNiters(infos_.get(), &r.outer_niters));
  r.fell_back = niters_ < 0 && opt_.fallback;
  return r;
}

void irs_solver::diagnose(double* scratch, const double* a) const {
  SB_CUDA_CHECK(cudaMemcpyAsync(scratch, a, static_cast<std::size_t>(n_ * n_) * sizeof(double),
                                cudaMemcpyDeviceToDevice, ctx_.stream()));
  lu_solver<double> lu(ctx_, n_, 1);
  lu.factor(scratch);
  try {
    lu.check_info();
  } catch (const singular_matrix& e) {
    throw singular_matrix(std::string("cusolverDnIRSXgesv(") + op_name(opt_.lowest) +
                              ") did not converge; fp64 LU of A", e.pivot());
  }
}

void irs_solver::check_info() const {
  int h = 0;
  SB_CUDA_CHECK(cudaMemcpyAsync(&h, info_.data(), sizeof h, cudaMemcpyDeviceToHost, ctx_.stream()));
  SB_CUDA_CHECK(cudaStreamSynchronize(ctx_.stream()));
  throw_on_info(std::string("cusolverDnIRSXgesv(") + op_name(opt_.lowest) + ")", h, factorization::lu);
}

}  // namespace solvebench::cuda
