// Shared row machinery: fixture cache, failure bookkeeping, the JSON-lines rows log.
#include "harness.hpp"

#include <cstdio>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace solvebench::bench {

fixture_cache& fixtures() {
  static fixture_cache cache;
  return cache;
}

namespace {
std::vector<std::string>& failure_list() {
  static std::vector<std::string> list;
  return list;
}
std::vector<std::string>& skipped_list() {
  static std::vector<std::string> list;
  return list;
}
}  // namespace

void fail_row(benchmark::State& state, const std::string& row, const std::string& message) {
  state.SkipWithError(message.c_str());
  failure_list().push_back(row + ": " + message);
}

const std::vector<std::string>& failed_rows() { return failure_list(); }

void skip_row(benchmark::State& state, const std::string& row, const std::string& message) {
  state.SkipWithError(("skipped: " + message).c_str());
  skipped_list().push_back(row + ": " + message);
}

const std::vector<std::string>& skipped_rows() { return skipped_list(); }

row_log_reporter::row_log_reporter(std::unique_ptr<benchmark::BenchmarkReporter> display,
                                   const std::string& log_path)
    : display_(std::move(display)) {
  if (!log_path.empty()) {
    log_.open(log_path, std::ios::out | std::ios::trunc);
    if (!log_) throw std::runtime_error("cannot open the rows log '" + log_path + "' for writing");
  }
}

bool row_log_reporter::ReportContext(const Context& context) {
  if (log_.is_open()) {
    std::ostringstream text;
    json_.SetOutputStream(&text);
    json_.SetErrorStream(&text);
    json_.ReportContext(context);  // ends with: "benchmarks": [
    append_line(text.str() + "]}");
  }
  return display_->ReportContext(context);
}

void row_log_reporter::ReportRuns(const std::vector<Run>& runs) {
  display_->ReportRuns(runs);
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

}  // namespace solvebench::bench
