// NVML reader: the absent-driver path (this machine, CI), the present-driver paths against a
// fake libnvidia-ml, the PCIe formula, and on a real GPU: clocks, and energy that grows with work.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <map>
#include <thread>
#include <vector>

#include "nvml_gpu_fixture.hpp"
#include "solvebench/cusolver.hpp"
#include "solvebench/errors.hpp"
#include "solvebench/nvml.hpp"
#include "solvebench/row_monitor.hpp"

namespace sb = solvebench;
namespace nvml = solvebench::nvml;

namespace {
std::map<std::string, double> as_map(const std::vector<std::pair<std::string, double>>& counters) {
  return {counters.begin(), counters.end()};
}
}  // namespace

// ---- no driver ------------------------------------------------------------------------------

TEST(NvmlAbsent, MissingLibraryGivesTheReasonAndEmptySamples) {
  nvml::session s("libnvidia-ml-not-on-any-machine.so.1");
  EXPECT_FALSE(s.available());
  const std::string reason = "NVML not available: libnvidia-ml-not-on-any-machine.so.1 not found (no NVIDIA driver?)";
  EXPECT_EQ(s.unavailable_reason(), reason);
  std::string why;
  EXPECT_FALSE(s.device_by_bus_id("0000:17:00.0", &why));
  EXPECT_EQ(why, reason);
  const nvml::gpu_sample sample = s.sample(nvml::device{});
  EXPECT_FALSE(sample.sm_clock_mhz || sample.clocks_event_reasons || sample.other_processes || sample.energy_mj);
  EXPECT_EQ(sample.missing, std::vector<std::string>{reason});

  auto monitor = nvml::make_gpu_row_monitor(std::move(s), "0000:17:00.0");
  monitor->begin();
  monitor->end();
  EXPECT_TRUE(monitor->counters(1e9, 10).empty());
  EXPECT_EQ(monitor->unavailable_reason(), reason);
}

TEST(NvmlAbsent, NoDriverOnThisMachineIsSaidOnce) {
  nvml::session s;
  if (s.available()) GTEST_SKIP() << "this machine has an NVIDIA driver: the absent path is tested where there is none";
  const std::string reason = "NVML not available: libnvidia-ml.so.1 not found (no NVIDIA driver?)";
  EXPECT_EQ(s.unavailable_reason(), reason);
  EXPECT_FALSE(nvml::pcie_max_GBps(s, 0));
  auto monitor = sb::make_gpu_row_monitor(0);
  monitor->begin();
  monitor->end();
  EXPECT_TRUE(monitor->counters(1e9, 10).empty());
  EXPECT_EQ(monitor->unavailable_reason(), reason);  // one sentence, not one per counter
  EXPECT_NE(nvml::link_topology(s, std::vector<int>{0}).find(reason), std::string::npos);
}

// ---- formulas -------------------------------------------------------------------------------

TEST(NvmlFormulas, PcieBandwidthPerGeneration) {
  EXPECT_DOUBLE_EQ(nvml::pcie_GBps(1, 16), 4.0);  // 2.5 GT/s x 8/10 x 16 / 8
  EXPECT_DOUBLE_EQ(nvml::pcie_GBps(2, 16), 8.0);
  EXPECT_DOUBLE_EQ(nvml::pcie_GBps(3, 16), 8.0 * 128 / 130 * 2);
  EXPECT_DOUBLE_EQ(nvml::pcie_GBps(4, 16), 16.0 * 128 / 130 * 2);
  EXPECT_NEAR(nvml::pcie_GBps(5, 16), 63.0, 0.02);  // an H100/H200's host link
  EXPECT_DOUBLE_EQ(nvml::pcie_GBps(6, 16), 64.0 * 242 / 256 * 2);
  EXPECT_DOUBLE_EQ(nvml::pcie_GBps(4, 8), nvml::pcie_GBps(4, 16) / 2);
  EXPECT_THROW(nvml::pcie_GBps(0, 16), sb::invalid_argument);
  EXPECT_THROW(nvml::pcie_GBps(7, 16), sb::invalid_argument);
  EXPECT_THROW(nvml::pcie_GBps(4, 0), sb::invalid_argument);
}

