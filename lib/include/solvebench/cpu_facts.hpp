// The CPU's own ceiling and the kernels the BLAS chose for it, as facts for the run's context:
// the theoretical peak (cores x clock x flops per cycle, from /proc/cpuinfo, cpufreq and a
// table of FMA units by model family) and the vector ISA of the BLAS's kernel set, so that a
// rule can tell "Prescott kernels on an AVX-512 CPU" from a library that uses the machine.
//
// Everything is a pure function of parsed text except the *_facts() readers at the bottom, so
// tests feed made-up /proc/cpuinfo texts.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace solvebench::cpu {

using facts = std::vector<std::pair<std::string, std::string>>;

// Cores this process may run on (its affinity mask, which taskset and cgroups narrow), not the
// machine's count; 0 when the mask cannot be read.
int cores_available();

// What /proc/cpuinfo says about its first processor. x86 gives vendor, family, model, "model
// name" and "flags"; aarch64 gives "Features", "CPU implementer" and "CPU part", and no name.
struct cpuinfo {
  std::string architecture;     // "x86_64", "aarch64" or "" (from which keys the text has)
  std::string vendor;           // "GenuineIntel", "AuthenticAMD", "HygonGenuine"; aarch64: "0x41"
  std::string model_name;       // "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz"; "" when absent
  int family = -1, model = -1;  // x86 "cpu family" and "model"
  std::string part;             // aarch64 "CPU part", "0xd0c"
  std::set<std::string> flags;  // x86 "flags", aarch64 "Features"
  double mhz = 0;               // "cpu MHz" (x86: the current clock of that core); 0 when absent
};
cpuinfo parse_cpuinfo(std::string_view text);

// The widest vector instruction set a CPU offers, in the vocabulary blas_core_isa() also uses:
// "avx512" (avx512f), "avx2" (AVX2 with FMA), "avx", "sse2", "sve", "neon"; "" when unknown.
std::string vector_isa(const cpuinfo& cpu);

// The order of those names within one architecture, for comparing a kernel set with the CPU:
// generic 0 < sse/sse2/sse3 1 < avx 2 < avx2 3 < avx512 4; neon 1 < sve 2. -1 for "" or an
// unknown name. (Ranks of x86 and Arm names are not comparable with each other.)
int vector_isa_rank(std::string_view isa);

// How a BLAS kernel set's ISA fits the CPU's: `narrower` leaves speed unused (Prescott kernels
// on an AVX-512 CPU), `beyond` dies of SIGILL at the first call (OPENBLAS_CORETYPE=SkylakeX on
// a CPU without AVX-512), `unknown` when either name is unknown or they are of different
// architectures. Kernels as wide as the CPU's FMA datapath (`cpu_fma_unit_bits`, when > 0)
// match even where the ISA is wider: AVX2 kernels on Zen 4, whose AVX-512 runs on 256-bit units.
enum class kernel_fit { unknown, narrower, matches, beyond };
kernel_fit compare_kernel_isa(std::string_view kernel_isa, std::string_view cpu_isa, int cpu_fma_unit_bits = 0);
const char* to_string(kernel_fit fit) noexcept;  // "unknown", "narrower", "matches", "beyond"

// How many FMA (or, without FMA, add + multiply) units a core has, how wide each is, and where
// the number came from: the count cannot be read from the flags.
struct fma_units {
  int units = 0;         // FMA pipes per core (without FMA: pairs of one add and one multiply pipe)
  int unit_bits = 0;     // datapath width of each: 256 on Zen 4, although its ISA is AVX-512
  bool fma = false;      // fused multiply-add (2 flops per lane); else separate add and multiply
  bool assumed = false;  // no table entry knows this CPU
  std::string source;    // "Xeon Scalable Gold 6xxx (Skylake-SP/Cascade Lake): 2 AVX-512 FMA units"
};
// From the ISA, vendor, family/model, model name (Xeon SKU digits) and Arm part number.
fma_units fma_units_of(const cpuinfo& cpu, const std::string& isa, int sve_vector_bits = 0);

