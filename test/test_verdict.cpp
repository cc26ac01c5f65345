// The verdict on synthetic runs (test/data/verdict_cases.txt): crossovers, the CPU's best path,
// the fp64:fp32 advice, mixed precision, batched, energy, and the audit's caveats in place.
#include "checks/render.hpp"
#include "checks/verdict.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "checks/load.hpp"
#include "solvebench/errors.hpp"
#include "verdict_fixture.hpp"

namespace sb = solvebench::bench;

namespace {

const std::map<std::string, sb::testing::verdict_case>& cases() {
  static const auto all = [] {
    std::map<std::string, sb::testing::verdict_case> out;
    for (auto& c : sb::testing::read_verdict_cases(SOLVE_BENCH_VERDICT_CASES)) out.emplace(c.name, std::move(c));
    return out;
  }();
  return all;
}

sb::run_verdict verdict_of(const std::string& name) {
  const auto& c = cases().at(name);
  return sb::make_verdict(c.run, c.findings);
}

const sb::solve_verdict& solve(const sb::run_verdict& v, const std::string& op) {
  const auto it = std::find_if(v.solves.begin(), v.solves.end(), [&](const auto& e) { return e.op == op; });
  if (it == v.solves.end()) throw std::runtime_error("no solve entry for " + op);
  return *it;
}

const sb::gpu_form& form(const sb::solve_verdict& e, const std::string& backend) {
  const auto it = std::find_if(e.forms.begin(), e.forms.end(), [&](const auto& f) { return f.backend == backend; });
  if (it == e.forms.end()) throw std::runtime_error("no form " + backend + " for " + e.op);
  return *it;
}

std::vector<std::string> rules(const std::vector<sb::verdict_caveat>& caveats) {
  std::vector<std::string> out;
  for (const auto& c : caveats) out.push_back(c.rule);
  return out;
}

bool has_line(const sb::run_verdict& v, const std::string& text) {
  return std::any_of(v.lines.begin(), v.lines.end(), [&](const auto& l) { return l.find(text) != std::string::npos; });
}

std::vector<sb::speedup_point> points(const std::vector<std::pair<long long, double>>& ns) {
  std::vector<sb::speedup_point> out;
  for (const auto& [n, s] : ns) out.push_back({n, 0, 0, s, std::nullopt, "", ""});
  return out;
}

}  // namespace

TEST(Crossover, InterpolatedInLogLog) {
  // log s from log 0.5 to log 2 between 512 and 1024: halfway in log n, sqrt(512 * 1024) = 724.08
  const auto c = sb::find_crossover(points({{256, 0.25}, {512, 0.5}, {1024, 2.0}, {4096, 8.0}}));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, "crossing");
  EXPECT_EQ(c->n, 724);
  EXPECT_TRUE(c->interpolated);
  EXPECT_EQ(c->between, std::make_pair(512LL, 1024LL));
}

TEST(Crossover, TheLastRiseCounts) {
  const auto c = sb::find_crossover(points({{64, 2.0}, {128, 0.5}, {256, 0.5}, {1024, 2.0}, {2048, 4.0}}));
  EXPECT_EQ(c->kind, "crossing");
  EXPECT_EQ(c->n, 512);
  EXPECT_EQ(c->between, std::make_pair(256LL, 1024LL));
  EXPECT_EQ(sb::find_crossover(points({{100, 0.5}, {200, 1.0}, {400, 3.0}}))->n, 200);
}

TEST(Crossover, AlwaysNeverAndMixed) {
  const auto always = sb::find_crossover(points({{64, 1.0}, {128, 3.0}}));
  EXPECT_EQ(always->kind, "gpu_always");
  EXPECT_EQ(always->n, 64);
  EXPECT_FALSE(always->interpolated);
  const auto never = sb::find_crossover(points({{64, 0.1}, {128, 0.9}}));
  EXPECT_EQ(never->kind, "cpu_always");
  EXPECT_EQ(never->n, 128);
  const auto dip = sb::find_crossover(points({{64, 0.1}, {128, 2.0}, {256, 1.5}, {512, 0.9}}));
  EXPECT_EQ(dip->kind, "mixed");
  EXPECT_EQ(dip->n, 256);
  EXPECT_EQ(dip->gpu_wins_at, (std::vector<long long>{128, 256}));
  EXPECT_FALSE(sb::find_crossover({}));
}

