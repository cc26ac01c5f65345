// Saved runs back into run_summary: Google Benchmark JSON (--benchmark_out) and solve_bench's
// rows logs (X.rows.jsonl, one row a line; all a killed run leaves), several files pooled as
// repetitions of the same rows. Every rejection names the file, the line and the problem.
#pragma once

#include <string>
#include <vector>

#include "checks/record.hpp"
#include "solvebench/errors.hpp"

namespace solvebench::bench {

// A file that cannot be read as solve_bench output.
class load_error : public error {
 public:
  using error::error;
};

// One or more files, pooled: rows with the same id are repetitions of one row. The context is
// the first file's; a file (or a rows log's context line) from another host, CPU model, BLAS
// vendor or version, GPU or cuSOLVER version is refused, naming the key, both values and both
// files.
run_summary load_runs(const std::vector<std::string>& paths);

// The same from text (the tests and the fuzzer feed it directly); `path` names it in errors.
void load_text(run_summary& run, const std::string& path, const std::string& text);

// The prefix of the error of a row that was refused rather than failed (not enough memory,
// beyond a library's limit): the harness writes it, the checks read it.
inline constexpr const char* refusal_prefix = "skipped: ";

}  // namespace solvebench::bench
