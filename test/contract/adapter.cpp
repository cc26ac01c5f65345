// An adapter that keeps the row contract (core/fixture.hpp), and with SB_MISSPELT the same one
// with check_info() spelt check_infos(): that one must not compile, and the error must name
// the method (test/CMakeLists.txt builds it as test contract.misspelt_adapter).
#include <benchmark/benchmark.h>

#include "core/fixture.hpp"

namespace {

using solvebench::bench::problem;
using solvebench::bench::timed;

struct toy_adapter {
  explicit toy_adapter(const problem&) {}
  void restore(bool, bool) {}
  void start() {}
  double stop() { return 0; }
#ifdef SB_MISSPELT
  void check_infos() {}
#else
  void check_info() {}
#endif
  double residual() { return 0; }
  void add_counters(benchmark::State&) const {}
  void factor() {}
  void solve() {}
};

}  // namespace

// Instantiating the fixture runs the contract's static_asserts.
static_assert(sizeof(solvebench::bench::solve_fixture<toy_adapter, timed::halves>) > 0);
