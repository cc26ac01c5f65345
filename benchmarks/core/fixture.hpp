// One generic fixture for every backend: restore -> time -> check -> counters. A backend
// brings an adapter that owns one row's problem (buffers, solver, timer, residual); the
// sequence around it is written once, here.
#pragma once

#include <benchmark/benchmark.h>

#include <string>
#include <type_traits>
#include <utility>

#include "core/row.hpp"
#include "solvebench/residual.hpp"

namespace solvebench::bench {

// What run_row drives (harness.hpp). One live fixture at a time: it is built when its row
// starts and freed before the next row builds its own.
class row_fixture {
 public:
  virtual ~row_fixture() = default;
  virtual double run_once() = 0;  // restores the inputs untimed, returns the timed seconds of one call
  virtual double check() = 0;     // HPL scaled residual of the last timed answer; throws if it fails
  virtual double flops() const = 0;  // LAWN 41 count of one timed call
  virtual void add_counters(benchmark::State& state) const = 0;
};

// The adapter contract (see cpu/, cuda/, mpi/ for the backends):
//   Adapter(const problem&, extra...)   checks memory first, then allocates, generates A0 and B0, makes the solver
//   void restore(bool a, bool b)        untimed: puts back A and/or B that the last call overwrote
//   void start();  double stop();       brackets the timed region (host clock, CUDA events, slowest rank ...)
//   and what it can run, any of:
//   void factor(); void solve();        the library's two halves (getrf/getrs rows, and gesv when there is no driver)
//   void factor_and_solve();            a one-call driver: used for the operations that factor and solve
//   void multiply();                    C = A B (GEMM)
//   void check_info();                  the library's status of the last calls (a synchronisation on GPUs)
//   double residual();                  the HPL scaled residual of the last answer (GEMM: its Freivalds check)
//   void add_counters(benchmark::State&) const;   n, nrhs and whatever the backend measures beside the time
template <class A, class = void>
struct has_halves : std::false_type {};
template <class A>
struct has_halves<A, std::void_t<decltype(std::declval<A&>().factor(), std::declval<A&>().solve())>>
    : std::true_type {};
template <class A, class = void>
struct has_driver : std::false_type {};
template <class A>
struct has_driver<A, std::void_t<decltype(std::declval<A&>().factor_and_solve())>> : std::true_type {};
template <class A, class = void>
struct has_multiply : std::false_type {};
template <class A>
struct has_multiply<A, std::void_t<decltype(std::declval<A&>().multiply())>> : std::true_type {};

template <class Adapter>
class solve_fixture final : public row_fixture {
 public:
  template <class... Extra>
  explicit solve_fixture(const problem& p, Extra&&... extra) : p_(p), a_(p, std::forward<Extra>(extra)...) {
    if constexpr (has_halves<Adapter>::value) {
      if (p_.op->reuses_factors()) {  // getrs/potrs time the solve against factors made once, here
        a_.restore(true, false);
        a_.factor();
        a_.check_info();
      }
    }
    run_once();  // warm-up: first-call costs (thread pools, module loading, first touch) stay out of the numbers
    a_.check_info();
  }

  double run_once() override {
    const operation& op = *p_.op;
    a_.restore(op.factors, op.solves);
    a_.start();
    steps(op);
    return a_.stop();
  }

  double check() override {
    a_.check_info();
    if constexpr (has_halves<Adapter>::value) {
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
  // The timed calls: the driver where the adapter has one and the operation factors and solves.
  void steps(const operation& op) {
    if constexpr (has_multiply<Adapter>::value) {
      a_.multiply();
      return;
    }
    if constexpr (has_driver<Adapter>::value) {
      if (op.factors && op.solves) {
        a_.factor_and_solve();
        return;
      }
    }
    if constexpr (has_halves<Adapter>::value) {
      if (op.factors) a_.factor();
      if (op.solves) a_.solve();
    }
  }

  problem p_;
  Adapter a_;
};

}  // namespace solvebench::bench
