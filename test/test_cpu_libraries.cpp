// Rows of several CPU libraries in one run (test/data/two_cpu_libraries.json: OpenBLAS and a
// BLIS, each with its library facts in its own rows): the verdict's CPU side is the fastest
// reference row whatever its library and says which library that is; the rules read each
// row's own facts before the run's.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

#include "checks/audit.hpp"
#include "checks/load.hpp"
#include "checks/render.hpp"
#include "checks/verdict.hpp"
#include "legacy/row_names.hpp"

namespace sb = solvebench::bench;

namespace {

sb::run_summary fixture() { return sb::load_runs({SOLVE_BENCH_TEST_DATA "/two_cpu_libraries.json"}); }

void scale_rows(sb::run_summary& run, const std::string& library, double factor) {
  for (auto& r : run.rows)
    if (r.id.library == library)
      for (auto& t : r.times_ms) t *= factor;
}

const sb::cpu_best_point& best_at(const std::vector<sb::cpu_best_point>& points, long long n) {
  const auto it = std::find_if(points.begin(), points.end(), [&](const auto& p) { return p.n == n; });
  if (it == points.end()) throw std::runtime_error("no point at n = " + std::to_string(n));
  return *it;
}

bool has_line(const sb::run_verdict& v, const std::string& text) {
  return std::any_of(v.lines.begin(), v.lines.end(), [&](const auto& l) { return l.find(text) != std::string::npos; });
}

TEST(CpuLibraries, TheRowsCarryTheirRolesAndFacts) {
  const auto run = fixture();
  const auto* blis = run.find("CPU[blis]/dgesv/n:1024/nrhs:1");
  ASSERT_NE(blis, nullptr);
  EXPECT_EQ(blis->id.role, sb::row_role::reference);
  EXPECT_EQ(blis->id.library, "blis");
  EXPECT_EQ(blis->facts.at("blas_vendor"), "BLIS");
  EXPECT_EQ(run.find("GPU/dgesv/n:1024/nrhs:1")->id.role, sb::row_role::candidate);
}

TEST(CpuLibraries, TheCpusBestPathIsTheFasterLibraryAndNamesIt) {
  const auto v = sb::make_verdict(fixture(), {});
  ASSERT_EQ(v.solves.size(), 1u);
  const auto& e = v.solves.front();
  const auto &small = best_at(e.cpu_best, 256), &big = best_at(e.cpu_best, 1024);
  EXPECT_EQ(small.library, "openblas");
  EXPECT_EQ(small.runner_up_library, "blis");
  EXPECT_EQ(big.library, "blis");
  EXPECT_EQ(big.row, "CPU[blis]/dgesv/n:1024/nrhs:1");
  EXPECT_EQ(big.runner_up_library, "openblas");
  EXPECT_DOUBLE_EQ(*big.runner_up_ms, 200.0);
  // The GPU is held against BLIS at n = 1024 (150 ms), not against OpenBLAS (200 ms).
  ASSERT_TRUE(e.largest);
  EXPECT_DOUBLE_EQ(e.largest->cpu_ms, 150.0);
  EXPECT_EQ(e.largest->cpu_library, "blis");
  // The library is named by its facts (vendor, version, which library of the run), not its label.
  EXPECT_EQ(big.library_name, "BLIS 0.9.0 (blis)");
  EXPECT_EQ(big.runner_up_name, "OpenBLAS 0.3.21 (openblas)");
  EXPECT_EQ(e.largest->cpu_library_name, "BLIS 0.9.0 (blis)");
  EXPECT_TRUE(has_line(v, "CPU 150 ms (CPU[blis], BLIS 0.9.0 (blis))")) << v.lines.front();
  ASSERT_EQ(v.cpu_libraries.size(), 1u);
  EXPECT_EQ(v.cpu_libraries.front().libraries, (std::vector<std::string>{"openblas", "blis"}));
  EXPECT_EQ(v.cpu_libraries.front().library_names,
            (std::vector<std::string>{"OpenBLAS 0.3.21 (openblas)", "BLIS 0.9.0 (blis)"}));
  EXPECT_TRUE(has_line(v,
                       "libraries OpenBLAS 0.3.21 (openblas), BLIS 0.9.0 (blis): OpenBLAS 0.3.21 (openblas) is "
                       "fastest at n = 256"))
      << v.lines[1];
  EXPECT_TRUE(has_line(v,
                       "; BLIS 0.9.0 (blis) at n = 1024 (at n = 1024 CPU[blis]/dgesv/n:1024/nrhs:1 150 ms, "
                       "1.33× faster than the runner-up OpenBLAS 0.3.21 (openblas)'s 200 ms"))
      << v.lines[1];
  const auto j = sb::verdict_json(v);
  EXPECT_EQ(j["solves"][0]["cpu_best"][1]["library"], "blis");
  EXPECT_EQ(j["solves"][0]["cpu_best"][1]["library_name"], "BLIS 0.9.0 (blis)");
  EXPECT_EQ(j["solves"][0]["largest"]["cpu_library_name"], "BLIS 0.9.0 (blis)");
  EXPECT_EQ(j["cpu_libraries"][0]["points"][1]["runner_up_library"], "openblas");
  EXPECT_EQ(j["cpu_libraries"][0]["points"][1]["runner_up_name"], "OpenBLAS 0.3.21 (openblas)");
  EXPECT_EQ(j["cpu_libraries"][0]["library_names"][1], "BLIS 0.9.0 (blis)");
}

// A third library, as --cpu_libraries=auto gives (the linked OpenBLAS, BLIS, the reference
// BLAS): the winner is held against the runner-up, the second best library at that n, never
// against a slower one; and the linked library is named by its facts, not as "lapack".
TEST(CpuLibraries, TheWinnerIsHeldAgainstTheRunnerUpOfThree) {
  auto run = fixture();
  std::vector<sb::row_record> reference;
  for (auto& r : run.rows) {
    if (r.id.library == "openblas") r.facts["cpu_library"] = "linked";  // as solve_bench writes the linked rows
    if (r.id.library != "blis") continue;
    sb::row_record copy = r;
    copy.id.backend = "CPU[reference]";
    copy.id.library = "lapack[reference]";
    copy.name = copy.id.name();
    copy.facts = {{"blas_vendor", "Netlib"}, {"blas_version", "3.11.0"}, {"cpu_library", "reference"}};
    for (auto& t : copy.times_ms) t *= 6;  // 72 ms at n = 256, 900 ms at n = 1024: the slowest
    reference.push_back(copy);
  }
  run.rows.insert(run.rows.end(), reference.begin(), reference.end());
  const auto v = sb::make_verdict(run, {});
  ASSERT_EQ(v.cpu_libraries.size(), 1u);
  const auto& c = v.cpu_libraries.front();
  EXPECT_EQ(c.library_names,
            (std::vector<std::string>{"OpenBLAS 0.3.21 (linked)", "BLIS 0.9.0 (blis)", "Netlib 3.11.0 (reference)"}));
  const auto &small = best_at(c.points, 256), &big = best_at(c.points, 1024);
  EXPECT_EQ(small.library_name, "OpenBLAS 0.3.21 (linked)");
  EXPECT_EQ(small.runner_up_name, "BLIS 0.9.0 (blis)");  // 12 ms, not the reference's 72 ms
  EXPECT_DOUBLE_EQ(*small.runner_up_ms, 12.0);
  EXPECT_EQ(big.library_name, "BLIS 0.9.0 (blis)");
  EXPECT_EQ(big.runner_up_name, "OpenBLAS 0.3.21 (linked)");  // 200 ms, not the reference's 900 ms
  EXPECT_DOUBLE_EQ(*big.runner_up_ms, 200.0);
  EXPECT_TRUE(has_line(v,
                       "OpenBLAS 0.3.21 (linked) is fastest at n = 256 (at n = 256 CPU/dgesv/n:256/nrhs:1 10.0 ms, "
                       "1.20× faster than the runner-up BLIS 0.9.0 (blis)'s 12.0 ms"))
      << v.lines[1];
  EXPECT_FALSE(has_line(v, "faster than the runner-up Netlib"));
  EXPECT_FALSE(has_line(v, "lapack"));
}

TEST(CpuLibraries, ASlowerSecondLibraryIsNotChosen) {
  auto run = fixture();
  scale_rows(run, "blis", 2.0);  // BLIS now slower at every n
  const auto v = sb::make_verdict(run, {});
  const auto& e = v.solves.front();
  EXPECT_EQ(best_at(e.cpu_best, 256).library, "openblas");
  EXPECT_EQ(best_at(e.cpu_best, 1024).library, "openblas");
  EXPECT_DOUBLE_EQ(e.largest->cpu_ms, 200.0);
  EXPECT_TRUE(has_line(v, "OpenBLAS 0.3.21 (openblas) is fastest at n = 256, 1024"));
  EXPECT_FALSE(has_line(v, "(blis) at n"));
}

TEST(CpuLibraries, ACpuOnlyRunStillSaysWhichLibraryWon) {
  auto run = fixture();
  run.rows.erase(std::remove_if(run.rows.begin(), run.rows.end(),
                                [](const auto& r) { return r.id.role != sb::row_role::reference; }),
                 run.rows.end());
  const auto v = sb::make_verdict(run, {});
  EXPECT_TRUE(v.solves.empty());
  ASSERT_EQ(v.cpu_libraries.size(), 1u);
  EXPECT_EQ(best_at(v.cpu_libraries.front().points, 1024).library, "blis");
  EXPECT_TRUE(has_line(v, "dgesv (nrhs 1) on the CPU, libraries OpenBLAS 0.3.21 (openblas), BLIS 0.9.0 (blis)"));
}

TEST(CpuLibraries, OneLibraryGivesNoLibraryLine) {
  auto run = fixture();
  run.rows.erase(std::remove_if(run.rows.begin(), run.rows.end(), [](const auto& r) { return r.id.library == "blis"; }),
                 run.rows.end());
  const auto v = sb::make_verdict(run, {});
  EXPECT_TRUE(v.cpu_libraries.empty());
  EXPECT_EQ(v.solves.front().largest->cpu_library, "");
  EXPECT_TRUE(has_line(v, "CPU 200 ms (CPU)"));
}

// blas_threads per row: the second library running one thread is named, the first (two
// threads on two cores, as the run's context also says) is not.
TEST(CpuLibraries, RulesReadEachRowsOwnLibraryFacts) {
  auto run = fixture();
  const auto quiet = sb::run_audit(run);
  EXPECT_TRUE(std::none_of(quiet.findings.begin(), quiet.findings.end(),
                           [](const auto& f) { return f.rule == "blas_threads"; }));
  for (auto& r : run.rows)
    if (r.id.library == "blis") r.facts["blas_threads"] = "1";
  const auto report = sb::run_audit(run);
  const auto it = std::find_if(report.findings.begin(), report.findings.end(),
                               [](const auto& f) { return f.rule == "blas_threads"; });
  ASSERT_NE(it, report.findings.end());
  EXPECT_NE(it->message.find("BLIS runs 1 thread but 2 cores"), std::string::npos) << it->message;
  EXPECT_NE(it->message.find("2 CPU rows it timed"), std::string::npos) << it->message;
}

TEST(RowRoles, ReadFromTheIdOrDerivedForIdsWithoutOne) {
  const auto read = [](const char* text) { return sb::row_id_from_json(nlohmann::ordered_json::parse(text)); };
  const char* base = R"({"backend": "X", "device": "gpu", "placement": "resident", "path": "halves",
                        "library": "x", "op": "gesv", "precision": "d", "n": 4, "nrhs": 1)";
  EXPECT_EQ(read((std::string(base) + "}").c_str()).role, sb::row_role::candidate);
  EXPECT_EQ(read((std::string(base) + R"(, "gpus": 2})").c_str()).role, sb::row_role::spread);
  EXPECT_EQ(read((std::string(base) + R"(, "role": "reference"})").c_str()).role, sb::row_role::reference);
  EXPECT_THROW(read((std::string(base) + R"(, "role": "judge"})").c_str()), std::invalid_argument);
  const auto id = read((std::string(base) + R"(, "role": "spread"})").c_str());
  EXPECT_EQ(sb::row_id_from_json(sb::to_json(id)), id);
  EXPECT_EQ(sb::to_json(id)["role"], "spread");
  // Names of earlier versions: the backends they had, as those versions declared them.
  EXPECT_EQ(sb::legacy_row_id("MPI/dgesv/n:64/nrhs:1/ranks:4/nb:32").role, sb::row_role::spread);
  EXPECT_EQ(sb::legacy_row_id("GPU-pinned/dgesv/n:64/nrhs:1").placement, sb::row_placement::pinned);
  EXPECT_EQ(sb::legacy_row_id("CPU-driver/dposv/n:64/nrhs:1").path, sb::row_path::driver);
}

}  // namespace
