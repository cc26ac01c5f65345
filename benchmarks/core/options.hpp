// Flags and SOLVE_BENCH_* environment variables, one group per family of rows. A binary
// accepts exactly the groups whose rows it registers, so solve_bench_mpi refuses GPU flags,
// and its help text shows the defaults its rows really use.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "checks/cliffs.hpp"
#include "solvebench/generate.hpp"
#include "solvebench/solver_choices.hpp"

namespace solvebench::bench {

struct run_history;  // checks/history.hpp

// `text` with its control characters escaped (\n, \x1e): a value given on the command line
// or in the environment, quoted in a message, keeps the message on one line.
std::string escape_controls(const std::string& text);

// Bad flag or environment value: the driver prints it in one line and exits 2.
class usage_error : public std::runtime_error {
 public:
  explicit usage_error(const std::string& message) : std::runtime_error(escape_controls(message)) {}
};

// One flag: --name=VALUE, also read from `env`; `apply` parses and stores (usage_error on bad
// input, naming `what`), `default_text` is what the help shows as the default (taken when the
// flag list is made, before anything is parsed).
struct flag {
  const char* name;
  const char* value;  // the placeholder in the help: "N[,N...]"
  const char* env;
  std::string help;
  std::function<void(const std::string& what, const std::string& value)> apply;
  std::string default_text;
};

// Every row: sizes, right-hand sides, precisions, matrices, where the rows log goes.
struct common_options {
  std::vector<std::int64_t> sizes;  // empty: each backend's default sweep
  bool sizes_max = false;           // --sizes=max: each family at the largest n that fits (sweep.hpp)
  std::vector<std::int64_t> nrhs{1};
  std::vector<std::string> precisions{"d", "s"};
  std::optional<matrix_kind> kind;  // empty: uniform for LU and GEMM rows, spd for Cholesky rows
  std::uint64_t seed = default_seed;
  std::string rows_out;  // JSON-lines log of finished rows ("" = next to --benchmark_out)
  std::string resume;    // --resume: the rows log of an interrupted run to continue
  // Rounds and processes (issue 30): each row is run in `rounds` rounds (its fixture built anew
  // each time, the rows' order shuffled per round) in each of `processes` processes. A binary
  // that may re-execute itself sets its default design before its flags are made (solve_bench:
  // 3 processes of one round); rounds asked for alone run in one process (settle_rounds).
  static constexpr int one_process_rounds = 5;  // the rounds of a design of one process
  int rounds = one_process_rounds;
  int processes = 1;
  bool rounds_given = false;      // --rounds (or its variable) was given: --benchmark_repetitions must agree
  bool processes_given = false;   // --processes (or its variable) was given
  int span_s = 0;                 // --span: the processes start spread over at least this many seconds
  bool span_given = false;        // --span (or its variable) was given: with one process, a usage error
  std::string progress = "auto";  // auto (redrawn on a terminal, lines otherwise), lines, off
  std::string history;            // --history: a tools/track store whose record of the rows floors their ±
  std::string testbed;            // --testbed: its testbed; once parsed, the one found (settle_history)
  std::shared_ptr<const run_history> record;  // its record, read once when the flags are parsed: set iff history is
  // --sizes=scan:LO..HI or --nrhs=scan:LO..HI (core/scan.hpp): the axis's list is the coarse grid,
  // bisected afterwards by at most scan_extra rows, and by no pass that starts after scan_budget_s.
  std::optional<scan_range> scan;
  int scan_extra = 40;
  double scan_budget_s = 480;
  // The sizes each backend sweeps when --sizes is not given (shown by --help).
  std::vector<std::int64_t> default_sizes{256, 1024, 4096};
  std::vector<std::int64_t> sizes_or_default() const { return sizes.empty() ? default_sizes : sizes; }
  // What --sizes says for the families it bounds (dense and mixed-precision solves): "" when
  // it was not given (each family's defaults), else the list or "max".
  bool sizes_given() const { return sizes_max || !sizes.empty(); }
  bool has(const char* precision) const;
};
std::vector<flag> common_flags(common_options& o, const std::string& sizes_help);

// The GPU rows: which cuSOLVER API.
struct gpu_options {
  cusolver_api api = cusolver_api::generic64;
  std::vector<std::int64_t> extra_sizes{8192, 16384};  // the GPU goes further than the CPU by default
};
std::vector<flag> gpu_flags(gpu_options& o);

// Mixed-precision rows (fp64 in and out, low-precision factorization, refinement).
struct mixed_options {
  // spd converges as diagdom does (measured on the H200): off by default to save sweep time.
  std::vector<matrix_kind> kinds{matrix_kind::uniform, matrix_kind::diagdom};
  std::vector<refinement> refine{refinement::classical, refinement::gmres};
  std::int64_t irs_max_iters = 50;
  // Matrices of prescribed condition numbers (axis cond:C, beside the kinds); none by default.
  std::vector<double> conds;
  // cuSOLVER's simple API too (rows with /api:simple), and IRS tolerances (rows with /tol:X).
  std::vector<irs_api> apis{irs_api::expert};
  std::vector<double> tolerances;
  std::vector<std::int64_t> cpu_sizes{1024, 4096};
  std::vector<std::int64_t> gpu_sizes{4096, 16384, 32768};
};
std::vector<flag> mixed_flags(mixed_options& o);
// The matrices the mixed-precision rows run on, as row axes: kind:K for each kind, then
// cond:C for each condition number.
std::vector<std::pair<std::string, std::string>> mixed_matrices(const mixed_options& o);

// Batched rows: many small systems.
// Batched rows: many small systems. The GPU sweeps more of them by default than the CPU, whose
// batches of 10000 systems of order 256 take seconds a call on a small machine; --batch_n and
// --batch_count set both.
struct batched_options {
  std::vector<std::int64_t> n{4, 8, 16, 32, 64, 128, 256};
  std::vector<std::int64_t> count{100, 1000, 10000};
  std::vector<std::int64_t> cpu_n{8, 32, 128};
  std::vector<std::int64_t> cpu_count{1000, 10000};
};
std::vector<flag> batched_flags(batched_options& o);

// Multi-GPU rows (cusolverMg): off unless sizes are given; G GPUs for each G in `gpus` that is
// present (default: 1 up to the devices present).
struct mgpu_options {
  std::vector<std::int64_t> sizes;
  std::vector<std::int64_t> gpus;
  std::vector<std::int64_t> tiles{512};
};
std::vector<flag> mgpu_flags(mgpu_options& o);

// The probes of the bound (docs/ceilings.md): the pieces of blocked LU and Cholesky timed
// apart at the dense sizes of each device, off by default so that the default sweep stays as it is.
struct ceilings_options {
  bool probes = false;
  // Of the order the libraries block at: OpenBLAS's getrf by its GEMM_Q (a few hundred on AVX2
  // and AVX-512 kernels), cuSOLVER on panels of a few hundred columns (docs/ceilings.md). The
  // probe rows carry it (axis nb) and the checks read it from them.
  std::int64_t nb = 256;
};
std::vector<flag> ceilings_flags(ceilings_options& o);

// Applies the SOLVE_BENCH_* variables, then argv's flags (flags win); anything else in argv,
// and a SOLVE_BENCH_* variable (in `env`, the process's environment) that names no flag of any
// binary of the suite nor a variable of its tools, is a usage_error.
void parse_flags(const std::vector<flag>& flags, int argc, char** argv, common_options& common, char** env);

// "  --sizes=N[,N...]       matrix orders [SOLVE_BENCH_SIZES] (default 256,1024,4096)" lines.
std::string flags_help(const std::vector<flag>& flags);

// "256,1024" -> {256, 1024}; each an integer in [1, max], none twice; names the culprit otherwise.
std::vector<std::int64_t> parse_size_list(const std::string& what, const std::string& text, std::int64_t max);
std::string join(const std::vector<std::int64_t>& values);

}  // namespace solvebench::bench
