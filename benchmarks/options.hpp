// solve_bench's own command-line flags and environment variables (beside --benchmark_*).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "solvebench/generate.hpp"

namespace solvebench::bench {

// Bad flag or environment value: main prints it with the usage text and exits 2.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct options {
  std::vector<std::int64_t> sizes;          // empty: each backend's default sweep
  std::vector<std::int64_t> nrhs{1};
  std::uint64_t seed = default_seed;
  std::optional<matrix_kind> kind;          // empty: uniform for LU and GEMM rows, spd for Cholesky rows
  std::string rows_out;                     // JSON-lines log of finished rows ("" = next to --benchmark_out)
  std::string benchmark_out;                // copy of --benchmark_out, to place the rows log
  std::string display_format = "console";   // copy of --benchmark_format
  std::vector<std::string> precisions{"d", "s"};
  std::string cusolver_api = "generic64";   // or legacy32
  // Mixed precision rows.
  // spd converges as diagdom does (measured on the H200): off by default to save sweep time.
  std::vector<matrix_kind> mixed_kinds{matrix_kind::uniform, matrix_kind::diagdom};
  std::vector<std::string> refine{"classical", "gmres"};
  std::int64_t irs_max_iters = 50;
  // Batched rows: orders and batch counts.
  std::vector<std::int64_t> batch_n{4, 8, 16, 32, 64, 128, 256};
  std::vector<std::int64_t> batch_count{100, 1000, 10000};
};

// Reads SOLVE_BENCH_* variables, then the flags left in argv after benchmark::Initialize.
// `gb_flags` are the --benchmark_* flags seen before Initialize consumed them.
options parse_options(int argc, char** argv, const std::vector<std::string>& gb_flags);

std::string usage_text();

// Where the JSON-lines rows log goes: --rows_out, else X.rows.jsonl next to
// --benchmark_out=X.json, else nowhere ("").
std::string rows_log_path(const options& opt);

// "256,1024" -> {256, 1024}; each must be an integer in [1, max]; names the culprit otherwise.
std::vector<std::int64_t> parse_size_list(const std::string& what, const std::string& text, std::int64_t max);

// Default sweeps: small enough for a 2-core CI machine on the CPU; larger on the GPU.
std::vector<std::int64_t> cpu_sizes(const options& opt);
std::vector<std::int64_t> gpu_sizes(const options& opt);
std::vector<std::int64_t> cpu_mixed_sizes(const options& opt);
std::vector<std::int64_t> gpu_mixed_sizes(const options& opt);

}  // namespace solvebench::bench
