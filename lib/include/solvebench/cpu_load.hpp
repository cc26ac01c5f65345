// How loaded the machine is, from /proc: the CPU time of the whole machine (/proc/stat), of this
// process (/proc/self/stat, and its CPU clock) and of each other process (/proc/[pid]/stat), and
// the time tasks waited for a CPU (/proc/pressure/cpu, the kernel's pressure stall information).
// The CPU row monitor samples them around each row's timed loop; the run samples the busy
// processes once at start. Parsers take text and readers a root path, so tests feed made-up
// /proc trees.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace solvebench::cpu {

// The aggregate "cpu" line of /proc/stat: jiffies (USER_HZ ticks) summed over every CPU.
struct cpu_times {
  unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  // Time spent running something in this machine (guest time is inside user); not steal, which
  // the hypervisor gave to someone else.
  unsigned long long busy() const noexcept { return user + nice + system + irq + softirq; }
  unsigned long long total() const noexcept { return busy() + idle + iowait + steal; }
};
std::optional<cpu_times> parse_proc_stat(std::string_view text);

// One process's /proc/[pid]/stat: its name (comm, which may hold spaces and parentheses) and
// utime + stime in jiffies, every thread of it included, its children not.
struct process_times {
  std::string name;
  unsigned long long jiffies = 0;
};
std::optional<process_times> parse_process_stat(std::string_view text);

// The "some" line of /proc/pressure/cpu: the microseconds during which at least one runnable
// task waited for a CPU (total=...), whoever's task it was. Empty without that line (a kernel
// without PSI, or booted with psi=0).
std::optional<unsigned long long> parse_cpu_pressure(std::string_view text);

// What the row monitor reads at the start and at the end of a loop.
struct load_sample {
  cpu_times machine;
  unsigned long long self_jiffies = 0;
  double wall_s = 0;                            // steady clock
  std::optional<double> self_cpu_s;             // this process's CPU clock (every thread), to the ns
  std::optional<unsigned long long> waited_us;  // /proc/pressure/cpu's some total, when the kernel has it
};
// /proc/stat and /proc/self/stat under `proc_root`, /proc/pressure/cpu there when it exists,
// this process's CPU clock and the time now; empty (`why` set) when either stat file cannot be
// read or parsed.
std::optional<load_sample> sample_load(const std::string& proc_root = "/proc", std::string* why = nullptr);

struct load_between {
  double other_busy_cores = 0;  // cores' worth of CPU time used by other processes (>= 0)
  double self_busy_cores = 0;   // cores' worth this process got (all its threads, spinning included)
  double steal_pct = 0;         // share of all CPUs' time the hypervisor stole, percent
  double wall_s = 0;
  std::optional<double> wait_pct;  // share of the time some task waited for a CPU, percent (PSI)
  bool self_from_clock = false;    // self_busy_cores from the CPU clock (exact), not from jiffies
};
// Between two samples, with `ticks_per_second` jiffies a second (sysconf(_SC_CLK_TCK)).
// self_busy_cores comes from the CPU clock when both samples have it (exact at any length),
// else from the jiffies. Empty when no time passed or a counter went backwards.
std::optional<load_between> load_during(const load_sample& before, const load_sample& after, double ticks_per_second);

// The shortest loop the row counters are given for: jiffies are 10 ms, and each of the four
// readings (two CPUs' counters and this process's, twice) can be a tick off, so a 0.2 s loop on
// 2 cores reads cpu_other_busy to about +-0.2 cores; a shorter one would report noise as load.
inline constexpr double min_load_window_s = 0.2;

// The row counters of a loop:
//   cpu_self_busy   the cores the row used (its CPU time over the loop's wall time, every thread,
//                   spinning included): against its BLAS threads, whether it had the cores it
//                   ran on; GFLOP/s over a peak scaled by it separates a slow kernel from a
//                   shared CPU;
//   cpu_wait_pct    the share of the loop during which some task waited for a CPU (PSI): load
//                   whoever's it was, also where the CPU time of others cannot be told apart;
//   cpu_other_busy  cores other processes kept busy, and cpu_steal_pct, the hypervisor's steal;
//                   from jiffies, so only over `around` (at least min_load_window_s, which may
//                   reach back before a short loop: then cpu_load_window_s says how far).
// `loop` is the timed loop itself; `around` a window of at least min_load_window_s that ends with
// it (the loop itself when it is long enough), or none.
std::vector<std::pair<std::string, double>> load_counters(const load_between& loop,
                                                          const std::optional<load_between>& around);
// The same for a loop long enough to be its own window (empty when it is not).
std::vector<std::pair<std::string, double>> load_counters(const load_between& loop);

// Every process under `proc_root` whose stat can be read, by pid.
std::map<int, process_times> scan_processes(const std::string& proc_root = "/proc");

struct busy_process {
  int pid = 0;
  std::string name;
  double cores = 0;
};
// The `top` processes that used the most CPU between two scans `wall_s` apart, at least
// `min_cores` each, `exclude_pid` (this process) left out; busiest first.
std::vector<busy_process> busiest(const std::map<int, process_times>& before, const std::map<int, process_times>& after,
                                  double wall_s, double ticks_per_second, int exclude_pid, std::size_t top = 3,
                                  double min_cores = 0.1);
// "name(pid) 1.9 cores; name(pid) 0.4 cores"; "" for none.
std::string describe(const std::vector<busy_process>& busy);

// Run-level facts from one sample of `window_s` seconds at start:
//   busy_processes_at_start  describe(busiest(...)), or "not sampled: ..." when reading /proc
//                            would make the sample cost more than about 250 ms;
//   cpu_other_busy_at_start  cores' worth of CPU other processes used meanwhile ("" unknown);
//   cpu_steal_pct_at_start   the hypervisor's steal meanwhile, percent ("" unknown).
// A container sees only its own processes, but /proc/stat counts the whole machine: the second
// fact can show load the first cannot name.
std::vector<std::pair<std::string, std::string>> load_facts_at_start(const std::string& proc_root = "/proc",
                                                                     double window_s = 0.2);

}  // namespace solvebench::cpu
