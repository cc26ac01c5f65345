// RAPL against a fake /sys/class/powercap tree: which zones count, wrap-around, and the reason
// when there is nothing to read.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "solvebench/rapl.hpp"
#include "solvebench/row_monitor.hpp"

namespace rapl = solvebench::rapl;
namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t range_uj = 262143328850;  // a real package zone's max_energy_range_uj

// A powercap tree as Linux lays it out: every zone, sub-zones too, flat in one directory.
class fake_powercap {
 public:
  fake_powercap() {
    std::string templ = (fs::temp_directory_path() / "sb_powercap_XXXXXX").string();
    root_ = ::mkdtemp(templ.data());
  }
  ~fake_powercap() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  fake_powercap(const fake_powercap&) = delete;
  fake_powercap& operator=(const fake_powercap&) = delete;

  const std::string& root() const { return root_; }
  void zone(const std::string& dir, const std::string& name, std::uint64_t energy_uj, std::uint64_t max_uj = range_uj) {
    fs::create_directories(root_ + "/" + dir);
    write(dir + "/name", name);
    set(dir, energy_uj);
    write(dir + "/max_energy_range_uj", std::to_string(max_uj));
  }
  void set(const std::string& dir, std::uint64_t energy_uj) { write(dir + "/energy_uj", std::to_string(energy_uj)); }
  void add_joules(const std::string& dir, double joules) {
    std::ifstream in(root_ + "/" + dir + "/energy_uj");
    std::uint64_t v = 0;
    in >> v;
    set(dir, v + static_cast<std::uint64_t>(joules * 1e6));
  }
  // A server with two packages, DRAM zones, core sub-zones, a psys zone and the MMIO interface.
  void two_socket_server() {
    fs::create_directories(root_ + "/intel-rapl");  // the control type itself: no zone
    zone("intel-rapl:0", "package-0", 1'000'000);
    zone("intel-rapl:0:0", "core", 400'000);
    zone("intel-rapl:0:1", "dram", 2'000'000, 65'712'999'613);
    zone("intel-rapl:1", "package-1", 3'000'000);
    zone("intel-rapl:1:0", "dram", 5'000'000, 65'712'999'613);
    zone("intel-rapl:2", "psys", 9'000'000);
    zone("intel-rapl-mmio:0", "package-0", 1'000'000);
  }

 private:
  void write(const std::string& rel, const std::string& text) { std::ofstream(root_ + "/" + rel) << text << "\n"; }
  std::string root_;
};

}  // namespace

TEST(Rapl, CountsPackagesAndDramOnce) {
  fake_powercap tree;
  tree.two_socket_server();
  const rapl::energy_meter meter(tree.root());
  ASSERT_TRUE(meter.readable()) << meter.unavailable_reason();
  ASSERT_EQ(meter.zones().size(), 4u);  // package-0, its dram, package-1, its dram
  EXPECT_EQ(meter.zones()[0].name, "package-0");
  EXPECT_TRUE(meter.zones()[1].dram);
  EXPECT_EQ(meter.zones()[2].name, "package-1");

  const auto before = meter.read();
  ASSERT_TRUE(before);
  EXPECT_EQ(before->energy_uj[0], 1'000'000u);
  tree.add_joules("intel-rapl:0", 5.0);
  tree.add_joules("intel-rapl:1", 2.0);
  tree.add_joules("intel-rapl:0:1", 0.75);
  tree.add_joules("intel-rapl:1:0", 0.25);
  // Inside package-0 (core), containing both packages (psys), package-0 again (MMIO):
  // counting any of them would count the same joules twice.
  tree.add_joules("intel-rapl:0:0", 100.0);
  tree.add_joules("intel-rapl:2", 50.0);
  tree.add_joules("intel-rapl-mmio:0", 5.0);
  const auto after = meter.read();
  ASSERT_TRUE(after);

  const auto e = meter.joules_between(*before, *after);
  ASSERT_TRUE(e);
  EXPECT_DOUBLE_EQ(e->package, 7.0);
  ASSERT_TRUE(e->dram);
  EXPECT_DOUBLE_EQ(*e->dram, 1.0);
  EXPECT_DOUBLE_EQ(e->total(), 8.0);
}

TEST(Rapl, NoDramZoneLeavesDramEmpty) {
  fake_powercap tree;
  tree.zone("intel-rapl:0", "package-0", 10);
  tree.zone("intel-rapl:0:0", "core", 10);
  const rapl::energy_meter meter(tree.root());
  ASSERT_TRUE(meter.readable()) << meter.unavailable_reason();
  const auto before = meter.read();
  tree.add_joules("intel-rapl:0", 1.5);
  const auto e = meter.joules_between(*before, *meter.read());
  ASSERT_TRUE(e);
  EXPECT_DOUBLE_EQ(e->package, 1.5);
  EXPECT_FALSE(e->dram);
}

TEST(Rapl, CounterWrapsAtItsRange) {
  fake_powercap tree;
  tree.zone("intel-rapl:0", "package-0", range_uj - 1'000'000);
  const rapl::energy_meter meter(tree.root());
  ASSERT_TRUE(meter.readable()) << meter.unavailable_reason();
  const auto before = meter.read();
  tree.set("intel-rapl:0", 500'000);  // passed max_energy_range_uj and started again at 0
  const auto e = meter.joules_between(*before, *meter.read());
  ASSERT_TRUE(e);
  EXPECT_DOUBLE_EQ(e->package, 1.5);

  EXPECT_EQ(rapl::counter_delta_uj(10, 25, 100), 15u);
  EXPECT_EQ(rapl::counter_delta_uj(90, 5, 100), 15u);
  EXPECT_FALSE(rapl::counter_delta_uj(90, 5, 0));   // range unknown: cannot tell how far it went
  EXPECT_FALSE(rapl::counter_delta_uj(90, 5, 50));  // `before` beyond the range: not a wrap
}

TEST(Rapl, WrapWithUnknownRangeIsAReasonNotANumber) {
  fake_powercap tree;
  tree.zone("intel-rapl:0", "package-0", 900);
  fs::remove(tree.root() + "/intel-rapl:0/max_energy_range_uj");
  const rapl::energy_meter meter(tree.root());
  ASSERT_TRUE(meter.readable());
  const auto before = meter.read();
  tree.set("intel-rapl:0", 100);
  std::string why;
  EXPECT_FALSE(meter.joules_between(*before, *meter.read(), &why));
  EXPECT_NE(why.find("went backwards"), std::string::npos) << why;
}

TEST(Rapl, NoZonesGiveTheReason) {
  fake_powercap empty;
  const rapl::energy_meter meter(empty.root());
  EXPECT_FALSE(meter.readable());
  EXPECT_EQ(meter.unavailable_reason(), "RAPL not readable: " + empty.root() + " has no intel-rapl zones");
  EXPECT_FALSE(meter.read());

  const rapl::energy_meter missing(empty.root() + "/not-there");
  EXPECT_EQ(missing.unavailable_reason(), "RAPL not readable: " + empty.root() + "/not-there has no intel-rapl zones");

  fake_powercap only_psys;  // a laptop's psys and a core sub-zone: no package to count
  only_psys.zone("intel-rapl:0", "psys", 1);
  only_psys.zone("intel-rapl:0:0", "core", 1);
  EXPECT_FALSE(rapl::energy_meter(only_psys.root()).readable());
}

// The run's context says which zones it counts, or why it counts none (the verdict quotes it).
TEST(Rapl, EnergyFactsNameTheZonesOrTheReason) {
  fake_powercap tree;
  tree.two_socket_server();
  using facts = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(rapl::energy_facts(tree.root()), (facts{{"cpu_energy", "RAPL: package-0, dram, package-1, dram"}}));
  fake_powercap empty;
  EXPECT_EQ(rapl::energy_facts(empty.root()),
            (facts{{"cpu_energy", "RAPL not readable: " + empty.root() + " has no intel-rapl zones"}}));
}

TEST(Rapl, UnreadableCounterGivesTheReason) {
  fake_powercap tree;
  tree.zone("intel-rapl:0", "package-0", 10);
  const std::string counter = tree.root() + "/intel-rapl:0/energy_uj";
  fs::remove(counter);
  fs::create_directory(counter);  // read() fails with EISDIR, for root too
  const rapl::energy_meter meter(tree.root());
  EXPECT_FALSE(meter.readable());
  EXPECT_EQ(meter.unavailable_reason(), "RAPL not readable: cannot read " + counter + ": Is a directory");

  // What a non-root user gets since Linux 5.10 (CVE-2020-8694: energy_uj became 0400).
  EXPECT_EQ(rapl::why_unreadable("/sys/class/powercap/intel-rapl:0/energy_uj", EACCES),
            "RAPL not readable: permission denied on /sys/class/powercap/intel-rapl:0/energy_uj (root only since "
            "Linux 5.10)");
  if (::geteuid() != 0) {  // root reads a 0400 file anyway; elsewhere, the real EACCES path
    fake_powercap locked;
    locked.zone("intel-rapl:0", "package-0", 10);
    ::chmod((locked.root() + "/intel-rapl:0/energy_uj").c_str(), 0);
    EXPECT_NE(rapl::energy_meter(locked.root()).unavailable_reason().find("permission denied"), std::string::npos);
  }
}

// The energy counters of a row (the monitor also reports the load of the real /proc: test_cpu_load.cpp).
std::vector<std::pair<std::string, double>> energy_only(std::vector<std::pair<std::string, double>> counters) {
  counters.erase(std::remove_if(counters.begin(), counters.end(),
                                [](const auto& c) { return c.first.rfind("cpu_", 0) == 0; }),
                 counters.end());
  return counters;
}

TEST(CpuRowMonitor, EnergyPerSolveFromRapl) {
  fake_powercap tree;
  tree.two_socket_server();
  auto monitor = solvebench::make_cpu_row_monitor(tree.root());
  EXPECT_EQ(monitor->unavailable_reason(), "");
  monitor->begin();
  tree.add_joules("intel-rapl:0", 3.0);
  tree.add_joules("intel-rapl:1:0", 1.0);
  monitor->end();
  const auto counters = energy_only(monitor->counters(2e9, 8));  // 8 solves of 2 GFLOP in 4 J
  ASSERT_EQ(counters.size(), 2u);
  EXPECT_EQ(counters[0].first, "J/solve");
  EXPECT_DOUBLE_EQ(counters[0].second, 0.5);
  EXPECT_EQ(counters[1].first, "GFLOP/J");
  EXPECT_DOUBLE_EQ(counters[1].second, 4.0);
  EXPECT_EQ(monitor->unavailable_reason(), "");

  monitor->begin();  // a loop shorter than the counter's update period: it did not move
  monitor->end();
  EXPECT_TRUE(energy_only(monitor->counters(2e9, 8)).empty());
}

TEST(CpuRowMonitor, NoRaplMeansNoCountersAndOneReason) {
  fake_powercap empty;
  auto monitor = solvebench::make_cpu_row_monitor(empty.root());
  monitor->begin();
  monitor->end();
  EXPECT_TRUE(energy_only(monitor->counters(1e9, 10)).empty());
  EXPECT_EQ(monitor->unavailable_reason(), "RAPL not readable: " + empty.root() + " has no intel-rapl zones");
}

TEST(EnergyCounters, ZeroEnergyIsOmittedNotReportedAsZero) {
  EXPECT_TRUE(solvebench::energy_counters(0.0, 1e9, 100).empty());
  EXPECT_TRUE(solvebench::energy_counters(-1.0, 1e9, 100).empty());
  EXPECT_TRUE(solvebench::energy_counters(5.0, 1e9, 0).empty());
  const auto c = solvebench::energy_counters(10.0, 3e9, 4);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_DOUBLE_EQ(c[0].second, 2.5);                               // J/solve
  EXPECT_DOUBLE_EQ(c[1].second, 3.0 / 2.5);                         // GFLOP/J
  EXPECT_EQ(solvebench::energy_counters(10.0, 0.0, 4).size(), 1u);  // no flop count: no GFLOP/J
}
