// solve_bench_checks: the audit and the verdict of saved runs, by the rules the run itself
// applies (the same library), printed and written as the same sidecars.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "checks/compare.hpp"
#include "checks/history.hpp"
#include "checks/load.hpp"
#include "checks/output.hpp"
#include "checks/render.hpp"
#include "checks/text.hpp"
#include "checks/thresholds.hpp"
#include "core/escaped.hpp"

namespace bench = solvebench::bench;

namespace {

const char* const usage =
    "usage: solve_bench_checks [--out-prefix=P] [--no-files] [--rows-json=OUT] [--history=STORE [--testbed=NAME]]\n"
    "                          RUN.json|RUN.rows.jsonl ...\n"
    "       solve_bench_checks compare [--json=OUT] [--markdown=OUT] [--filter=REGEX] [--history=STORE\n"
    "                                  [--testbed=NAME]] BASE... -- NEW...\n"
    "       solve_bench_checks history --store=STORE [--testbed=NAME] [--runs=N] [--json=OUT]\n"
    "       solve_bench_checks thresholds\n"
    "\n"
    "Runs the audit and the verdict on saved solve_bench runs (several files are pooled: rows\n"
    "with the same id are repetitions of one row), prints them, and writes P.audit.json,\n"
    "P.verdict.json and P.verdict.md, P being --out-prefix or the first input without its\n"
    ".json or .rows.jsonl. Exit status: 0 no timing bug and no failed row, 1 a timing bug, a\n"
    "failed row or an internal error (one line: a bug), 2 bad usage or an input that is not a\n"
    "solve_bench run. --history=STORE holds each row's ± (and the audit and the verdict that judge by it)\n"
    "to at least the spread between runs of the row in a tools/track store (testbed --testbed, else the\n"
    "run's host_name, else the store's only one), over the files pooled: on a machine whose speed\n"
    "moves for longer than a run, only a record of many runs shows it. --rows-json writes the pooled\n"
    "rows as the checks read them: {\"rows\": [{\"row\", \"id\", \"median_ms\", \"noise_pct\", \"repetitions\",\n"
    "\"passed\", \"error\", \"skipped\", \"counters\": {medians}}]} (ids included for results written before rows had "
    "them).\n"
    "\n"
    "compare holds the NEW runs (pooled) against the BASE runs (pooled), row by row: each row's change\n"
    "is held to the interval of what a re-run would see, 99% for the comparison as a whole: from\n"
    "back-to-back pairs, else from each side's processes (every file is a process of its own;\n"
    "distribution-free), each side at least the spread between runs of the row in a tools/track store\n"
    "with --history=STORE (testbed --testbed, else the contender's host_name). slower or faster beyond\n"
    "it (and at least 3%), same within it when it is at most 3%, undecided otherwise, with the\n"
    "smallest change the inputs could detect; one process a side (its rounds show nothing of what\n"
    "another process adds) and one round a side decide nothing without --history. The comparison\n"
    "also fails on a row that errs, fails its resid check or is missing, and on a timing bug the new\n"
    "audit finds and the base's does not. Exit status: 0 passed, 1 failed (also when NEW measured\n"
    "nothing), 3 undecided (no row failed, some could not be decided at the 3% floor: re-run with more\n"
    "processes, give --history, or use .ci/bench-pr), 2 bad usage or input, or a BASE with no rows.\n"
    "\n"
    "history prints, per row of a tools/track store's testbed (--testbed, else every testbed), the\n"
    "spread of one run about the row's level (the wider of: reruns of one stack, every two runs with\n"
    "the same fingerprint; successive runs, robust to steps) and the smallest lasting step in the\n"
    "row's level (from the successive runs) that --runs (default 3) runs after it can tell apart at\n"
    "99%; --json=OUT writes {\"history\":\n"
    "{\"testbeds\": {T: {\"runs\", \"rows\": [{\"row\", \"id\", \"runs\", \"run_spread_pct\",\n"
    "\"rerun_spread_pct\", \"step_spread_pct\", \"detectable_step_pct\"}]}}}}. Exit status 0, 2 on a\n"
    "store it cannot read.\n"
    "\n"
    "thresholds prints {\"thresholds\": {...}, \"operations\": {...}}: every number the checks judge by\n"
    "(thresholds.hpp) and the operations rows time, as the sidecars carry them.\n";

int compare_main(int argc, char** argv) {
  std::vector<std::string> base, contender;
  std::string json_out, markdown_out, filter, store, testbed;
  bool after = false;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") after = true;
    else if (arg.rfind("--json=", 0) == 0) json_out = arg.substr(7);
    else if (arg.rfind("--markdown=", 0) == 0) markdown_out = arg.substr(11);
    else if (arg.rfind("--filter=", 0) == 0) filter = arg.substr(9);
    else if (arg.rfind("--history=", 0) == 0) store = arg.substr(10);
    else if (arg.rfind("--testbed=", 0) == 0) testbed = arg.substr(10);
    else if (arg.rfind("--", 0) == 0) {
      std::cerr << "solve_bench_checks compare: unknown flag '" << arg << "' (see --help)\n";
      return 2;
    } else (after ? contender : base).push_back(arg);
  }
  if (base.empty() || contender.empty()) {
    std::cerr << "solve_bench_checks compare: give BASE... -- NEW... (see --help)\n";
    return 2;
  }
  if (!testbed.empty() && store.empty()) {
    std::cerr << "solve_bench_checks compare: --testbed needs --history=STORE\n";
    return 2;
  }
  bench::run_summary b, n;
  std::optional<bench::run_history> history;
  try {
    b = bench::load_runs(base);
    n = bench::load_runs(contender);
    if (!store.empty()) history = bench::load_history(store, bench::testbed_for(store, testbed, n));
  } catch (const bench::load_error& e) {
    std::cerr << "solve_bench_checks compare: " << e.what() << "\n";
    return 2;
  }
  if (!filter.empty()) {
    try {
      const std::regex re(filter);
      for (auto* run : {&b, &n})
        run->rows.erase(std::remove_if(run->rows.begin(), run->rows.end(),
                                       [&](const bench::row_record& r) { return !std::regex_search(r.name, re); }),
                        run->rows.end());
    } catch (const std::regex_error&) {
      std::cerr << "solve_bench_checks compare: --filter: '" << filter << "' is not a regular expression\n";
      return 2;
    }
  }
  if (b.rows.empty()) {
    std::cerr << "solve_bench_checks compare: no rows in the baseline" << (filter.empty() ? "" : " match --filter")
              << "\n";
    return 2;
  }
  const auto c = bench::compare_runs(b, n, history ? &*history : nullptr);
  std::cout << bench::comparison_text(c);
  try {
    if (!json_out.empty())
      bench::write_file_atomically(
          json_out, bench::json_text(nlohmann::ordered_json{{"compare", bench::comparison_json(c)}}, 1) + "\n");
    if (!markdown_out.empty())
      bench::write_file_atomically(markdown_out, bench::comparison_markdown(c, base, contender));
  } catch (const std::exception& e) {
    std::cerr << "solve_bench_checks compare: " << e.what() << "\n";
    return 2;
  }
  if (n.rows.empty()) std::cerr << "solve_bench_checks compare: the contender measured nothing\n";
  return n.rows.empty() ? 1 : c.exit_status();
}

