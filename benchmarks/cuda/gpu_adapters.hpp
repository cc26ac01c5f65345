// The GPU backend's adapters (cuSOLVER and cuBLAS on one stream, timed with CUDA events on
// that stream): solves with A and b already on the device (GPU/...), the same solves paying
// the host transfers a caller with host data pays (GPU-pinned/..., GPU-pageable/...), GEMM,
// mixed precision (cusolverDnIRSXgesv), and batches of small systems, batched or one call
// pair per system (GPU-loop/...). See core/fixture.hpp for the contract. The GPU rows' backend
// watches each row's device memory around its fixture (cuda/gpu_backend.hpp).
#pragma once

#include <benchmark/benchmark.h>

#include <optional>

#include "core/batched.hpp"
#include "core/row.hpp"
#include "cuda/gpu_backend.hpp"
#include "solvebench/cusolver.hpp"
#include "solvebench/cusolver_batched.hpp"
#include "solvebench/device_generate.hpp"
#include "solvebench/device_hold.hpp"
#include "solvebench/device_known_solution.hpp"
#include "solvebench/device_residual.hpp"
#include "solvebench/iterative_refinement.hpp"
#include "solvebench/residual.hpp"

namespace solvebench::bench::gpu {

using cuda::device_buffer;

// CUDA events around the timed calls on the context's stream, after the hold that
// that keeps the host's launch out of the time (device_hold.hpp: 50 us unless SOLVE_BENCH_GPU_HOLD_US says).
class event_timer {
 public:
  explicit event_timer(cuda::context& ctx) : ctx_(ctx) {}
  void start() {
    cuda::hold_stream(ctx_.stream(), cuda::gpu_hold_microseconds());
    timer_.start(ctx_.stream());
  }
  double stop() {
    timer_.stop(ctx_.stream());
    return timer_.elapsed_seconds();
  }

 protected:
  cuda::context& ctx_;

 private:
  cuda::event_timer timer_;
};

inline void copy_on_device(cudaStream_t s, void* dst, const void* src, std::size_t bytes) {
  SB_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
}

inline void add_solve_counters(benchmark::State& state, const problem& p) {
  state.counters["n"] = static_cast<double>(p.n);
  if (p.op->has_rhs()) state.counters["nrhs"] = static_cast<double>(p.nrhs);
}

// A and B of a problem written on the device by the counter-based generators: restoring them
// before a timed call regenerates them (a memory-bound pass, untimed), so a row keeps no copy of
// A and the largest n that fits is the one whose A fits. For a prescribed condition number
// (problem.cond, real only), A = U S V^T is regenerated the same way and B = A X for a known X is
// made once and kept (n x nrhs), so the row also reports the forward error.
template <class T>
class device_inputs {
 public:
  device_inputs(const problem& p, cudaStream_t s) : p_(p), s_(s) {
    if (p.cond > 0) {
      if constexpr (is_complex_v<T>) {
        throw invalid_argument(p.row + ": matrices of a prescribed condition number (cond:C) are real only");
      } else {
        const auto nk = static_cast<std::size_t>(p.n) * static_cast<std::size_t>(p.nrhs);
        x_ = device_buffer<T>(nk);
        b0_ = device_buffer<T>(nk);
        device_buffer<T> a(static_cast<std::size_t>(p.n) * static_cast<std::size_t>(p.n));
        cuda::generate_conditioned(a.data(), conditioned_matrix(p), s);
        cuda::generate_known_solution(x_.data(), p.n, p.nrhs, p.seed, s);
        cuda::rhs_from_solution(a.data(), p.n, x_.data(), b0_.data(), p.n, p.nrhs, s);
        SB_CUDA_CHECK(cudaStreamSynchronize(s));  // before `a` goes
      }
    }
  }
  // What they hold beyond A and B themselves: the known solution and B (cond rows), and while
  // they are made, a second A.
  static std::size_t extra_bytes(const problem& p) {
    const auto nn = static_cast<std::size_t>(p.n) * static_cast<std::size_t>(p.n);
    const auto nk = static_cast<std::size_t>(p.n) * static_cast<std::size_t>(p.nrhs);
    return p.cond > 0 ? (nn + 2 * nk) * sizeof(T) : 0;
  }
  void write_a(T* a) const {
    if constexpr (!is_complex_v<T>)
      if (p_.cond > 0) return cuda::generate_conditioned(a, conditioned_matrix(p_), s_);
    cuda::generate_matrix(a, p_.kind, p_.n, p_.seed, s_);
  }
  void write_b(T* b) const {
    if (p_.cond > 0) return copy_on_device(s_, b, b0_.data(), b0_.size_bytes());
    cuda::generate_rhs(b, p_.n, p_.nrhs, p_.seed, s_);
  }
  // The HPL residual of X against the original A and B: regenerated on the fly (A never stored
  // again); a cond row's A is regenerated into `scratch_a` (its factors are then gone).
  double residual(const T* x, T* scratch_a) const {
    if (p_.cond > 0) {
      write_a(scratch_a);
      return cuda::hpl_scaled_residual(scratch_a, x, b0_.data(), p_.n, p_.nrhs, s_);
    }
    return cuda::hpl_scaled_residual_generated(p_.kind, p_.seed, x, p_.n, p_.nrhs, s_);
  }
  void add_forward_error(benchmark::State& state, const T* answer) const {
    if constexpr (!is_complex_v<T>)
      if (x_.size()) state.counters["fwd_err"] = cuda::forward_error(answer, x_.data(), p_.n, p_.nrhs, s_);
  }
  // The residual regenerates A in place for cond rows: factors made once must be made again.
  bool residual_overwrites_a() const { return p_.cond > 0; }

