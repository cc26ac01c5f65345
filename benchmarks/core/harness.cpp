// Shared row machinery: registration, the live fixture, the sampling loop, failures.
#include "core/harness.hpp"

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

// Keeps one row's problem (matrices, device buffers, factors, warm handles) alive across the
// calls Google Benchmark makes for that row (one per repetition), and frees it before the next
// row builds its own: memory never holds two rows' problems, and set-up and warm-up run once per row.
struct live_fixture {
  std::string row;
  std::unique_ptr<row_fixture> fixture;
};
live_fixture& live() {
  static live_fixture held;
  return held;
}

struct registry_entry {
  row_id id;
  std::deque<row_samples> calls;
};
std::map<std::string, registry_entry>& registry() {
  static std::map<std::string, registry_entry> rows;
  return rows;
}
std::set<std::string>& finished() {
  static std::set<std::string> names;
  return names;
}
std::size_t& resumed_count() {
  static std::size_t n = 0;
  return n;
}

std::vector<std::string>& failure_list() {
  static std::vector<std::string> list;
  return list;
}
std::vector<std::string>& skipped_list() {
  static std::vector<std::string> list;
  return list;
}
std::vector<std::string>& deferred_list() {
  static std::vector<std::string> list;
  return list;
}

void skip_row(benchmark::State& state, const std::string& row, const std::string& message) {
  state.SkipWithError((std::string(refusal_prefix) + message).c_str());
  skipped_list().push_back(row + ": " + message);
}

// A new fixture's warm-up call: its timed seconds and the wall seconds around it (its restore
// included).
struct warm_up_call {
  double timed = 0, wall = 0;
};

// The row's fixture, and for a new one its warm-up call: first-call costs (thread pools, module
// loading, first touch) stay out of the numbers.
row_fixture& fixture_for(const std::string& row, const fixture_factory& make, std::optional<warm_up_call>& warm_up) {
  live_fixture& held = live();
  if (held.row != row || !held.fixture) {
    release_fixtures();  // free the previous row's memory before allocating this one's
    held.fixture = make();
    held.row = row;
    const auto t0 = std::chrono::steady_clock::now();
    const double timed = held.fixture->run_once();
    warm_up = warm_up_call{timed, seconds_since(t0)};
  }
  return *held.fixture;
}

// A probe that could not read something says so once per run, not once per row.
void say_once(const row_backend& backend, const std::string& reason) {
  static std::set<std::string> said;
  if (reason.empty() || !said.insert(backend.name() + reason).second) return;
  std::cerr << "solve_bench: " << backend.name() << ": not measured: " << reason << "\n";
}

// The sampling loop's stopping rule (sampling's comment); the noise is looked at again only
// once the sample has grown by a tenth, so that fast rows with many samples stay cheap.
class sampler {
 public:
  explicit sampler(const sampling& s) : s_(s) {}
  bool enough() {
    const auto m = static_cast<long long>(ms_.size());
    if (s_.exact > 0) return m >= s_.exact;
    if (m >= 1 && timed_ >= s_.long_cap) return true;
    if (m < s_.min_samples || timed_ < s_.min_time) return false;
    if (timed_ >= s_.max_time) return true;
    if (m < next_check_) return false;
    next_check_ = std::max(m + 1, m + m / 10);
    const auto noise = median_noise_pct(ms_);
    return noise && *noise <= s_.max_noise_pct;
  }
  void add(double seconds) {
    ms_.push_back(seconds * 1e3);
    timed_ += seconds;
  }
  const std::vector<double>& ms() const { return ms_; }

 private:
  const sampling& s_;
  std::vector<double> ms_;
  double timed_ = 0;
  long long next_check_ = 0;
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

}  // namespace

sampling& sampling_policy() {
  static sampling policy;
  return policy;
}

row_backend& cpu_backend() {
  static row_backend backend("CPU rows", make_cpu_row_monitor());
  return backend;
}

void release_fixtures() noexcept {
  live().fixture.reset();
  live().row.clear();
}

void fail_row(benchmark::State& state, const std::string& row, const std::string& message) {
  state.SkipWithError(message.c_str());
  failure_list().push_back(row + ": " + message);
}

const std::vector<std::string>& failed_rows() { return failure_list(); }
const std::vector<std::string>& skipped_rows() { return skipped_list(); }
const std::vector<std::string>& deferred_rows() { return deferred_list(); }
bool deferred(const std::string& name) {
  const auto& d = deferred_list();
  return std::find(d.begin(), d.end(), name) != d.end();
}

