// solve_bench: registers the rows of every backend this build has, runs them, and exits
// non-zero when any row failed (0 ok, 1 a row failed, 2 bad flags).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "harness.hpp"
#include "options.hpp"
#include "registry.hpp"
#include "solvebench/config.hpp"
#include "solvebench/lapack.hpp"

namespace sb = solvebench;
namespace bench = solvebench::bench;

namespace {

std::string join(const std::vector<std::int64_t>& v) {
  std::string s;
  for (auto x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

void add_context(const bench::options& opt, const bench::gpu_registration& gpu) {
  const auto blas = sb::lapack::blas_runtime_info();
  benchmark::AddCustomContext("solve_bench_version", SOLVE_BENCH_VERSION);
  benchmark::AddCustomContext("solve_bench_build_type", SOLVE_BENCH_BUILD_TYPE);
  benchmark::AddCustomContext("blas_vendor", blas.vendor);
  benchmark::AddCustomContext("blas_version", blas.version);
  benchmark::AddCustomContext("blas_config", blas.blas_config);
  benchmark::AddCustomContext("blas_core", blas.blas_core);
  benchmark::AddCustomContext("blas_threads", std::to_string(blas.blas_threads));
  benchmark::AddCustomContext("blas_library", blas.blas_library);
  benchmark::AddCustomContext("lapack_version", blas.lapack_version);
  benchmark::AddCustomContext("lapack_library", blas.lapack_library);
  benchmark::AddCustomContext("seed", std::to_string(opt.seed));
  benchmark::AddCustomContext("matrix_kind_lu", opt.kind ? sb::to_string(*opt.kind) : "uniform");
  benchmark::AddCustomContext("matrix_kind_cholesky", opt.kind ? sb::to_string(*opt.kind) : "spd");
  benchmark::AddCustomContext("cpu_sizes", join(bench::cpu_sizes(opt)));
  benchmark::AddCustomContext("gpu_rows", gpu.registered ? "registered" : "absent: " + gpu.reason);
  if (gpu.registered) benchmark::AddCustomContext("gpu_sizes", join(bench::gpu_sizes(opt)));
  for (const auto& [key, value] : gpu.context) benchmark::AddCustomContext(key, value);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::cout << bench::usage_text();
      return 0;
    }
  std::vector<std::string> gb_flags;  // Initialize consumes these; we need two of them
  bool min_time_given = std::getenv("BENCHMARK_MIN_TIME") != nullptr;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--benchmark_", 12) == 0) {
      gb_flags.emplace_back(argv[i]);
      min_time_given = min_time_given || gb_flags.back().rfind("--benchmark_min_time", 0) == 0;
    }

  // Google Benchmark's default minimum time per row (0.5 s) would push the default sweep past
  // ten minutes on the H200; 0.25 s still gives thousands of iterations to fast rows and at
  // least one to slow ones. A --benchmark_min_time flag (or BENCHMARK_MIN_TIME) wins.
  std::vector<char*> args(argv, argv + argc);
  std::string default_min_time = std::string("--benchmark_min_time=") + SOLVE_BENCH_DEFAULT_MIN_TIME;
  if (!min_time_given) args.insert(args.begin() + 1, default_min_time.data());
  int args_count = static_cast<int>(args.size());
  args.push_back(nullptr);
  argv = args.data();
  argc = args_count;

  benchmark::Initialize(&argc, argv);
  bench::options opt;
  try {
    opt = bench::parse_options(argc, argv, gb_flags);
  } catch (const bench::usage_error& e) {
    std::cerr << "solve_bench: " << e.what() << "\n\n" << bench::usage_text();
    return 2;
  }

  bench::register_cpu_benchmarks(opt);
  const bench::gpu_registration gpu = bench::register_gpu_benchmarks(opt);
  if (!gpu.registered) std::cerr << "solve_bench: GPU rows not registered: " << gpu.reason << "\n";
  add_context(opt, gpu);

  try {
    bench::row_log_reporter reporter(bench::make_display_reporter(opt.display_format), bench::rows_log_path(opt));
    benchmark::RunSpecifiedBenchmarks(&reporter);
  } catch (const std::exception& e) {
    std::cerr << "solve_bench: " << e.what() << "\n";
    return 2;
  }
  bench::fixtures().clear();
  bench::release_gpu();
  benchmark::Shutdown();

  const auto& leaks = bench::device_memory_leaks();
  for (const auto& l : leaks) std::cerr << "solve_bench: device memory leak: " << l << "\n";

  const auto& skipped = bench::skipped_rows();
  if (!skipped.empty()) {
    std::cerr << "solve_bench: " << skipped.size() << " row(s) skipped:\n";
    for (const auto& s : skipped) std::cerr << "  " << s << "\n";
  }
  const auto& failed = bench::failed_rows();
  if (failed.empty()) return leaks.empty() ? 0 : 1;
  std::cerr << "solve_bench: " << failed.size() << " row(s) failed:\n";
  for (const auto& f : failed) std::cerr << "  " << f << "\n";
  return 1;
}