 private:
  problem p_;
  cudaStream_t s_;
  device_buffer<T> x_, b0_;
};

// What the residual check holds on the device: a few vectors of length n in the wide type.
template <class T>
std::size_t residual_bytes(std::int64_t n) {
  return static_cast<std::size_t>(n) * (3 * sizeof(typename precision<T>::wide) + sizeof(double));
}

// A and b resident on the device; Solver is cuda::lu_solver<T> or cuda::cholesky_solver<T>.
template <class T, class Solver>
class solve_adapter : public event_timer {
 public:
  // Everything the row holds on the device: A, B, the solver's workspace and pivots, what the
  // inputs keep, and the residual's vectors. Checked before anything is allocated.
  static std::size_t device_bytes(const problem& p, cuda::context& ctx, cusolver_api api) {
    const auto nn = static_cast<std::size_t>(p.n) * static_cast<std::size_t>(p.n);
    const auto nk = static_cast<std::size_t>(p.n) * static_cast<std::size_t>(p.nrhs);
    return (nn + nk) * sizeof(T) + Solver::query(ctx, p.n, api).device_bytes + static_cast<std::size_t>(p.n) * 8 +
           device_inputs<T>::extra_bytes(p) + residual_bytes<T>(p.n);
  }
  solve_adapter(const problem& p, cuda::context& ctx, cusolver_api api) : event_timer(ctx), p_(p) {
    cuda::require_device_memory(device_bytes(p, ctx, api));
    in_.emplace(p, ctx.stream());
    a_ = device_buffer<T>(static_cast<std::size_t>(p.n) * static_cast<std::size_t>(p.n));
    b_ = device_buffer<T>(static_cast<std::size_t>(p.n) * static_cast<std::size_t>(p.nrhs));
    solver_.emplace(ctx, p.n, p.nrhs, api);
  }
  void restore(bool a, bool b) {
    if (a) in_->write_a(a_.data());
    if (b) in_->write_b(b_.data());
  }
  void factor() { solver_->factor(a_.data()); }
  void solve() { solver_->solve(a_.data(), b_.data()); }
  void check_info() const { solver_->check_info(); }
  double residual() {
    const double r = in_->residual(b_.data(), a_.data());
    if (in_->residual_overwrites_a() && p_.op->reuses_factors()) {  // the factors made once are gone: make them again
      in_->write_a(a_.data());
      solver_->factor(a_.data());
    }
    return r;
  }
  void add_counters(benchmark::State& state) const {
    add_solve_counters(state, p_);
    if (p_.op->solves) in_->add_forward_error(state, b_.data());
  }

