// The printers a run drives, one per job (nvbench's printer_multiplex): the rows log, the round
// plan (core/rounds.hpp), the progress on stderr. Google Benchmark's runs reach them through one
// bridge reporter, which turns each run (one round of a row) into a row entry: Google Benchmark's
// own JSON form of the run plus the row's id, its round and its samples. The console table is
// drawn once, at the end, from the rows log as the checks read it (render_table).
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/record.hpp"

namespace solvebench::bench {

using json = nlohmann::ordered_json;

// One run as the printers see it. `entry` is Google Benchmark's JSON object of the run with the
// row's "id" (and its fields at the top level, for flat tables) and "samples_ms".
// bugprone-exception-escape is off here: the implicit move is noexcept, and the check follows
// nlohmann-json 3.11's noexcept move constructor into json_value(value_t)'s throw for
// value_t::null, which that move never reaches (it value-initialises: `m_value = {}`).
struct row_entry {  // NOLINT(bugprone-exception-escape)
  json entry;
  std::string name;        // the row's name (no /manual_time)
  bool aggregate = false;  // mean, median, stddev, cv of the repetitions
  bool failed = false;     // an error or a refusal
};

class printer {
 public:
  virtual ~printer() = default;
  virtual void context(const json& /*context*/) {}
  virtual void starts(const std::string& /*row*/) {}  // a row's round begins
  virtual void rows(const std::vector<row_entry>& /*one row's round*/) {}
  virtual void finish() {}
};

// The live rows log: every finished row appended as JSON lines (a row a line, the context
// first), flushed and checked, so a killed sweep keeps what it finished and can be resumed.
// Opened in append mode on an existing log (--resume).
class rows_log final : public printer {
 public:
  // Takes an exclusive lock on the file: a second run writing the same log is refused by name.
  rows_log(const std::string& path, bool append);
  ~rows_log() override;
  void context(const json& context) override;
  void rows(const std::vector<row_entry>& runs) override;
  const std::string& path() const { return path_; }
  std::size_t written() const { return written_; }

 private:
  void write_line(const std::string& line);
  std::string path_;
  std::FILE* file_ = nullptr;
  std::size_t written_ = 0;
};

// The table (--benchmark_format=console, the default, and --benchmark_out_format=console): a
// line saying what the times and the +- are, one header, a line per row (its median over its
// rounds, the interval a re-run's median falls in, its calls, rate, worst residual, notes).
struct display_options {
  bool color = false;
  std::size_t name_width = 40;
  int rounds = 1, processes = 1;  // the run's design, for the line above the header
  int span_s = 0;                 // and the seconds its processes' starts were spread over (--span)
};
std::string render_table(const run_summary& run, const display_options& o);
// How the table's header and the context's `sampling` say a span: ", started over S s", or "".
std::string span_words(int span_s);
// 1.23 s, 45.6 ms, 789 us, 12.3 ns: a unit that shows three digits.
std::string time_text(double ns);

// Progress on stderr (nvbench's Run:/Pass:): "[k/N]" over the run's row-rounds, the elapsed
// time and an ETA; on a terminal one line redrawn in place, otherwise a line per finished
// row-round (and one when a row-round that should take a second or more starts). mode "off":
// nothing but failures, which are always said as they happen.
struct progress_count {
  std::size_t done = 0, total = 0;
  double remaining_s = -1;  // below 0: unknown
};
struct progress_options {
  std::string mode = "auto";  // auto, lines, off
  double started_epoch_s = 0;
};
// The wall clock in seconds since the epoch, as started_epoch_s (and a run's start) count them.
double epoch_now();
std::unique_ptr<printer> make_progress(const progress_options& o, std::function<progress_count()> count,
                                       std::function<double(const std::string& row)> expected_s);

// Google Benchmark's reporter interface in front of the printers.
class session;
class bridge final : public benchmark::BenchmarkReporter {
 public:
  // A printer that throws (a full disk) stops the run: the session's output failure.
  bridge(session& run, std::vector<printer*> printers) : run_(run), printers_(std::move(printers)) {}
  // Called once per round (Google Benchmark runs each round as a run of its own): the context
  // reaches the printers the first time, finish() only from finish_run().
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override {}
  void starts(const std::string& row);
  void finish_run();
  const json& context() const { return context_; }

 private:
  session& run_;
  std::vector<printer*> printers_;
  json context_;
  bool context_said_ = false;
};

// The JSON object of one Google Benchmark run, as its JSONReporter writes it (non-finite
// counters as null), with the row's id, round and samples when the row is one of `rows`.
row_entry entry_of(session& rows, const benchmark::BenchmarkReporter::Run& run);

}  // namespace solvebench::bench