// What the tracker's history says each row of a testbed can detect.
int history_main(int argc, char** argv) {
  std::string store, testbed, json_out;
  int runs = bench::limits::step_runs;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--store=", 0) == 0) store = arg.substr(8);
    else if (arg.rfind("--testbed=", 0) == 0) testbed = arg.substr(10);
    else if (arg.rfind("--json=", 0) == 0) json_out = arg.substr(7);
    else if (arg.rfind("--runs=", 0) == 0) {
      char* end = nullptr;
      const long v = std::strtol(arg.c_str() + 7, &end, 10);
      if (*end || v < 1 || v > 1000) {
        std::cerr << "solve_bench_checks history: --runs: '" << arg.substr(7) << "' is not a count from 1 to 1000\n";
        return 2;
      }
      runs = static_cast<int>(v);
    } else {
      std::cerr << "solve_bench_checks history: unknown argument '" << arg << "' (see --help)\n";
      return 2;
    }
  }
  if (store.empty()) {
    std::cerr << "solve_bench_checks history: give --store=STORE (see --help)\n";
    return 2;
  }
  nlohmann::ordered_json beds = nlohmann::ordered_json::object();
  try {
    const auto names = testbed.empty() ? bench::history_testbeds(store) : std::vector<std::string>{testbed};
    for (const auto& name : names) {
      const auto h = bench::load_history(store, name);
      std::cout << bench::history_text(h, runs);
      beds[name] = bench::history_json(h, runs);
    }
  } catch (const bench::load_error& e) {
    std::cerr << "solve_bench_checks history: " << e.what() << "\n";
    return 2;
  }
  if (!json_out.empty()) {
    try {
      bench::write_file_atomically(
          json_out, bench::json_text(nlohmann::ordered_json{{"history",
                                                             {{"runs_after", runs},
                                                              {"confidence", bench::limits::gate_confidence},
                                                              {"testbeds", beds}}}},
                                     1) +
                        "\n");
    } catch (const std::exception& e) {
      std::cerr << "solve_bench_checks history: " << e.what() << "\n";
      return 2;
    }
  }
  return 0;
}