std::string& failure_text() {
  static std::string text;
  return text;
}
void set_output_failure(const std::string& message) {
  if (failure_text().empty()) failure_text() = message;
}
const std::string& output_failure() { return failure_text(); }

void set_finished_rows(std::set<std::string> names) { finished() = std::move(names); }
std::size_t rows_resumed() { return resumed_count(); }

const row_id* registered_id(const std::string& name) {
  const auto it = registry().find(name);
  return it == registry().end() ? nullptr : &it->second.id;
}

std::optional<row_samples> take_samples(const std::string& name) {
  const auto it = registry().find(name);
  if (it == registry().end() || it->second.calls.empty()) return std::nullopt;
  row_samples s = std::move(it->second.calls.front());
  it->second.calls.pop_front();
  return s;
}

std::vector<std::string>& name_list() {
  static std::vector<std::string> names;
  return names;
}
std::size_t registered_rows() { return registry().size(); }
const std::vector<std::string>& registered_names() { return name_list(); }

void run_row(benchmark::State& state, const std::string& row, const fixture_factory& make, row_backend* backend) {
  if (!output_failure().empty()) {
    state.SkipWithError(("not run: " + output_failure()).c_str());
    return;
  }
  if (backend) {
    if (const std::string why = backend->unusable(); !why.empty()) {
      if (!deferred(row)) deferred_list().push_back(row);
      state.SkipWithError(("deferred to a fresh process: " + why).c_str());
      return;
    }
    backend->before(row);
  }
  bool ok = false;
  try {
    std::optional<warm_up_call> warm_up;
    row_fixture& f = fixture_for(row, make, warm_up);
    row_monitor* probe = backend ? backend->monitor() : nullptr;
    sampler samples(sampling_policy());
    // A call longer than the long-row cap is its own warm-up: first-call costs are a vanishing
    // share of it, and a second call would double the row's time (n = 130000 takes 30 s).
    const bool long_row = warm_up && warm_up->timed >= sampling_policy().long_cap;
    const auto wall0 = std::chrono::steady_clock::now();
    if (probe) probe->begin();
    const double plant = planted_slowdown(row);
    for (auto _ :
         state) {  // one iteration (the driver gives Google Benchmark a vanishing min time): the row samples itself
      if (long_row) samples.add(slowed(warm_up->timed, plant));
      while (!samples.enough()) samples.add(slowed(f.run_once(), plant));
      state.SetIterationTime(median(samples.ms()) / 1e3);
    }
    if (probe) probe->end();  // every timed call has finished: each run_once waits for its own end
    const double wall =
        seconds_since(wall0) + (long_row ? warm_up->wall : 0);  // the warm-up call counts where it is a sample
    const double resid = f.check();
    const auto& ms = samples.ms();
    double timed = 0;
    for (double t : ms) timed += t / 1e3;
    state.counters["GFLOP/s"] = benchmark::Counter(f.flops() / 1e9, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["resid"] = resid;
    state.counters["samples"] = static_cast<double>(ms.size());
    if (const auto noise = median_noise_pct(ms)) state.counters["noise_pct"] = *noise;
    const double restore_pct = wall > 0 ? 100.0 * std::max(0.0, wall - timed) / wall : 0;
    state.counters["restore_pct"] = restore_pct;
    f.add_counters(state);
    if (probe) {
      for (const auto& [key, value] : probe->counters(f.flops(), static_cast<long long>(ms.size())))
        state.counters[key] = value;
      say_once(*backend, probe->unavailable_reason());
    }
    if (auto it = registry().find(row); it != registry().end())
      it->second.calls.push_back({subsample(ms), restore_pct});
    ok = true;
  } catch (const out_of_memory& e) {
    release_fixtures();
    skip_row(state, row, e.what());
  } catch (const beyond_limit& e) {
    release_fixtures();
    skip_row(state, row, e.what());
  } catch (const std::bad_alloc&) {
    release_fixtures();
    skip_row(state, row, "not enough host memory: allocation failed");
  } catch (const std::exception& e) {
    release_fixtures();
    fail_row(state, row, e.what());
  }
  if (backend) backend->after(ok);
}

void register_row(const row_id& id, fixture_factory make, row_backend* backend) {
  const std::string row = id.name();
  if (finished().count(row)) {
    ++resumed_count();
    return;
  }
  registry()[row].id = id;
  name_list().push_back(row);
  benchmark::RegisterBenchmark(row.c_str(), [row, make = std::move(make),
                                             backend](benchmark::State& state) { run_row(state, row, make, backend); })
      ->UseManualTime()
      ->Unit(benchmark::kNanosecond);
}

}  // namespace solvebench::bench