 private:
  problem p_;
  std::optional<device_inputs<T>> in_;
  device_buffer<T> a_, b_;
  std::optional<Solver> solver_;
};

// Where A and b start and x ends for the transfer-inclusive rows.
enum class host_memory { pinned, pageable };

// Host copies of A, b and x, pinned (cudaMallocHost) or pageable (host matrices), A and b
// copied from the device, where the counter-based generators wrote them: generating 2 GiB on the
// host and copying it into pinned memory took most of GPU-pinned/dgesv/n:16384's 2.6 s a round.
template <class T>
class host_side {
 public:
  host_side(host_memory where, const device_buffer<T>& a, std::int64_t n, const device_buffer<T>& b, std::int64_t nrhs,
            cudaStream_t s)
      : pinned_(where == host_memory::pinned) {
    if (pinned_) {
      pa_ = cuda::pinned_buffer<T>(a.size());
      pb_ = cuda::pinned_buffer<T>(b.size());
      px_ = cuda::pinned_buffer<T>(b.size());
    } else {
      a_ = host_matrix<T>(n, n);
      b_ = host_matrix<T>(n, nrhs);
      x_ = host_matrix<T>(n, nrhs);
    }
    SB_CUDA_CHECK(
        cudaMemcpyAsync(pinned_ ? pa_.data() : a_.data(), a.data(), a.size_bytes(), cudaMemcpyDeviceToHost, s));
    SB_CUDA_CHECK(
        cudaMemcpyAsync(pinned_ ? pb_.data() : b_.data(), b.data(), b.size_bytes(), cudaMemcpyDeviceToHost, s));
    SB_CUDA_CHECK(cudaStreamSynchronize(s));
  }
  const T* a() const { return pinned_ ? pa_.data() : a_.data(); }
  const T* b() const { return pinned_ ? pb_.data() : b_.data(); }
  T* x() { return pinned_ ? px_.data() : x_.data(); }

 private:
  bool pinned_;
  cuda::pinned_buffer<T> pa_, pb_, px_;
  host_matrix<T> a_, b_, x_;
};

// What a caller with A and b in host memory pays: the timed region starts with the copies
// of A and b to the device and ends with the copy of x back; counters say how much of it
// was copying.
template <class T, class Solver>
class transfer_adapter {
 public:
  // On the device: A, B, B's copy for the check, the solver's workspace and pivots, the
  // residual's vectors. On the host: A, B and X.
  static std::size_t device_bytes(const problem& p, cuda::context& ctx, cusolver_api api) {
    const auto nn = static_cast<std::size_t>(p.n) * static_cast<std::size_t>(p.n);
    const auto nk = static_cast<std::size_t>(p.n) * static_cast<std::size_t>(p.nrhs);
    return (nn + 2 * nk) * sizeof(T) + Solver::query(ctx, p.n, api).device_bytes + static_cast<std::size_t>(p.n) * 8 +
           residual_bytes<T>(p.n);
  }
  static std::size_t host_bytes(const problem& p) {
    const auto nn = static_cast<std::size_t>(p.n) * static_cast<std::size_t>(p.n);
    const auto nk = static_cast<std::size_t>(p.n) * static_cast<std::size_t>(p.nrhs);
    return (nn + 3 * nk) * sizeof(T);
  }
  transfer_adapter(const problem& p, cuda::context& ctx, cusolver_api api, host_memory where) : ctx_(ctx), p_(p) {
    const auto nn = static_cast<std::size_t>(p.n) * static_cast<std::size_t>(p.n);
    const auto nk = static_cast<std::size_t>(p.n) * static_cast<std::size_t>(p.nrhs);
    cuda::require_device_memory(device_bytes(p, ctx, api));
    require_host_memory(host_bytes(p));
    a_ = device_buffer<T>(nn);
    b_ = device_buffer<T>(nk);
    b0_ = device_buffer<T>(nk);
    cuda::generate_matrix(a_.data(), p.kind, p.n, p.seed, ctx.stream());
    cuda::generate_rhs(b_.data(), p.n, p.nrhs, p.seed, ctx.stream());
    host_.emplace(where, a_, p.n, b_, p.nrhs, ctx.stream());
    solver_.emplace(ctx, p.n, p.nrhs, api);
  }
  void restore(bool, bool) {}  // the timed region uploads A and b afresh
  void start() {
    const cudaStream_t s = ctx_.stream();
    start_.record(s);
    upload(a_.data(), host_->a(), a_.size());
    upload(b_.data(), host_->b(), b_.size());
    uploaded_.record(s);
  }
  void factor() { solver_->factor(a_.data()); }
  void solve() { solver_->solve(a_.data(), b_.data()); }
  double stop() {
    const cudaStream_t s = ctx_.stream();
    solved_.record(s);
    SB_CUDA_CHECK(cudaMemcpyAsync(host_->x(), b_.data(), b_.size_bytes(), cudaMemcpyDeviceToHost, s));
    stop_.record(s);
    const double total = cuda::seconds_between(start_, stop_);
    transfer_seconds_ += cuda::seconds_between(start_, uploaded_) + cuda::seconds_between(solved_, stop_);
    total_seconds_ += total;
    ++runs_;
    return total;
  }
  void check_info() const { solver_->check_info(); }
  // The answer the caller received: host x against the host A and b, checked on the device.
  double residual() {
    upload(a_.data(), host_->a(), a_.size());
    upload(b_.data(), host_->x(), b_.size());
    upload(b0_.data(), host_->b(), b0_.size());
    return cuda::hpl_scaled_residual(a_.data(), b_.data(), b0_.data(), p_.n, p_.nrhs, ctx_.stream());
  }
  void add_counters(benchmark::State& state) const {
    add_solve_counters(state, p_);
    if (transfer_seconds_ > 0) {
      const double bytes = static_cast<double>((a_.size() + 2 * b_.size()) * sizeof(T)) * static_cast<double>(runs_);
      state.counters["xfer_GB/s"] = bytes / transfer_seconds_ / 1e9;
      state.counters["xfer_share"] = transfer_seconds_ / total_seconds_;
    }
  }

