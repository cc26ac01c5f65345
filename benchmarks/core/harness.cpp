// Shared row machinery: registration, the live fixture, failures, the display and the rows log.
#include "core/harness.hpp"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <new>
#include <set>
#include <sstream>

#include "solvebench/errors.hpp"

namespace solvebench::bench {
namespace {

// Keeps one row's problem (matrices, device buffers, factors, warm handles) alive across the
// calls Google Benchmark makes for that row, and frees it before the next row builds its
// own: memory never holds two rows' problems, and set-up and warm-up run once per row.
struct live_fixture {
  std::string row;
  std::unique_ptr<row_fixture> fixture;
};
live_fixture& live() {
  static live_fixture held;
  return held;
}

std::vector<std::string>& failure_list() {
  static std::vector<std::string> list;
  return list;
}
std::vector<std::string>& skipped_list() {
  static std::vector<std::string> list;
  return list;
}

void skip_row(benchmark::State& state, const std::string& row, const std::string& message) {
  state.SkipWithError(("skipped: " + message).c_str());
  skipped_list().push_back(row + ": " + message);
}

row_fixture& fixture_for(const std::string& row, const fixture_factory& make) {
  live_fixture& held = live();
  if (held.row != row || !held.fixture) {
    release_fixtures();  // free the previous row's memory before allocating this one's
    held.fixture = make();
    held.row = row;
  }
  return *held.fixture;
}

// A probe that could not read something says so once per run, not once per row.
void say_once(const row_backend& backend, const std::string& reason) {
  static std::set<std::string> said;
  if (reason.empty() || !said.insert(backend.name() + reason).second) return;
  std::cerr << "solve_bench: " << backend.name() << ": not measured: " << reason << "\n";
}

}  // namespace

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

void run_row(benchmark::State& state, const std::string& row, const fixture_factory& make, row_backend* backend) {
  if (backend) {
    if (const std::string why = backend->refusal(); !why.empty()) {
      fail_row(state, row, "not run: " + why);
      return;
    }
    backend->before(row);
  }
  bool ok = false;
  try {
    row_fixture& f = fixture_for(row, make);
    row_monitor* probe = backend ? backend->monitor() : nullptr;
    if (probe) probe->begin();
    for (auto _ : state) state.SetIterationTime(f.run_once());
    if (probe) probe->end();  // every timed call has finished: each run_once waits for its own end
    const double resid = f.check();
    state.counters["GFLOP/s"] = benchmark::Counter(f.flops() / 1e9, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["resid"] = resid;
    f.add_counters(state);
    if (probe) {
      for (const auto& [key, value] : probe->counters(f.flops(), static_cast<long long>(state.iterations())))
        state.counters[key] = value;
      say_once(*backend, probe->unavailable_reason());
    }
    ok = true;
  } catch (const out_of_memory& e) {
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

void register_row(const row_spec& spec, fixture_factory make, row_backend* backend) {
  const std::string row = spec.name();
  benchmark::RegisterBenchmark(row.c_str(), [row, make = std::move(make), backend](benchmark::State& state) {
    run_row(state, row, make, backend);
  })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

// ---- reporting ------------------------------------------------------------------------------

namespace {

using Run = benchmark::BenchmarkReporter::Run;

bool run_failed(const Run& run, std::string* message) {
#if SOLVE_BENCH_GBENCH_1_8
  if (run.skipped == benchmark::internal::NotSkipped) return false;
  *message = run.skip_message;
#else
  if (!run.error_occurred) return false;
  *message = run.error_message;
#endif
  if (message->empty()) *message = "failed";
  return true;
}

double milliseconds(const Run& run) {
  return run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit) * 1e3;
}

// Counters the display leaves out: the row's name already says them.
bool in_the_name(const std::string& counter) {
  return counter == "n" || counter == "nrhs" || counter == "batch" || counter == "ranks" || counter == "nb" ||
         counter == "gpus" || counter == "tile";
}

// A copy of a run for the console: a time unit that shows its digits (microseconds below a
// millisecond) and the rate as FLOP/s (21.0T) rather than GFLOP/s (21.0k).
Run for_display(Run run) {
  const double ms = milliseconds(run);
  if (ms > 0 && ms < 1e-3) run.time_unit = benchmark::kNanosecond;
  else if (ms > 0 && ms < 1.0) run.time_unit = benchmark::kMicrosecond;
  benchmark::UserCounters shown;
  for (const auto& [name, counter] : run.counters) {
    if (in_the_name(name)) continue;
    if (name == "GFLOP/s") shown.emplace("FLOP", benchmark::Counter(counter.value * 1e9, benchmark::Counter::kIsRate));
    else shown.emplace(name, counter);
  }
  // The rate was already divided by the time: keep the value, mark it as a rate for the suffix.
  for (auto& [name, counter] : shown)
    if (name == "FLOP") counter.flags = benchmark::Counter::kIsRate;
  run.counters = shown;
  return run;
}

void keep(run_summary& summary, const Run& run) {
  if (run.run_type == Run::RT_Aggregate) return;  // the checks pool repetitions themselves
  const std::string name = run.benchmark_name();
  row_record* rec = nullptr;
  for (auto& r : summary.rows)
    if (r.name == parse_row_name(name).name) rec = &r;
  if (!rec) {
    summary.rows.push_back(parse_row_name(name));
    rec = &summary.rows.back();
  }
  std::string message;
  if (run_failed(run, &message)) {
    rec->error = message;
    return;
  }
  rec->times_ms.push_back(milliseconds(run));
  for (const auto& [key, counter] : run.counters) rec->counters[key].push_back(counter.value);
}

}  // namespace

row_log_reporter::row_log_reporter(std::unique_ptr<benchmark::BenchmarkReporter> display,
                                   const std::string& log_path)
    : display_(std::move(display)) {
  if (!log_path.empty()) {
    log_.open(log_path, std::ios::out | std::ios::trunc);
    if (!log_) throw std::runtime_error("cannot open the rows log '" + log_path + "' for writing");
  }
}

bool row_log_reporter::ReportContext(const Context& context) {
  std::ostringstream text;
  json_.SetOutputStream(&text);
  json_.SetErrorStream(&text);
  json_.ReportContext(context);  // ends with: "benchmarks": [
  summary_.context = parse_context_json(text.str());
  if (log_.is_open()) append_line(text.str() + "]}");
  return display_->ReportContext(context);
}

void row_log_reporter::ReportRuns(const std::vector<Run>& runs) {
  std::vector<Run> shown;
  for (const auto& run : runs) {
    shown.push_back(for_display(run));
    keep(summary_, run);
  }
  display_->ReportRuns(shown);
  if (!log_.is_open() || runs.empty()) return;
  std::ostringstream text;
  json_.SetOutputStream(&text);
  json_.ReportRuns(runs);  // Google Benchmark's own serialisation of the runs
  std::string body = text.str();
  const auto first = body.find('{');
  append_line("{\"benchmarks\": [" + body.substr(first == std::string::npos ? 0 : first) + "]}");
}

void row_log_reporter::Finalize() { display_->Finalize(); }

void row_log_reporter::append_line(std::string text) {
  for (char& c : text)
    if (c == '\n') c = ' ';  // JSON strings from the reporter escape their own newlines
  log_ << text << '\n';
  log_.flush();
}

std::unique_ptr<benchmark::BenchmarkReporter> make_display_reporter(const std::string& format) {
  if (format == "json") return std::make_unique<benchmark::JSONReporter>();
  const bool color = isatty(fileno(stdout)) != 0;
  return std::make_unique<benchmark::ConsoleReporter>(color ? benchmark::ConsoleReporter::OO_ColorTabular
                                                            : benchmark::ConsoleReporter::OO_Tabular);
}

std::map<std::string, std::string> parse_context_json(const std::string& json) {
  std::map<std::string, std::string> out;
  std::size_t i = json.find("\"context\"");
  if (i == std::string::npos) return out;
  i = json.find('{', i);
  if (i == std::string::npos) return out;
  ++i;
  auto skip_space = [&] {
    while (i < json.size() && (json[i] == ' ' || json[i] == '\n' || json[i] == '\t' || json[i] == '\r' || json[i] == ','))
      ++i;
  };
  auto read_string = [&] {
    std::string s;
    for (++i; i < json.size() && json[i] != '"'; ++i) {
      if (json[i] == '\\' && i + 1 < json.size()) ++i;
      s += json[i];
    }
    ++i;  // closing quote
    return s;
  };
  while (true) {
    skip_space();
    if (i >= json.size() || json[i] != '"') break;  // end of the context object
    const std::string key = read_string();
    skip_space();
    if (i < json.size() && json[i] == ':') ++i;
    skip_space();
    if (i >= json.size()) break;
    if (json[i] == '"') {
      out[key] = read_string();
    } else if (json[i] == '[' || json[i] == '{') {  // skip a nested value
      int depth = 0;
      bool in_string = false;
      for (; i < json.size(); ++i) {
        const char c = json[i];
        if (in_string) {
          if (c == '\\') ++i;
          else if (c == '"') in_string = false;
        } else if (c == '"') {
          in_string = true;
        } else if (c == '[' || c == '{') {
          ++depth;
        } else if ((c == ']' || c == '}') && --depth == 0) {
          ++i;
          break;
        }
      }
    } else {
      const std::size_t end = json.find_first_of(",}\n", i);
      std::string value = json.substr(i, end - i);
      while (!value.empty() && value.back() == ' ') value.pop_back();
      out[key] = value;
      i = end;
    }
  }
  return out;
}

}  // namespace solvebench::bench
