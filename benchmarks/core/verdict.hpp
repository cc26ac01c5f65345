// The verdict at the end of a run: should this solve run on the GPU or the CPU, from which n,
// and how much faster; what this GPU's fp64 is worth; the best fp64-accurate method; the
// batched result; the audit's caveats next to the numbers they touch.
//
// tools/verdict.py implements the same specification (its module docstring states it) and
// test/verdict_dump + tools/tests/test_verdict.py hold the two to the same JSON, Markdown and
// console text on the cases in test/data/verdict_cases.txt. Change both or neither.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/run_record.hpp"

#include "core/audit.hpp"

namespace solvebench::bench {

// An audit finding as an entry of the verdict shows it.
struct verdict_caveat {
  std::string rule, severity, message;
  bool operator==(const verdict_caveat& o) const {
    return rule == o.rule && severity == o.severity && message == o.message;
  }
};

struct speedup_point {
  long long n = 0;
  double cpu_ms = 0, gpu_ms = 0, speedup = 0;  // speedup = cpu_ms / gpu_ms
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

struct cpu_best_point {
  long long n = 0;
  double ms = 0;
  std::string path;  // "CPU" (getrf+getrs, potrf+potrs) or "CPU-driver" (LAPACKE_?gesv/?posv)
};

struct gpu_form {
  std::string backend;  // GPU (A and b on the device), GPU-pinned, GPU-pageable (transfers included)
  std::vector<speedup_point> points;
  crossover cross;
};

struct largest_n_result {
  long long n = 0;
  double cpu_ms = 0;
  std::string cpu_path;
  double gpu_ms = 0, speedup = 0;
};

struct energy_result {
  long long n = 0;
  double cpu_j = 0, gpu_j = 0, ratio = 0;  // ratio = cpu_j / gpu_j: above 1 the GPU uses less
  std::optional<double> cpu_gflop_per_j, gpu_gflop_per_j;
};

struct solve_verdict {
  std::string op;  // dgesv, sgesv, dposv, sposv
  long long nrhs = 0;
  std::vector<cpu_best_point> cpu_best;
  std::vector<gpu_form> forms;  // in the order GPU, GPU-pinned, GPU-pageable; those that ran
  std::optional<largest_n_result> largest;
  std::optional<energy_result> energy;
  std::vector<std::string> energy_missing;  // "CPU", "GPU": sides without J/solve at the largest n
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

struct mixed_verdict {
  std::string matrix;  // the axes other than n, nrhs, refine: "kind:diagdom", "cond:1e4"
  long long nrhs = 0, n = 0;
  std::optional<std::string> best, op, refine;  // the fastest fp64-accurate row
  std::optional<double> ms, dgesv_ms, speedup, niters, fell_back;
  std::vector<std::string> rejected;  // ran, but not fp64-accurate (resid, or fwd_err > 10x dgesv's)
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
  // From the context: gpu_name, host_name, blas_vendor, blas_version, gpu_rows (absent: empty).
  std::vector<std::pair<std::string, std::optional<std::string>>> machine;
  bool has_gpu_rows = false;
  std::vector<solve_verdict> solves;
  std::optional<fp64_verdict> fp64_fp32;
  std::vector<mixed_verdict> mixed;
  std::vector<batched_verdict> batched;
  std::vector<verdict_caveat> caveats;  // findings without rows: they concern the whole run
  std::vector<std::string> lines;       // the verdict in sentences
};

// The verdict of a finished run and the audit's findings about it.
run_verdict make_verdict(const run_summary& run, const std::vector<finding>& findings);

// {"verdict": {...}}: the keys tools/verdict.py's compute() returns.
std::string verdict_json(const run_verdict& v);
std::string verdict_markdown(const run_verdict& v);
// "verdict" and the sentences, indented: the end of the console output.
std::string verdict_console(const run_verdict& v);

// X.verdict.json and X.verdict.md beside --benchmark_out=X.json (or X.rows.jsonl).
struct verdict_paths {
  std::string json, markdown;
};
verdict_paths verdict_paths_for(const std::string& benchmark_out);
// Writes both files; throws solvebench::error naming the file it could not write.
void write_verdict_files(const run_verdict& v, const std::string& benchmark_out);

}  // namespace solvebench::bench