// (1) An H200: fp64 about fp32, the GPU winning above a crossover.
TEST(VerdictH200, CrossoverBetweenTheRightSizes) {
  const auto v = verdict_of("h200_like");
  const auto gesv = solve(v, "dgesv");
  EXPECT_EQ(gesv.nrhs, 1);  // the smallest both sides have; nrhs 8 also ran
  const auto& resident = form(gesv, "GPU").cross;
  EXPECT_EQ(resident.kind, "crossing");
  EXPECT_EQ(resident.n, 724);
  EXPECT_EQ(resident.between, std::make_pair(512LL, 1024LL));
  const auto& pinned = form(gesv, "GPU-pinned").cross;
  const double t = -std::log(0.4) / (std::log(1.5) - std::log(0.4));
  EXPECT_EQ(pinned.n, std::llround(512 * std::pow(2.0, t)));
  EXPECT_EQ(pinned.between, std::make_pair(512LL, 1024LL));
  const auto pageable = form(gesv, "GPU-pageable");
  EXPECT_EQ(pageable.cross.between, std::make_pair(1024LL, 4096LL));
  EXPECT_EQ(pageable.points.front().n, 512);  // its n=256 row failed
  EXPECT_NE(v.lines.at(0).find("GPU faster from n ≈ 724 (interpolated between 512 and 1024)"), std::string::npos);
}

TEST(VerdictH200, HeldToTheCpusBestPath) {
  const auto v = verdict_of("h200_like");
  const auto gesv = solve(v, "dgesv");
  std::map<long long, std::string> path;
  for (const auto& p : gesv.cpu_best) path[p.n] = p.path;
  EXPECT_EQ(path[256], "CPU-driver");
  EXPECT_EQ(path[4096], "CPU");  // not the 936 ms driver
  EXPECT_EQ(path[10000], "CPU-driver");
  ASSERT_TRUE(gesv.largest);
  EXPECT_EQ(gesv.largest->n, 10000);
  EXPECT_EQ(gesv.largest->cpu_path, "CPU-driver");
  EXPECT_DOUBLE_EQ(gesv.largest->speedup, 1346 / 56.4);
  EXPECT_DOUBLE_EQ(form(gesv, "GPU").points.at(3).speedup, 115 / 14.7);
}

TEST(VerdictH200, LastRiseAndAlways) {
  const auto v = verdict_of("h200_like");
  EXPECT_EQ(form(solve(v, "sgesv"), "GPU").cross.between, std::make_pair(1024LL, 2048LL));
  EXPECT_EQ(form(solve(v, "dposv"), "GPU").cross.kind, "gpu_always");
  ASSERT_EQ(v.solves.size(), 3u);
  EXPECT_EQ(v.solves[2].op, "dposv");
}

TEST(VerdictH200, Fp64FirstClass) {
  const auto v = verdict_of("h200_like");
  ASSERT_TRUE(v.fp64_fp32);
  EXPECT_EQ(v.fp64_fp32->n, 8192);
  EXPECT_DOUBLE_EQ(v.fp64_fp32->ratio, 52100.0 / 55000.0);
  EXPECT_EQ(v.fp64_fp32->klass, "fp64-first-class");
  EXPECT_EQ(v.fp64_fp32->advice, "fp64 solves run at full speed on this GPU");
}