struct clock_reading {
  double mhz = 0;
  std::string source;  // "cpufreq cpuinfo_max_freq", "model name", "measured", "/proc/cpuinfo cpu MHz"; "" when none
};
// The clock the peak is computed at: cpufreq's cpuinfo_max_freq (kHz) when given, else the
// nominal "@ 2.10GHz" in the model name, else "cpu MHz". A clock measured on this core that is
// more than 3% above that one replaces it (source "measured, above the ... MHz of <source>"):
// a ceiling the core is seen to exceed is no ceiling. On this project's VM "cpu MHz" says
// 2445 and the core runs at 3200, and single-core GEMM beat the 2445 MHz peak.
clock_reading choose_clock(const cpuinfo& cpu, std::optional<double> cpufreq_max_khz,
                           std::optional<double> measured_mhz = std::nullopt);

// The clock this thread's core runs at now, from the best of 20 short chains of dependent
// integer adds (one a cycle on the x86-64 and Arm cores in use); about 15 ms.
// Empty on other architectures. Preemption only slows a chain, so the best one is right even
// on a loaded machine; it reads the turbo clock of one busy core, not the all-core one.
std::optional<double> measure_clock_mhz();

struct peak {
  std::string isa;      // vector_isa()
  int vector_bits = 0;  // register width of that ISA (SVE: its vector length)
  fma_units units;
  clock_reading clk;
  int cores = 0;
  double fp64_flops_per_cycle = 0, fp32_flops_per_cycle = 0;  // per core
  double fp64_gflops = 0, fp32_gflops = 0;                    // 0 when unknown
  std::string basis;  // "2 cores x 2600 MHz x 32 fp64 flop/cycle (avx512, 2 FMA units assumed)"
};
// cores x clock x (lanes of one unit x 2 for FMA x units). `sve_vector_bits` is the SVE vector
// length this process runs with (0: not known; then the Arm part table's or 128, assumed).
peak theoretical_peak(const cpuinfo& cpu, const clock_reading& clk, int cores, int sve_vector_bits = 0);

// cpu_model, cpu_vector_isa, cpu_vector_bits, cpu_fma_units, cpu_fma_unit_bits,
// cpu_fma_units_source, cpu_clock_MHz, cpu_clock_source, cpu_clock_measured_MHz,
// cpu_peak_fp64_GFLOPs, cpu_peak_fp32_GFLOPs, cpu_peak_basis. Numbers are "" where unknown.
facts peak_facts(const cpuinfo& cpu, const peak& p, std::optional<double> measured_mhz = std::nullopt);

// The vector ISA of a BLAS kernel set, by its name: OpenBLAS's core ("Prescott", "SkylakeX",
// "NEOVERSEN1", any case) or BLIS's arch ("haswell", "zen3", "skx"). "" when unknown (a
// FlexiBLAS backend name, MKL, a core this table does not list).
std::string blas_core_isa(std::string_view core);

// The variables that force a kernel set on the BLAS, "NAME=value" ";"-joined for those set
// (e.g. "OPENBLAS_CORETYPE=SkylakeX"); "" when none is. `getenv` is injectable for tests.
inline constexpr const char* blas_core_variables[] = {"OPENBLAS_CORETYPE", "BLIS_ARCH_TYPE", "MKL_ENABLE_INSTRUCTIONS",
                                                      "MKL_DEBUG_CPU_TYPE"};
std::string blas_core_override(const std::function<const char*(const char*)>& getenv);

// {"blas_core_isa", blas_core_isa(core)}, {"blas_core_override", from the environment}.
facts blas_core_facts(const std::string& blas_core);

// The peak facts of this machine: /proc/cpuinfo under `proc_root`, cpufreq under
// `cpu_sys_root` (the first CPU of the affinity mask), measure_clock_mhz(), SVE's vector
// length on aarch64.
facts cpu_peak_facts(const std::string& proc_root = "/proc",
                     const std::string& cpu_sys_root = "/sys/devices/system/cpu");

}  // namespace solvebench::cpu
