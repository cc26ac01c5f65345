// solve_bench_checks: the audit and the verdict of saved runs, by the rules the run itself
// applies (the same library), printed and written as the same sidecars.
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "checks/load.hpp"
#include "checks/render.hpp"

namespace bench = solvebench::bench;

namespace {

const char* const usage =
    "usage: solve_bench_checks [--out-prefix=P] [--no-files] RUN.json|RUN.rows.jsonl ...\n"
    "\n"
    "Runs the audit and the verdict on saved solve_bench runs (several files are pooled: rows\n"
    "with the same id are repetitions of one row), prints them, and writes P.audit.json,\n"
    "P.verdict.json and P.verdict.md, P being --out-prefix or the first input without its\n"
    ".json or .rows.jsonl. Exit status: 0 no timing bug and no failed row, 1 a timing bug or a\n"
    "failed row, 2 bad usage or an input that is not a solve_bench run.\n";

std::string base_of(const std::string& path) {
  for (const std::string suffix : {".rows.jsonl.partial", ".rows.jsonl", ".jsonl", ".json"})
    if (path.size() > suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
      return path.substr(0, path.size() - suffix.size());
  return path;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> inputs;
  std::string prefix;
  bool files = true;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << usage;
      return 0;
    }
    if (arg.rfind("--out-prefix=", 0) == 0) prefix = arg.substr(13);
    else if (arg == "--no-files") files = false;
    else if (arg.rfind("--", 0) == 0) {
      std::cerr << "solve_bench_checks: unknown flag '" << arg << "' (see --help)\n";
      return 2;
    } else inputs.push_back(arg);
  }
  if (inputs.empty()) {
    std::cerr << "solve_bench_checks: no input (see --help)\n";
    return 2;
  }
  bench::run_summary run;
  try {
    run = bench::load_runs(inputs);
  } catch (const bench::load_error& e) {
    std::cerr << "solve_bench_checks: " << e.what() << "\n";
    return 2;
  }
  for (const auto& note : run.notes) std::cerr << "solve_bench_checks: " << note << "\n";
  const bench::audit_report audit = bench::run_audit(run);
  const bench::run_verdict verdict = bench::make_verdict(run, audit.findings);
  if (prefix.empty()) prefix = base_of(inputs.front());
  const auto where = bench::check_files_for(prefix);
  std::cout << bench::audit_console(audit, files ? where.audit : "") << "\n" << bench::verdict_console(verdict);
  if (files) {
    try {
      bench::write_check_files(prefix, audit, verdict);
    } catch (const std::exception& e) {
      std::cerr << "solve_bench_checks: " << e.what() << "\n";
      return 2;
    }
    std::cerr << "solve_bench_checks: wrote " << where.audit << ", " << where.verdict_json << ", " << where.verdict_markdown
              << "\n";
  }
  const bool timing_bug = std::any_of(audit.findings.begin(), audit.findings.end(),
                                      [](const bench::finding& f) { return f.severity == std::string(bench::severity_timing_bug); });
  return timing_bug || audit.rows_failed > 0 ? 1 : 0;
}