TEST(NvmlFormulas, ClocksEventReasonsByName) {
  EXPECT_EQ(nvml::describe_clocks_event_reasons(0), "none");
  EXPECT_EQ(nvml::describe_clocks_event_reasons(0x4 | 0x40), "sw_power_cap|hw_thermal_slowdown");
  EXPECT_EQ(nvml::describe_clocks_event_reasons(0x1 | 0x1000), "gpu_idle|0x1000");
  EXPECT_FALSE(nvml::clocks_event::throttling & nvml::clocks_event::gpu_idle);
  EXPECT_TRUE(nvml::clocks_event::throttling & nvml::clocks_event::hw_power_brake_slowdown);
}

TEST(NvmlFormulas, OtherProcessesCountThisOneOut) {
  EXPECT_EQ(nvml::count_other_processes({}, 100), 0u);
  EXPECT_EQ(nvml::count_other_processes({100}, 100), 0u);
  EXPECT_EQ(nvml::count_other_processes({7, 100, 9}, 100), 2u);
  // In a container NVML gives host pids: ours is not among them, but one of them is us.
  EXPECT_EQ(nvml::count_other_processes({31337}, 100), 0u);
  EXPECT_EQ(nvml::count_other_processes({31337, 31338}, 100), 1u);
}

TEST(NvmlFormulas, PciBusIdsCompareAsAddresses) {
  EXPECT_TRUE(nvml::same_pci_function("0000:17:00.0", "00000000:17:00.0"));  // CUDA's vs NVML's spelling
  EXPECT_TRUE(nvml::same_pci_function("0000:af:00.0", "00000000:AF:00.0"));
  EXPECT_TRUE(nvml::same_pci_function("17:00.0", "0000:17:00.0"));
  EXPECT_FALSE(nvml::same_pci_function("0000:17:00.0", "0000:18:00.0"));
  EXPECT_FALSE(nvml::same_pci_function("0001:17:00.0", "0000:17:00.0"));
  nvml::nvlink_summary s;
  s.remote_gpu_bus_ids = {"00000000:0B:00.0", "00000000:0B:00.0", "00000000:0C:00.0"};
  EXPECT_EQ(nvml::nvlinks_to(s, "0000:0b:00.0"), 2u);
  EXPECT_EQ(nvml::nvlinks_to(s, "0000:0d:00.0"), 0u);
}

// ---- a driver's NVML, faked -----------------------------------------------------------------

class FakeNvml : public ::testing::Test {
 protected:
  // A function of the fake, which a session has loaded by then.
  template <class F>
  static F* fake(const char* name) {
    void* lib = dlopen(SB_FAKE_NVML, RTLD_NOW | RTLD_NOLOAD);
    if (!lib) return nullptr;
    auto* fn = reinterpret_cast<F*>(dlsym(lib, name));
    dlclose(lib);  // NOLOAD took one more reference; the session holds the library open
    return fn;
  }
  static int open_sessions() {
    auto* count = fake<int()>("fake_nvml_open_sessions");
    return count ? count() : -1;
  }
  static void plant_capped(nvml::perf_policy policy, double ms) {
    auto* plant = fake<void(int, unsigned long long)>("fake_nvml_plant_capped");
    ASSERT_TRUE(plant);
    plant(static_cast<int>(policy), static_cast<unsigned long long>(ms * 1e6));
  }
  static void set_sm_clock(unsigned mhz) {
    auto* set = fake<void(unsigned)>("fake_nvml_set_sm_clock");
    ASSERT_TRUE(set);
    set(mhz);
  }
  static void plant_clock_sample(unsigned mhz) {
    auto* plant = fake<void(unsigned)>("fake_nvml_plant_clock_sample");
    ASSERT_TRUE(plant);
    plant(mhz);
  }
};

const char* const capped_counters[] = {
    "capped_power_ms",           "capped_thermal_ms",     "capped_sync_boost_ms",       "capped_board_limit_ms",
    "capped_low_utilization_ms", "capped_reliability_ms", "capped_below_app_clocks_ms", "capped_below_base_clocks_ms"};

