// Every threshold of checks/thresholds.hpp reaches the sidecars' "thresholds" object, so that
// a tool shows the limit the checks judged by (issue 33: gate_confidence did not).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <regex>
#include <sstream>

#include "checks/render.hpp"
#include "checks/thresholds.hpp"

TEST(Thresholds, EveryOneReachesTheSidecars) {
  std::ifstream in(SOLVE_BENCH_THRESHOLDS_HPP);
  ASSERT_TRUE(in) << SOLVE_BENCH_THRESHOLDS_HPP;
  std::stringstream text;
  text << in.rdbuf();
  const std::string header = text.str();
  const std::regex constant(R"(inline constexpr (double|int) ([a-z0-9_]+) =)");
  const auto sidecar = solvebench::bench::thresholds_json();
  std::size_t seen = 0;
  for (std::sregex_iterator it(header.begin(), header.end(), constant), end; it != end; ++it, ++seen) {
    const std::string name = (*it)[2];
    ASSERT_TRUE(sidecar.contains(name)) << name << " is not in limits::all";
  }
  EXPECT_GT(seen, 20u);
  EXPECT_EQ(seen, sidecar.size());  // and nothing in the table that is not a threshold
  EXPECT_DOUBLE_EQ(sidecar.at("gate_confidence").get<double>(), solvebench::bench::limits::gate_confidence);
}
