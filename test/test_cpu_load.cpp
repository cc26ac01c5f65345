// The machine's load from made-up /proc texts and trees, and from a real spinning child: what
// the CPU row monitor reports as cpu_other_busy and cpu_steal_pct, and the busy processes at start.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "solvebench/cpu_load.hpp"
#include "solvebench/row_monitor.hpp"

namespace cpu = solvebench::cpu;
namespace fs = std::filesystem;

namespace {

const std::string proc_stat =
    "cpu  30281 1077 6844 77042 646 0 157 92 0 0\n"
    "cpu0 13113 396 3164 41236 38 0 51 44 0 0\n"
    "cpu1 17167 680 3680 35805 607 0 106 47 0 0\n"
    "intr 1234 0 0\nctxt 5678\n";

// A /proc/[pid]/stat line with the given name, utime and stime.
std::string pid_stat(int pid, const std::string& name, unsigned long long utime, unsigned long long stime) {
  return std::to_string(pid) + " (" + name + ") R 1 1 1 0 -1 4194304 99 0 0 0 " + std::to_string(utime) + " " +
         std::to_string(stime) + " 0 0 20 0 1 0 58179 3133440 361 18446744073709551615 0 0 0\n";
}

// A /proc tree in a temporary directory.
class fake_proc {
 public:
  fake_proc()
      : root_(fs::temp_directory_path() / ("sb_proc_" + std::to_string(::getpid()) + "_" + std::to_string(count_++))) {
    fs::create_directories(root_ / "self");
  }
  ~fake_proc() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  fake_proc(const fake_proc&) = delete;
  fake_proc& operator=(const fake_proc&) = delete;

  std::string root() const { return root_.string(); }
  void machine(unsigned long long user, unsigned long long idle, unsigned long long steal) {
    std::ofstream(root_ / "stat") << "cpu  " << user << " 0 0 " << idle << " 0 0 0 " << steal << " 0 0\ncpu0 0 0 0 0\n";
  }
  void self(unsigned long long jiffies) {
    std::ofstream(root_ / "self" / "stat") << pid_stat(1, "solve_bench", jiffies, 0);
  }
  void pressure(unsigned long long some_us) {
    fs::create_directories(root_ / "pressure");
    std::ofstream(root_ / "pressure" / "cpu") << "some avg10=1.00 avg60=0.50 avg300=0.10 total=" << some_us
                                              << "\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
  }
  void process(int pid, const std::string& name, unsigned long long jiffies) {
    fs::create_directories(root_ / std::to_string(pid));
    std::ofstream(root_ / std::to_string(pid) / "stat") << pid_stat(pid, name, jiffies, 0);
  }

 private:
  static inline int count_ = 0;
  fs::path root_;
};

std::map<std::string, double> as_map(const std::vector<std::pair<std::string, double>>& v) {
  return {v.begin(), v.end()};
}

// A child that spins on one core until killed (or for 20 s at most), named sb_spinner.
class spinning_child {
 public:
  spinning_child() {
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_NAME, "sb_spinner", 0, 0, 0);
      const std::time_t until = std::time(nullptr) + 20;
      volatile unsigned long spin = 0;
      while (std::time(nullptr) < until) ++spin;
      ::_exit(0);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // let it start spinning
  }
  ~spinning_child() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  spinning_child(const spinning_child&) = delete;
  spinning_child& operator=(const spinning_child&) = delete;
  int pid() const { return pid_; }

 private:
  int pid_ = -1;
};

}  // namespace

TEST(CpuLoad, ParsesTheAggregateCpuLineOfProcStat) {
  const auto t = cpu::parse_proc_stat(proc_stat);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->user, 30281u);
  EXPECT_EQ(t->nice, 1077u);
  EXPECT_EQ(t->system, 6844u);
  EXPECT_EQ(t->idle, 77042u);
  EXPECT_EQ(t->iowait, 646u);
  EXPECT_EQ(t->softirq, 157u);
  EXPECT_EQ(t->steal, 92u);
  EXPECT_EQ(t->busy(), 30281u + 1077 + 6844 + 157);
  EXPECT_EQ(t->total(), t->busy() + 77042 + 646 + 92);
  EXPECT_FALSE(cpu::parse_proc_stat("cpu0 1 2 3 4\nintr 5\n"));
}

