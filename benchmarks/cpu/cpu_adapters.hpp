// The CPU backend's adapters (LAPACKE over the linked BLAS): dense solves and their halves,
// GEMM, mixed precision (dsgesv) and batches of small systems. See core/fixture.hpp for the
// contract; all of them time with the host's steady clock around the library call.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <optional>
#include <vector>

#include "core/harness.hpp"
#include "core/row.hpp"
#include "solvebench/conditioned.hpp"
#include "solvebench/generate.hpp"
#include "solvebench/known_solution.hpp"
#include "solvebench/lapack.hpp"
#include "solvebench/lapack_batched.hpp"
#include "solvebench/residual.hpp"

namespace solvebench::bench::cpu {

// First member of every CPU adapter: the memory a row will hold, checked before any of it is
// allocated, so that an order too large is refused by name instead of killed by the kernel.
struct host_memory_check {
  explicit host_memory_check(std::uint64_t bytes) { require_host_memory(bytes); }
};

// The bytes of n x k entries of T, refusing a count that overflows.
template <class T>
std::uint64_t entries_bytes(std::int64_t n, std::int64_t k) {
  const auto un = static_cast<std::uint64_t>(n), uk = static_cast<std::uint64_t>(k);
  if (n < 0 || k < 0 || (uk != 0 && un > UINT64_MAX / 4 / sizeof(T) / uk))
    throw out_of_memory("host", UINT64_MAX, host_memory_available_bytes());
  return un * uk * sizeof(T);
}

class host_timer {
 public:
  void start() { t0_ = std::chrono::steady_clock::now(); }
  double stop() const { return seconds_since(t0_); }

 private:
  std::chrono::steady_clock::time_point t0_;
};

// The inputs of a problem: A0 and B0 from the counter-based generators; for a prescribed
// condition number (problem.cond), A0 = U S V^T and B0 = A0 X for a known X, whose forward
// error the row then reports beside its residual.
template <class T>
struct host_system {
  explicit host_system(const problem& p) {
    if (p.cond > 0) {
      if constexpr (is_complex_v<T>) {
        throw invalid_argument(p.row + ": matrices of a prescribed condition number (cond:C) are real only");
      } else {
        a0 = generate_conditioned<T>(conditioned_matrix(p));
        x = generate_known_solution<T>(p.n, p.nrhs, p.seed);
        b0 = rhs_from_solution(a0, *x);
      }
    } else {
      a0 = generate_matrix<T>(p.kind, p.n, p.seed);
      b0 = generate_rhs<T>(p.n, p.nrhs, p.seed);
    }
  }
  host_matrix<T> a0, b0;
  std::optional<host_matrix<T>> x;
};

// The LAPACKE calls of one factorization: its halves and its one-call driver.
template <class T>
struct lu {
  explicit lu(std::int64_t n) : ipiv(static_cast<std::size_t>(n)) {}
  void factor(host_matrix<T>& a) { lapack::getrf(a, ipiv); }
  void solve(const host_matrix<T>& a, host_matrix<T>& b) { lapack::getrs(a, ipiv, b); }
  void driver(host_matrix<T>& a, host_matrix<T>& b) { lapack::gesv(a, ipiv, b); }
  std::vector<lapack::index_t> ipiv;
};
template <class T>
struct cholesky {
  explicit cholesky(std::int64_t) {}
  void factor(host_matrix<T>& a) { lapack::potrf(a); }
  void solve(const host_matrix<T>& l, host_matrix<T>& b) { lapack::potrs(l, b); }
  void driver(host_matrix<T>& a, host_matrix<T>& b) { lapack::posv(a, b); }
};

// A and B on the host; ?gesv/?posv as their two halves (?getrf + ?getrs, ?potrf + ?potrs),
// back to back in one timed region, as reference LAPACK's ?gesv does: the library's best
// path, whatever its one-call driver does (see driver_adapter).
template <class T, class Factorization>
class solve_adapter : public host_timer {
 public:
  // A0, A, B0, B, (X), the pivots.
  static std::uint64_t bytes(const problem& p) {
    checked_size("n", p.n, lapack::max_n);
    return 2 * entries_bytes<T>(p.n, p.n) + 3 * entries_bytes<T>(p.n, p.nrhs) + entries_bytes<lapack::index_t>(p.n, 1);
  }
  explicit solve_adapter(const problem& p) : check_(bytes(p)), p_(p), f_(p.n) {
    host_system<T> inputs(p);
    a0_ = std::move(inputs.a0);
    b0_ = std::move(inputs.b0);
    x_ = std::move(inputs.x);
    require_finite("A", a0_);
    require_finite("B", b0_);
    a_ = host_matrix<T>(p.n, p.n);
    b_ = host_matrix<T>(p.n, p.nrhs);
  }
  void restore(bool a, bool b) {
    if (a) a_.assign(a0_);
    if (b) b_.assign(b0_);
  }
  void factor() { f_.factor(a_); }
  void solve() { f_.solve(a_, b_); }
  void check_info() const {}  // LAPACKE reports at once: the calls above have thrown already
  double residual() const { return hpl_scaled_residual(a0_, b_, b0_); }
  void add_counters(benchmark::State& state) const {
    state.counters["n"] = static_cast<double>(p_.n);
    if (p_.op->has_rhs()) state.counters["nrhs"] = static_cast<double>(p_.nrhs);
    if constexpr (!is_complex_v<T>)
      if (x_ && p_.op->solves) state.counters["fwd_err"] = forward_error(b_, *x_);
  }

