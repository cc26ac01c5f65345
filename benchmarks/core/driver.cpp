// The shared main: see driver.hpp.
#include "core/driver.hpp"

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <regex>

#include "checks/render.hpp"
#include "checks/text.hpp"
#include "core/environment.hpp"
#include "core/gb_flags.hpp"
#include "core/outputs.hpp"
#include "core/printers.hpp"
#include "core/rounds.hpp"
#include "core/scan.hpp"
#include "core/session.hpp"
#include "solvebench/config.hpp"
#include "solvebench/cpu_facts.hpp"
#include "solvebench/cpu_load.hpp"
#include "solvebench/lapack.hpp"
#include "solvebench/rapl.hpp"

extern char** environ;

namespace solvebench::bench {
namespace {

constexpr bool gb_1_8 = SOLVE_BENCH_GBENCH_1_8 != 0;

std::string usage(const program& p) {
  return p.about + "\n" + p.name + " flags (each also read from the environment variable in brackets; flags win):\n" +
         flags_help(p.flags) +
         "\nGoogle Benchmark flags keep working:\n"
         "  --benchmark_list_tests          list the rows this command would run, and stop\n"
         "  --benchmark_filter=REGEX        run the rows whose name matches (extended regex; a leading -\n"
         "                                  negates: --benchmark_filter=-_batched runs every row but the\n"
         "                                  batched ones)\n"
         "  --benchmark_repetitions=N       N rounds, the same as --rounds=N (each a repetition in the JSON;\n"
         "                                  mean, median, stddev, cv follow)\n"
         "  --benchmark_out=FILE --benchmark_out_format=json|csv|console   results, written whole at the end\n"
         "  --benchmark_min_time=SECONDS    timed seconds each round of a row samples at least (default 0.05;\n"
         "                                  0.05s also works); N x (100x): exactly N timed calls per round\n"
         "  --benchmark_report_aggregates_only, --benchmark_display_aggregates_only, --benchmark_format=json\n"
         "Examples:\n"
         "  " +
         p.name +
         " --benchmark_filter='^GPU/d'              the fp64 GPU rows\n"
         "  " +
         p.name + " --sizes=1024 --benchmark_filter='gesv'   dense solves at n = 1024\n\n" + exit_status_help();
}

// --benchmark_repetitions=N is --rounds=N; --processes needs a binary that may re-execute itself.
void settle_rounds(const program& p, const gb_settings& gb) {
  common_options& o = *p.common;
  if (gb.repetitions > 0) {
    if (o.rounds_given && o.rounds != gb.repetitions)
      throw usage_error("--benchmark_repetitions=" + std::to_string(gb.repetitions) +
                        " and --rounds=" + std::to_string(o.rounds) + " disagree (both set the rounds of each row)");
    o.rounds = gb.repetitions;
    o.rounds_given = true;
  }
  // Rounds asked for alone run in one process; a scan judges its passes from its rounds
  // (core/scan.hpp), and the default's one round a process would give it no noise to judge by.
  if (o.scan && !o.rounds_given && !o.processes_given) o.rounds = common_options::one_process_rounds;
  if ((o.rounds_given || o.scan) && !o.processes_given) o.processes = 1;
  if (o.scan && p.ranks_in_step)
    throw usage_error("--sizes=scan, --nrhs=scan: " + p.name +
                      " cannot scan (its ranks would have to agree on every pass)");
  if (o.processes < 2 && !o.span_given) o.span_s = 0;  // a default span is the default design's
  if (o.span_s > 0 && o.processes < 2)
    throw usage_error("--span=" + std::to_string(o.span_s) + " spreads the starts of the processes, and this run has " +
                      "one (give --processes=2 or more)");
  if (o.processes > 1 && !p.can_reexec)
    throw usage_error("--processes=" + std::to_string(o.processes) + ": " + p.name +
                      " cannot start processes of its own (mpirun starts its ranks); run it " +
                      std::to_string(o.processes) + " times and pool the runs: solve_bench_checks A.json B.json ...");
}

// The rows log's documents, one a line (rows_log_for_resume has cut a torn last line off).
std::vector<json> log_lines(const std::string& text) {
  std::vector<json> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    try {
      if (end > start) out.push_back(json::parse(text.substr(start, end - start)));
    } catch (const json::exception&) {
    }
    start = end + 1;
  }
  return out;
}

}  // namespace

