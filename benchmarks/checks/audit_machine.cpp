// Audit rules that hold a run against the machine it ran on: the BLAS's threads and kernels,
// the variables that override them, the clock, a loaded host, and each device's GEMM against
// the device's own theoretical peak. Their findings concern every row of a device.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <sstream>

#include "checks/audit_rules.hpp"
#include "checks/operation.hpp"
#include "checks/text.hpp"
#include "checks/thresholds.hpp"
#include "solvebench/cpu_facts.hpp"

namespace solvebench::bench::audit_detail {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The OpenBLAS core whose kernels fit an ISA, for the advice.
std::string core_for(const std::string& isa) {
  switch (cpu::vector_isa_rank(isa)) {
    case 4: return "SkylakeX";
    case 3: return "Haswell";
    case 2: return "Sandybridge";
    default: return "";
  }
}

// The CPU rows that run on the BLAS's own threads (MPI rows set one thread per rank on purpose).
std::vector<const row_record*> threaded_cpu_rows(const rule_input& in) {
  std::vector<const row_record*> out;
  for (const auto* r : in.cpu_rows())
    if (r->id.role != row_role::spread) out.push_back(r);
  return out;
}

std::string rows_phrase(std::size_t n) { return count(n, "CPU row"); }

// "The BLAS runs Prescott (sse3) kernels on a CPU with avx512f": empty when they fit. The BLAS of
// row `r` (its own facts, else the run's), or the run's when there is no row.
std::string kernel_mismatch(const rule_input& in, const row_record* r = nullptr) {
  const auto fact = [&](const char* key) { return r ? in.fact(*r, key) : in.context(key); };
  const std::string core = fact("blas_core"), core_isa = fact("blas_core_isa");
  const std::string cpu_isa = in.context("cpu_vector_isa");
  const int fma_bits = static_cast<int>(in.number("cpu_fma_unit_bits").value_or(0));
  if (cpu::compare_kernel_isa(core_isa, cpu_isa, fma_bits) != cpu::kernel_fit::narrower) return "";
  const std::string vendor = fact("blas_vendor").empty() ? "the BLAS" : fact("blas_vendor");
  std::string out = vendor + " runs its " + core + " (" + core_isa + ") kernels on a CPU with " + cpu_isa;
  const std::string override_var = fact("blas_core_override");
  if (!override_var.empty()) return out + ", as " + override_var + " in the environment asks";
  const std::string better = core_for(cpu_isa);
  return out + ": it does not know this CPU (" + in.context("cpu_model") +
         "); set OPENBLAS_CORETYPE=" + (better.empty() ? "<a core of this CPU's ISA>" : better) +
         ", or use an OpenBLAS that knows this CPU";
}

std::optional<std::string> blas_threads(const rule_input& in, std::vector<finding>& out) {
  const auto rows = threaded_cpu_rows(in);
  if (rows.empty()) return std::nullopt;
  const auto cores = in.number("cores_available");
  // Each library's rows by its own thread count (a run of several CPU libraries has one each).
  std::map<std::pair<std::string, double>, std::size_t> rows_of;  // (vendor, threads) -> rows
  for (const auto* r : rows) {
    const auto threads = in.fact_number(*r, "blas_threads");
    if (!threads || !cores) return std::string("blas_threads or cores_available is missing from the context");
    ++rows_of[{in.fact(*r, "blas_vendor"), *threads}];
  }
  const bool several = rows_of.size() > 1;
  for (const auto& [key, n] : rows_of) {
    const auto& [vendor, threads] = key;
    if (threads >= *cores) continue;
    const std::string who = several && !vendor.empty() ? vendor : "The BLAS";
    out.push_back({"blas_threads",
                   severity_warning,
                   {},
                   who + " runs " + whole(threads) + " thread" + (threads == 1 ? "" : "s") + " but " + whole(*cores) +
                       " cores are available to this process: the " + rows_phrase(n) + (several ? " it timed" : "") +
                       " measure part of the machine."});
  }
  return std::nullopt;
}

// Variables that override the BLAS's own choice: a note when the choice fits the machine, a
// warning when it makes the CPU rows slower than the machine can be.
std::optional<std::string> thread_env(const rule_input& in, std::vector<finding>& out) {
  const auto rows = in.cpu_rows();
  const std::string vars = in.context("thread_env");
  if (rows.empty() || vars.empty()) return std::nullopt;
  const auto cores = in.number("cores_available");
  std::vector<std::string> fine, harmful;
  std::istringstream list(vars);
  for (std::string item; std::getline(list, item, ';');) {
    if (item.empty()) continue;
    const std::string name = item.substr(0, item.find('=')), value = item.substr(item.find('=') + 1);
    if (name.find("CORETYPE") != std::string::npos || name.find("ARCH") != std::string::npos) {
      const std::string mismatch = kernel_mismatch(in);
      if (!mismatch.empty()) harmful.push_back(item + ": " + mismatch);
      else fine.push_back(item + " (kernels that fit this CPU's " + in.context("cpu_vector_isa") + ")");
      continue;
    }
    if (name.find("BIND") != std::string::npos || name.find("AFFINITY") != std::string::npos ||
        name.find("PLACES") != std::string::npos) {
      harmful.push_back(item + ": it pins threads to cores, and the cores counted available (" +
                        in.context("cores_available") + ") may be only those it left this process");
      continue;
    }
    std::istringstream number(value);
    double threads = 0;
    if (number >> threads && cores && threads < *cores)
      harmful.push_back(item + ": fewer threads than the " + whole(*cores) + " cores available");
    else fine.push_back(item);
  }
  if (!harmful.empty())
    out.push_back({"thread_env",
                   severity_warning,
                   {},
                   "Set in the environment: " + join(harmful, "; ") + ". This makes the " + rows_phrase(rows.size()) +
                       " slower than the machine can be."});
  if (!fine.empty())
    out.push_back({"thread_env",
                   severity_note,
                   {},
                   "Set in the environment: " + join(fine, "; ") +
                       "; it overrides the BLAS's own choice in a way "
                       "that fits this machine."});
  return std::nullopt;
}

std::optional<std::string> cpu_frequency_scaling(const rule_input& in, std::vector<finding>& out) {
  const auto rows = in.cpu_rows();
  if (rows.empty()) return std::nullopt;
  std::vector<std::string> why;
  if (in.context("cpu_scaling_enabled") == "true")
    why.push_back("Google Benchmark reports CPU frequency scaling enabled");
  std::string other;
  std::istringstream list(in.context("cpu_governor"));
  for (std::string g; std::getline(list, g, ',');)
    if (!g.empty() && g != "performance") other += (other.empty() ? "" : ", ") + g;
  if (!other.empty()) why.push_back("the cpufreq governor is " + other + ", not performance");
  if (why.empty()) return std::nullopt;
  std::string msg = join(why, "; ");
  msg[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(msg[0])));
  out.push_back({"cpu_frequency_scaling",
                 severity_warning,
                 {},
                 msg + ": the clock may change under the " + rows_phrase(rows.size()) + "."});
  return std::nullopt;
}