TEST_F(FakeNvml, SessionInitialisesAndShutsDownOnce) {
  {
    nvml::session a(SB_FAKE_NVML);
    ASSERT_TRUE(a.available()) << a.unavailable_reason();
    EXPECT_EQ(open_sessions(), 1);
    nvml::session b(std::move(a));
    EXPECT_EQ(open_sessions(), 1);  // moved, not initialised again
    EXPECT_FALSE(a.available());    // NOLINT(bugprone-use-after-move): the moved-from state is the point
    {
      nvml::session c(SB_FAKE_NVML);
      EXPECT_EQ(open_sessions(), 2);
      b = std::move(c);  // b's own session ends, c's lives on in b
      EXPECT_EQ(open_sessions(), 1);
    }
    EXPECT_EQ(open_sessions(), 1);
  }
  EXPECT_EQ(open_sessions(), 0);
}

TEST_F(FakeNvml, SampleReadsEveryCounter) {
  const nvml::session s(SB_FAKE_NVML);
  std::string why;
  const auto d = s.device_by_bus_id("0000:0a:00.0", &why);  // CUDA's spelling
  ASSERT_TRUE(d) << why;
  const nvml::gpu_sample first = s.sample(*d);
  EXPECT_TRUE(first.missing.empty()) << first.missing.front();
  EXPECT_EQ(first.sm_clock_mhz, 1980u);
  EXPECT_EQ(first.sm_app_clock_mhz, 1980u);
  EXPECT_TRUE(first.capped_reference_us);
  EXPECT_EQ(first.clocks_event_reasons, nvml::clocks_event::sw_power_cap);  // through the pre-12.2 name
  EXPECT_EQ(first.other_processes, 2u);  // three on the device, one of them this test
  for (const auto& t : first.capped_ns) EXPECT_TRUE(t);
  ASSERT_TRUE(first.capped_ns[0]);
  EXPECT_GE(*first.capped_ns[0], 5000000000u);  // power: 5 s since the fake's driver loaded
  ASSERT_TRUE(first.energy_mj);
  const nvml::gpu_sample second = s.sample(*d);
  ASSERT_TRUE(second.energy_mj);
  EXPECT_EQ(*second.energy_mj - *first.energy_mj, 2500u);
}

TEST_F(FakeNvml, MissingCountersSayWhy) {
  const nvml::session s(SB_FAKE_NVML);
  const auto d = s.device_by_bus_id("00000000:0B:00.0");
  ASSERT_TRUE(d);
  const nvml::gpu_sample sample = s.sample(*d);
  EXPECT_FALSE(sample.sm_clock_mhz);
  EXPECT_FALSE(sample.energy_mj);
  EXPECT_EQ(sample.other_processes, 0u);
  EXPECT_EQ(sample.clocks_event_reasons, nvml::clocks_event::gpu_idle);
  for (const auto& t : sample.capped_ns) EXPECT_FALSE(t);
  EXPECT_EQ(sample.missing,
            (std::vector<std::string>{"SM clock not readable: Not Supported (3)",
                                      "SM application clock not readable: Not Supported (3)",
                                      "total energy counter not supported on this GPU: Not Supported (3)",
                                      "capped time not readable: Not Supported (3)"}));
  std::string why;
  EXPECT_FALSE(s.sm_clock_samples(*d, 0, &why));
  EXPECT_EQ(why, "SM clock samples not readable: Not Supported (3)");
  EXPECT_FALSE(s.device_by_bus_id("0000:99:00.0", &why));
  EXPECT_EQ(why, "NVML has no device at PCI bus id 0000:99:00.0: Not Found (6)");
}

