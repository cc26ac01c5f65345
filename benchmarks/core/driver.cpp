// The shared main: see driver.hpp.
#include "core/driver.hpp"

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <regex>

#include "checks/render.hpp"
#include "core/environment.hpp"
#include "core/gb_flags.hpp"
#include "core/harness.hpp"
#include "core/outputs.hpp"
#include "core/printers.hpp"
#include "solvebench/config.hpp"
#include "solvebench/cpu_facts.hpp"
#include "solvebench/cpu_load.hpp"
#include "solvebench/lapack.hpp"
#include "solvebench/rapl.hpp"

extern char** environ;

namespace solvebench::bench {
namespace {

constexpr bool gb_1_8 = SOLVE_BENCH_GBENCH_1_8 != 0;
constexpr const char* reexec_variable = "SOLVE_BENCH_REEXEC_DEPTH";
constexpr int max_reexec = 32;

std::string usage(const program& p) {
  return p.about + "\n" + p.name + " flags (each also read from the environment variable in brackets; flags win):\n" +
         flags_help(p.flags) +
         "\nGoogle Benchmark flags keep working:\n"
         "  --benchmark_list_tests          list the rows this command would run, and stop\n"
         "  --benchmark_filter=REGEX        run the rows whose name matches (extended regex; a leading -\n"
         "                                  negates: --benchmark_filter=-_batched runs every row but the\n"
         "                                  batched ones)\n"
         "  --benchmark_repetitions=N       repeat each row N times (mean, median, stddev, cv follow)\n"
         "  --benchmark_out=FILE --benchmark_out_format=json|csv|console   results, written whole at the end\n"
         "  --benchmark_min_time=SECONDS    timed seconds each row samples at least (default 0.25; 0.25s also\n"
         "                                  works); N x (100x): exactly N timed calls per row\n"
         "  --benchmark_report_aggregates_only, --benchmark_display_aggregates_only, --benchmark_format=json\n"
         "Examples:\n"
         "  " +
         p.name +
         " --benchmark_filter='^GPU/d'              the fp64 GPU rows\n"
         "  " +
         p.name + " --sizes=1024 --benchmark_filter='gesv'   dense solves at n = 1024\n\n" + exit_status_help();
}

// Cost of a row relative to others, from its size (the ETA scales it by what rows really take).
double estimated_cost(const row_id& id) {
  const double n = static_cast<double>(id.n), k = static_cast<double>(id.nrhs.value_or(1));
  double flops = 2 * n * n * n / 3;
  if (id.op == "posv" || id.op == "potrf") flops /= 2;
  if (id.op == "gemm") flops *= 3;
  if (id.op == "getrs" || id.op == "potrs") flops = 2 * n * n * k;
  flops *= static_cast<double>(id.int_axis("batch").value_or(1));
  const double rate = id.device == "gpu" ? 2e13 : 1e11;
  return 0.3 + 6 * flops / rate + n * n * 2e-9;
}

std::vector<planned_row> plan_rows(const std::vector<std::string>& names, const std::string& filter) {
  std::vector<planned_row> out;
  for (const auto& name : names)
    if (matches_filter(filter, name + "/manual_time"))
      if (const row_id* id = registered_id(name)) out.push_back({name, estimated_cost(*id)});
  return out;
}

// Re-executes this binary with --resume=LOG, so that the rows a broken GPU context could not
// run get a fresh process; returns only if that fails.
void rerun_deferred(int argc, char** argv, const std::string& live) {
  const char* depth_text = std::getenv(reexec_variable);
  const int depth = depth_text ? std::atoi(depth_text) : 0;
  if (depth >= max_reexec) return;
  setenv(reexec_variable, std::to_string(depth + 1).c_str(), 1);
  std::vector<std::string> args;
  for (int i = 0; i < argc; ++i)
    if (std::strncmp(argv[i], "--resume=", 9) != 0) args.emplace_back(argv[i]);
  args.push_back("--resume=" + live);
  std::vector<char*> c_args;
  for (auto& a : args) c_args.push_back(a.data());
  c_args.push_back(nullptr);
  std::cerr << "solve_bench: " << deferred_rows().size()
            << " row(s) could not run in this process (the GPU context is broken); running them in a fresh one\n"
            << std::flush;
  execv("/proc/self/exe", c_args.data());
  std::cerr << "solve_bench: could not start a fresh process: " << std::strerror(errno) << "\n";
}

// Reporter for the ranks other than the root: they run every row (they must, for the
// collectives) but print nothing; the bridge still takes each row's samples.
std::unique_ptr<bridge> silent_bridge() { return std::make_unique<bridge>(std::vector<printer*>{}); }

}  // namespace

std::string exit_status_help() {
  return "Exit status: 0 every row ran and passed its checks; 1 a row failed (its error is in the output and\n"
         "the JSON), an output could not be written, or an internal error (one line: a bug); 2 bad flags,\n"
         "environment values or output paths; 3 (solve_bench_mpi) the ranks fell out of step;\n"
         "4 nothing was measured (no row matched, or every row was refused): earlier results are left as\n"
         "they were.\n";
}

void add_common_context(const common_options& opt) {
  const auto blas = lapack::blas_runtime_info();
  benchmark::AddCustomContext("solve_bench_version", SOLVE_BENCH_VERSION);
  benchmark::AddCustomContext("solve_bench_commit", SOLVE_BENCH_COMMIT);
  benchmark::AddCustomContext("solve_bench_build_type", SOLVE_BENCH_BUILD_TYPE);
  benchmark::AddCustomContext("compiler", SOLVE_BENCH_COMPILER);
  benchmark::AddCustomContext("blas_vendor", blas.vendor);
  benchmark::AddCustomContext("blas_version", blas.version);
  benchmark::AddCustomContext("blas_config", blas.blas_config);
  benchmark::AddCustomContext("blas_core", blas.blas_core);
  benchmark::AddCustomContext("blas_variant", blas.blas_variant);
  benchmark::AddCustomContext("blas_threads", std::to_string(blas.blas_threads));
  benchmark::AddCustomContext("blas_library", blas.blas_library);
  benchmark::AddCustomContext("lapack_version", blas.lapack_version);
  benchmark::AddCustomContext("lapack_library", blas.lapack_library);
  benchmark::AddCustomContext("seed", std::to_string(opt.seed));
  benchmark::AddCustomContext("matrix_kind_lu", opt.kind ? to_string(*opt.kind) : "uniform");
  benchmark::AddCustomContext("matrix_kind_cholesky", opt.kind ? to_string(*opt.kind) : "spd");
  const sampling& s = sampling_policy();
  benchmark::AddCustomContext("sampling",
                              s.exact > 0
                                  ? std::to_string(s.exact) + " timed calls per row"
                                  : "at least " + std::to_string(s.min_samples) + " calls and " +
                                        std::to_string(s.min_time) + " s per row, then until the median is known to " +
                                        std::to_string(s.max_noise_pct) + "% or " + std::to_string(s.max_time) +
                                        " s; one call past " + std::to_string(s.long_cap) + " s");
  for (const auto& [key, value] : environment_facts()) benchmark::AddCustomContext(key, value);
  for (const auto& group :
       {cpu::cpu_peak_facts(), cpu::blas_core_facts(blas.blas_core), cpu::load_facts_at_start(), rapl::energy_facts()})
    for (const auto& [key, value] : group) benchmark::AddCustomContext(key, value);
}

std::string why_blas_kernels_cannot_run() {
  const auto peak = cpu::cpu_peak_facts();
  std::string cpu_isa;
  int fma_bits = 0;
  for (const auto& [key, value] : peak) {
    if (key == "cpu_vector_isa") cpu_isa = value;
    if (key == "cpu_fma_unit_bits" && !value.empty()) fma_bits = std::atoi(value.c_str());
  }
  const auto blas = lapack::blas_runtime_info();
  const std::string kernels = cpu::blas_core_isa(blas.blas_core);
  if (cpu::compare_kernel_isa(kernels, cpu_isa, fma_bits) != cpu::kernel_fit::beyond) return "";
  const auto forced = cpu::blas_core_facts(blas.blas_core);
  std::string by;
  for (const auto& [key, value] : forced)
    if (key == "blas_core_override" && !value.empty()) by = " (" + value + " in the environment)";
  return blas.vendor + " would run its " + blas.blas_core + " kernels" + by + ", which need " + kernels +
         ", on a CPU with " + cpu_isa + ": the first call would die of an illegal instruction";
}

int run_program(program& p, int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      if (p.root) std::cout << usage(p);
      return exit_code::ok;
    }

