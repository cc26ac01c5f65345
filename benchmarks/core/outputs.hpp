// Where a run's results go and how they get there whole: the live rows log (X.rows.jsonl.partial
// while the run goes, renamed to X.rows.jsonl at its end), the JSON / CSV / console file, and the
// checks' sidecars; a run that measured nothing replaces none of them.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "checks/record.hpp"
#include "core/gb_flags.hpp"
#include "core/options.hpp"
#include "core/printers.hpp"

namespace solvebench::bench {

struct output_plan {
  std::string out, out_format;  // --benchmark_out and its format ("" out: none)
  std::string rows;             // the rows log the run leaves ("" none: the live log is a temporary)
  std::string live;             // the rows log written as the run goes
  std::string base;             // the checks' sidecars: base.audit.json, ... ("" none)
  bool appending = false;       // --resume: the live log is the earlier run's
  bool temporary = false;       // the live log is ours to delete at the end
};

// From the flags; throws usage_error naming an output that cannot be written or two outputs
// that are the same file. `temporary_log`: this process continues a run whose log (--resume)
// is a temporary of the process that started it.
output_plan plan_outputs(const common_options& opt, const gb_settings& gb, const std::string& program,
                         bool temporary_log = false);

// The rows log an earlier process wrote (--resume), checked as a run; a torn last line is cut
// off the file first, so the rows appended after it stay readable.
std::string rows_log_for_resume(const std::string& rows_log);

// The log as a run, for the checks (the same reader solve_bench_checks uses).
run_summary read_rows_log(const std::string& rows_log);

// --history: the run's rows held to the store's record of them (checks/history.hpp), read when
// the flags were parsed (settle_history), so that a bad store failed before any row ran.
void hold_to_store(run_summary& run, const common_options& opt);

// The log's entries as Google Benchmark writes a run of repetitions: each row's rounds as its
// repetitions (repetition_index; process numbered by the process that ran it), then, with two or
// more, the aggregates mean, median, stddev and cv, in the order of run.rows; each entry with the
// row-level counters rounds, processes and noise_pct (the interval a re-run's median falls in,
// where known). `run`: the same log as the checks read it.
std::vector<json> result_entries(const std::string& rows_log, const run_summary& run, json& context);

// --benchmark_out's text in `format` (json: Google Benchmark's document with ids; csv: one flat
// line a run; console: the table), and the file written from it, whole or not at all.
std::string results_text(const output_plan& plan, const gb_settings& gb, const run_summary& run,
                         const std::string& format);
void write_results(const output_plan& plan, const gb_settings& gb, const run_summary& run);

// The live log becomes the rows log the user asked for (or goes, when it was a temporary).
void settle_rows_log(const output_plan& plan);

}  // namespace solvebench::bench
