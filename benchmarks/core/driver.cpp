// The shared main: see driver.hpp.
#include "core/driver.hpp"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>

#include "core/audit.hpp"
#include "core/environment.hpp"
#include "core/harness.hpp"
#include "core/verdict.hpp"
#include "solvebench/config.hpp"
#include "solvebench/lapack.hpp"

namespace solvebench::bench {
namespace {

// solve_bench's own default minimum time per row: Google Benchmark's 0.5 s would push the
// default sweep past ten minutes on the H200; 0.25 s still gives thousands of iterations to
// fast rows and at least one to slow ones. A --benchmark_min_time flag (or
// BENCHMARK_MIN_TIME) wins.
constexpr const char* default_min_time = "0.25";

bool is_plain_number(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end && *end == '\0';
}

std::string usage(const program& p) {
  return p.about + "\n" + p.name + " flags (each also read from the environment variable in brackets; flags win):\n" +
         flags_help(p.flags) +
         "\nGoogle Benchmark flags keep working, e.g.\n"
         "  --benchmark_filter=REGEX  --benchmark_repetitions=N  --benchmark_out=FILE --benchmark_out_format=json\n"
         "  --benchmark_min_time=SECONDS (default here: 0.25; written 0.25 or 0.25s, whichever Google Benchmark\n"
         "  version is linked; 1.8+ also takes an iteration count, 100x)\n\n" +
         p.exit_status;
}

// Reporter for the ranks other than the root: they run every row (they must, for the
// collectives) but say nothing.
class silent_reporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

}  // namespace

std::string min_time_for_this_library(const std::string& value) {
#if SOLVE_BENCH_GBENCH_1_8
  return is_plain_number(value) ? value + "s" : value;
#else
  if (!value.empty() && value.back() == 's' && is_plain_number(value.substr(0, value.size() - 1)))
    return value.substr(0, value.size() - 1);
  if (!value.empty() && value.back() == 'x')
    throw usage_error("--benchmark_min_time=" + value +
                      ": an iteration count needs Google Benchmark 1.8 or later (this one is older); give seconds");
  return value;
#endif
}

void add_common_context(const common_options& opt) {
  const auto blas = lapack::blas_runtime_info();
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
  benchmark::AddCustomContext("matrix_kind_lu", opt.kind ? to_string(*opt.kind) : "uniform");
  benchmark::AddCustomContext("matrix_kind_cholesky", opt.kind ? to_string(*opt.kind) : "spd");
  for (const auto& [key, value] : environment_facts()) benchmark::AddCustomContext(key, value);
}

namespace {

// The audit and the verdict of a finished run: printed after the rows (to stderr when stdout
// carries JSON) and, with --benchmark_out=X.json, written to X.audit.json, X.verdict.json and
// X.verdict.md, where tools/report and tools/regress read them.
void check_the_run(const program& p, const run_summary& summary) {
  const audit_report audit = run_audit(summary);
  const run_verdict verdict = make_verdict(summary, audit.findings);
  std::ostream& out = p.common->display_format == "json" ? std::cerr : std::cout;
  out << "\n" << audit_console(audit) << "\n" << verdict_console(verdict) << std::flush;
  const std::string base = output_base(*p.common);
  if (base.empty()) return;
  std::ofstream file(base + ".audit.json");
  file << audit_json(audit);
  if (!file) throw error("cannot write " + base + ".audit.json");
  write_verdict_files(verdict, base + ".json");
}

}  // namespace

int run_program(program& p, int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      if (p.root) std::cout << usage(p);
      return 0;
    }

  // Google Benchmark's flags: seen here (Initialize consumes them), the minimum time spelt
  // for the linked version, and --benchmark_out kept from ranks other than the root (they
  // would truncate the root's file on a shared file system).
  std::vector<std::string> gb_flags, storage;
  std::string problem;
  bool min_time_given = false;
  try {
    if (const char* env = std::getenv("BENCHMARK_MIN_TIME")) {
      setenv("BENCHMARK_MIN_TIME", min_time_for_this_library(env).c_str(), 1);
      min_time_given = true;
    }
    storage.emplace_back(argv[0]);
    for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i];
      if (arg.rfind("--benchmark_", 0) == 0) {
        if (arg.rfind("--benchmark_min_time=", 0) == 0) {
          arg = "--benchmark_min_time=" + min_time_for_this_library(arg.substr(21));
          min_time_given = true;
        }
        gb_flags.push_back(arg);
        if (!p.root && arg.rfind("--benchmark_out", 0) == 0) continue;
      }
      storage.push_back(arg);
    }
  } catch (const usage_error& e) {
    problem = e.what();
  }
  if (!p.root) unsetenv("BENCHMARK_OUT");
  if (!min_time_given)
    storage.insert(storage.begin() + 1, "--benchmark_min_time=" + min_time_for_this_library(default_min_time));
  std::vector<char*> args;
  for (auto& s : storage) args.push_back(s.data());
  int args_count = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&args_count, args.data());

  try {
    if (problem.empty()) parse_flags(p.flags, args_count, args.data(), *p.common, gb_flags);
    if (problem.empty() && p.check_gb_flags) p.check_gb_flags(gb_flags);
    if (problem.empty() && p.root && !p.common->benchmark_out.empty() &&
        !std::ofstream(p.common->benchmark_out, std::ios::app))
      problem = "cannot write --benchmark_out=" + p.common->benchmark_out;
  } catch (const usage_error& e) {
    problem = e.what();
  }
  problem = p.agree(problem);
  if (!problem.empty()) {
    if (p.root) std::cerr << p.name << ": " << problem << "\n\n" << usage(p);
    return 2;
  }

  p.register_rows();
  add_common_context(*p.common);
  if (p.add_context) p.add_context();

  std::unique_ptr<benchmark::BenchmarkReporter> reporter;
  row_log_reporter* rows = nullptr;
  try {
    if (p.root) {
      auto log = std::make_unique<row_log_reporter>(make_display_reporter(p.common->display_format),
                                                    rows_log_path(*p.common));
      rows = log.get();
      reporter = std::move(log);
    } else {
      reporter = std::make_unique<silent_reporter>();
    }
  } catch (const std::exception& e) {
    problem = e.what();
  }
  problem = p.agree(problem);
  if (!problem.empty()) {
    if (p.root) std::cerr << p.name << ": " << problem << "\n";
    return 2;
  }
  benchmark::RunSpecifiedBenchmarks(reporter.get());
  release_fixtures();
  if (p.release) p.release();
  benchmark::Shutdown();

  std::vector<std::string> problems = p.problems ? p.problems() : std::vector<std::string>{};
  if (rows && p.checks_after_run && !rows->summary().rows.empty()) {  // (--benchmark_list_tests runs none)
    try {
      check_the_run(p, rows->summary());
    } catch (const std::exception& e) {
      problems.push_back(std::string("the checks after the run failed: ") + e.what());
    }
  }

  if (p.root) {
    for (const auto& m : problems) std::cerr << p.name << ": " << m << "\n";
    const auto& skipped = skipped_rows();
    if (!skipped.empty()) {
      std::cerr << p.name << ": " << skipped.size() << " row(s) skipped:\n";
      for (const auto& s : skipped) std::cerr << "  " << s << "\n";
    }
  }
  const auto& failed = failed_rows();  // the same on every rank of a distributed run: errors are agreed
  if (failed.empty()) return problems.empty() ? 0 : 1;
  if (p.root) {
    std::cerr << p.name << ": " << failed.size() << " row(s) failed:\n";
    for (const auto& f : failed) std::cerr << "  " << f << "\n";
  }
  return 1;
}

}  // namespace solvebench::bench