TEST(VerdictH200, MixedPrecisionFastestFp64Accurate) {
  const auto v = verdict_of("h200_like");
  ASSERT_EQ(v.mixed.size(), 2u);
  const auto& cond = v.mixed[0];
  const auto& diag = v.mixed[1];
  EXPECT_EQ(diag.matrix, "kind:diagdom");
  EXPECT_EQ(diag.n, 32768);
  EXPECT_EQ(diag.op, "dhgesv");  // dbgesv is faster but fails the residual check
  EXPECT_DOUBLE_EQ(*diag.speedup, 900.0 / 400.0);
  EXPECT_EQ(diag.niters, 5.0);
  EXPECT_EQ(diag.rejected, std::vector<std::string>{"GPU/dbgesv/n:32768/nrhs:1/kind:diagdom/refine:gmres"});
  EXPECT_EQ(cond.matrix, "cond:1e4");
  EXPECT_EQ(cond.op, "dsgesv");  // dhgesv is faster, but its forward error is 1000x dgesv's
  EXPECT_EQ(cond.rejected, std::vector<std::string>{"GPU/dhgesv/n:8192/nrhs:1/cond:1e4/refine:gmres"});
}

TEST(VerdictH200, BatchedAtTheLargestBatch) {
  const auto v = verdict_of("h200_like");
  ASSERT_EQ(v.batched.size(), 1u);
  EXPECT_EQ(v.batched[0].batch, 10000);
  EXPECT_EQ(v.batched[0].best.n, 32);
  EXPECT_DOUBLE_EQ(v.batched[0].best.speedup, 16.0);
  EXPECT_EQ(v.batched[0].worst.n, 256);
}

// (2) A consumer card: fp64 GEMM at 1/64 of fp32, dgesv slower on the GPU: the advice changes.
TEST(VerdictConsumer, Fp64ReducedGetsMixedPrecisionAdvice) {
  const auto v = verdict_of("consumer_like");
  ASSERT_TRUE(v.fp64_fp32);
  EXPECT_EQ(v.fp64_fp32->klass, "fp64-reduced");
  EXPECT_EQ(v.fp64_fp32->one_in, 64);
  const std::string& advice = v.fp64_fp32->advice;
  EXPECT_NE(advice.find("fp64 runs at 1/64 of fp32 on this GPU: put fp64 solves on the CPU or use mixed precision "
                        "(dsgesv: fp32 factorization refined to fp64 accuracy)"),
            std::string::npos);
  EXPECT_NE(advice.find("GPU/dsgesv ran at 10.0× the speed of GPU/dgesv at n = 8192"), std::string::npos);
  const auto h200 = verdict_of("h200_like");
  EXPECT_NE(advice, h200.fp64_fp32->advice);
  const auto gesv = solve(v, "dgesv");
  EXPECT_EQ(form(gesv, "GPU").cross.kind, "cpu_always");
  EXPECT_LT(gesv.largest->speedup, 1.0);
  EXPECT_TRUE(has_line(v, "the CPU is 8.75× faster"));
  EXPECT_EQ(form(solve(v, "sposv"), "GPU").cross.gpu_wins_at, std::vector<long long>{2048});
}

// (3) No GPU rows: said so, nothing made up, no crash.
TEST(VerdictCpuOnly, SaysThereAreNoGpuRows) {
  const auto v = verdict_of("cpu_only");
  EXPECT_FALSE(v.has_gpu_rows);
  EXPECT_TRUE(v.solves.empty());
  EXPECT_FALSE(v.fp64_fp32);
  EXPECT_TRUE(v.mixed.empty());
  EXPECT_TRUE(v.batched.empty());
  EXPECT_EQ(v.lines.at(0),
            "No GPU rows in this run (gpu_rows: absent: no CUDA device (cudaErrorNoDevice)): nothing to compare the "
            "CPU with.");
  EXPECT_EQ(rules(v.caveats), std::vector<std::string>{"blas_threads"});
  EXPECT_EQ(sb::verdict_markdown(v).find("## Solves"), std::string::npos);
  EXPECT_EQ(sb::verdict_console(v).rfind("verdict\n  No GPU rows", 0), 0u);
}

