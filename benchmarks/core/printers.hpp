// The printers a run drives, one per job (nvbench's printer_multiplex): the rows log, the
// console table, the progress line on stderr. Google Benchmark's runs reach them through one
// bridge reporter, which turns each run into a row entry: Google Benchmark's own JSON form of
// the run plus the row's id and samples.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace solvebench::bench {

using json = nlohmann::ordered_json;

// One run as the printers see it. `entry` is Google Benchmark's JSON object of the run with the
// row's "id" (and its fields at the top level, for flat tables) and "samples_ms".
struct row_entry {
  json entry;
  std::string name;        // the row's name (no /manual_time)
  bool aggregate = false;  // mean, median, stddev, cv of the repetitions
  bool failed = false;     // an error or a refusal
};

class printer {
 public:
  virtual ~printer() = default;
  virtual void context(const json& /*context*/) {}
  virtual void rows(const std::vector<row_entry>& /*one row's runs: repetitions, then aggregates*/) {}
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
  bool append_;
  std::size_t written_ = 0;
};

// The table on stdout (--benchmark_format=console, the default): one header, a line per run.
// --benchmark_format=json prints Google Benchmark's document at the end instead.
struct display_options {
  std::string format = "console";  // console, json
  bool aggregates_only = false;    // --benchmark_display_aggregates_only / report_aggregates_only
  bool color = false;
  std::size_t name_width = 40;
  bool continued = false;  // a re-executed process continues its parent's table: no second header
};
std::unique_ptr<printer> make_display(const display_options& o, std::ostream& out);

// "[12/146] 0:42, ETA 3:51: CPU/dgesv/n:4096/nrhs:1" on stderr per finished row; compact
// when stderr is not a terminal. `planned`: the rows that will run, in order, with a relative
// cost estimate each (from their sizes); the ETA scales the estimates by the times seen so far.
struct planned_row {
  std::string name;
  double cost;
};
std::unique_ptr<printer> make_progress(std::vector<planned_row> planned);

// Google Benchmark's reporter interface in front of the printers.
class bridge final : public benchmark::BenchmarkReporter {
 public:
  explicit bridge(std::vector<printer*> printers) : printers_(std::move(printers)) {}
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;
  const json& context() const { return context_; }

 private:
  std::vector<printer*> printers_;
  json context_;
};

// The JSON object of one Google Benchmark run, as its JSONReporter writes it (non-finite
// counters as null), with the row's id and samples when the row is one of ours.
row_entry entry_of(const benchmark::BenchmarkReporter::Run& run);

}  // namespace solvebench::bench