TEST_F(FakeNvml, PcieAndNvlinkTopology) {
  const nvml::session s(SB_FAKE_NVML);
  const auto d0 = s.device_by_bus_id("0000:0a:00.0"), d1 = s.device_by_bus_id("0000:0b:00.0");
  ASSERT_TRUE(d0 && d1);
  const auto max = s.pcie_max_link(*d0), now = s.pcie_current_link(*d0);
  ASSERT_TRUE(max && now);
  EXPECT_EQ(max->generation, 5u);
  EXPECT_EQ(max->width, 16u);
  EXPECT_EQ(now->generation, 1u);  // idle links drop to gen 1: why the ceiling uses the maximum
  const auto l0 = s.nvlinks(*d0), l1 = s.nvlinks(*d1);
  ASSERT_TRUE(l0 && l1);
  EXPECT_EQ(l0->links_up, 4u);
  EXPECT_EQ(nvml::nvlinks_to(*l0, "0000:0b:00.0"), 4u);
  EXPECT_EQ(l1->links_up, 6u);
  EXPECT_EQ(l1->to_switch, 2u);
  EXPECT_EQ(nvml::nvlinks_to(*l1, "0000:0a:00.0"), 4u);

  const std::vector<nvml::gpu_endpoint> gpus = {{0, "0000:0a:00.0"}, {1, "0000:0b:00.0"}};
  EXPECT_EQ(nvml::link_topology(s, gpus, [](int, int) { return true; }),
            "GPU0 0000:0a:00.0: PCIe gen1 x16 (max gen5 x16, 63.0 GB/s one way), NVLink 4 up; "
            "GPU1 0000:0b:00.0: PCIe gen4 x8 (max gen4 x8, 15.8 GB/s one way), NVLink 6 up (2 to NVSwitch); "
            "0-1: peer, NVLink x4");
  EXPECT_NE(nvml::link_topology(s, gpus, [](int, int) { return false; }).find("0-1: no peer, NVLink x4"),
            std::string::npos);
}

TEST_F(FakeNvml, RowMonitorCounters) {
  auto monitor = nvml::make_gpu_row_monitor(nvml::session(SB_FAKE_NVML), "0000:0a:00.0");
  monitor->begin();
  monitor->end();
  const auto c = as_map(monitor->counters(1e10, 5));
  EXPECT_EQ(monitor->unavailable_reason(), "");
  EXPECT_EQ(c.at("sm_clock_start_MHz"), 1980);
  EXPECT_EQ(c.at("sm_clock_end_MHz"), 1980);
  EXPECT_EQ(c.at("throttle_start"), 4);
  EXPECT_EQ(c.at("throttle_end"), 4);
  EXPECT_EQ(c.at("other_processes"), 2);
  EXPECT_DOUBLE_EQ(c.at("J/solve"), 0.5);   // 2.5 J over 5 iterations
  EXPECT_DOUBLE_EQ(c.at("GFLOP/J"), 20.0);  // 10 GFLOP per 0.5 J

  auto partial = nvml::make_gpu_row_monitor(nvml::session(SB_FAKE_NVML), "0000:0b:00.0");
  partial->begin();
  partial->end();
  const auto p = as_map(partial->counters(1e10, 5));
  EXPECT_EQ(p.count("J/solve"), 0u);
  EXPECT_EQ(p.count("sm_clock_start_MHz"), 0u);
  EXPECT_EQ(p.at("other_processes"), 0);
  EXPECT_EQ(p.count("capped_power_ms"), 0u);
  EXPECT_EQ(p.count("sm_clock_mean_MHz"), 0u);
  EXPECT_EQ(partial->unavailable_reason(),
            "SM clock not readable: Not Supported (3); SM application clock not readable: Not Supported (3); total "
            "energy counter not supported on this GPU: Not Supported (3); capped time not readable: Not Supported (3); "
            "SM clock samples not readable: Not Supported (3)");
}

