// run_program driven with a fake program (core_fakes.hpp's rows): parse -> plan -> run -> judge
// -> write. The outputs are written whole (no temporary left behind), a run that measured
// nothing replaces no earlier result and exits 4, a failed row exits 1 with the others written.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/driver.hpp"
#include "core_fakes.hpp"

namespace sb = solvebench::bench;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class CoreProgram : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("core_program_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs the fake program over rows of these modes ("ok", "fail", "oom"), writing out.json.
  int run(const std::vector<std::string>& modes) {
    sb::common_options common;
    sb::program p;
    p.name = "fake_bench";
    p.common = &common;
    p.flags = sb::common_flags(common, "");
    p.can_reexec = false;
    p.register_rows = [&](sb::session& s) {
      std::int64_t n = 64;
      for (const auto& mode : modes) fake::add_row(s, fake::gesv_id(n += 64, mode));
    };
    std::vector<std::string> args = {"fake_bench", "--benchmark_out=" + out().string(), "--rounds=2",
                                     "--benchmark_min_time=2x", "--progress=off"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    // In a child process: Google Benchmark 1.7's Shutdown leaves its context dangling, so one
    // process runs one program, as the binaries do.
    const fs::path said = dir_ / "stderr.txt";
    const pid_t child = fork();
    if (child == 0) {
      if (!std::freopen(said.c_str(), "w", stderr) || !std::freopen("/dev/null", "w", stdout)) _exit(99);
      const int status = sb::run_program(p, static_cast<int>(args.size()), argv.data());
      std::cout.flush();
      std::cerr.flush();
      std::fflush(nullptr);
      _exit(status);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child) return -1;
    said_ = slurp(said);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  fs::path out() const { return dir_ / "out.json"; }
  // Whatever the run left beside out.json but its rows log and the checks' sidecars: nothing.
  std::vector<std::string> leftovers() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) {
      const std::string name = e.path().filename().string();
      if (name.find(".partial") != std::string::npos || name.find(".tmp") != std::string::npos) out.push_back(name);
    }
    return out;
  }
  fs::path dir_;
  std::string said_;
};

TEST_F(CoreProgram, AMeasuredRunWritesItsResultsWholeAndExitsZero) {
  ASSERT_EQ(run({"ok", "ok"}), sb::exit_code::ok) << said_;
  const auto doc = sb::json::parse(slurp(out()));
  std::size_t iterations = 0;
  for (const auto& e : doc.at("benchmarks"))
    if (e.value("run_type", "") == "iteration") ++iterations;
  EXPECT_EQ(iterations, 4u);  // 2 rows x 2 rounds
  EXPECT_EQ(doc.at("context").at("rounds"), "2");
  EXPECT_TRUE(leftovers().empty());
}

TEST_F(CoreProgram, ARunThatMeasuredNothingLeavesTheEarlierResultAsItWas) {
  { std::ofstream(out()) << "earlier\n"; }
  EXPECT_EQ(run({"oom", "oom"}), sb::exit_code::nothing_measured) << said_;
  EXPECT_EQ(slurp(out()), "earlier\n");
  EXPECT_NE(said_.find("nothing was measured"), std::string::npos) << said_;
  EXPECT_TRUE(leftovers().empty());
}

TEST_F(CoreProgram, AFailedRowExitsOneAndTheOtherRowsAreWritten) {
  ASSERT_EQ(run({"ok", "fail"}), sb::exit_code::row_failed) << said_;
  const auto doc = sb::json::parse(slurp(out()));
  bool failed = false, measured = false;
  for (const auto& e : doc.at("benchmarks")) {
    if (e.value("error_occurred", false)) failed = true;
    else if (e.value("run_type", "") == "iteration") measured = true;
  }
  EXPECT_TRUE(failed);
  EXPECT_TRUE(measured);
  EXPECT_NE(said_.find("1 row(s) failed"), std::string::npos) << said_;
}

}  // namespace