  gb_settings gb;
  std::vector<std::string> gb_args;
  std::string problem;
  try {
    gb_args = take_gb_flags(argc, argv, gb, gb_1_8);
  } catch (const usage_error& e) {
    problem = e.what();
    gb_args = {argv[0]};
  }
  sampling_policy() = gb.timing;
  const auto fixed = flags_for_gb(gb_1_8);
  gb_args.insert(gb_args.begin() + 1, fixed.begin(), fixed.end());
  std::vector<char*> args;
  for (auto& s : gb_args) args.push_back(s.data());
  int args_count = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&args_count, args.data());

  output_plan plan;
  try {
    if (problem.empty()) parse_flags(p.flags, args_count, args.data(), *p.common, environ);
    if (problem.empty()) {
      std::string filter = benchmark::GetBenchmarkFilter();
      if (!filter.empty() && filter[0] == '-') filter.erase(0, 1);
      try {
        std::regex check(filter.empty() ? "." : filter, std::regex::extended);
      } catch (const std::regex_error& e) {
        throw usage_error("--benchmark_filter: '" + benchmark::GetBenchmarkFilter() + "' is not a regular expression");
      }
    }
    if (problem.empty() && p.check_gb_flags) p.check_gb_flags(gb_args);
    if (problem.empty()) problem = why_blas_kernels_cannot_run();
    if (problem.empty() && p.root && !gb.list_tests) plan = plan_outputs(*p.common, gb, p.name);
  } catch (const usage_error& e) {
    problem = e.what();
  }
  problem = p.agree(problem);
  if (!problem.empty()) {
    if (p.root) std::cerr << p.name << ": " << problem << " (see " << p.name << " --help)\n";
    return exit_code::usage;
  }

  try {
    if (plan.appending) set_finished_rows(finished_rows(plan.live));
  } catch (const std::exception& e) {
    problem = e.what();
  }
  problem = p.agree(problem);
  if (!problem.empty()) {
    if (p.root) std::cerr << p.name << ": " << problem << "\n";
    return exit_code::usage;
  }

  std::vector<std::string> names;  // in registration order, for the progress plan
  p.register_rows();
  add_common_context(*p.common);
  if (p.add_context) p.add_context();

  if (gb.list_tests) {
    if (p.root) benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return exit_code::ok;
  }

  std::unique_ptr<rows_log> log;
  std::unique_ptr<printer> display, progress;
  std::unique_ptr<bridge> reporter;
  try {
    if (p.root) {
      log = std::make_unique<rows_log>(plan.live, plan.appending);
      display_options o;
      o.format = gb.display_format;
      o.aggregates_only = gb.display_aggregates_only || gb.report_aggregates_only;
      o.color = gb.color == "true" || (gb.color == "auto" && isatty(STDOUT_FILENO));
      o.continued = std::getenv(reexec_variable) != nullptr;
      for (const auto& name : registered_names())
        o.name_width = std::max(o.name_width, std::min<std::size_t>(name.size(), 60));
      display = make_display(o, std::cout);
      progress = make_progress(plan_rows(registered_names(), benchmark::GetBenchmarkFilter()));
      reporter = std::make_unique<bridge>(std::vector<printer*>{log.get(), display.get(), progress.get()});
    } else {
      reporter = silent_bridge();
    }
  } catch (const std::exception& e) {
    problem = e.what();
  }
  problem = p.agree(problem);
  if (!problem.empty()) {
    if (p.root) std::cerr << p.name << ": " << problem << "\n";
    return exit_code::usage;
  }
  benchmark::RunSpecifiedBenchmarks(reporter.get());
  release_fixtures();
  if (p.release) p.release();
  benchmark::Shutdown();
  if (!p.root) return failed_rows().empty() ? exit_code::ok : exit_code::row_failed;

  std::vector<std::string> problems = p.problems ? p.problems() : std::vector<std::string>{};
  const std::size_t written = log->written();
  if (!output_failure().empty()) {
    std::cerr << p.name << ": " << output_failure() << "; earlier results are left as they were\n";
    return exit_code::row_failed;
  }
  if (!deferred_rows().empty() && p.can_reexec && written > 0) {
    log.reset();  // closed (and unlocked) before the fresh process appends to it
    rerun_deferred(argc, argv, plan.live);
  }
  // Otherwise the log stays locked until it is settled: a second run cannot truncate it
  // between the last row and the files written from it.

  run_summary run;
  try {
    // No row written nor resumed (no row matched): the log holds not even a context.
    if (written > 0 || rows_resumed() > 0) run = read_rows_log(plan.live);
  } catch (const std::exception& e) {
    std::cerr << p.name << ": " << e.what() << "\n";
    return exit_code::row_failed;
  }
  const bool measured = std::any_of(run.rows.begin(), run.rows.end(), [](const row_record& r) { return !r.skipped; });
  if (!measured) {
    if (!plan.appending) std::remove(plan.live.c_str());
    std::cerr << p.name << ": nothing was measured ("
              << (run.rows.empty() ? "no row matched the filter" : "every row was refused: see above")
              << "); earlier results are left as they were\n";
    for (const auto& s : skipped_rows()) std::cerr << "  skipped " << s << "\n";
    return exit_code::nothing_measured;
  }

  const audit_report audit = run_audit(run);
  const run_verdict verdict = make_verdict(run, audit.findings);
  std::ostream& out = gb.display_format == "json" ? std::cerr : std::cout;
  const auto files = check_files_for(plan.base);
  out << "\n"
      << audit_console(audit, plan.base.empty() ? "" : files.audit) << "\n"
      << verdict_console(verdict) << std::flush;
  try {
    write_results(plan, gb);
    if (!plan.base.empty()) write_check_files(plan.base, audit, verdict);
    settle_rows_log(plan);
  } catch (const std::exception& e) {
    problems.push_back(e.what());
  }
  if (!plan.out.empty() && problems.empty()) std::cerr << p.name << ": results in " << plan.out << "\n";

  for (const auto& m : problems) std::cerr << p.name << ": " << m << "\n";
  const auto& skipped = skipped_rows();
  if (!skipped.empty()) {
    std::cerr << p.name << ": " << skipped.size() << " row(s) refused:\n";
    for (const auto& s : skipped) std::cerr << "  " << s << "\n";
  }
  std::size_t failed = 0;
  for (const auto& r : run.rows)
    if (!r.error.empty() && !r.skipped) ++failed;
  if (failed > 0) {
    std::cerr << p.name << ": " << failed << " row(s) failed:\n";
    for (const auto& r : run.rows)
      if (!r.error.empty() && !r.skipped) std::cerr << "  " << r.name << ": " << r.error << "\n";
  }
  return failed > 0 || !problems.empty() ? exit_code::row_failed : exit_code::ok;
}

}  // namespace solvebench::bench