std::string exit_status_help() {
  return "Exit status: 0 every row ran and passed its checks; 1 a row failed (its error is in the output and\n"
         "the JSON), an output could not be written, or an internal error (one line: a bug); 2 bad flags,\n"
         "environment values or output paths; 3 (solve_bench_mpi) the ranks fell out of step;\n"
         "4 nothing was measured (no row matched, or every row was refused): earlier results are left as\n"
         "they were.\n";
}

void add_common_context(const common_options& opt, const sampling& s) {
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
  benchmark::AddCustomContext(
      "sampling",
      "each row in " + std::to_string(opt.rounds) + " rounds per process, " + std::to_string(opt.processes) +
          " process(es)" + span_words(opt.span_s) + "; a round: its problem built anew, " +
          (s.exact > 0 ? std::to_string(s.exact) + " timed calls"
                       : "at least " + std::to_string(s.min_samples) + " call(s) and " + format("%g", s.min_time) +
                             " s, then, with " + std::to_string(s.noise_samples) +
                             " calls or more, until its median is known to " + format("%g", s.max_noise_pct) + "% or " +
                             format("%g", s.max_time) + " s or its calls slow down (drift_pct), at most " +
                             format("%g", s.max_wall_factor * s.min_time) + " s of wall clock once it has them; " +
                             "calls that speed up drop their earlier half as warm-up (warm_up_calls) and sample on, "
                             "within " +
                             format("%g", s.max_wall_factor * s.max_time) + " s") +
          "; a call of " + format("%g", s.long_cap) + " s or more is its own warm-up; no further round once a " +
          "row's rounds have taken " + format("%g", s.round_budget) + " s a round asked for");
  if (opt.scan) {
    benchmark::AddCustomContext("scan", opt.scan->text());
    benchmark::AddCustomContext("scan_extra", std::to_string(opt.scan_extra));
    benchmark::AddCustomContext("scan_budget_s", std::to_string(static_cast<long long>(opt.scan_budget_s)));
  }
  benchmark::AddCustomContext("rounds", std::to_string(opt.rounds));
  benchmark::AddCustomContext("processes", std::to_string(opt.processes));
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

namespace {

// What the command line says (parse): Google Benchmark's settings and arguments (kept alive:
// Google Benchmark reads them), where the outputs go, or the problem that refuses the run.
struct invocation {
  gb_settings gb;
  std::vector<std::string> gb_args;
  std::vector<char*> args;
  output_plan plan;
  std::string problem;
};

bool asks_for_help(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) return true;
  return false;
}

// Google Benchmark's flags, then ours; every rank agrees on the first problem.
void parse(program& p, int argc, char** argv, session& run, invocation& in) {
  try {
    in.gb_args = take_gb_flags(argc, argv, in.gb, gb_1_8);
  } catch (const usage_error& e) {
    in.problem = e.what();
    in.gb_args = {argv[0]};
  }
  run.policy() = in.gb.timing;
  const auto fixed = flags_for_gb(gb_1_8);
  in.gb_args.insert(in.gb_args.begin() + 1, fixed.begin(), fixed.end());
  for (auto& s : in.gb_args) in.args.push_back(s.data());
  int args_count = static_cast<int>(in.args.size());
  in.args.push_back(nullptr);
  benchmark::Initialize(&args_count, in.args.data());
  try {
    if (in.problem.empty()) parse_flags(p.flags, args_count, in.args.data(), *p.common, environ);
    if (in.problem.empty()) {
      std::string filter = benchmark::GetBenchmarkFilter();
      if (!filter.empty() && filter[0] == '-') filter.erase(0, 1);
      try {
        std::regex check(filter.empty() ? "." : filter, std::regex::extended);
      } catch (const std::regex_error& e) {
        throw usage_error("--benchmark_filter: '" + benchmark::GetBenchmarkFilter() + "' is not a regular expression");
      }
    }
    if (in.problem.empty() && p.check_gb_flags) p.check_gb_flags(in.gb_args);
    if (in.problem.empty()) settle_rounds(p, in.gb);
    if (in.problem.empty()) in.problem = why_blas_kernels_cannot_run();
    if (in.problem.empty() && p.root && !in.gb.list_tests)
      in.plan = plan_outputs(*p.common, in.gb, p.name, run.continued().temporary_log);
  } catch (const usage_error& e) {
    in.problem = e.what();
  }
  in.problem = p.agree(in.problem);
  if (!in.problem.empty() && p.root) std::cerr << p.name << ": " << in.problem << " (see " << p.name << " --help)\n";
}

// --resume (and every process a run re-executes): the rows log's documents. Every rank learns
// the root's log, so that all of them run the same rounds. False: refused (said).
bool read_resumed(program& p, const output_plan& plan, std::vector<json>& lines) {
  std::string text, problem;
  try {
    if (plan.appending) text = rows_log_for_resume(plan.live);
  } catch (const std::exception& e) {
    problem = e.what();
  }
  problem = p.agree(problem);
  if (!problem.empty()) {
    if (p.root) std::cerr << p.name << ": " << problem << "\n";
    return false;
  }
  lines = log_lines(p.from_root(text));
  return true;
}

// The selected rows' round plan, fed what the resumed log holds (plan).
std::unique_ptr<round_plan> plan_rounds(const program& p, const session& run, const std::vector<row_key>& selected,
                                        const std::vector<json>& resumed) {
  std::vector<std::string> names;
  std::vector<row_id> ids;
  for (const row_key k : selected) {
    names.push_back(run.name(k));
    ids.push_back(run.id(k));
  }
  auto rounds = std::make_unique<round_plan>(
      std::move(names), design_of(*p.common, run.policy(), p.ranks_in_step, run.continued().started_epoch_s), ids);
  for (const auto& line : resumed) rounds->take(line);
  return rounds;
}

// The printers of this process: on the root the rows log, the round plan and the progress;
// elsewhere only the round plan (the ranks run every row, for the collectives, and print nothing).
struct printers {
  std::unique_ptr<rows_log> log;
  std::unique_ptr<printer> progress;
  std::unique_ptr<bridge> reporter;
};
std::string open_printers(const program& p, session& run, const output_plan& plan, round_plan& rounds, printers& out) {
  try {
    if (!p.root) {
      out.reporter = std::make_unique<bridge>(run, std::vector<printer*>{&rounds});
      return "";
    }
    out.log = std::make_unique<rows_log>(plan.live, plan.appending);
    progress_options o;
    o.mode = p.common->progress;
    o.started_epoch_s = run.continued().started_epoch_s;
    out.progress = make_progress(
        o, [&rounds] { return rounds.count(); }, [&rounds](const std::string& row) { return rounds.expected_s(row); });
    out.reporter = std::make_unique<bridge>(run, std::vector<printer*>{out.log.get(), &rounds, out.progress.get()});
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// This process's rounds, one Google Benchmark run each, until a printer fails or a broken
// backend defers rows to a fresh process (run).
// A size scan (`next_pass`, core/scan.hpp) then gives passes of more rows, run the same way.
void run_rounds(session& run, std::vector<row_key>& selected, round_plan& rounds, int process, bridge& reporter,
                const std::function<std::vector<row_key>()>& next_pass = nullptr) {
  const round_design& design = rounds.design();
  wait_for_span(design, process);
  run.set_row_start_hook([&reporter](const std::string& row) { reporter.starts(row); });
  for (bool more = process >= 0; more;) {
    for (int round = 0; round < design.rounds; ++round) {
      std::vector<row_key> now;
      for (const std::size_t i : rounds.places_for(process, round)) now.push_back(selected[i]);
      if (now.empty()) continue;
      run.set_round({process, round, design.rounds, design.processes});
      run.register_with_gbench(now);
      benchmark::RunSpecifiedBenchmarks(&reporter, ".");
      if (!run.output_failure().empty() || run.deferred_count() > 0) break;  // deferred: a fresh process goes on
    }
    if (!next_pass || !run.output_failure().empty() || run.deferred_count() > 0) break;
    const std::vector<row_key> added = next_pass();
    std::vector<row_id> ids;
    for (const row_key k : added) ids.push_back(run.id(k));
    selected.insert(selected.end(), added.begin(), added.end());
    rounds.add(ids);
    more = !added.empty();
  }
  reporter.finish_run();
  run.set_row_start_hook(nullptr);
  benchmark::ClearRegisteredBenchmarks();
}

// The registered order first (the table reads as the sweep was declared), then rows only the
// log has.
void in_registered_order(const session& rows, run_summary& run) {
  const auto rank = [&](const row_record& r) { return rows.find(r.id).value_or(rows.size()); };
  std::stable_sort(run.rows.begin(), run.rows.end(),
                   [&](const row_record& a, const row_record& b) { return rank(a) < rank(b); });
}

// The run's verdict on itself, from the rows log as the checks read it (judge).
struct judged {
  audit_report audit;
  run_verdict verdict;
};
judged judge(const run_summary& run) {
  judged out{run_audit(run), {}};
  out.verdict = make_verdict(run, out.audit.findings);
  return out;
}

// The table (or the JSON) on stdout, the audit and the verdict, the files written whole, the
// rows' failures said again, and the exit status (write).
int write(const program& p, const invocation& in, const run_summary& run, const judged& j,
          std::vector<std::string> problems) {
  const output_plan& plan = in.plan;
  const bool json_display = in.gb.display_format == "json";
  std::ostream& out = json_display ? std::cerr : std::cout;
  const auto files = check_files_for(plan.base);
  display_options shown;
  shown.color = in.gb.color == "true" || (in.gb.color == "auto" && isatty(STDOUT_FILENO));
  shown.rounds = p.common->rounds;
  shown.processes = p.common->processes;
  shown.span_s = p.common->span_s;
  for (const auto& r : run.rows)
    shown.name_width = std::max(shown.name_width, std::min<std::size_t>(r.name.size(), 60));
  try {
    if (json_display) std::cout << results_text(plan, in.gb, run, "json") << std::flush;
    else std::cout << render_table(run, shown) << std::flush;
  } catch (const std::exception& e) {
    problems.push_back(e.what());
  }
  out << "\n"
      << audit_console(j.audit, plan.base.empty() ? "" : files.audit) << "\n"
      << verdict_console(j.verdict) << std::flush;
  try {
    write_results(plan, in.gb, run);
    if (!plan.base.empty()) write_check_files(plan.base, j.audit, j.verdict);
    settle_rows_log(plan);
  } catch (const std::exception& e) {
    problems.push_back(e.what());
  }
  if (!plan.out.empty() && problems.empty()) std::cerr << p.name << ": results in " << plan.out << "\n";

  for (const auto& m : problems) std::cerr << p.name << ": " << m << "\n";
  std::size_t failed = 0, refused = 0;
  for (const auto& r : run.rows)
    if (!r.error.empty()) ++(r.skipped ? refused : failed);
  if (refused > 0) {
    std::cerr << p.name << ": " << refused << " row(s) refused:\n";
    for (const auto& r : run.rows)
      if (r.skipped) std::cerr << "  " << r.name << ": " << r.error << "\n";
  }
  if (failed > 0) {
    std::cerr << p.name << ": " << failed << " row(s) failed:\n";
    for (const auto& r : run.rows)
      if (!r.error.empty() && !r.skipped) std::cerr << "  " << r.name << ": " << r.error << "\n";
  }
  return failed > 0 || !problems.empty() ? exit_code::row_failed : exit_code::ok;
}

// A run that measured nothing leaves earlier results as they were and says why (exit 4).
bool measured_something(const program& p, const output_plan& plan, const run_summary& run) {
  if (std::any_of(run.rows.begin(), run.rows.end(), [](const row_record& r) { return !r.skipped; })) return true;
  if (!plan.appending) std::remove(plan.live.c_str());
  std::cerr << p.name << ": nothing was measured ("
            << (run.rows.empty() ? "no row matched the filter" : "every row was refused: see above")
            << "); earlier results are left as they were\n";
  for (const auto& r : run.rows)
    if (r.skipped) std::cerr << "  skipped " << r.name << ": " << r.error << "\n";
  return false;
}

}  // namespace

int run_program(program& p, int argc, char** argv) {
  if (asks_for_help(argc, argv)) {
    if (p.root) std::cout << usage(p);
    return exit_code::ok;
  }
  session run;
  invocation in;
  parse(p, argc, argv, run, in);
  std::vector<json> resumed;
  if (!in.problem.empty() || !read_resumed(p, in.plan, resumed)) return exit_code::usage;

  p.register_rows(run);
  add_common_context(*p.common, run.policy());
  if (p.add_context) p.add_context(run);
  std::vector<row_key> selected = run.select(benchmark::GetBenchmarkFilter());
  if (in.gb.list_tests) {
    run.register_with_gbench(selected);
    if (p.root && !selected.empty()) benchmark::RunSpecifiedBenchmarks(".");
    benchmark::Shutdown();
    return exit_code::ok;
  }
  const auto rounds = plan_rounds(p, run, selected, resumed);
  const int process = rounds->process_to_run();
  printers out;
  if (const std::string problem = p.agree(open_printers(p, run, in.plan, *rounds, out)); !problem.empty()) {
    if (p.root) std::cerr << p.name << ": " << problem << "\n";
    return exit_code::usage;
  }

  size_scan scan(*p.common);  // --sizes=scan: passes of bisection after the coarse grid (core/scan.hpp)
  int pass = 0;
  const auto next_pass = [&]() -> std::vector<row_key> {
    const auto ids = scan.next_pass(
        read_rows_log(in.plan.live), *p.common, [&] { p.register_rows(run); },
        [&](const row_id& id) {
          const auto k = run.find(id);
          return k && std::find(selected.begin(), selected.end(), *k) == selected.end() &&
                 matches_filter(benchmark::GetBenchmarkFilter(), id.name() + "/manual_time");
        });
    std::cerr << p.name << ": scan pass " << ++pass << ": "
              << (ids.empty() ? "done, " + scan.why_done() : std::to_string(ids.size()) + " row(s) between neighbours")
              << "\n";
    std::vector<row_key> keys;
    for (const auto& id : ids) keys.push_back(*run.find(id));
    return keys;
  };
  run_rounds(run, selected, *rounds, process, *out.reporter,
             scan.active() && p.root ? std::function<std::vector<row_key>()>(next_pass) : nullptr);
  std::vector<std::string> problems = run.problems();
  run.release();
  if (p.release) p.release();
  benchmark::Shutdown();
  if (!p.root) return run.failed_rows().empty() ? exit_code::ok : exit_code::row_failed;
  if (p.problems)
    for (auto& m : p.problems()) problems.push_back(std::move(m));
  const std::size_t written = out.log->written();
  if (!run.output_failure().empty()) {
    std::cerr << p.name << ": " << run.output_failure() << "; earlier results are left as they were\n";
    return exit_code::row_failed;
  }
  if (p.can_reexec && written > 0 && problems.empty()) {
    const int next = rounds->process_to_run();
    out.log.reset();  // closed (and unlocked) before the fresh process appends to it
    if (run.deferred_count() > 0)
      continue_in_fresh_process(argc, argv, in.plan.live,
                                std::to_string(run.deferred_count()) +
                                    " row(s) could not run in this process (the GPU context is broken); running them "
                                    "in a fresh one",
                                true, in.plan.temporary, run.continued());
    else if (next > process)
      continue_in_fresh_process(argc, argv, in.plan.live,
                                "process " + std::to_string(process + 1) + " of " +
                                    std::to_string(p.common->processes) + " done; process " + std::to_string(next + 1) +
                                    " starts",
                                false, in.plan.temporary, run.continued());
  }
  // Otherwise the log stays locked until it is settled: a second run cannot truncate it
  // between the last row and the files written from it.

  run_summary summary;
  try {
    // No row written nor resumed (no row matched): the log holds not even a context.
    if (written > 0 || in.plan.appending) summary = read_rows_log(in.plan.live);
  } catch (const std::exception& e) {
    std::cerr << p.name << ": " << e.what() << "\n";
    return exit_code::row_failed;
  }
  if (!measured_something(p, in.plan, summary)) return exit_code::nothing_measured;
  hold_to_store(summary, *p.common);
  in_registered_order(run, summary);
  if (scan.active()) in_scan_order(summary, scan.axis());
  return write(p, in, summary, judge(summary), std::move(problems));
}

}  // namespace solvebench::bench