std::optional<std::string> gbench_debug_build(const rule_input& in, std::vector<finding>& out) {
  if (lower(in.context("library_build_type")) != "debug") return std::nullopt;
  out.push_back({"gbench_debug_build",
                 severity_note,
                 {},
                 "The Google Benchmark library is a debug build; solve_bench times its rows itself (CUDA events or "
                 "a steady clock around the library call only), so that build changes no number."});
  return std::nullopt;
}

// The fastest GEMM of a device and precision at its largest measured n (at least 1024:
// smaller ones cannot approach any peak).
const row_record* largest_gemm(const rule_input& in, row_device device, char precision) {
  const row_record* best = nullptr;
  for (const auto* r : in.rows)
    if (r->id.op == ops::gemm.name && r->id.device == device && r->id.precision == precision && r->id.n >= 1024 &&
        r->id.role != row_role::spread && r->counter("GFLOP/s") && (!best || r->id.n > best->id.n))
      best = r;
  return best;
}

std::optional<std::string> below_machine_peak(const rule_input& in, std::vector<finding>& out) {
  std::vector<std::string> unknown;
  bool any = false;
  for (const row_device on : {row_device::cpu, row_device::gpu})
    for (const char precision : {'d', 's'}) {
      const row_record* g = largest_gemm(in, on, precision);
      const std::string device = text_of(on);
      if (!g) continue;
      any = true;
      const std::string key = device + "_peak_" + (precision == 'd' ? "fp64" : "fp32") + "_GFLOPs";
      const auto peak = in.number(key);
      if (!peak || *peak <= 0) {
        unknown.push_back(key);
        continue;
      }
      const double rate = *g->counter("GFLOP/s"), share = rate / *peak;
      const std::string head = g->name + " reaches " + sig3(rate) + " GFLOP/s, " + percent(share) + " of this " +
                               device_name(on) + "'s theoretical " + sig3(*peak) + " GFLOP/s (" +
                               in.context(device + "_peak_basis") + ")";
      if (share >= limits::peak_fraction) continue;
      std::vector<std::string> causes;
      if (on == row_device::cpu) {
        if (const std::string m = kernel_mismatch(in, g); !m.empty()) causes.push_back(m);
        const auto threads = in.fact_number(*g, "blas_threads"), cores = in.number("cores_available");
        if (threads && cores && *threads < *cores)
          causes.push_back("the BLAS runs " + whole(*threads) + " threads on " + whole(*cores) + " cores");
        // Like for like: a GEMM that had fewer cores than its threads is held to the peak of
        // the cores it had; a fair share of those is a machine shared, not a slow kernel.
        if (const std::string short_of = short_of_threads(in, *g); !short_of.empty() && cores) {
          const double had = *g->counter("cpu_self_busy") / *cores;
          if (causes.empty() && had > 0 && share / had >= limits::peak_fraction) {
            out.push_back({"below_machine_peak",
                           severity_note,
                           {g->id},
                           head + ", but it " + short_of + ": on the cores it had it reaches " + percent(share / had) +
                               " of their peak. The machine was shared, the kernels are fine."});
            continue;
          }
          causes.push_back("the row " + short_of);
        }
      }
      if (const std::string load = load_during({g}); !load.empty() && causes.empty()) {
        out.push_back({"below_machine_peak", severity_note, {g->id}, head + ". " + load});
        continue;
      }
      const std::string why = causes.empty() ? " No cause is known here (clock, thermal limits or another load?)."
                                             : " Explained by: " + join(causes, "; ") + ".";
      out.push_back({"below_machine_peak",
                     severity_warning,
                     {g->id},
                     head + ": every " + device_name(on) +
                         " row of the run is slower than the "
                         "machine can be, and any speedup against it is inflated." +
                         why});
    }
  // The BLAS's kernels narrower than the CPU is worth knowing even where GEMM clears the bar.
  if (!in.cpu_rows().empty() && in.context("blas_core_override").empty()) {
    const std::string m = kernel_mismatch(in);
    const bool already =
        std::any_of(out.begin(), out.end(), [](const finding& f) { return f.rule == "below_machine_peak"; });
    if (!m.empty() && !already) out.push_back({"below_machine_peak", severity_note, {}, m + "."});
  }
  if (any && !unknown.empty()) return "no theoretical peak in the context for " + join(unknown, ", ");
  return std::nullopt;
}

