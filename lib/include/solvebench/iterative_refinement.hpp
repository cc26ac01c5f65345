// Mixed precision on the GPU: cuSOLVER's iterative-refinement solvers, through either of its two
// interfaces: the expert cusolverDnIRSXgesv (default) or the LAPACK-like cusolverDn<t1><t2>gesv.
//
// A and b are fp64 in and x is fp64 out; A is factored in a lower precision (fp32, tf32,
// fp16, bf16) and x refined to fp64 accuracy. Every choice that matters is explicit: the
// factorization precision, the refinement solver (classical or GMRES-based), tolerance,
// iteration cap and whether to fall back to an fp64 factorization when refinement fails;
// the iteration count and whether it fell back come back with each solve. The simple API
// takes none of those settings (cuSOLVER applies its own), so only their defaults are accepted.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "solvebench/cusolver.hpp"

namespace solvebench::cuda {

using solvebench::factor_precision;
using solvebench::irs_api;
using solvebench::op_name;
using solvebench::parse_irs_api;
using solvebench::parse_refinement;
using solvebench::refinement;

struct irs_options {
  factor_precision lowest = factor_precision::fp32;
  refinement solver = refinement::classical;
  int max_iters = 50;  // cuSOLVER's default; counts inner and outer iterations together
  // > 0: passed to cusolverDnIRSParamsSetTol, replacing cuSOLVER's default stopping test
  // (documented as ||r||_inf < sqrt(n) ||x||_inf ||A||_inf eps: fp64 backward error). The docs
  // do not say how the value enters the test; the GPU tests pin its effect: a looser one stops
  // sooner (and may then fail the HPL residual check), an unreachable one never converges.
  double tolerance = 0.0;
  bool fallback = true;           // to an fp64 factorization when refinement does not converge
  irs_api api = irs_api::expert;  // simple: solver, max_iters, tolerance, fallback at defaults
};

struct irs_result {
  int niters = 0;          // cuSOLVER's count; < 0: refinement did not converge (see cuSOLVER docs)
  int outer_niters = 0;    // outer iterations of two-level solvers (== niters for one-level)
  bool fell_back = false;  // refinement failed and the answer came from an fp64 factorization
  double tolerance = 0.0;  // the tolerance cuSOLVER was given; 0: its default (see irs_options)
};

// cuSOLVER's iterative refinement fails beyond a largest n that depends on its version and the
// factorization's precision (cuSOLVER 12.0.4: an execution failure from n = 46340 with an fp16
// factorization, an internal error that breaks the context further up). The limits measured
// here, by version; nullopt where none is known for the cuSOLVER this process loaded.
std::optional<std::int64_t> irs_largest_n(const irs_options& opt);
// Throws beyond_limit naming the limit and the cuSOLVER version when n is beyond it.
void require_irs_supported(std::int64_t n, const irs_options& opt);
// "12.0.4": the cuSOLVER this process loaded.
std::string cusolver_version_text();

class irs_solver {
 public:
  // Workspace bytes for these options, queried without allocating. Throws invalid_argument
  // for options the chosen API cannot apply, or a negative or NaN tolerance.
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
  // The same with A in `a`, factored in place (its entries are gone afterwards): for rows that
  // regenerate A rather than keep a copy.
  void diagnose_in_place(double* a) const;

 private:
  const context& ctx_;
  std::int64_t n_, nrhs_;
  irs_options opt_;
  unique_handle<cusolverDnIRSParams_t, cusolverDnIRSParamsDestroy> params_;
  unique_handle<cusolverDnIRSInfos_t, cusolverDnIRSInfosDestroy> infos_;
  int niters_ = 0;
  device_buffer<std::byte> work_;
  device_buffer<int> info_;
  device_buffer<int> ipiv_;  // the simple API's pivots
};

}  // namespace solvebench::cuda