 private:
  void upload(T* dst, const T* src, std::size_t count) {
    SB_CUDA_CHECK(cudaMemcpyAsync(dst, src, count * sizeof(T), cudaMemcpyHostToDevice, ctx_.stream()));
  }

  cuda::context& ctx_;
  problem p_;
  device_buffer<T> a_, b_, b0_;
  std::optional<host_side<T>> host_;
  std::optional<Solver> solver_;
  cuda::event start_, uploaded_, solved_, stop_;
  double transfer_seconds_ = 0, total_seconds_ = 0;
  std::int64_t runs_ = 0;
};

// C = A B with cuBLAS ?gemm: the ceiling each solve is held against.
template <class T>
class gemm_adapter : public event_timer {
 public:
  static std::size_t device_bytes(const problem& p) {
    return 3 * static_cast<std::size_t>(p.n) * static_cast<std::size_t>(p.n) * sizeof(T) + residual_bytes<T>(p.n);
  }
  gemm_adapter(const problem& p, cuda::context& ctx) : event_timer(ctx), p_(p) {
    const auto nn = static_cast<std::size_t>(p.n) * static_cast<std::size_t>(p.n);
    cuda::require_device_memory(device_bytes(p));
    a_ = device_buffer<T>(nn);
    b_ = device_buffer<T>(nn);
    c_ = device_buffer<T>(nn);
    cuda::generate_matrix(a_.data(), matrix_kind::uniform, p.n, p.seed, ctx.stream());
    cuda::generate_matrix(b_.data(), matrix_kind::uniform, p.n, p.seed + 1, ctx.stream());
  }
  void restore(bool, bool) {}
  void multiply() { cuda::gemm(ctx_, p_.n, a_.data(), b_.data(), c_.data()); }
  void check_info() const {}
  double residual() { return cuda::gemm_scaled_residual(a_.data(), b_.data(), c_.data(), p_.n, ctx_.stream()); }
  void add_counters(benchmark::State& state) const { state.counters["n"] = static_cast<double>(p_.n); }

 private:
  problem p_;
  device_buffer<T> a_, b_, c_;
};

// Mixed precision: cuSOLVER's iterative refinement (cusolverDnIRSXgesv, or with api simple
// cusolverDn<t1><t2>gesv), fp64 in and out, A factored in a lower precision and x refined to
// fp64 accuracy; the iteration count and any fallback to fp64 are reported. With refinement
// none the answer has the factorization's accuracy only, and is checked at that precision.
class irs_adapter : public event_timer {
 public:
  static std::size_t device_bytes(const problem& p, cuda::context& ctx, const cuda::irs_options& irs) {
    const auto un = static_cast<std::size_t>(p.n);
    return (un * un + 2 * un) * sizeof(double) + cuda::irs_solver::query(ctx, p.n, 1, irs) +
           device_inputs<double>::extra_bytes(p) + residual_bytes<double>(p.n);
  }
  irs_adapter(const problem& p, cuda::context& ctx, const cuda::irs_options& irs)
      : event_timer(ctx), p_(p), irs_options_(irs) {
    cuda::require_irs_supported(p.n, irs);  // beyond cuSOLVER's largest n: refused by name
    cuda::require_device_memory(device_bytes(p, ctx, irs));
    in_.emplace(p, ctx.stream());
    const auto un = static_cast<std::size_t>(p.n);
    a_ = device_buffer<double>(un * un);
    b_ = device_buffer<double>(un);
    x_ = device_buffer<double>(un);
    irs_.emplace(ctx, p.n, 1, irs);
  }
  void restore(bool, bool) {
    in_->write_a(a_.data());
    in_->write_b(b_.data());
    irs_->prepare();  // a fresh infos object for the next solve
  }
  void factor_and_solve() { irs_->solve(a_.data(), b_.data(), x_.data()); }
  double stop() {
    const double t = event_timer::stop();
    last_ = irs_->outcome();
    fell_back_ = fell_back_ || last_.fell_back;
    return t;
  }
  void check_info() const { irs_->check_info(); }
  double residual() {
    double resid = in_->residual(x_.data(), a_.data());
    if (irs_options_.solver == refinement::none)  // the low-precision solve alone: its own eps
      resid *= unit_roundoff<double>() / unit_roundoff(irs_options_.lowest);
    if (!(resid < residual_threshold)) {  // singular: say so, from the matrix itself
      in_->write_a(a_.data());
      irs_->diagnose_in_place(a_.data());
    }
    return resid;
  }
  void add_counters(benchmark::State& state) const {
    state.counters["n"] = static_cast<double>(p_.n);
    state.counters["niters"] = last_.niters;
    state.counters["outer_iters"] = last_.outer_niters;
    state.counters["fell_back"] = fell_back_ ? 1 : 0;
    in_->add_forward_error(state, x_.data());
  }

