// Google Benchmark's flags as solve_bench reads them. Those about output (--benchmark_out,
// --benchmark_format, --benchmark_*_aggregates_only, ...) and timing (--benchmark_min_time) are
// solve_bench's to carry out, so they never reach Google Benchmark (which would truncate the
// output file before a row ran, and drop the rows the checks need); the rest are validated and
// passed on. Their BENCHMARK_* environment variables likewise.
#pragma once

#include <string>
#include <vector>

#include "core/harness.hpp"

namespace solvebench::bench {

struct gb_settings {
  std::string out;                  // --benchmark_out
  std::string out_format = "json";  // json, csv, console
  std::string display_format = "console";
  bool report_aggregates_only = false;
  bool display_aggregates_only = false;
  std::string color = "auto";  // auto, true, false
  bool list_tests = false;
  sampling timing;      // --benchmark_min_time: seconds (0.25, 0.25s) or calls (100x), per round
  int repetitions = 0;  // --benchmark_repetitions: the number of rounds (0: not given)
};

// Reads argv and the environment; returns argv for Google Benchmark (argv[0] first); throws
// usage_error naming a bad value. `gb_version_1_8`: which spelling the linked library wants.
std::vector<std::string> take_gb_flags(int argc, char** argv, gb_settings& s, bool gb_version_1_8);
// Sets again the BENCHMARK_* variables take_gb_flags took out of the environment, for a fresh
// process of the same run (core/rounds.hpp), which reads them as this one did.
void put_back_gb_environment();

// What Google Benchmark is given first: a vanishing minimum time and one repetition, so that it
// calls each row once per round and the row samples itself (harness.hpp); and neutral values of the flags
// solve_bench carries out, since Google Benchmark read their BENCHMARK_* variables before main
// (it would write BENCHMARK_OUT itself, over an earlier result, or exit 0 on a bad format).
std::vector<std::string> flags_for_gb(bool gb_version_1_8);

// Whether `name` matches Google Benchmark's --benchmark_filter (a leading '-' negates).
bool matches_filter(const std::string& filter, const std::string& name);

}  // namespace solvebench::bench