// Other processes on the host during the CPU rows (per row, from /proc/stat), the time tasks
// waited for a CPU (PSI), steal time, and the load when the run started.
std::optional<std::string> cpu_loaded(const rule_input& in, std::vector<finding>& out) {
  const auto rows = in.cpu_rows();
  if (rows.empty()) return std::nullopt;
  std::vector<row_id> loaded;
  double worst = 0, worst_steal = 0, worst_wait = 0;
  std::string worst_name;
  bool measured = false;
  for (const auto* r : rows) {
    const auto busy = r->counter("cpu_other_busy"), steal = r->counter("cpu_steal_pct"),
               wait = r->counter("cpu_wait_pct");
    if (busy || steal || wait) measured = true;
    if (load_met(*r).empty()) continue;
    loaded.push_back(r->id);
    if (busy && *busy > worst) {
      worst = *busy;
      worst_name = r->name;
    }
    if (steal) worst_steal = std::max(worst_steal, *steal);
    if (wait) worst_wait = std::max(worst_wait, *wait);
  }
  const std::string load = in.context("load_avg");
  const auto cores = in.number("cores_available");
  const double load1 = load.empty() ? 0 : std::strtod(load.c_str(), nullptr);
  const bool loaded_at_start = cores && load1 >= std::max(1.0, limits::load_avg_per_core * *cores);
  if (loaded.empty() && !loaded_at_start) {
    if (!measured) return std::string("no CPU row carries cpu_other_busy (a monitor that cannot read /proc/stat)");
    return std::nullopt;
  }
  std::string msg;
  if (!loaded.empty()) {
    std::vector<std::string> what;
    if (worst >= limits::other_busy_cores)
      what.push_back("other processes kept up to " + sig3(worst) + " cores busy" +
                     (cores ? " (of " + whole(*cores) + ")" : std::string()) + " during " + worst_name);
    if (worst_wait >= limits::cpu_wait_pct)
      what.push_back("a task waited for a CPU up to " + sig3(worst_wait) + "% of a row's loop");
    if (worst_steal > 0) what.push_back("steal up to " + sig3(worst_steal) + "%");
    msg = count(loaded.size(), "CPU row") + " met load (" + join(what, ", ") + "): " + row_list(loaded) + ". ";
  }
  if (loaded_at_start) {
    msg += "At the start the load average was " + sig3(load1) + " on " + whole(*cores) + " cores";
    const std::string busy = in.context("busy_processes_at_start");
    msg += busy.empty() ? ". " : " (busy: " + busy + "). ";
  }
  out.push_back({"cpu_loaded", severity_warning, loaded,
                 msg + "These rows measure the share of the machine the other work left them."});
  return std::nullopt;
}

}  // namespace

const std::vector<rule>& machine_rules() {
  static const std::vector<rule> rules = {
      {"blas_threads", blas_threads},
      {"thread_env", thread_env},
      {"cpu_frequency_scaling", cpu_frequency_scaling},
      {"gbench_debug_build", gbench_debug_build},
      {"below_machine_peak", below_machine_peak},
      {"cpu_loaded", cpu_loaded},
  };
  return rules;
}

}  // namespace solvebench::bench::audit_detail