std::string base_of(const std::string& path) {
  for (const std::string suffix : {".rows.jsonl.partial", ".rows.jsonl", ".jsonl", ".json"})
    if (path.size() > suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
      return path.substr(0, path.size() - suffix.size());
  return path;
}

int checks_main(int argc, char** argv) {
  std::vector<std::string> inputs;
  std::string prefix, rows_json, store, testbed;
  bool files = true;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << usage;
      return 0;
    }
    if (arg.rfind("--out-prefix=", 0) == 0) prefix = arg.substr(13);
    else if (arg == "--no-files") files = false;
    else if (arg.rfind("--rows-json=", 0) == 0) rows_json = arg.substr(12);
    else if (arg.rfind("--history=", 0) == 0) store = arg.substr(10);
    else if (arg.rfind("--testbed=", 0) == 0) testbed = arg.substr(10);
    else if (arg.rfind("--", 0) == 0) {
      std::cerr << "solve_bench_checks: unknown flag '" << arg << "' (see --help)\n";
      return 2;
    } else inputs.push_back(arg);
  }
  if (inputs.empty()) {
    std::cerr << "solve_bench_checks: no input (see --help)\n";
    return 2;
  }
  if (!testbed.empty() && store.empty()) {
    std::cerr << "solve_bench_checks: --testbed needs --history=STORE\n";
    return 2;
  }
  bench::run_summary run;
  try {
    run = bench::load_runs(inputs);
    if (!store.empty())
      bench::hold_to_history(run, bench::load_history(store, bench::testbed_for(store, testbed, run)));
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
    std::cerr << "solve_bench_checks: wrote " << where.audit << ", " << where.verdict_json << ", "
              << where.verdict_markdown << "\n";
  }
  if (!rows_json.empty()) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const auto& r : run.rows) {
      nlohmann::ordered_json counters = nlohmann::ordered_json::object();
      for (const auto& [key, values] : r.counters)
        if (const auto v = r.counter(key); v && std::isfinite(*v)) counters[key] = *v;
      const auto noise = r.noise_pct();
      rows.push_back({{"row", r.name},
                      {"id", bench::to_json(r.id)},
                      {"median_ms", r.ok() ? nlohmann::ordered_json(r.median_ms()) : nlohmann::ordered_json(nullptr)},
                      {"noise_pct", noise ? nlohmann::ordered_json(*noise) : nlohmann::ordered_json(nullptr)},
                      {"repetitions", r.times_ms.size()},
                      {"passed", r.passed()},
                      {"error", r.error},
                      {"skipped", r.skipped},
                      {"counters", counters}});
      // The checks' per-row figures (ceilings.hpp): how close the row runs to its machine.
      if (const auto* c = verdict.ceilings.find(r.name)) {
        const auto j = bench::ceiling_json(*c);
        for (const char* key : {"pct_of_peak", "pct_of_gemm", "headroom"}) rows.back()[key] = j[key];
        rows.back()["bound_term"] = c->bound ? nlohmann::ordered_json(c->bound->dominant()) : nullptr;
      }
    }
    try {
      bench::write_file_atomically(rows_json, bench::json_text(nlohmann::ordered_json{{"rows", rows}}, 1) + "\n");
    } catch (const std::exception& e) {
      std::cerr << "solve_bench_checks: " << e.what() << "\n";
      return 2;
    }
  }
  const bool timing_bug = std::any_of(audit.findings.begin(), audit.findings.end(), [](const bench::finding& f) {
    return f.severity == std::string(bench::severity_timing_bug);
  });
  return timing_bug || audit.rows_failed > 0 ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string sub = argc > 1 ? argv[1] : "";
  if (sub == "compare")
    return bench::run_guarded("solve_bench_checks compare", [&] { return compare_main(argc, argv); });
  if (sub == "history")
    return bench::run_guarded("solve_bench_checks history", [&] { return history_main(argc, argv); });
  if (sub == "thresholds") {  // the one table the tools judge by, for those that have no sidecar at hand
    std::cout << bench::json_text(nlohmann::ordered_json{{"thresholds", bench::thresholds_json()},
                                                         {"operations", bench::operations_json()}},
                                  1)
              << "\n";
    return 0;
  }
  return bench::run_guarded("solve_bench_checks", [&] { return checks_main(argc, argv); });
}
