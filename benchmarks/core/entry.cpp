// Google Benchmark runs as row entries, and the bridge that hands them to the printers.
#include <cmath>
#include <sstream>

#include "core/printers.hpp"
#include "core/session.hpp"

namespace solvebench::bench {
namespace {

using Run = benchmark::BenchmarkReporter::Run;

bool failed(const Run& run, std::string* message) {
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

const char* unit_name(benchmark::TimeUnit u) {
  switch (u) {
    case benchmark::kNanosecond: return "ns";
    case benchmark::kMicrosecond: return "us";
    case benchmark::kMillisecond: return "ms";
    case benchmark::kSecond: return "s";
  }
  return "ns";
}

json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

}  // namespace

row_entry entry_of(session& rows, const Run& run) {
  row_entry out;
  out.name = run.run_name.function_name;
  out.aggregate = run.run_type == Run::RT_Aggregate;
  json& e = out.entry;
  e["name"] = run.benchmark_name();
  e["family_index"] = run.family_index;
  e["per_family_instance_index"] = run.per_family_instance_index;
  e["run_name"] = run.run_name.str();
  e["run_type"] = out.aggregate ? "aggregate" : "iteration";
  e["repetitions"] = run.repetitions;
  if (!out.aggregate) e["repetition_index"] = run.repetition_index;
  e["threads"] = run.threads;
  if (out.aggregate) {
    e["aggregate_name"] = run.aggregate_name;
    e["aggregate_unit"] = run.aggregate_unit == benchmark::kPercentage ? "percentage" : "time";
  }
  const std::optional<row_key> row = rows.key_of(run);
  if (row) {
    const json fields = to_json(rows.id(*row));
    e["id"] = fields;
    for (const auto& [key, value] : fields.items()) e[key] = value;  // flat too, for tables
  }
  if (const row_backend* b = row ? rows.backend(*row) : nullptr)
    for (const auto& [key, value] : b->row_fields().items()) e[key] = value;
  if (!out.aggregate) {  // the round this run was (core/rounds.hpp); rounds, processes: what the run plans
    const round_slot& at = rows.current_round();
    for (const auto& [key, value] : {std::pair<const char*, int>{"round", at.round},
                                     {"process", at.process},
                                     {"rounds", at.rounds},
                                     {"processes", at.processes}})
      e[key] = value;
  }
  std::string message;
  if (failed(run, &message)) {
    out.failed = true;
    e["error_occurred"] = true;
    e["error_message"] = message;
    return out;
  }
  std::optional<row_samples> samples;
  if (!out.aggregate && row) samples = rows.take_samples(*row);
  const auto counted = run.counters.find("samples");  // the row's timed calls (run_row)
  const double calls =
      !out.aggregate && counted != run.counters.end() && counted->second.value >= 1 ? counted->second.value : 1;
  e["iterations"] = out.aggregate ? static_cast<double>(run.iterations) : calls;
  // A percentage aggregate (cv) holds its fraction unscaled, as Google Benchmark's JSONReporter writes it.
  const bool fraction = out.aggregate && run.aggregate_unit == benchmark::kPercentage;
  e["real_time"] = number(fraction ? run.real_accumulated_time : run.GetAdjustedRealTime());
  // per timed call, its untimed restore included
  e["cpu_time"] = number(fraction ? run.cpu_accumulated_time : run.GetAdjustedCPUTime() / calls);
  e["time_unit"] = unit_name(run.time_unit);
  if (!run.report_label.empty()) e["label"] = run.report_label;
  for (const auto& [key, counter] : run.counters)
    if (!e.contains(key)) e[key] = number(counter.value);
  if (samples) e["samples_ms"] = samples->ms;
  return out;
}

bool bridge::ReportContext(const Context& context) {
  if (context_said_) return true;
  context_said_ = true;
  // Google Benchmark's own serialisation of the context (host, CPU, caches, load, and every
  // AddCustomContext key), read back as JSON.
  std::ostringstream text;
  benchmark::JSONReporter json_reporter;
  json_reporter.SetOutputStream(&text);
  json_reporter.SetErrorStream(&text);
  json_reporter.ReportContext(context);  // ends with: "benchmarks": [
  try {
    context_ = json::parse(text.str() + "]}").at("context");
  } catch (const json::exception&) {
    context_ = json::object();
  }
  try {
    for (auto* p : printers_) p->context(context_);
  } catch (const std::exception& e) {
    run_.set_output_failure(e.what());
  }
  return true;
}

void bridge::ReportRuns(const std::vector<Run>& runs) {
  std::vector<row_entry> entries;
  for (const auto& run : runs) {
    if (const auto key = run_.key_of(run); key && run_.deferred(*key)) continue;  // it runs in a fresh process
    entries.push_back(entry_of(run_, run));
  }
  if (entries.empty()) return;
  try {
    for (auto* p : printers_) p->rows(entries);
  } catch (const std::exception& e) {
    run_.set_output_failure(e.what());
  }
}

void bridge::starts(const std::string& row) {
  try {
    for (auto* p : printers_) p->starts(row);
  } catch (const std::exception& e) {
    run_.set_output_failure(e.what());
  }
}

void bridge::finish_run() {
  try {
    for (auto* p : printers_) p->finish();
  } catch (const std::exception& e) {
    run_.set_output_failure(e.what());
  }
}

}  // namespace solvebench::bench