TEST(CpuLoad, ParsesAProcessStatWhoseNameHasSpacesAndParentheses) {
  const auto p = cpu::parse_process_stat(pid_stat(42, "tricky) (name", 120, 30));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->name, "tricky) (name");
  EXPECT_EQ(p->jiffies, 150u);
  EXPECT_FALSE(cpu::parse_process_stat("42 (short) R 1 2"));
  EXPECT_FALSE(cpu::parse_process_stat("no parentheses"));
}

TEST(CpuLoad, OtherBusyIsTheMachinesBusyTimeLessThisProcesssPerSecond) {
  cpu::load_sample a, b;
  a.machine.user = 1000;
  a.machine.idle = 5000;
  a.self_jiffies = 300;
  a.wall_s = 10;
  b = a;
  b.wall_s = 11;          // 1 s at 100 jiffies a second, 2 CPUs: 200 jiffies in all
  b.machine.user += 150;  // 1.5 cores busy
  b.machine.idle += 40;
  b.machine.steal += 10;  // 5% stolen
  b.self_jiffies += 60;   // 0.6 of them ours
  const auto load = cpu::load_during(a, b, 100);
  ASSERT_TRUE(load);
  EXPECT_DOUBLE_EQ(load->other_busy_cores, 0.9);
  EXPECT_DOUBLE_EQ(load->self_busy_cores, 0.6);
  EXPECT_DOUBLE_EQ(load->steal_pct, 5.0);
  const auto c = as_map(cpu::load_counters(*load));
  EXPECT_DOUBLE_EQ(c.at("cpu_other_busy"), 0.9);
  EXPECT_DOUBLE_EQ(c.at("cpu_self_busy"), 0.6);
  EXPECT_DOUBLE_EQ(c.at("cpu_steal_pct"), 5.0);

  // A quiet machine whose counters lag ours by a tick reads 0, not a negative load.
  cpu::load_sample quiet = a;
  quiet.wall_s = 11;
  quiet.machine.user += 60;
  quiet.self_jiffies += 61;
  EXPECT_DOUBLE_EQ(cpu::load_during(a, quiet, 100)->other_busy_cores, 0.0);
  // Counters that went backwards, or no time: no answer.
  EXPECT_FALSE(cpu::load_during(b, a, 100));
  EXPECT_FALSE(cpu::load_during(a, a, 100));
}

TEST(CpuLoad, ParsesTheCpuPressureAndTurnsItIntoAWaitShare) {
  EXPECT_EQ(cpu::parse_cpu_pressure("some avg10=99.50 avg60=99.27 avg300=90.83 total=754048217\n"
                                    "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"),
            754048217u);
  EXPECT_FALSE(cpu::parse_cpu_pressure("full avg10=0.00 total=0\n"));  // no some line
  EXPECT_FALSE(cpu::parse_cpu_pressure("some avg10=1.0\n"));           // no total
  cpu::load_sample a, b;
  a.wall_s = 10;
  a.waited_us = 1000000;
  b = a;
  b.wall_s = 10.05;               // a 50 ms loop
  b.waited_us = 1000000 + 30000;  // 30 ms of it some task waited for a CPU
  const auto load = cpu::load_during(a, b, 100);
  ASSERT_TRUE(load && load->wait_pct);
  EXPECT_NEAR(*load->wait_pct, 60.0, 1e-6);
  b.waited_us.reset();  // a kernel without PSI
  EXPECT_FALSE(cpu::load_during(a, b, 100)->wait_pct);
}