 protected:
  host_memory_check check_;
  problem p_;
  Factorization f_;
  host_matrix<T> a0_, a_, b0_, b_;
  std::optional<host_matrix<T>> x_;  // the known solution, for cond:C rows
};

// The library's one-call driver, LAPACKE_?gesv / ?posv (CPU-driver/... rows): what most
// callers reach for, kept beside the CPU rows because a driver can be slower than its two
// halves (OpenBLAS 0.3.26 runs ?gesv on one thread for n * nrhs < 10000; the audit names it).
template <class T, class Factorization>
class driver_adapter : public solve_adapter<T, Factorization> {
 public:
  using solve_adapter<T, Factorization>::solve_adapter;
  void factor_and_solve() { this->f_.driver(this->a_, this->b_); }
};

// C = A B with the BLAS ?gemm: the ceiling each solve is held against.
template <class T>
class gemm_adapter : public host_timer {
 public:
  static std::uint64_t bytes(const problem& p) {
    checked_size("n", p.n, lapack::max_n);
    return 3 * entries_bytes<T>(p.n, p.n);
  }
  explicit gemm_adapter(const problem& p) : check_(bytes(p)), p_(p) {
    a_ = generate_matrix<T>(p.kind, p.n, p.seed);
    b_ = generate_matrix<T>(matrix_kind::uniform, p.n, p.seed + 1);
    require_finite("A", a_);
    c_ = host_matrix<T>(p.n, p.n);
  }
  void restore(bool, bool) {}
  void multiply() { lapack::gemm(a_, b_, c_); }
  void check_info() const {}
  double residual() const { return gemm_scaled_residual(a_, b_, c_); }
  void add_counters(benchmark::State& state) const { state.counters["n"] = static_cast<double>(p_.n); }

