// The one main both binaries share: flags, Google Benchmark's set-up, the run, the context,
// the reporters, and the end-of-run summary and exit status (0 ok, 1 a row failed, 2 bad
// flags). A binary describes itself as a `program` and calls run_program.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/options.hpp"

namespace solvebench::bench {

struct program {
  std::string name;            // "solve_bench"
  std::string about;           // the usage text's opening paragraph
  std::string exit_status;     // the usage text's closing paragraph
  common_options* common = nullptr;
  std::vector<flag> flags;     // every flag this binary accepts (its families' groups)
  std::function<void()> register_rows;
  std::function<void()> add_context;                    // keys beside the common ones
  std::function<std::vector<std::string>()> problems;   // after the run: more reasons to exit 1 (e.g. leaks)
  std::function<void()> release;                        // after the run, before Google Benchmark shuts down
  // After the run: the audit (rows held against each other and the machine) and the verdict
  // (the answer to "GPU or CPU, and how much faster?"), printed and written beside the JSON.
  bool checks_after_run = true;
  // Distributed runs: only the root reports; every rank must learn the first rank's problem.
  bool root = true;
  std::function<std::string(const std::string& mine)> agree = [](const std::string& mine) { return mine; };
  std::function<void(const std::vector<std::string>& gb_flags)> check_gb_flags;  // may throw usage_error
};

int run_program(program& p, int argc, char** argv);

// --benchmark_min_time in the spelling the linked Google Benchmark wants: 1.8+ takes "0.25s"
// (or "100x" iterations), 1.7 only a bare "0.25". Both spellings are accepted on both.
std::string min_time_for_this_library(const std::string& value);

// The run context every binary records: versions, the BLAS/LAPACK really loaded, seed, kinds.
void add_common_context(const common_options& opt);

}  // namespace solvebench::bench