TEST(CpuLoad, TheCpuClockGivesTheCoresUsedOverAShortLoop) {
  cpu::load_sample a, b;
  a.wall_s = 10;
  a.self_cpu_s = 5.0;
  a.self_jiffies = 500;
  b = a;
  b.wall_s = 10.02;  // 20 ms: two jiffies at most, but the clock counts nanoseconds
  b.self_cpu_s = 5.0 + 0.038;
  b.waited_us = a.waited_us = 0;
  const auto loop = cpu::load_during(a, b, 100);
  ASSERT_TRUE(loop);
  EXPECT_TRUE(loop->self_from_clock);
  EXPECT_NEAR(loop->self_busy_cores, 1.9, 1e-6);
  // Without a window for the jiffies: the cores it used and the wait, not the others' load.
  auto c = as_map(cpu::load_counters(*loop, std::nullopt));
  EXPECT_NEAR(c.at("cpu_self_busy"), 1.9, 1e-6);
  EXPECT_DOUBLE_EQ(c.at("cpu_wait_pct"), 0.0);
  EXPECT_EQ(c.count("cpu_other_busy"), 0u);
  // With a window of 0.3 s reaching back before it: the others' load over the window, which it names.
  cpu::load_between around;
  around.other_busy_cores = 1.2;
  around.self_busy_cores = 0.5;
  around.steal_pct = 1.0;
  around.wall_s = 0.3;
  c = as_map(cpu::load_counters(*loop, around));
  EXPECT_DOUBLE_EQ(c.at("cpu_other_busy"), 1.2);
  EXPECT_DOUBLE_EQ(c.at("cpu_steal_pct"), 1.0);
  EXPECT_DOUBLE_EQ(c.at("cpu_load_window_s"), 0.3);
  EXPECT_NEAR(c.at("cpu_self_busy"), 1.9, 1e-6);  // still the loop's own
  // A jiffies-only self time over a short loop is no figure.
  b.self_cpu_s.reset();
  EXPECT_EQ(as_map(cpu::load_counters(*cpu::load_during(a, b, 100), std::nullopt)).count("cpu_self_busy"), 0u);
}

TEST(CpuLoad, ALoopShorterThanTheWindowGetsNoCounters) {
  cpu::load_between short_loop;
  short_loop.other_busy_cores = 1.5;
  short_loop.self_busy_cores = 2.0;
  short_loop.wall_s = cpu::min_load_window_s / 2;
  EXPECT_TRUE(cpu::load_counters(short_loop).empty());
  short_loop.wall_s = cpu::min_load_window_s;
  EXPECT_EQ(cpu::load_counters(short_loop).size(), 3u);
}

TEST(CpuLoad, TheRowMonitorReportsTheLoadOfAFakeProcTree) {
  fake_proc proc;
  proc.machine(1000, 5000, 0);
  proc.self(100);
  const auto monitor = solvebench::make_cpu_row_monitor("/nonexistent/powercap", proc.root());
  monitor->begin();
  proc.machine(1000 + 50, 5000, 5);  // 50 busy jiffies, none of them ours; 5 of 55 stolen
  proc.self(100);
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  monitor->end();
  const auto c = as_map(monitor->counters(1e9, 10));
  ASSERT_EQ(c.count("cpu_other_busy"), 1u);
  // 50 jiffies over at least 0.25 s: at most 2 cores, and no less unless the sleep overran.
  EXPECT_LE(c.at("cpu_other_busy"), 2.0 + 1e-9);
  EXPECT_GT(c.at("cpu_other_busy"), 1.0);
  EXPECT_NEAR(c.at("cpu_steal_pct"), 100.0 * 5 / 55, 1e-9);
  EXPECT_EQ(c.count("J/solve"), 0u);  // no RAPL here
  EXPECT_EQ(monitor->unavailable_reason().find("CPU load"), std::string::npos) << monitor->unavailable_reason();
}

// The GEMM: a loop too short for the jiffies carried no load at all, so cpu_loaded could
// not list it. Now it gets the load of the window that ends with it, and the pressure of its own.
TEST(CpuLoad, AShortRowGetsTheLoadAroundIt) {
  fake_proc proc;
  proc.machine(1000, 5000, 0);
  proc.self(100);
  proc.pressure(0);
  const auto monitor = solvebench::make_cpu_row_monitor("/nonexistent/powercap", proc.root());
  monitor->begin();  // an earlier row's loop
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  monitor->end();
  proc.machine(1000 + 60, 5000, 0);  // others: 60 jiffies over the ~0.3 s window
  proc.pressure(200000);             // 200 ms waited, all during the next short loop
  monitor->begin();
  std::this_thread::sleep_for(std::chrono::milliseconds(40));
  proc.pressure(200000 + 30000);
  monitor->end();
  const auto c = as_map(monitor->counters(1e9, 10));
  ASSERT_EQ(c.count("cpu_other_busy"), 1u) << c.size();
  EXPECT_GT(c.at("cpu_other_busy"), 1.0);
  EXPECT_GE(c.at("cpu_load_window_s"), cpu::min_load_window_s);
  ASSERT_EQ(c.count("cpu_wait_pct"), 1u);
  EXPECT_GT(c.at("cpu_wait_pct"), 20.0);  // 30 ms of at least 40 ms
  EXPECT_LE(c.at("cpu_wait_pct"), 75.0);
  EXPECT_LT(c.at("cpu_self_busy"), 0.5);  // this process slept
}

