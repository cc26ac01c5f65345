// One generic fixture for every backend: restore -> time -> check -> counters. A backend
// brings an adapter that owns one row's problem (buffers, solver, timer, residual); the
// sequence around it is written once, here, and the adapter's side of it is checked when it
// compiles: a missing or misspelt method is a static_assert naming it, not an empty timed region.
#pragma once

#include <benchmark/benchmark.h>

#include <string>
#include <type_traits>
#include <utility>

#include "core/row.hpp"
#include "solvebench/residual.hpp"

namespace solvebench::bench {

// What run_row drives (harness.hpp). One live fixture at a time: it is built when its row
// starts and freed before the next row builds its own; run_row makes its first call a warm-up.
class row_fixture {
 public:
  virtual ~row_fixture() = default;
  virtual double run_once() = 0;     // restores the inputs untimed, returns the timed seconds of one call
  virtual double check() = 0;        // HPL scaled residual of the last timed answer; throws if it fails
  virtual double flops() const = 0;  // LAWN 41 count of one timed call
  virtual void add_counters(benchmark::State& state) const = 0;
};

// What a row's timed region calls on its adapter.
enum class timed {
  halves,    // factor() and/or solve(): the operation's own steps (gesv = both; getrf, getrs one each)
  driver,    // factor_and_solve(): the library's one-call driver
  multiply,  // multiply(): C = A B
  probe,     // probe(): one piece of a blocked factorization (ops::probes), its inputs restored before each call
};

namespace contract {
// The adapter contract (see cpu/, cuda/, mgpu/, mpi/ for the backends):
//   Adapter(const problem&, extra...)   checks memory first, then allocates and builds the problem
//   void restore(bool a, bool b)        untimed: puts back A and/or B that the last call overwrote
//   void start();  double stop();       brackets the timed region (host clock, CUDA events, slowest rank ...)
//   void check_info();                  the library's status of the last calls (a synchronisation on GPUs)
//   double residual();                  the HPL scaled residual of the last answer (GEMM: its Freivalds check)
//   void add_counters(benchmark::State&) const;   n, nrhs and whatever the backend measures beside the time
// and what its timed region calls: factor() and solve() (timed::halves), factor_and_solve()
// (timed::driver), multiply() (timed::multiply) or probe() (timed::probe).
#define SB_ADAPTER_HAS(trait, expr)  \
  template <class A, class = void>   \
  struct trait : std::false_type {}; \
  template <class A>                 \
  struct trait<A, std::void_t<decltype(expr)>> : std::true_type {};
SB_ADAPTER_HAS(has_restore, std::declval<A&>().restore(true, true))
SB_ADAPTER_HAS(has_start, std::declval<A&>().start())
SB_ADAPTER_HAS(has_stop, static_cast<double>(std::declval<A&>().stop()))
SB_ADAPTER_HAS(has_check_info, std::declval<A&>().check_info())
SB_ADAPTER_HAS(has_residual, static_cast<double>(std::declval<A&>().residual()))
SB_ADAPTER_HAS(has_counters, std::declval<const A&>().add_counters(std::declval<benchmark::State&>()))
SB_ADAPTER_HAS(has_factor, std::declval<A&>().factor())
SB_ADAPTER_HAS(has_solve, std::declval<A&>().solve())
SB_ADAPTER_HAS(has_driver, std::declval<A&>().factor_and_solve())
SB_ADAPTER_HAS(has_multiply, std::declval<A&>().multiply())
SB_ADAPTER_HAS(has_probe, std::declval<A&>().probe())
#undef SB_ADAPTER_HAS

template <class A, timed Kind>
constexpr bool check() {
  static_assert(has_restore<A>::value, "adapter contract: the adapter has no restore(bool a, bool b)");
  static_assert(has_start<A>::value && has_stop<A>::value,
                "adapter contract: the adapter has no start() and double stop()");
  static_assert(has_check_info<A>::value, "adapter contract: the adapter has no check_info()");
  static_assert(has_residual<A>::value, "adapter contract: the adapter has no double residual()");
  static_assert(has_counters<A>::value, "adapter contract: the adapter has no add_counters(benchmark::State&) const");
  static_assert(Kind != timed::halves || (has_factor<A>::value && has_solve<A>::value),
                "adapter contract: timed::halves needs factor() and solve()");
  static_assert(Kind != timed::driver || has_driver<A>::value,
                "adapter contract: timed::driver needs factor_and_solve()");
  static_assert(Kind != timed::multiply || has_multiply<A>::value,
                "adapter contract: timed::multiply needs multiply()");
  static_assert(Kind != timed::probe || has_probe<A>::value, "adapter contract: timed::probe needs probe()");
  return true;
}
}  // namespace contract

template <class Adapter, timed Kind>
class solve_fixture final : public row_fixture {
  static_assert(contract::check<Adapter, Kind>());

 public:
  template <class... Extra>
  explicit solve_fixture(const problem& p, Extra&&... extra) : p_(p), a_(p, std::forward<Extra>(extra)...) {
    if constexpr (Kind == timed::halves) {
      if (p_.op->reuses_factors()) {  // getrs/potrs time the solve against factors made once, here
        a_.restore(true, false);
        a_.factor();
        a_.check_info();
      }
    }
  }

  double run_once() override {
    const operation& op = *p_.op;
    a_.restore(op.factors || Kind == timed::probe, op.solves);
    a_.start();
    if constexpr (Kind == timed::probe) {
      a_.probe();
    } else if constexpr (Kind == timed::multiply) {
      a_.multiply();
    } else if constexpr (Kind == timed::driver) {
      a_.factor_and_solve();
    } else {
      if (op.factors) a_.factor();
      if (op.solves) a_.solve();
    }
    return a_.stop();
  }

  double check() override {
    a_.check_info();
    if constexpr (Kind == timed::halves) {
      if (p_.op->checked_by_solving()) {  // getrf/potrf: solve with the timed factors, then check that
        a_.restore(false, true);
        a_.solve();
        a_.check_info();
      }
    }
    const double resid = a_.residual();
    check_residual(p_.row, resid);
    return resid;
  }

  double flops() const override { return p_.flops(); }
  void add_counters(benchmark::State& state) const override { a_.add_counters(state); }

 private:
  problem p_;
  Adapter a_;
};

}  // namespace solvebench::bench