TEST_F(FakeNvml, RowMonitorCountsTheTimeCappedDuringTheLoop) {
  auto monitor = nvml::make_gpu_row_monitor(nvml::session(SB_FAKE_NVML), "0000:0a:00.0");
  plant_capped(nvml::perf_policy::power, 3);  // before the loop: not counted
  plant_clock_sample(1400);
  monitor->begin();
  plant_capped(nvml::perf_policy::power, 25);
  plant_capped(nvml::perf_policy::thermal, 5);
  plant_clock_sample(1500);
  plant_clock_sample(1700);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  monitor->end();
  const auto c = as_map(monitor->counters(1e10, 5));
  EXPECT_EQ(monitor->unavailable_reason(), "");
  EXPECT_DOUBLE_EQ(c.at("capped_power_ms"), 25);
  EXPECT_DOUBLE_EQ(c.at("capped_thermal_ms"), 5);
  EXPECT_DOUBLE_EQ(c.at("capped_below_app_clocks_ms"), 30);  // the sum over the limiters
  for (const char* name : {"capped_sync_boost_ms", "capped_board_limit_ms", "capped_low_utilization_ms",
                           "capped_reliability_ms", "capped_below_base_clocks_ms"})
    EXPECT_EQ(c.at(name), 0) << name;
  EXPECT_GE(c.at("loop_ms"), 30);
  EXPECT_LT(c.at("loop_ms"), 30000);                  // milliseconds, not microseconds
  EXPECT_DOUBLE_EQ(c.at("sm_clock_mean_MHz"), 1600);  // the two samples of the loop, not the 1400 before it
  EXPECT_EQ(c.at("sm_clock_start_MHz"), 1980);
}

// The H200's GPU/dposv/n:130000: 1575 MHz from start to end, power-capped throughout. The
// application clock (1980) is what says it ran slow; the counters' window is their own.
TEST_F(FakeNvml, RowMonitorReportsTheApplicationClockAndTheCountersWindow) {
  auto monitor = nvml::make_gpu_row_monitor(nvml::session(SB_FAKE_NVML), "0000:0a:00.0");
  set_sm_clock(1575);
  monitor->begin();
  plant_capped(nvml::perf_policy::power, 40);  // the counters moved once, 40 ms after their last move
  monitor->end();
  set_sm_clock(1980);
  const auto c = as_map(monitor->counters(1e10, 1));
  EXPECT_EQ(c.at("sm_clock_start_MHz"), 1575);
  EXPECT_EQ(c.at("sm_clock_end_MHz"), 1575);
  EXPECT_EQ(c.at("sm_clock_app_MHz"), 1980);
  EXPECT_DOUBLE_EQ(c.at("capped_power_ms"), 40);
  EXPECT_DOUBLE_EQ(c.at("capped_window_ms"), 40);
  EXPECT_LT(c.at("loop_ms"), 40);  // no sleep: the monitor's own window was shorter than the counters'

  // A GPU without application clocks or capped time reports neither.
  auto partial = nvml::make_gpu_row_monitor(nvml::session(SB_FAKE_NVML), "0000:0b:00.0");
  partial->begin();
  partial->end();
  const auto p = as_map(partial->counters(1e10, 1));
  EXPECT_EQ(p.count("sm_clock_app_MHz"), 0u);
  EXPECT_EQ(p.count("capped_window_ms"), 0u);
}

TEST_F(FakeNvml, RowMonitorWithNothingCappedCountsZero) {
  auto monitor = nvml::make_gpu_row_monitor(nvml::session(SB_FAKE_NVML), "0000:0a:00.0");
  plant_capped(nvml::perf_policy::power, 40);  // before the loop
  monitor->begin();
  monitor->end();
  const auto c = as_map(monitor->counters(1e10, 5));
  EXPECT_EQ(monitor->unavailable_reason(), "");
  for (const char* name : capped_counters) EXPECT_EQ(c.at(name), 0) << name;
  EXPECT_GE(c.at("loop_ms"), 0);
  EXPECT_EQ(c.count("sm_clock_mean_MHz"), 0u);  // no sample was taken during the loop
}

// ---- a real GPU -----------------------------------------------------------------------------

TEST_F(NvmlOnGpu, SampleReadsClockAndEnergy) {
  const nvml::gpu_sample s = session_->sample(*device_);
  for (const auto& m : s.missing) ADD_FAILURE() << m;
  ASSERT_TRUE(s.sm_clock_mhz);
  EXPECT_GT(*s.sm_clock_mhz, 0u);
  ASSERT_TRUE(s.energy_mj);
  EXPECT_GT(*s.energy_mj, 0u);
  EXPECT_TRUE(s.clocks_event_reasons);
  EXPECT_TRUE(s.other_processes);
  std::cout << "SM clock " << *s.sm_clock_mhz << " MHz, clock events "
            << nvml::describe_clocks_event_reasons(s.clocks_event_reasons.value_or(0)) << ", other processes "
            << s.other_processes.value_or(0) << ", energy " << *s.energy_mj << " mJ since driver load\n";
}