TEST(VerdictCpuOnly, AnEmptyRun) {
  const auto v = sb::make_verdict(sb::run_summary{}, {});
  EXPECT_EQ(v.lines, std::vector<std::string>{"No row passed: nothing to judge."});
  EXPECT_TRUE(sb::verdict_json(v)["fp64_fp32"].is_null());
}

// (4) A finding on a row the verdict used sits on that entry, and only there, cited by number.
TEST(VerdictAudit, ThrottledRowAttachedToItsEntry) {
  const auto v = verdict_of("audited");
  EXPECT_EQ(rules(solve(v, "dgesv").caveats), std::vector<std::string>{"gpu_throttled"});
  EXPECT_TRUE(has_line(v, "the GPU is 7.82× faster. Caveat: gpu_throttled (warning) †1."));
  EXPECT_FALSE(has_line(v, "SM clock fell"));  // cited, not repeated
  EXPECT_TRUE(v.fp64_fp32->caveats.empty());   // the noisy CPU/sgemm row is not one it used
  EXPECT_TRUE(v.caveats.empty());              // the run-wide note is the audit's to say
  for (const auto& c : solve(v, "dgesv").caveats) EXPECT_NE(c.rule, "noisy_row");  // notes are no caveats
  EXPECT_NE(sb::verdict_markdown(v).find("- **†1** gpu_throttled (warning): SM clock fell"), std::string::npos);
}

TEST(VerdictAudit, DriverFindingAndTimingSuffix) {
  const auto v = verdict_of("h200_like");
  // driver_vs_halves names a row compared (not chosen); gpu_throttled names .../manual_time
  EXPECT_EQ(rules(solve(v, "dgesv").caveats), (std::vector<std::string>{"driver_vs_halves", "gpu_throttled"}));
  EXPECT_TRUE(solve(v, "sgesv").caveats.empty());
  EXPECT_TRUE(v.caveats.empty());
  const auto& c = cases().at("h200_like");
  const auto unaudited = sb::make_verdict(c.run, {});
  EXPECT_TRUE(unaudited.solves.at(0).caveats.empty());
}

// (5) Energy where both sides measured it; else which side did not.
TEST(VerdictEnergy, BothSides) {
  const auto v = verdict_of("h200_like");
  const auto& e = solve(v, "dgesv").energy;
  ASSERT_TRUE(e);
  EXPECT_EQ(e->cpu_j, 250.0);  // the driver's row, the path used at n=10000
  EXPECT_EQ(e->gpu_j, 20.0);
  EXPECT_DOUBLE_EQ(e->ratio, 12.5);
  EXPECT_EQ(e->gpu_gflop_per_j, 33.3);
  EXPECT_TRUE(
      has_line(v, "dgesv energy at n = 10000: CPU 250 J, GPU 20.0 J per solve: the GPU uses 12.5× less energy."));
}

TEST(VerdictEnergy, MissingSidesNamed) {
  const auto v = verdict_of("h200_like");
  EXPECT_FALSE(solve(v, "dposv").energy);
  EXPECT_EQ(solve(v, "dposv").energy_missing, std::vector<sb::row_device>{sb::row_device::cpu});
  EXPECT_TRUE(has_line(
      v, "Energy per solve not measured on the CPU side (no J/solve counter on its rows): dposv at n = 10000."));
  const auto audited = verdict_of("audited");
  EXPECT_EQ(solve(audited, "dgesv").energy_missing, std::vector<sb::row_device>{sb::row_device::gpu});
  const auto consumer = verdict_of("consumer_like");
  EXPECT_EQ(std::count_if(consumer.lines.begin(), consumer.lines.end(),
                          [](const auto& l) { return l.find("nergy") != std::string::npos; }),
            1);
  EXPECT_TRUE(has_line(consumer,
                       "Energy per solve not measured on either side (CPU: no J/solve counter on its rows; GPU: no "
                       "J/solve counter on its rows): "));
}