TEST(CpuLoad, TheRowMonitorSaysWhyWhenProcCannotBeRead) {
  fake_proc proc;  // no stat file
  const auto monitor = solvebench::make_cpu_row_monitor("/nonexistent/powercap", proc.root());
  monitor->begin();
  monitor->end();
  EXPECT_EQ(as_map(monitor->counters(1e9, 10)).count("cpu_other_busy"), 0u);
  const std::string why = monitor->unavailable_reason();
  EXPECT_NE(why.find("RAPL"), std::string::npos) << why;
  EXPECT_NE(why.find("CPU load: cannot read " + proc.root() + "/stat"), std::string::npos) << why;
}

TEST(CpuLoad, ScansTheProcessesOfATreeAndRanksTheBusiest) {
  fake_proc proc;
  proc.process(10, "idle one", 500);
  proc.process(20, "spinner", 1000);
  proc.process(30, "half", 200);
  fs::create_directories(proc.root() + "/sys");  // not a pid
  const auto before = cpu::scan_processes(proc.root());
  ASSERT_EQ(before.size(), 3u);
  EXPECT_EQ(before.at(20).name, "spinner");
  proc.process(20, "spinner", 1000 + 40);  // 0.2 s at 100 jiffies a second: 2 cores
  proc.process(30, "half", 200 + 10);
  proc.process(40, "new", 99);  // not there before: no rate
  const auto after = cpu::scan_processes(proc.root());
  const auto busy = cpu::busiest(before, after, 0.2, 100, /*exclude_pid=*/-1);
  ASSERT_EQ(busy.size(), 2u);
  EXPECT_EQ(cpu::describe(busy), "spinner(20) 2.0 cores; half(30) 0.5 cores");
  EXPECT_EQ(cpu::busiest(before, after, 0.2, 100, 20).size(), 1u);  // this process left out
  EXPECT_EQ(cpu::busiest(before, after, 0.2, 100, -1, 1).size(), 1u);
  EXPECT_EQ(cpu::describe({}), "");
}

// A real child spinning on one core is load from another process: whatever else a loaded host
// runs only adds to it, so only the lower bound (half a core) is asserted.
TEST(CpuLoad, ASpinningChildIsSeenAsOtherBusy) {
  const spinning_child child;
  ASSERT_GT(child.pid(), 0);
  const auto monitor = solvebench::make_cpu_row_monitor();
  monitor->begin();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  monitor->end();
  const auto c = as_map(monitor->counters(1e9, 10));
  ASSERT_EQ(c.count("cpu_other_busy"), 1u) << monitor->unavailable_reason();
  EXPECT_GT(c.at("cpu_other_busy"), 0.5);
  EXPECT_LT(c.at("cpu_self_busy"), 0.5);  // this process slept; its idle BLAS threads sleep too
}

TEST(CpuLoad, ASpinningChildIsNamedAmongTheBusyProcesses) {
  const spinning_child child;
  ASSERT_GT(child.pid(), 0);
  const auto before = cpu::scan_processes();
  const auto t0 = std::chrono::steady_clock::now();
  // At a load of 15-20 on 2 cores the spinner gets about a tenth of a core, which a 0.1-core
  // floor over 0.3 s missed now and then: 0.6 s, and a floor of 0.02 cores (a few clock ticks).
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  const auto after = cpu::scan_processes();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto busy =
      cpu::busiest(before, after, wall, static_cast<double>(sysconf(_SC_CLK_TCK)), ::getpid(), 1000, 0.02);
  EXPECT_NE(cpu::describe(busy).find("sb_spinner(" + std::to_string(child.pid()) + ")"), std::string::npos)
      << cpu::describe(busy);

  const std::map<std::string, std::string> facts = [] {
    const auto f = cpu::load_facts_at_start();
    return std::map<std::string, std::string>(f.begin(), f.end());
  }();
  ASSERT_EQ(facts.size(), 3u);
  ASSERT_FALSE(facts.at("cpu_other_busy_at_start").empty());
  EXPECT_GT(std::stod(facts.at("cpu_other_busy_at_start")), 0.5);
  std::cout << "busy_processes_at_start: " << facts.at("busy_processes_at_start") << "\n";
}
