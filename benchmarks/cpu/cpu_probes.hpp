// The CPU's probes of the bound (docs/ceilings.md, --ceilings=on): the pieces of blocked LU and
// Cholesky at block size nb (the problem's nrhs, ops::probes), each timed alone with its inputs
// restored before each call and its answer checked on a few columns.
#pragma once

#include "cpu/cpu_adapters.hpp"
#include "solvebench/lapack_probes.hpp"

namespace solvebench::bench::cpu {

inline void add_probe_counters(benchmark::State& state, const problem& p) {
  state.counters["n"] = static_cast<double>(p.n);
  state.counters["nb"] = static_cast<double>(p.nrhs);
}

// C (m x m) -= A (m x nb) B (nb x m).
template <class T>
class update_probe : public host_timer {
 public:
  static std::uint64_t bytes(const problem& p) {
    checked_size("n", p.n, lapack::max_n);
    return 2 * entries_bytes<T>(p.n, p.nrhs) + 2 * entries_bytes<T>(p.n, p.n);
  }
  explicit update_probe(const problem& p)
      : check_(bytes(p)),
        p_(p),
        a_(generate_rhs<T>(p.n, p.nrhs, p.seed)),
        b_(generate_rhs<T>(p.nrhs, p.n, p.seed + 1)),
        c0_(generate_rhs<T>(p.n, p.n, p.seed + 2)),
        c_(p.n, p.n) {}
  void restore(bool, bool) { c_.assign(c0_); }
  void probe() { lapack::gemm_update(a_, b_, c_); }
  void check_info() const {}
  double residual() const { return lapack::gemm_update_residual(a_, b_, c0_, c_); }
  void add_counters(benchmark::State& state) const { add_probe_counters(state, p_); }

 private:
  host_memory_check check_;
  problem p_;
  host_matrix<T> a_, b_, c0_, c_;
};

// The LU of an m x nb panel.
template <class T>
class panel_probe : public host_timer {
 public:
  static std::uint64_t bytes(const problem& p) {
    checked_size("n", p.n, lapack::max_n);
    return 2 * entries_bytes<T>(p.n, p.nrhs) + entries_bytes<lapack::index_t>(p.nrhs, 1);
  }
  explicit panel_probe(const problem& p)
      : check_(bytes(p)),
        p_(p),
        a0_(generate_rhs<T>(p.n, p.nrhs, p.seed)),
        a_(p.n, p.nrhs),
        ipiv_(static_cast<std::size_t>(p.nrhs)) {}
  void restore(bool, bool) { a_.assign(a0_); }
  void probe() { lapack::getrf_panel(a_, ipiv_); }
  void check_info() const {}
  double residual() const { return lapack::getrf_panel_residual(a0_, a_, ipiv_); }
  void add_counters(benchmark::State& state) const { add_probe_counters(state, p_); }

 private:
  host_memory_check check_;
  problem p_;
  host_matrix<T> a0_, a_;
  std::vector<lapack::index_t> ipiv_;
};

// B (nb x m) := L^-1 B with L unit lower triangular, nb x nb.
template <class T>
class trsm_probe : public host_timer {
 public:
  static std::uint64_t bytes(const problem& p) {
    checked_size("n", p.n, lapack::max_n);
    return entries_bytes<T>(p.nrhs, p.nrhs) + 2 * entries_bytes<T>(p.nrhs, p.n);
  }
  explicit trsm_probe(const problem& p)
      : check_(bytes(p)),
        p_(p),
        l_(lapack::probe_triangle<T>(p.nrhs, p.seed)),
        b0_(generate_rhs<T>(p.nrhs, p.n, p.seed + 1)),
        b_(p.nrhs, p.n) {}
  void restore(bool, bool) { b_.assign(b0_); }
  void probe() { lapack::trsm_panel(l_, b_); }
  void check_info() const {}
  double residual() const { return lapack::trsm_panel_residual(l_, b0_, b_); }
  void add_counters(benchmark::State& state) const { add_probe_counters(state, p_); }

 private:
  host_memory_check check_;
  problem p_;
  host_matrix<T> l_, b0_, b_;
};

// The Cholesky of one nb x nb diagonal block (the row's n is nb), checked by solving with it.
template <class T>
class block_probe : public solve_adapter<T, cholesky<T>> {
 public:
  using solve_adapter<T, cholesky<T>>::solve_adapter;
  void probe() { this->factor(); }
  double residual() {
    this->restore(false, true);
    this->solve();
    return solve_adapter<T, cholesky<T>>::residual();
  }
  void add_counters(benchmark::State& state) const { add_probe_counters(state, this->p_); }
};

}  // namespace solvebench::bench::cpu
