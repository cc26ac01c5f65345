// Mixed precision on the GPU: cuSOLVER's expert iterative-refinement solver (cusolverDnIRSXgesv).
//
// A and b are fp64 in and x is fp64 out; A is factored in a lower precision (fp32, tf32,
// fp16, bf16) and x refined to fp64 accuracy. Every choice that matters is explicit: the
// factorization precision, the refinement solver (classical or GMRES-based), tolerance,
// iteration cap and whether to fall back to an fp64 factorization when refinement fails;
// the iteration count and whether it fell back come back with each solve.
#pragma once

#include <cstdint>
#include <string>

#include "solvebench/cusolver.hpp"

namespace solvebench::cuda {

using solvebench::factor_precision;
using solvebench::op_name;
using solvebench::parse_refinement;
using solvebench::refinement;

struct irs_options {
  factor_precision lowest = factor_precision::fp32;
  refinement solver = refinement::classical;
  int max_iters = 50;        // cuSOLVER's default
  double tolerance = 0.0;    // 0: cuSOLVER's default
  bool fallback = true;      // to an fp64 factorization when refinement does not converge
};

struct irs_result {
  int niters = 0;        // cuSOLVER's count; < 0: refinement did not converge (see cuSOLVER docs)
  int outer_niters = 0;  // outer iterations of two-level solvers (== niters for one-level)
  bool fell_back = false;  // refinement failed and the answer came from an fp64 factorization
};

class irs_solver {
 public:
  // Workspace bytes for these options, queried without allocating.
  static std::size_t query(const context& ctx, std::int64_t n, std::int64_t nrhs, const irs_options& opt);
  irs_solver(const context& ctx, std::int64_t n, std::int64_t nrhs, const irs_options& opt);

  // A fresh infos object, which describes exactly one solve: call before each solve, untimed.
  void prepare();
  // Solves A X = B (all fp64, leading dimension n). Blocks until done: cuSOLVER returns the
  // iteration count on the host. A may be overwritten (restore it before the next call).
  void solve(double* a, double* b, double* x);
  irs_result outcome() const;  // of the last solve
  void check_info() const;     // singular_matrix(k) / invalid_argument from devInfo
  // After a solve whose answer failed its check: cuSOLVER may report an exactly singular
  // matrix only as non-convergence, so factor A (copied into `scratch`, n x n) in fp64 and
  // throw singular_matrix(k) if it is singular; returns when A is not.
  void diagnose(double* scratch, const double* a) const;

 private:
  const context& ctx_;
  std::int64_t n_, nrhs_;
  irs_options opt_;
  unique_handle<cusolverDnIRSParams_t, cusolverDnIRSParamsDestroy> params_;
  unique_handle<cusolverDnIRSInfos_t, cusolverDnIRSInfosDestroy> infos_;
  int niters_ = 0;
  device_buffer<std::byte> work_;
  device_buffer<int> info_;
};

}  // namespace solvebench::cuda
