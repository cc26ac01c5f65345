// The one main both binaries share: flags, Google Benchmark's set-up, the run, the context,
// the printers, the checks after the run, the outputs (written whole or not at all) and the
// exit status. A binary describes itself as a `program` and calls run_program.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/harness.hpp"
#include "core/options.hpp"

namespace solvebench::bench {

class session;

// Exit statuses, the same for both binaries (and in --help).
namespace exit_code {
inline constexpr int ok = 0;           // every row ran and passed
inline constexpr int row_failed = 1;   // a row failed (its error is in the output), or an output could not be written
inline constexpr int usage = 2;        // bad flags, environment values or output paths
inline constexpr int out_of_step = 3;  // solve_bench_mpi: the ranks fell out of step (a bug)
inline constexpr int nothing_measured = 4;  // no row ran (a filter that matches none, every row refused ...)
}  // namespace exit_code
std::string exit_status_help();

struct program {
  std::string name;   // "solve_bench"
  std::string about;  // the usage text's opening paragraph
  common_options* common = nullptr;
  std::vector<flag> flags;                             // every flag this binary accepts (its families' groups)
  std::function<void(session&)> register_rows;         // the rows, into the run's session
  std::function<void(const session&)> add_context;     // keys beside the common ones
  std::function<std::vector<std::string>()> problems;  // after the run: more reasons to exit 1 (beside the backends')
  std::function<void()> release;  // after the run and the session's release, before Google Benchmark shuts down
  // Whether a row that could not run in this process (the GPU's context broken by an earlier
  // row) may be run by a fresh one: the binary re-executes itself with --resume.
  bool can_reexec = true;
  // Distributed runs: only the root reports; every rank must learn the first rank's problem; the
  // ranks run in step, so what decides a row's rounds must be what every rank measures alike.
  bool root = true;
  bool ranks_in_step = false;
  std::function<std::string(const std::string& mine)> agree = [](const std::string& mine) { return mine; };
  // The root's text, as every rank learns it (the rows log a resumed run continues).
  std::function<std::string(const std::string& root_text)> from_root = [](const std::string& text) { return text; };
  std::function<void(const std::vector<std::string>& gb_flags)> check_gb_flags;  // may throw usage_error
};

int run_program(program& p, int argc, char** argv);

// The run context every binary records: versions, the BLAS/LAPACK really loaded, seed, kinds,
// the machine's ceilings and load.
void add_common_context(const common_options& opt, const sampling& policy);
// Non-empty when the BLAS is told to use kernels this CPU cannot execute (SIGILL at the first
// call): the run is refused with that sentence instead.
std::string why_blas_kernels_cannot_run();

}  // namespace solvebench::bench
