// One round of a row: its fixture built, the sampling loop, the check, the counters.
#include "core/session.hpp"

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <iostream>
#include <new>
#include <regex>

#include "checks/load.hpp"
#include "checks/record.hpp"
#include "solvebench/errors.hpp"

namespace solvebench::bench {
namespace {

// A warm-up call: its timed seconds and the wall seconds around it (its restore included).
struct warm_up_call {
  double timed = 0, wall = 0;
};

// The CPU rows' probe reads RAPL (energy) and /proc (the other processes' load).
class cpu_rows_backend final : public row_backend {
 public:
  cpu_rows_backend() : row_backend("CPU rows", make_cpu_row_monitor()) {}
  std::string missing_text(const std::string& reason) const override {
    std::string out;
    std::size_t start = 0;
    while (start <= reason.size()) {
      const std::size_t end = std::min(reason.find("; ", start), reason.size());
      const std::string part = reason.substr(start, end - start);
      if (!part.empty())
        out += (out.empty() ? "" : "; ") + std::string(part.rfind("RAPL", 0) == 0 ? "energy (J/solve)" : "load") +
               " of the CPU rows not measured: " + part;
      start = end + 2;
    }
    return out;
  }
};

// At most this many samples per call go to the rows log: an even subsample of a fast row's many.
constexpr std::size_t kept_samples = 256;
std::vector<double> subsample(const std::vector<double>& v) {
  if (v.size() <= kept_samples) return v;
  std::vector<double> out;
  for (std::size_t i = 0; i < kept_samples; ++i) out.push_back(v[i * v.size() / kept_samples]);
  return out;
}

// A test hook for the regression gate's own tests: SOLVE_BENCH_TEST_SLOWDOWN=REGEX=FRACTION makes
// every timed call of the rows whose name matches REGEX that much slower (a busy wait after the
// call, added to its time), a planted regression that a gate must catch and an A/A run lacks.
double planted_slowdown(const std::string& row) {
  const char* spec = std::getenv("SOLVE_BENCH_TEST_SLOWDOWN");
  if (!spec || !*spec) return 0;
  const std::string text = spec;
  const auto eq = text.rfind('=');
  if (eq == std::string::npos) return 0;
  try {
    if (!std::regex_search(row, std::regex(text.substr(0, eq)))) return 0;
  } catch (const std::regex_error&) {
    return 0;
  }
  return std::strtod(text.c_str() + eq + 1, nullptr);
}

double slowed(double seconds, double fraction) {
  if (!(fraction > 0)) return seconds;
  const auto t0 = std::chrono::steady_clock::now();
  while (seconds_since(t0) < seconds * fraction) {
  }
  return seconds + seconds_since(t0);
}

// A CPU row's thread pool: its backend's BLAS (the linked one or a loaded library's); none for a
// batched row, whose systems run on the suite's own OpenMP team, nor for a GPU row.
std::optional<const row_backend*> cpu_pool(const row_id& id, const row_backend* backend) {
  if (id.device != row_device::cpu || id.path == row_path::batched) return std::nullopt;
  return backend;
}

}  // namespace

std::unique_ptr<row_backend> make_cpu_rows_backend() { return std::make_unique<cpu_rows_backend>(); }

std::chrono::steady_clock::time_point session::pools_settled(const registered_row& r) const {
  std::chrono::steady_clock::time_point out{};
  if (r.id.device != row_device::cpu) return out;
  const auto own = cpu_pool(r.id, r.backend);
  const auto settle = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(policy_.pool_settle));
  for (const auto& [pool, left] : pool_left_)
    if (!own || *own != pool) out = std::max(out, left + settle);
  return out;
}