 protected:
  host_memory_check check_;
  problem p_;
  host_matrix<T> a_, b_, c_;
};

// Mixed precision: LAPACKE_dsgesv (fp32 factorization, fp64 refinement), fp64 in and out.
class dsgesv_adapter : public host_timer {
 public:
  static std::uint64_t bytes(const problem& p) {
    checked_size("n", p.n, lapack::max_n);
    return 2 * entries_bytes<double>(p.n, p.n) + 4 * entries_bytes<double>(p.n, 1) + entries_bytes<float>(p.n, p.n + 1);
  }
  explicit dsgesv_adapter(const problem& p) : check_(bytes(p)), p_(p) {
    host_system<double> inputs(p);
    a0_ = std::move(inputs.a0);
    b0_ = std::move(inputs.b0);
    known_ = std::move(inputs.x);
    require_finite("A", a0_);  // LAPACKE_dsgesv would only say "residual inf"
    require_finite("B", b0_);
    a_ = host_matrix<double>(p.n, p.n);
    x_ = host_matrix<double>(p.n, 1);
    solver_.emplace(p.n, 1);
  }
  void restore(bool a, bool) {
    if (a) a_.assign(a0_);
  }
  void factor_and_solve() { iter_ = solver_->solve(a_, b0_, x_); }
  void check_info() const {}
  double residual() const { return hpl_scaled_residual(a0_, x_, b0_); }
  void add_counters(benchmark::State& state) const {
    state.counters["n"] = static_cast<double>(p_.n);
    state.counters["niters"] = iter_;
    state.counters["fell_back"] = iter_ < 0 ? 1 : 0;
    if (known_) state.counters["fwd_err"] = forward_error(x_, *known_);
  }

 private:
  host_memory_check check_;
  problem p_;
  host_matrix<double> a0_, a_, b0_, x_;
  std::optional<host_matrix<double>> known_;
  std::optional<lapack::dsgesv_solver> solver_;
  lapack::index_t iter_ = 0;
};

// Many small systems: an OpenMP loop of single-threaded LAPACKE calls over a strided batch
// (system s generated with seed + s: LU rows uniform, Cholesky rows spd).
template <class T>
class batched_adapter : public host_timer {
 public:
  // A0, A, B0, B and the pivots of every system.
  static std::uint64_t bytes(const problem& p) {
    const std::uint64_t per_system = 2 * entries_bytes<T>(p.n, p.n + 1) + entries_bytes<lapack::index_t>(p.n, 1);
    return entries_bytes<char>(static_cast<std::int64_t>(per_system), p.count);
  }
  // The batch lives in host matrices (huge pages) and is generated in place by a team of threads:
  // 10000 systems of n = 128 through a matrix each and plain vectors took 9.7 s to build on the
  // 2-core VM, nearly all of it page faults, for a round that times 0.2 s.
  explicit batched_adapter(const problem& p)
      : check_(bytes(p)),
        p_(p),
        ws_(p.n, p.count),
        threads_(1),
        a0_(p.n * p.n, p.count),
        a_(p.n * p.n, p.count),
        b0_(p.n, p.count),
        b_(p.n, p.count) {
    generate_matrix_batch(a0_.data(), p.kind, p.n, p.count, p.seed);
    generate_rhs_batch(b0_.data(), p.n, p.count, p.seed);
  }
  void restore(bool, bool) {
    a_.assign(a0_);
    b_.assign(b0_);
  }
  void factor_and_solve() {
    if (cholesky()) lapack::posv_batched(a_.data(), b_.data(), ws_);
    else lapack::gesv_batched(a_.data(), b_.data(), ws_);
  }
  void check_info() const { ws_.check_info(cholesky() ? "LAPACKE_?posv" : "LAPACKE_?gesv", p_.op->family); }
  double residual();
  void add_counters(benchmark::State& state) const;

 private:
  bool cholesky() const { return p_.op->family == factorization::cholesky; }

  host_memory_check check_;
  problem p_;
  lapack::batch_workspace ws_;          // made first: it fixes the loop's team (lapack_batched.hpp)
  lapack::blas_threads_guard threads_;  // one BLAS thread per system, while this row lives
  host_matrix<T> a0_, a_, b0_, b_;      // system s: column s (a: n * n entries, b: n)
  std::int64_t worst_index_ = 0;
};

}  // namespace solvebench::bench::cpu