 private:
  problem p_;
  cuda::irs_options irs_options_;
  std::optional<device_inputs<double>> in_;
  device_buffer<double> a_, b_, x_;
  std::optional<cuda::irs_solver> irs_;
  cuda::irs_result last_;
  bool fell_back_ = false;
};

// What both batch adapters hold: a strided batch of n x n systems (system s generated with
// seed + s) and its untouched copy, restored before each call.
template <class T>
class batch_buffers : public event_timer {
 public:
  batch_buffers(const problem& p, cuda::context& ctx, std::size_t solver_device_bytes) : event_timer(ctx), p_(p) {
    const auto nn = static_cast<std::size_t>(p.n * p.n), un = static_cast<std::size_t>(p.n),
               total = static_cast<std::size_t>(p.count);
    cuda::require_device_memory(2 * (nn + un) * total * sizeof(T) + (un + 3) * total * sizeof(std::int64_t) +
                                solver_device_bytes + total * sizeof(double));
    a0_ = device_buffer<T>(nn * total);
    a_ = device_buffer<T>(nn * total);
    b0_ = device_buffer<T>(un * total);
    b_ = device_buffer<T>(un * total);
    cuda::generate_matrix_batch(a0_.data(), p.kind, p.n, p.count, p.seed, ctx.stream());
    cuda::generate_rhs_batch(b0_.data(), p.n, p.count, p.seed, ctx.stream());
  }
  void restore(bool, bool) {
    copy_on_device(ctx_.stream(), a_.data(), a0_.data(), a_.size_bytes());
    copy_on_device(ctx_.stream(), b_.data(), b0_.data(), b_.size_bytes());
  }
  double residual() {
    const auto worst =
        cuda::batched_hpl_scaled_residual(a0_.data(), b_.data(), b0_.data(), p_.n, p_.count, ctx_.stream());
    worst_index_ = worst.worst_index;
    check_residual(p_.row + " (worst system " + std::to_string(worst.worst_index) + ")", worst.worst);
    return worst.worst;
  }
  void add_counters(benchmark::State& state) const { add_batch_counters(state, p_.n, p_.count, worst_index_); }

 protected:
  problem p_;
  device_buffer<T> a0_, a_, b0_, b_;
  std::int64_t worst_index_ = 0;
};

// The whole batch in one call each for factor and solve: Batched is cuda::batched_lu<T>
// (cuBLAS) or cuda::batched_cholesky<T> (cuSOLVER).
template <class T, class Batched>
class batched_adapter : public batch_buffers<T> {
 public:
  batched_adapter(const problem& p, cuda::context& ctx) : batch_buffers<T>(p, ctx, 0) {
    batched_.emplace(ctx, this->a_.data(), this->b_.data(), p.n, p.count);
  }
  void factor() { batched_->factor(); }
  void solve() { batched_->solve(); }
  void check_info() const { batched_->check_info(); }

 private:
  std::optional<Batched> batched_;
};

// The naive way: one cuSOLVER getrf + getrs launch pair per system.
template <class T>
class loop_adapter : public batch_buffers<T> {
 public:
  loop_adapter(const problem& p, cuda::context& ctx)
      : batch_buffers<T>(p, ctx, cuda::lu_solver<T>::query(ctx, p.n, cusolver_api::generic64).device_bytes) {
    solver_.emplace(ctx, p.n, 1);
  }
  void factor_and_solve() {
    const std::int64_t n = this->p_.n;
    for (std::int64_t k = 0; k < this->p_.count; ++k) {
      T* a = this->a_.data() + k * n * n;
      solver_->factor(a);
      solver_->solve(a, this->b_.data() + k * n);
    }
  }
  void check_info() const { solver_->check_info(); }  // the last system's; the residual checks every system

 private:
  std::optional<cuda::lu_solver<T>> solver_;
};

}  // namespace solvebench::bench::gpu