void session::run_row(benchmark::State& state, row_key k) {
  registered_row& entry = rows_.at(k);
  const std::string& row = entry.name;
  row_backend* backend = entry.backend;
  if (!output_failure_.empty()) {
    state.SkipWithError(("not run: " + output_failure_).c_str());
    return;
  }
  if (backend) {
    if (const std::string why = backend->unusable(); !why.empty()) {
      deferred_.insert(k);
      state.SkipWithError(("deferred to a fresh process: " + why).c_str());
      return;
    }
    backend->before(row);
  }
  if (start_hook_) start_hook_(row);
  const sampling& policy = policy_;
  bool ok = false;
  std::string failure;
  const auto round0 = std::chrono::steady_clock::now();
  try {
    release_fixture();  // free the previous row's memory before allocating this one's
    live_ = entry.make();
    row_fixture& f = *live_;
    // The first call of a row in a process is an untimed warm-up (thread pools, module loading,
    // first touch); later rounds warm up only where a call is cheap beside the round. Where
    // another pool's threads may still spin, the warm-up lasts until they sleep: in a shuffled
    // order, CPU/sgesv_batched/n:32/batch:1000 ran 6.4 ms a call after a threaded BLAS row and
    // 3.4 ms otherwise on the 2-core VM, a mode per process.
    const auto settled = pools_settled(entry);
    std::optional<warm_up_call> warm_up;
    if (entry.rounds_here == 0 || entry.last_call_s < policy.min_time || std::chrono::steady_clock::now() < settled) {
      const auto t0 = std::chrono::steady_clock::now();
      const double timed = f.run_once();
      warm_up = warm_up_call{timed, seconds_since(t0)};
      while (std::chrono::steady_clock::now() < settled) f.run_once();
    }
    row_monitor* probe = backend ? backend->monitor() : nullptr;
    sampler samples(policy);
    // A call longer than the long-row cap is its own warm-up: first-call costs are a vanishing
    // share of it, and a second call would double the row's time (n = 130000 takes 30 s).
    const bool long_row = warm_up && warm_up->timed >= policy.long_cap;
    const auto wall0 = std::chrono::steady_clock::now();
    if (probe) probe->begin();
    const double plant = planted_slowdown(row);
    for (auto _ : state) {  // one iteration (the driver gives Google Benchmark a vanishing min time)
      if (long_row) samples.add(slowed(warm_up->timed, plant));
      while (!samples.enough()) samples.add(slowed(f.run_once(), plant));
      state.SetIterationTime(median(samples.ms()) / 1e3);
    }
    if (probe) probe->end();  // every timed call has finished: each run_once waits for its own end
    const double wall =
        seconds_since(wall0) + (long_row ? warm_up->wall : 0);  // the warm-up call counts where it is a sample
    const double resid = f.check();
    const auto& ms = samples.ms();
    double timed = samples.warm_up_s();  // calls, not restores, for restore_pct
    for (double t : ms) timed += t / 1e3;
    state.counters["GFLOP/s"] = benchmark::Counter(f.flops() / 1e9, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["resid"] = resid;
    state.counters["samples"] = static_cast<double>(ms.size());
    if (const auto noise = median_noise_pct(ms)) state.counters["noise_within_pct"] = *noise;
    if (const auto drift = samples.drift_pct()) state.counters["drift_pct"] = *drift;
    if (samples.warm_up_calls() > 0) state.counters["warm_up_calls"] = static_cast<double>(samples.warm_up_calls());
    const double restore_pct = wall > 0 ? 100.0 * std::max(0.0, wall - timed) / wall : 0;
    state.counters["restore_pct"] = restore_pct;
    f.add_counters(state);
    if (probe) {
      // The probe saw every call of the loop, the warm-up dropped from it included (J/solve).
      const auto calls = static_cast<long long>(ms.size()) + samples.warm_up_calls();
      for (const auto& [key, value] : probe->counters(f.flops(), calls)) state.counters[key] = value;
      say_once(*backend, probe->unavailable_reason());
    }
    entry.calls.push_back({subsample(ms), restore_pct});
    entry.last_call_s = median(ms) / 1e3;
    ok = true;
  } catch (const out_of_memory& e) {
    refuse(state, k, e.what());
  } catch (const beyond_limit& e) {
    refuse(state, k, e.what());
  } catch (const std::bad_alloc&) {
    refuse(state, k, "not enough host memory: allocation failed");
  } catch (const std::exception& e) {
    fail(state, k, e.what());
    failure = failed_.back();
  }
  release_fixture();
  if (const auto pool = cpu_pool(entry.id, backend)) pool_left_[*pool] = std::chrono::steady_clock::now();
  ++entry.rounds_here;
  state.counters["round_s"] = seconds_since(round0);  // the round's wall time, its fixture's build included
  if (backend) backend->after(ok, failure);
}

}  // namespace solvebench::bench