TEST_F(NvmlOnGpu, EnergyDoublesWithTwiceTheWork) {
  gemm_work work;
  // 1 s and 2 s of dgemm: far above the counter's update period, so its granularity is a few
  // percent of each loop, not enough to move the ratio out of [1.5, 2.6].
  const long long n_iter = work.iterations_for(1.0);
  auto energy = [&] {
    const auto e = session_->sample(*device_).energy_mj;
    EXPECT_TRUE(e);
    return static_cast<double>(e.value_or(0));
  };
  const double e0 = energy();
  work.run(n_iter);
  const double e1 = energy();
  work.run(2 * n_iter);
  const double e2 = energy();
  const double once = e1 - e0, twice = e2 - e1;
  std::cout << n_iter << " dgemm (n=" << gemm_work::n << "): " << once / 1e3 << " J; " << 2 * n_iter << ": "
            << twice / 1e3 << " J; ratio " << twice / once << "\n";
  EXPECT_GT(once, 0);
  EXPECT_GT(twice / once, 1.5);
  EXPECT_LT(twice / once, 2.6);
}

TEST_F(NvmlOnGpu, RowMonitorAroundAGemmLoop) {
  gemm_work work;
  const long long iterations = work.iterations_for(0.5);
  auto monitor = sb::make_gpu_row_monitor(0);
  monitor->begin();
  work.run(iterations);
  monitor->end();
  EXPECT_EQ(monitor->unavailable_reason(), "");
  const auto c = as_map(monitor->counters(gemm_work::flops(), iterations));
  for (const auto& [name, value] : c) std::cout << name << " = " << value << "\n";
  EXPECT_GT(c.at("sm_clock_start_MHz"), 0);
  EXPECT_GT(c.at("sm_clock_end_MHz"), 0);
  EXPECT_EQ(c.count("throttle_start"), 1u);
  EXPECT_EQ(c.count("other_processes"), 1u);
  // Capped time, within the loop's wall time (ns would read a million times too large).
  ASSERT_EQ(c.count("loop_ms"), 1u);
  EXPECT_GT(c.at("loop_ms"), 400);  // about 0.5 s of dgemm
  for (const char* name : capped_counters) {
    ASSERT_EQ(c.count(name), 1u) << name;
    EXPECT_GE(c.at(name), 0) << name;
    EXPECT_LE(c.at(name), c.at("loop_ms") + 1000) << name;
  }
  if (c.count("sm_clock_mean_MHz")) {  // only when the driver sampled the clock during the loop
    EXPECT_GT(c.at("sm_clock_mean_MHz"), 0.25 * c.at("sm_clock_start_MHz"));
    EXPECT_LT(c.at("sm_clock_mean_MHz"), 4 * c.at("sm_clock_start_MHz"));
  }
  EXPECT_GT(c.at("J/solve"), 0);
  // fp64 GEMM on a datacenter GPU: tens of GFLOP/J (an H200: ~60 TFLOP/s at ~700 W).
  EXPECT_GT(c.at("GFLOP/J"), 1);
  EXPECT_LT(c.at("GFLOP/J"), 1000);
}

TEST_F(NvmlOnGpu, PcieCeilingAndTopology) {
  std::string why;
  const auto gbps = nvml::pcie_max_GBps(*session_, 0, &why);
  ASSERT_TRUE(gbps) << why;
  const auto max = session_->pcie_max_link(*device_);
  ASSERT_TRUE(max);
  EXPECT_DOUBLE_EQ(*gbps, nvml::pcie_GBps(max->generation, max->width));
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  std::vector<int> all(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) all[static_cast<std::size_t>(i)] = i;
  const std::string topo = nvml::link_topology(*session_, all);
  std::cout << "pcie_max_GBps " << *gbps << "; " << topo << "\n";
  EXPECT_EQ(topo.rfind("GPU0 ", 0), 0u) << topo;
  EXPECT_NE(topo.find("GB/s one way"), std::string::npos) << topo;
  if (count > 1) {
    EXPECT_NE(topo.find("0-1: "), std::string::npos) << topo;
  }
}
