// The machine's load from /proc/stat and /proc/[pid]/stat.
#include "solvebench/cpu_load.hpp"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <thread>

namespace solvebench::cpu {
namespace {

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double ticks_per_second() {
  const long t = sysconf(_SC_CLK_TCK);
  return t > 0 ? static_cast<double>(t) : 100.0;
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

std::optional<cpu_times> parse_proc_stat(std::string_view text) {
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("cpu ", 0) != 0) continue;
    std::istringstream fields(line.substr(4));
    cpu_times t;
    // Kernels before 2.6.11 stop after softirq; steal is then 0.
    if (!(fields >> t.user >> t.nice >> t.system >> t.idle)) return std::nullopt;
    fields >> t.iowait >> t.irq >> t.softirq >> t.steal;
    return t;
  }
  return std::nullopt;
}

std::optional<process_times> parse_process_stat(std::string_view text) {
  // "pid (comm) state ppid ...": comm may contain ") ", so the fields start after the last ')'.
  const auto open = text.find('('), close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  std::istringstream fields{std::string(text.substr(close + 1))};
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 13 && fields >> field; ++i) {
  }                                                      // state (field 3) .. cmajflt (13)
  if (!(fields >> utime >> stime)) return std::nullopt;  // fields 14 and 15
  return process_times{std::string(text.substr(open + 1, close - open - 1)), utime + stime};
}

std::optional<unsigned long long> parse_cpu_pressure(std::string_view text) {
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("some ", 0) != 0) continue;
    const auto at = line.find("total=");
    if (at == std::string::npos) return std::nullopt;
    char* end = nullptr;
    const char* digits = line.c_str() + at + 6;
    const unsigned long long total = std::strtoull(digits, &end, 10);
    if (end == digits) return std::nullopt;
    return total;
  }
  return std::nullopt;
}

std::optional<load_sample> sample_load(const std::string& proc_root, std::string* why) {
  const auto fail = [&](const std::string& what) {
    if (why) *why = what;
    return std::nullopt;
  };
  load_sample s;
  s.wall_s = now_s();
  const auto stat = read_text(proc_root + "/stat");
  if (!stat) return fail("cannot read " + proc_root + "/stat");
  const auto machine = parse_proc_stat(*stat);
  if (!machine) return fail("no aggregate cpu line in " + proc_root + "/stat");
  const auto self_text = read_text(proc_root + "/self/stat");
  if (!self_text) return fail("cannot read " + proc_root + "/self/stat");
  const auto self = parse_process_stat(*self_text);
  if (!self) return fail("cannot parse " + proc_root + "/self/stat");
  s.machine = *machine;
  s.self_jiffies = self->jiffies;
  if (const auto pressure = read_text(proc_root + "/pressure/cpu")) s.waited_us = parse_cpu_pressure(*pressure);
  timespec cpu{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu) == 0)
    s.self_cpu_s = static_cast<double>(cpu.tv_sec) + 1e-9 * static_cast<double>(cpu.tv_nsec);
  return s;
}

std::optional<load_between> load_during(const load_sample& before, const load_sample& after, double ticks) {
  const double wall = after.wall_s - before.wall_s;
  const cpu_times &a = before.machine, &b = after.machine;
  if (!(wall > 0) || !(ticks > 0) || b.total() < a.total() || b.busy() < a.busy() || b.steal < a.steal ||
      after.self_jiffies < before.self_jiffies)
    return std::nullopt;
  load_between out;
  out.wall_s = wall;
  const double busy = static_cast<double>(b.busy() - a.busy()),
               self = static_cast<double>(after.self_jiffies - before.self_jiffies);
  out.other_busy_cores = std::max(0.0, (busy - self) / (wall * ticks));
  out.self_busy_cores = self / (wall * ticks);
  if (before.self_cpu_s && after.self_cpu_s && *after.self_cpu_s >= *before.self_cpu_s) {
    out.self_busy_cores = (*after.self_cpu_s - *before.self_cpu_s) / wall;
    out.self_from_clock = true;
  }
  const auto total = b.total() - a.total();
  out.steal_pct = total > 0 ? 100.0 * static_cast<double>(b.steal - a.steal) / static_cast<double>(total) : 0.0;
  if (before.waited_us && after.waited_us && *after.waited_us >= *before.waited_us)
    out.wait_pct = std::min(100.0, 1e-4 * static_cast<double>(*after.waited_us - *before.waited_us) / wall);
  return out;
}

