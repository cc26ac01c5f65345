// The verdict at the end of a run: should this solve run on the GPU or the CPU, from which n,
// and how much faster; what this GPU's fp64 is worth; where mixed precision gives an fp64-accurate
// answer faster (every n and matrix: the map); the batched result; the audit's caveats next to
// the numbers they touch. Computed here once; tools/report and tools/condmap.py draw what it says.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checks/audit.hpp"
#include "checks/ceilings.hpp"
#include "checks/record.hpp"

namespace solvebench::bench {

// A kind of audit finding as an entry of the verdict cites it: by number (finding_mark), never
// by repeating its message, which the audit (and verdict.md's list of caveats) says once.
struct verdict_caveat {
  std::string rule, severity;
  std::vector<std::size_t> findings;  // the findings of this rule that touch the entry: indices into the audit's
  std::vector<std::string> rows;      // the rows they name
  bool operator==(const verdict_caveat& o) const { return rule == o.rule && severity == o.severity; }
};

// A finding the verdict cites, as verdict.md lists it.
struct cited_finding {
  std::size_t index = 0;  // in the audit's findings: cited as finding_mark(index)
  finding what;
};

struct speedup_point {
  long long n = 0;
  double cpu_ms = 0, gpu_ms = 0, speedup = 0;  // speedup = cpu_ms / gpu_ms
  std::optional<double> noise_pct;             // of the speedup: the two rows' noise combined
  std::string cpu_row, gpu_row;                // the rows held against each other
};

// Where the GPU starts to win against the CPU along n.
struct crossover {
  std::string kind;  // gpu_always, cpu_always, crossing (interpolated), mixed (wins, then loses again)
  long long n = 0;   // gpu_always: the smallest n; cpu_always: the largest; crossing: n*; mixed: the last win
  bool interpolated = false;
  std::optional<std::pair<long long, long long>> between;  // crossing: the measured sizes around n*
  std::vector<long long> gpu_wins_at;                      // mixed: every n where the GPU was faster
};

// points sorted by n. crossing is the last rise s_i < 1 <= s_i+1 (all s >= 1 beyond it),
// interpolated on log n against log s and rounded half up.
std::optional<crossover> find_crossover(const std::vector<speedup_point>& points);

// The fastest of the CPU's reference rows at one n, across its paths and libraries.
struct cpu_best_point {
  long long n = 0;
  double ms = 0;
  std::string path;     // the backend of the CPU row used: "CPU" (the halves), "CPU-driver" (the one-call driver) ...
  std::string library;  // its id's library: which CPU library won at this n
  std::string library_name;  // that library as a user knows it: "OpenBLAS 0.3.21 (linked)" (cpu_library_names)
  std::string row;
  // The runner-up, where the run timed several libraries: the fastest row of another library
  // at this n (the second best library, not any other).
  std::optional<std::string> runner_up_library, runner_up_name, runner_up_row;
  std::optional<double> runner_up_ms;
  std::optional<double> noise_pct;  // of runner_up_ms / ms: the two rows' noise combined
};

// Which CPU library solves fastest, where the run timed several (an operation, precision and
// nrhs): the fastest reference row at each n, and the best of the other libraries there.
struct cpu_library_verdict {
  std::string op;  // dgesv, dposv, ...
  long long nrhs = 0;
  std::vector<std::string> libraries;      // those whose rows ran, in the run's order: their ids' labels
  std::vector<std::string> library_names;  // the same as a user knows them ("OpenBLAS 0.3.21 (linked)")
  std::vector<cpu_best_point> points;      // by n
  std::vector<verdict_caveat> caveats;
};

struct gpu_form {
  std::string backend;    // GPU (A and b on the device), GPU-pinned, GPU-pageable (transfers included)
  std::string placement;  // resident, pinned, pageable
  std::vector<speedup_point> points;
  crossover cross;
};

struct largest_n_result {
  long long n = 0;
  double cpu_ms = 0;
  std::string cpu_path;
  std::string cpu_library, cpu_library_name;  // where the run timed several libraries: the winner's label and name
  double gpu_ms = 0, speedup = 0;
  std::optional<double> noise_pct;
};

struct energy_result {
  long long n = 0;
  double cpu_j = 0, gpu_j = 0, ratio = 0;  // ratio = cpu_j / gpu_j: above 1 the GPU uses less
  std::optional<double> cpu_gflop_per_j, gpu_gflop_per_j;
};

struct solve_verdict {
  std::string op;         // dgesv, sgesv, zgesv, dposv, ...
  std::string operation;  // gesv, posv
  char precision = 'd';
  long long nrhs = 0;
  std::vector<cpu_best_point> cpu_best;
  std::vector<gpu_form> forms;  // in the order GPU, GPU-pinned, GPU-pageable; those that ran
  // The other backends against the same CPU rows: MGPU (gpus, tile), MPI (ranks, nb), one
  // form per backend and axes (backend: "MGPU gpus:2 tile:512").
  std::vector<gpu_form> others;
  std::optional<largest_n_result> largest;
  std::optional<energy_result> energy;
  std::vector<row_device> energy_missing;  // the sides without J/solve at the largest n (JSON: "CPU", "GPU")
  std::vector<verdict_caveat> caveats;
};

struct dsgesv_speedup {
  long long n = 0;
  double min = 0, max = 0;  // GPU/dgesv ms / GPU/dsgesv ms over the matrices at n
  long long count = 0;
};

struct fp64_verdict {
  long long n = 0;
  double dgemm_gflops = 0, sgemm_gflops = 0, ratio = 0;  // ratio = dgemm / sgemm
  long long one_in = 0;                                  // 1/ratio, rounded
  std::string klass;                                     // fp64-first-class or fp64-reduced
  std::string advice;
  std::optional<dsgesv_speedup> dsgesv;
  std::vector<verdict_caveat> caveats;
};

// One mixed-precision row held against dgesv on the same matrix, device and n.
struct mixed_method {
  std::string row, op;                // GPU/dhgesv/..., dhgesv
  std::string refine;                 // classical, gmres, ... ("" without a refine axis)
  std::optional<double> ms, speedup;  // speedup = dgesv ms / ms
  bool accurate = false;              // fp64-accurate (is_fp64_accurate)
  std::string why_not;                // why not, when not
  std::optional<double> niters, outer_iters, fell_back;
};

// A cell of the map: one device (backend), matrix and n.
struct mixed_cell {
  std::string backend;  // GPU, CPU
  row_role role = row_role::reference;
  std::string matrix;  // the matrix axes: "kind:diagdom", "cond:1e4"
  long long nrhs = 0, n = 0;
  std::string reference;  // the dgesv row ("" when none ran)
  std::optional<double> dgesv_ms;
  std::string reference_error;  // the dgesv row failed
  std::vector<mixed_method> methods;
  std::optional<std::size_t> winner;  // the fastest fp64-accurate method faster than dgesv (index)
  std::optional<double> speedup;      // the winner's, 1 when dgesv itself is fastest
};

// The fastest fp64-accurate solve of one matrix at its largest n on the GPU (the summary line).
struct mixed_verdict {
  std::string matrix;
  long long nrhs = 0, n = 0;
  std::optional<std::string> best, op, refine;
  std::optional<double> ms, dgesv_ms, speedup, niters, fell_back;
  std::vector<std::string> rejected;  // ran, but not fp64-accurate
  std::vector<verdict_caveat> caveats;
};

struct batched_verdict {
  std::string op;
  long long batch = 0;
  std::vector<speedup_point> points;
  speedup_point best, worst;  // the largest and the smallest GPU speedup
  std::vector<verdict_caveat> caveats;
};

struct run_verdict {
  // From the context: gpu_name, host_name, blas_vendor, blas_version, gpu_rows, cpu_energy (absent:
  // empty).
  std::vector<std::pair<std::string, std::optional<std::string>>> machine;
  bool has_gpu_rows = false;
  std::size_t rows_passed = 0, rows_failed = 0;
  std::vector<solve_verdict> solves;
  std::vector<cpu_library_verdict> cpu_libraries;  // only where the run timed several CPU libraries
  std::optional<fp64_verdict> fp64_fp32;
  std::vector<mixed_verdict> mixed;
  std::vector<mixed_cell> mixed_map;
  std::vector<batched_verdict> batched;
  ceilings_report ceilings;             // each solve against its machine (ceilings.hpp)
  std::vector<verdict_caveat> caveats;  // warnings and timing bugs without rows: they concern the whole run
  std::vector<cited_finding> cited;     // every finding cited above, in the audit's order (each once)
  std::vector<std::string> lines;       // the verdict in sentences
};

// The rule for "this mixed-precision answer is as good as fp64's": it passed the HPL check at
// fp64, it was refined, and its forward error (when known) is within limits::fwd_err_slack of
// dgesv's on the same matrix, floored at fp64's unit roundoff. `why_not` says what failed.
bool is_fp64_accurate(const row_record& mixed, const row_record* dgesv, std::string* why_not);

// The verdict of a finished run and the audit's findings about it.
run_verdict make_verdict(const run_summary& run, const std::vector<finding>& findings);

// The sentences of a verdict (make_verdict fills v.lines with them).
std::vector<std::string> verdict_lines(const run_verdict& v);

}  // namespace solvebench::bench