// Once per run, with the reason the run recorded, naming every entry it concerns.
TEST(VerdictEnergy, NotMeasuredIsSaidOnceWithItsReason) {
  const auto v = verdict_of("said_once");
  std::vector<std::string> energy;
  for (const auto& l : v.lines)
    if (l.find("nergy") != std::string::npos) energy.push_back(l);
  EXPECT_EQ(energy, std::vector<std::string>{
                        "Energy per solve not measured on the CPU side (RAPL not readable: permission denied on "
                        "/sys/class/powercap/intel-rapl:0/energy_uj (root only since Linux 5.10)): dgesv, sgesv at "
                        "n = 1024."});
}

// (6) Each thing said once (issue 31): a finding is cited by its number; its message and a
// cause several share are said once in verdict.md and not at all in verdict.json (audit.json
// holds them); a run-wide note is the audit's alone.
TEST(VerdictSaidOnce, FindingsAreCitedByNumber) {
  const auto v = verdict_of("said_once");
  EXPECT_TRUE(has_line(v, "the GPU is 2.00× faster. Caveat: driver_vs_halves (warning) †1, †2."));
  EXPECT_TRUE(has_line(v, "the CPU is 1.25× faster. Caveat: driver_vs_halves (warning) †3."));
  EXPECT_NE(std::find(v.lines.begin(), v.lines.end(), "Run-wide caveat: cpu_loaded (warning) †4."), v.lines.end());
  EXPECT_FALSE(has_line(v, "debug build"));
  std::vector<std::size_t> cited;
  for (const auto& c : v.cited) cited.push_back(c.index);
  EXPECT_EQ(cited, (std::vector<std::size_t>{0, 1, 2, 3}));
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// Every text in a JSON document, one after another (so that escaping does not hide a repeat).
std::string strings_of(const nlohmann::ordered_json& j) {
  if (j.is_string()) return j.get<std::string>() + "\n";
  std::string out;
  if (j.is_structured())
    for (const auto& e : j) out += strings_of(e);
  return out;
}

TEST(VerdictSaidOnce, VerdictMdSaysEachCitedFindingAndItsCauseOnce) {
  const auto& c = cases().at("said_once");
  const auto v = sb::make_verdict(c.run, c.findings);
  const std::string md = sb::verdict_markdown(v), json = strings_of(sb::verdict_json(v));
  for (std::size_t i = 0; i < c.findings.size(); ++i) {
    const bool note = c.findings[i].severity == "note";
    EXPECT_EQ(occurrences(md, c.findings[i].message), note ? 0u : 1u) << c.findings[i].message << "\n" << md;
    EXPECT_EQ(occurrences(json, c.findings[i].message), 0u) << c.findings[i].message;
  }
  const std::string& cause = c.findings[0].cause;
  EXPECT_EQ(occurrences(md, cause), 1u) << md;
  EXPECT_EQ(occurrences(md, "The same cause as †1."), 2u) << md;
  EXPECT_EQ(occurrences(json, cause), 0u);
  EXPECT_NE(md.find("- **†4** cpu_loaded (warning): other processes"), std::string::npos) << md;
  // Headings, a list, emphasis: nothing a plain Markdown renderer shows as its source.
  for (std::size_t start = 0, end; (end = md.find('\n', start)) != std::string::npos; start = end + 1) {
    const std::string line = md.substr(start, end - start);
    EXPECT_TRUE(line.empty() || line.rfind('#', 0) == 0 || line.rfind("- ", 0) == 0 ||
                line.find('|') == std::string::npos)
        << line;
  }
  const auto caveat = sb::verdict_json(v)["solves"][0]["caveats"][0];
  EXPECT_EQ(caveat["findings"], nlohmann::ordered_json::array({1, 2}));
}

TEST(VerdictOutput, JsonEscapesAndNulls) {
  sb::run_summary run;
  run.context["gpu_rows"] = "absent: \"quoted\"\\ and\ttab";
  const auto json = sb::verdict_json(sb::make_verdict(run, {})).dump();
  EXPECT_NE(json.find(R"("gpu_rows":"absent: \"quoted\"\\ and\ttab")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("gpu_name":null)"), std::string::npos);
}

TEST(VerdictOutput, FilesBesideTheRun) {
  EXPECT_EQ(sb::check_files_for("out/run").verdict_json, "out/run.verdict.json");
  EXPECT_EQ(sb::check_files_for("out/run").verdict_markdown, "out/run.verdict.md");
  const auto dir = std::filesystem::temp_directory_path() / "solve_bench_test_verdict";
  std::filesystem::create_directories(dir);
  const auto v = verdict_of("consumer_like");
  const sb::audit_report audit;
  sb::write_check_files((dir / "x").string(), audit, v);
  std::ifstream md(dir / "x.verdict.md");
  std::stringstream text;
  text << md.rdbuf();
  EXPECT_EQ(text.str(), sb::verdict_markdown(v));
  EXPECT_TRUE(std::filesystem::exists(dir / "x.verdict.json"));
  std::filesystem::remove_all(dir);
  EXPECT_THROW(sb::write_check_files((dir / "no" / "such" / "x").string(), audit, v), solvebench::error);
}

// The committed runs with sidecars, judged again: each finding's message is said at most once on
// the console (once where it is shown), once in verdict.md where the verdict cites it, never in
// verdict.json; a shared cause once on the console; "energy not measured" once; no run-wide note
// in the verdict. (Before issue 31 sweep.json printed OpenBLAS's PR 4388 paragraph five times.)
TEST(VerdictSaidOnce, CommittedRunsSayEachFindingOnce) {
  const std::vector<std::string> runs = {"h200/sweep.json",           "h200/big-d.json",
                                         "h200/big-s.json",           "h200/complex.json",
                                         "h200/mixed-46000.json",     "h200-2026-11-30/sweep.json",
                                         "h200-2026-11-30/cond.json", "h200-2026-11-30/avenues.json"};
  std::size_t causes_seen = 0;
  for (const auto& name : runs) {
    SCOPED_TRACE(name);
    const auto run = sb::load_runs({std::string(SOLVE_BENCH_RESULTS) + "/" + name});
    const auto audit = sb::run_audit(run);
    const auto v = sb::make_verdict(run, audit.findings);
    // The console as one line: wrapping breaks a message at a space and indents the rest.
    const std::string console =
        std::regex_replace(sb::audit_console(audit, "X.audit.json") + "\n" + sb::verdict_console(v), std::regex("\n +"),
                           " ");
    const std::string md = sb::verdict_markdown(v), json = strings_of(sb::verdict_json(v));
    std::set<std::size_t> cited;
    for (const auto& c : v.cited) cited.insert(c.index);
    std::map<std::string, std::size_t> shown;
    std::set<std::string> causes;
    for (std::size_t i = 0; i < audit.findings.size(); ++i) {
      const auto& f = audit.findings[i];
      SCOPED_TRACE(f.rule + ": " + f.message);
      const bool on_console = ++shown[f.rule + f.severity] <= 3;
      EXPECT_EQ(occurrences(console, f.message), on_console ? 1u : 0u);
      EXPECT_EQ(occurrences(md, f.message), cited.count(i));
      EXPECT_EQ(occurrences(json, f.message), 0u);
      if (f.severity == std::string(sb::severity_note)) {
        EXPECT_EQ(cited.count(i), 0u);
      }
      if (!f.cause.empty()) causes.insert(f.cause);
    }
    for (const auto& cause : causes) {
      EXPECT_EQ(occurrences(console, cause), 1u) << cause;
      EXPECT_LE(occurrences(md, cause), 1u) << cause;
      EXPECT_EQ(occurrences(json, cause), 0u) << cause;
    }
    causes_seen += causes.size();
    EXPECT_LE(occurrences(console, "not measured on"), 1u) << console;
    EXPECT_LE(occurrences(md, "not measured on"), 1u) << md;
  }
  EXPECT_GE(causes_seen, 1u) << "no committed run has a shared cause: the test would not see one repeated";
}