std::vector<std::pair<std::string, double>> load_counters(const load_between& loop,
                                                          const std::optional<load_between>& around) {
  // The CPU clock and the pressure totals count microseconds: exact over any loop; jiffies need the window.
  const bool long_loop = loop.wall_s >= min_load_window_s;
  std::vector<std::pair<std::string, double>> out;
  if (loop.self_from_clock || long_loop) out.emplace_back("cpu_self_busy", loop.self_busy_cores);
  if (loop.wait_pct) out.emplace_back("cpu_wait_pct", *loop.wait_pct);
  if (around && around->wall_s >= min_load_window_s) {
    out.emplace_back("cpu_other_busy", around->other_busy_cores);
    out.emplace_back("cpu_steal_pct", around->steal_pct);
    if (around->wall_s > loop.wall_s * (1 + 1e-9)) out.emplace_back("cpu_load_window_s", around->wall_s);
  }
  return out;
}

std::vector<std::pair<std::string, double>> load_counters(const load_between& loop) {
  if (loop.wall_s < min_load_window_s) return {};
  return load_counters(loop, loop);
}

std::map<int, process_times> scan_processes(const std::string& proc_root) {
  namespace fs = std::filesystem;
  std::map<int, process_times> out;
  std::error_code ec;
  for (fs::directory_iterator it(proc_root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isdigit(c); }))
      continue;
    // A process can exit between the listing and the read: skip it.
    if (const auto text = read_text(it->path().string() + "/stat"))
      if (const auto p = parse_process_stat(*text)) out.emplace(std::stoi(name), *p);
  }
  return out;
}

std::vector<busy_process> busiest(const std::map<int, process_times>& before, const std::map<int, process_times>& after,
                                  double wall_s, double ticks, int exclude_pid, std::size_t top, double min_cores) {
  std::vector<busy_process> out;
  if (!(wall_s > 0) || !(ticks > 0)) return out;
  for (const auto& [pid, later] : after) {
    const auto it = before.find(pid);
    // A pid absent before, or whose time went down, is a new process (or a reused pid): no rate.
    if (pid == exclude_pid || it == before.end() || later.jiffies < it->second.jiffies) continue;
    const double cores = static_cast<double>(later.jiffies - it->second.jiffies) / (wall_s * ticks);
    if (cores >= min_cores) out.push_back({pid, later.name, cores});
  }
  std::sort(out.begin(), out.end(), [](const busy_process& x, const busy_process& y) {
    return x.cores != y.cores ? x.cores > y.cores : x.pid < y.pid;
  });
  if (out.size() > top) out.resize(top);
  return out;
}

std::string describe(const std::vector<busy_process>& busy) {
  std::string out;
  for (const auto& p : busy)
    out += (out.empty() ? "" : "; ") + p.name + "(" + std::to_string(p.pid) + ") " + fixed(p.cores, 1) + " cores";
  return out;
}

std::vector<std::pair<std::string, std::string>> load_facts_at_start(const std::string& proc_root, double window_s) {
  // The per-process scan may take at most this long, so that the whole sample (two scans and
  // the window) costs about 250 ms; a machine with too many processes is not scanned twice.
  constexpr double max_scan_s = 0.05;
  const double start = now_s();
  const auto machine_before = sample_load(proc_root);
  const auto processes_before = scan_processes(proc_root);
  const double scan_s = now_s() - start;
  std::this_thread::sleep_for(std::chrono::duration<double>(std::max(0.0, window_s - scan_s)));
  const double second_scan_at = now_s();
  std::string busy;
  if (scan_s > max_scan_s) {
    busy = "not sampled: reading the stat of " + std::to_string(processes_before.size()) + " processes took " +
           fixed(scan_s * 1e3, 0) + " ms";
  } else {
    const auto processes_after = scan_processes(proc_root);
    busy = describe(busiest(processes_before, processes_after, second_scan_at - start, ticks_per_second(),
                            static_cast<int>(getpid())));
  }
  const auto machine_after = sample_load(proc_root);
  std::optional<load_between> load;
  if (machine_before && machine_after) load = load_during(*machine_before, *machine_after, ticks_per_second());
  return {{"busy_processes_at_start", busy},
          {"cpu_other_busy_at_start", load ? fixed(load->other_busy_cores, 2) : ""},
          {"cpu_steal_pct_at_start", load ? fixed(load->steal_pct, 1) : ""}};
}

}  // namespace solvebench::cpu
