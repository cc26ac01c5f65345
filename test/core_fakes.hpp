// A fake backend for the core's tests: rows that "time" deterministically (a call of a row of
// order n takes n / 64 ms, on no clock), a row that fails its check, one too large to build, one
// that breaks its backend as a sticky GPU fault does, and a printer that keeps what it is told.
#pragma once

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "core/fixture.hpp"
#include "core/gb_flags.hpp"
#include "core/harness.hpp"
#include "core/printers.hpp"
#include "core/row.hpp"
#include "core/session.hpp"
#include "core/sweep.hpp"
#include "solvebench/errors.hpp"

namespace fake {

namespace sb = solvebench::bench;

// What a row does, from its axis fake:MODE: ok (no axis), fail (a wrong answer), oom (refused
// at build), fault (an error that leaves its backend unusable).
template <class T>
class adapter {
 public:
  explicit adapter(const sb::problem& p) : p_(p), mode_(p.id.axis("fake").value_or("ok")) {
    if (mode_ == "oom") throw solvebench::out_of_memory("fake rows", 1ULL << 40, 1ULL << 30);
  }
  void restore(bool, bool) {}
  void start() {}
  void factor() {}
  void solve() {}
  double stop() { return 1e-3 * static_cast<double>(p_.n) / 64; }
  void check_info() {
    if (mode_ == "fail") throw solvebench::error(p_.row + ": fake: the matrix is singular");
    if (mode_ == "fault") throw solvebench::error(p_.row + ": fake: an illegal address");
  }
  double residual() { return 0.25; }
  void add_counters(benchmark::State& state) const { state.counters["n"] = static_cast<double>(p_.n); }

 private:
  sb::problem p_;
  std::string mode_;
};

inline constexpr sb::backend_desc desc{
    "FAKE", sb::row_role::reference, sb::row_device::cpu, sb::row_placement::resident, sb::row_path::halves, "fakelib"};

// As the GPU rows' backend: once a row left it broken, its later rows are deferred.
class fault_backend final : public sb::row_backend {
 public:
  fault_backend() : sb::row_backend("fake rows") {}
  std::string unusable() const override { return broken_; }
  void after(bool ok, const std::string& failure) override {
    if (!ok && failure.find("illegal address") != std::string::npos) broken_ = "broken by " + failure;
  }

 private:
  std::string broken_;
};

// A dgesv row of order n, nrhs 1, with the axis fake:MODE unless MODE is "ok".
inline sb::row_id gesv_id(std::int64_t n, const std::string& mode = "ok") {
  sb::row_id id = sb::make_row_id<double>(desc, sb::ops::gesv, n, 1);
  if (mode != "ok") sb::add_axis(id, "fake", mode);
  return id;
}
inline sb::row_key add_row(sb::session& s, const sb::row_id& id, sb::row_backend* backend = nullptr) {
  const sb::problem p = sb::make_problem(id, sb::ops::gesv, std::nullopt, 1);
  s.register_row(
      id, [p] { return std::make_unique<sb::solve_fixture<adapter<double>, sb::timed::halves>>(p); }, backend);
  return *s.find(id);
}

struct memory_printer final : sb::printer {
  std::vector<std::string> started;
  std::vector<sb::row_entry> entries;
  bool has_context = false, finished = false;
  void context(const sb::json&) override { has_context = true; }
  void starts(const std::string& row) override { started.push_back(row); }
  void rows(const std::vector<sb::row_entry>& runs) override {
    entries.insert(entries.end(), runs.begin(), runs.end());
  }
  void finish() override { finished = true; }
};

// Google Benchmark set up as the driver sets it up (one iteration a round, the time manual).
inline void init_gbench() {
  // Google Benchmark keeps argv[0] for the context's executable: the strings outlive the call
  // (a local vector's were read after it returned: heap-use-after-free under ASan).
  static std::vector<std::string> flags = [] {
    std::vector<std::string> f = {"core_tests"};
    for (const auto& g : sb::flags_for_gb(SOLVE_BENCH_GBENCH_1_8 != 0)) f.push_back(g);
    return f;
  }();
  std::vector<char*> argv;
  for (auto& f : flags) argv.push_back(f.data());
  int argc = static_cast<int>(argv.size());
  argv.push_back(nullptr);
  benchmark::Initialize(&argc, argv.data());
}

// One round of `keys` through Google Benchmark and `reporter`, as the driver runs it.
inline void run_round(sb::session& s, const std::vector<sb::row_key>& keys, sb::bridge& reporter, int round = 0,
                      int rounds = 1) {
  s.set_round({0, round, rounds, 1});
  s.set_row_start_hook([&reporter](const std::string& row) { reporter.starts(row); });
  s.register_with_gbench(keys);
  benchmark::RunSpecifiedBenchmarks(&reporter, ".");
  s.set_row_start_hook(nullptr);
  benchmark::ClearRegisteredBenchmarks();
}

}  // namespace fake
