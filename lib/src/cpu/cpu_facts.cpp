// The CPU's theoretical peak from /proc/cpuinfo, cpufreq and a table of FMA units, and the
// vector ISA of the BLAS's kernel set from its name.
#include "solvebench/cpu_facts.hpp"

#include <sched.h>
#include <sys/prctl.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

namespace solvebench::cpu {
namespace {

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  return std::string(s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1));
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::optional<long> to_long(const std::string& s, int base = 10) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const long v = std::strtol(s.c_str(), &end, base);
  if (end == s.c_str() || *end != '\0') return std::nullopt;
  return v;
}

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

bool has(const cpuinfo& c, const char* flag) { return c.flags.count(flag) != 0; }

// Arm's cores this table knows: name, FMA pipes and their width, SVE vector length (0: none).
struct arm_core {
  const char* implementer;
  const char* part;
  const char* name;
  int units, unit_bits, sve_bits;
};
constexpr arm_core arm_cores[] = {
    {"0x41", "0xd0c", "ARM Neoverse-N1", 2, 128, 0},
    {"0x41", "0xd40", "ARM Neoverse-V1", 4, 128, 256},  // 256-bit SVE on 4 x 128-bit pipes
    {"0x41", "0xd49", "ARM Neoverse-N2", 2, 128, 128},
    {"0x41", "0xd4f", "ARM Neoverse-V2", 4, 128, 128},
    {"0x46", "0x001", "Fujitsu A64FX", 2, 512, 512},
};

const arm_core* arm_core_of(const cpuinfo& c) {
  for (const auto& core : arm_cores)
    if (c.vendor == core.implementer && c.part == core.part) return &core;
  return nullptr;
}

fma_units known(int units, int bits, std::string source) { return {units, bits, true, false, std::move(source)}; }

fma_units assumed(int units, int bits, std::string source) {
  return {units, bits, true, true, "assumed: " + std::move(source)};
}

// AMD (and Hygon) by "cpu family": each family is a core generation.
std::optional<fma_units> amd_units(const cpuinfo& c, const std::string& isa) {
  const std::string fam = " (family " + std::to_string(c.family) + ", model " + std::to_string(c.model) + ")";
  switch (c.family) {
    case 0x15: return known(1, 128, "AMD Bulldozer family" + fam + ": two 128-bit FMA units per module of two cores");
    case 0x17:
      if (c.model < 0x30) return known(2, 128, "AMD Zen/Zen+" + fam + ": 2 x 128-bit FMA units");
      return known(2, 256, "AMD Zen 2" + fam + ": 2 x 256-bit FMA units");
    case 0x18: return known(2, 128, "Hygon Dhyana (Zen)" + fam + ": 2 x 128-bit FMA units");
    case 0x19:
      if (isa == "avx512") return known(2, 256, "AMD Zen 4" + fam + ": AVX-512 on 2 x 256-bit FMA units");
      return known(2, 256, "AMD Zen 3" + fam + ": 2 x 256-bit FMA units");
    case 0x1a:
      // Server (Turin) and desktop (Granite Ridge) parts have the full 512-bit datapath; the
      // mobile ones keep 256 bits.
      if ((c.model <= 0x1f || (c.model >= 0x40 && c.model <= 0x4f)) && isa == "avx512")
        return known(2, 512, "AMD Zen 5" + fam + ": 2 x 512-bit FMA units");
      return assumed(2, 256, "AMD Zen 5" + fam + ", taken as a mobile part with 256-bit FMA units");
    default: return std::nullopt;
  }
}

// Intel by Xeon Scalable SKU (the tier and generation digits of "Gold 6248") or, where the name
// does not say, by the CPU's family 6 model number.
std::optional<fma_units> intel_units(const cpuinfo& c, const std::string& isa) {
  if (isa != "avx512") return std::nullopt;
  static const std::regex sku(R"((Platinum|Gold|Silver|Bronze)\s+(\d)(\d)(\d\d))");
  std::smatch m;
  if (std::regex_search(c.model_name, m, sku)) {
    const int tier = m[2].str()[0] - '0', generation = m[3].str()[0] - '0';
    const std::string name = "Xeon Scalable " + m[1].str() + " " + m[2].str() + m[3].str() + m[4].str();
    if (generation >= 3) return known(2, 512, name + " (Ice Lake-SP or later): 2 AVX-512 FMA units");
    if (tier >= 6 || m[2].str() + m[3].str() + m[4].str() == "5122")
      return known(2, 512, name + " (Skylake-SP/Cascade Lake): 2 AVX-512 FMA units");
    return known(1, 512, name + " (Skylake-SP/Cascade Lake Silver, Bronze, Gold 5xxx): 1 AVX-512 FMA unit");
  }
  if (c.family != 6) return std::nullopt;
  const std::string id = " (family 6, model " + std::to_string(c.model) + ")";
  switch (c.model) {
    case 0x6a:
    case 0x6c: return known(2, 512, "Intel Ice Lake-SP" + id + ": 2 AVX-512 FMA units");
    case 0x8f: return known(2, 512, "Intel Sapphire Rapids" + id + ": 2 AVX-512 FMA units");
    case 0xcf: return known(2, 512, "Intel Emerald Rapids" + id + ": 2 AVX-512 FMA units");
    case 0xad:
    case 0xae: return known(2, 512, "Intel Granite Rapids" + id + ": 2 AVX-512 FMA units");
    case 0x57:
    case 0x85: return known(2, 512, "Intel Xeon Phi" + id + ": 2 AVX-512 FMA units");
    case 0x66:
    case 0x7d:
    case 0x7e:
    case 0x8c:
    case 0x8d:
    case 0xa7:
      return known(1, 512, "Intel client core with AVX-512" + id + ": ports 0 and 1 fuse into 1 AVX-512 FMA unit");
    case 0x55:
      return assumed(2, 512,
                     "Skylake-SP/Cascade Lake" + id +
                         " has 2 AVX-512 FMA units on Platinum and Gold 6xxx, 1 on Silver, Bronze and most "
                         "Gold 5xxx; the model name does not say which");
    default: return std::nullopt;
  }
}

bool is_arm_isa(std::string_view isa) { return isa == "neon" || isa == "sve"; }

int isa_bits(const std::string& isa, int sve_vector_bits) {
  if (isa == "avx512") return 512;
  if (isa == "avx2" || isa == "avx") return 256;
  if (isa == "sse2" || isa == "neon") return 128;
  if (isa == "sve") return sve_vector_bits > 0 ? sve_vector_bits : 128;
  return 0;
}

}  // namespace

int cores_available() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) return 0;
  return CPU_COUNT(&mask);
}

cpuinfo parse_cpuinfo(std::string_view text) {
  cpuinfo c;
  bool seen_processor = false, x86 = false, arm = false;
  std::string arm_architecture;
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(std::string_view(line).substr(0, colon)),
                      value = trim(std::string_view(line).substr(colon + 1));
    if (key == "processor") {
      if (seen_processor) break;  // the first processor's block is enough
      seen_processor = true;
    } else if (key == "vendor_id") {
      c.vendor = value;
    } else if (key == "cpu family") {
      c.family = static_cast<int>(to_long(value).value_or(-1));
    } else if (key == "model") {
      c.model = static_cast<int>(to_long(value).value_or(-1));
    } else if (key == "model name") {
      c.model_name = value;
    } else if (key == "cpu MHz") {
      c.mhz = std::strtod(value.c_str(), nullptr);
    } else if (key == "flags" || key == "Features") {
      (key == "flags" ? x86 : arm) = true;
      std::istringstream words(value);
      for (std::string w; words >> w;) c.flags.insert(w);
    } else if (key == "CPU implementer") {
      c.vendor = value;
      arm = true;
    } else if (key == "CPU part") {
      c.part = value;
    } else if (key == "CPU architecture") {
      arm_architecture = value;
    }
  }
  if (x86) c.architecture = has(c, "lm") ? "x86_64" : "x86";
  else if (arm) c.architecture = (has(c, "asimd") || arm_architecture == "8") ? "aarch64" : "arm";
  return c;
}

std::string vector_isa(const cpuinfo& c) {
  if (c.architecture == "x86_64" || c.architecture == "x86") {
    if (has(c, "avx512f")) return "avx512";
    if (has(c, "avx2") && has(c, "fma")) return "avx2";
    if (has(c, "avx")) return "avx";
    if (has(c, "sse2")) return "sse2";
  } else if (c.architecture == "aarch64") {
    if (has(c, "sve")) return "sve";
    if (has(c, "asimd")) return "neon";
  }
  return {};
}

int vector_isa_rank(std::string_view isa) {
  static const std::pair<std::string_view, int> ranks[] = {{"generic", 0}, {"sse", 1},  {"sse2", 1},
                                                           {"sse3", 1},    {"avx", 2},  {"avx2", 3},
                                                           {"avx512", 4},  {"neon", 1}, {"sve", 2}};
  for (const auto& [name, rank] : ranks)
    if (name == isa) return rank;
  return -1;
}

kernel_fit compare_kernel_isa(std::string_view kernel, std::string_view cpu_isa, int cpu_fma_unit_bits) {
  const int k = vector_isa_rank(kernel), c = vector_isa_rank(cpu_isa);
  if (k < 0 || c < 0 || (kernel != "generic" && is_arm_isa(kernel) != is_arm_isa(cpu_isa))) return kernel_fit::unknown;
  if (k > c) return kernel_fit::beyond;
  if (k == c) return kernel_fit::matches;
  // AVX2 (FMA) kernels fill units no wider than 256 bits.
  if (kernel == "avx2" && cpu_fma_unit_bits > 0 && cpu_fma_unit_bits <= 256) return kernel_fit::matches;
  return kernel_fit::narrower;
}

const char* to_string(kernel_fit fit) noexcept {
  switch (fit) {
    case kernel_fit::narrower: return "narrower";
    case kernel_fit::matches: return "matches";
    case kernel_fit::beyond: return "beyond";
    default: return "unknown";
  }
}

fma_units fma_units_of(const cpuinfo& c, const std::string& isa, int sve_vector_bits) {
  const int bits = isa_bits(isa, sve_vector_bits);
  if (bits == 0) return {0, 0, false, true, "unknown: no vector ISA this table knows"};
  if (c.architecture == "aarch64") {
    if (const arm_core* core = arm_core_of(c))
      return known(core->units, isa == "sve" ? std::min(core->unit_bits, bits) : std::min(core->unit_bits, 128),
                   std::string(core->name) + " (part " + c.part + "): " + std::to_string(core->units) + " x " +
                       std::to_string(core->unit_bits) + "-bit FMA units");
    return assumed(2, bits,
                   "2 x " + std::to_string(bits) + "-bit FMA units (Arm part " + c.part + " not in the table)");
  }
  if (isa == "sse2" || isa == "avx")  // no FMA: an add and a multiply pipe, each the full width
    return {1, bits, false, true, "assumed: no FMA; one " + std::to_string(bits) + "-bit add and one multiply pipe"};
  const bool amd = c.vendor == "AuthenticAMD" || c.vendor == "HygonGenuine";
  if (const auto u = amd ? amd_units(c, isa) : c.vendor == "GenuineIntel" ? intel_units(c, isa) : std::nullopt)
    return *u;
  return assumed(2, bits, "2 x " + std::to_string(bits) + "-bit FMA units, as on most cores with FMA");
}

clock_reading choose_clock(const cpuinfo& c, std::optional<double> cpufreq_max_khz,
                           std::optional<double> measured_mhz) {
  clock_reading stated;
  static const std::regex nominal(R"(@\s*([0-9]+(\.[0-9]+)?)\s*([GM])Hz)");
  std::smatch m;
  if (cpufreq_max_khz && *cpufreq_max_khz > 0) stated = {*cpufreq_max_khz / 1000, "cpufreq cpuinfo_max_freq"};
  else if (std::regex_search(c.model_name, m, nominal))
    stated = {std::strtod(m[1].str().c_str(), nullptr) * (m[3] == "G" ? 1000 : 1), "model name"};
  else if (c.mhz > 0) stated = {c.mhz, "/proc/cpuinfo cpu MHz"};
  if (measured_mhz && *measured_mhz > 1.03 * stated.mhz)
    return {*measured_mhz,
            stated.mhz > 0 ? "measured, above the " + fixed(stated.mhz, 0) + " MHz of " + stated.source : "measured"};
  return stated;
}

std::optional<double> measure_clock_mhz() {
#if defined(__x86_64__) || defined(__aarch64__)
  constexpr std::uint64_t adds = 2'000'000;
  double best_s = 0;
  for (int attempt = 0; attempt < 20; ++attempt) {
    std::uint64_t x = 0;
    const auto start = std::chrono::steady_clock::now();
    for (std::uint64_t i = 0; i < adds; ++i) {
      // One add whose result the next one needs: the chain runs at one add a cycle, and the
      // asm keeps the compiler from folding it into a single addition.
#if defined(__x86_64__)
      asm volatile("add $1, %0" : "+r"(x));
#else
      asm volatile("add %0, %0, #1" : "+r"(x));
#endif
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (s > 0 && (best_s == 0 || s < best_s)) best_s = s;
  }
  if (best_s > 0) return static_cast<double>(adds) / best_s / 1e6;
#endif
  return std::nullopt;
}

peak theoretical_peak(const cpuinfo& c, const clock_reading& clk, int cores, int sve_vector_bits) {
  peak p;
  p.isa = vector_isa(c);
  if (p.isa == "sve" && sve_vector_bits <= 0)
    if (const arm_core* core = arm_core_of(c)) sve_vector_bits = core->sve_bits;
  p.vector_bits = isa_bits(p.isa, sve_vector_bits);
  p.units = fma_units_of(c, p.isa, sve_vector_bits);
  p.clk = clk;
  p.cores = cores;
  // Lanes of one unit x 2 (a fused multiply-add, or one add plus one multiply) x units.
  p.fp64_flops_per_cycle = p.units.unit_bits / 64.0 * 2 * p.units.units;
  p.fp32_flops_per_cycle = 2 * p.fp64_flops_per_cycle;
  if (p.fp64_flops_per_cycle <= 0 || clk.mhz <= 0 || cores <= 0) {
    p.basis = p.isa.empty()  ? "unknown: no vector ISA this table knows"
              : clk.mhz <= 0 ? "unknown: no clock could be read"
                             : "unknown: no cores in this process's affinity mask";
    return p;
  }
  p.fp64_gflops = cores * clk.mhz * p.fp64_flops_per_cycle / 1e3;
  p.fp32_gflops = 2 * p.fp64_gflops;
  const fma_units& u = p.units;
  p.basis = std::to_string(cores) + (cores == 1 ? " core x " : " cores x ") + fixed(clk.mhz, 0) + " MHz x " +
            fixed(p.fp64_flops_per_cycle, 0) + " fp64 flop/cycle (" + p.isa + ", " + std::to_string(u.units) + " x " +
            std::to_string(u.unit_bits) + "-bit " + (u.fma ? "FMA units" : "add + multiply pipes") +
            (u.assumed ? " assumed" : "") + ")";
  return p;
}

facts peak_facts(const cpuinfo& c, const peak& p, std::optional<double> measured_mhz) {
  std::string model = c.model_name;
  if (model.empty() && c.architecture == "aarch64")
    model = arm_core_of(c) ? arm_core_of(c)->name : "Arm implementer " + c.vendor + " part " + c.part;
  const auto number = [](double v, int decimals) { return v > 0 ? fixed(v, decimals) : std::string(); };
  return {{"cpu_model", model},
          {"cpu_vector_isa", p.isa},
          {"cpu_vector_bits", p.vector_bits > 0 ? std::to_string(p.vector_bits) : ""},
          {"cpu_fma_units", p.units.units > 0 ? std::to_string(p.units.units) : ""},
          {"cpu_fma_unit_bits", p.units.unit_bits > 0 ? std::to_string(p.units.unit_bits) : ""},
          {"cpu_fma_units_source", p.units.source},
          {"cpu_clock_MHz", number(p.clk.mhz, 0)},
          {"cpu_clock_source", p.clk.source},
          {"cpu_clock_measured_MHz", measured_mhz ? number(*measured_mhz, 0) : ""},
          {"cpu_peak_fp64_GFLOPs", number(p.fp64_gflops, 1)},
          {"cpu_peak_fp32_GFLOPs", number(p.fp32_gflops, 1)},
          {"cpu_peak_basis", p.basis}};
}

std::string blas_core_isa(std::string_view core) {
  // OpenBLAS's core names (driver/others/dynamic*.c; uppercase in builds for one target) and
  // BLIS's arch names (bli_arch_string), which share the names of the cores they both know.
  static const std::pair<std::string_view, std::string_view> table[] = {{"generic", "generic"},
                                                                        {"katmai", "sse"},
                                                                        {"coppermine", "sse"},
                                                                        {"northwood", "sse2"},
                                                                        {"banias", "sse2"},
                                                                        {"athlon", "sse2"},
                                                                        {"opteron", "sse2"},
                                                                        {"prescott", "sse3"},
                                                                        {"opteron_sse3", "sse3"},
                                                                        {"barcelona", "sse3"},
                                                                        {"nano", "sse3"},
                                                                        {"core2", "sse3"},
                                                                        {"penryn", "sse3"},
                                                                        {"dunnington", "sse3"},
                                                                        {"nehalem", "sse3"},
                                                                        {"atom", "sse3"},
                                                                        {"bobcat", "sse3"},
                                                                        {"sandybridge", "avx"},
                                                                        {"bulldozer", "avx"},
                                                                        {"haswell", "avx2"},
                                                                        {"zen", "avx2"},
                                                                        {"zen2", "avx2"},
                                                                        {"zen3", "avx2"},
                                                                        {"excavator", "avx2"},
                                                                        {"steamroller", "avx2"},
                                                                        {"piledriver", "avx2"},
                                                                        {"skylakex", "avx512"},
                                                                        {"cooperlake", "avx512"},
                                                                        {"sapphirerapids", "avx512"},
                                                                        {"skx", "avx512"},
                                                                        {"knl", "avx512"},
                                                                        {"zen4", "avx512"},
                                                                        {"zen5", "avx512"},
                                                                        {"armv8", "neon"},
                                                                        {"cortexa53", "neon"},
                                                                        {"cortexa55", "neon"},
                                                                        {"cortexa57", "neon"},
                                                                        {"cortexa72", "neon"},
                                                                        {"cortexa73", "neon"},
                                                                        {"cortexx1", "neon"},
                                                                        {"neoversen1", "neon"},
                                                                        {"thunderx", "neon"},
                                                                        {"thunderx2t99", "neon"},
                                                                        {"thunderx2", "neon"},
                                                                        {"thunderx3t110", "neon"},
                                                                        {"tsv110", "neon"},
                                                                        {"emag8180", "neon"},
                                                                        {"falkor", "neon"},
                                                                        {"vortex", "neon"},
                                                                        {"firestorm", "neon"},
                                                                        {"altra", "neon"},
                                                                        {"altramax", "neon"},
                                                                        {"neoversev1", "sve"},
                                                                        {"neoversen2", "sve"},
                                                                        {"neoversev2", "sve"},
                                                                        {"a64fx", "sve"},
                                                                        {"armv8sve", "sve"},
                                                                        {"armsve", "sve"}};
  const std::string name = lower(trim(core));
  for (const auto& [key, isa] : table)
    if (key == name) return std::string(isa);
  return {};
}

std::string blas_core_override(const std::function<const char*(const char*)>& getenv) {
  std::string out;
  for (const char* name : blas_core_variables)
    if (const char* value = getenv(name)) out += (out.empty() ? "" : ";") + std::string(name) + "=" + value;
  return out;
}

facts blas_core_facts(const std::string& blas_core) {
  return {{"blas_core_isa", blas_core_isa(blas_core)},
          {"blas_core_override", blas_core_override([](const char* name) { return std::getenv(name); })}};
}

facts cpu_peak_facts(const std::string& proc_root, const std::string& cpu_sys_root) {
  const cpuinfo c = parse_cpuinfo(read_text(proc_root + "/cpuinfo").value_or(""));
  // The clock of a CPU this process runs on: the first of its affinity mask.
  std::size_t first = 0;
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) == 0)
    while (first + 1 < CPU_SETSIZE && !CPU_ISSET(first, &mask)) ++first;
  std::optional<double> max_khz;
  if (const auto text = read_text(cpu_sys_root + "/cpu" + std::to_string(first) + "/cpufreq/cpuinfo_max_freq"))
    if (const auto khz = to_long(trim(*text))) max_khz = static_cast<double>(*khz);
  int sve_bits = 0;
#if defined(__aarch64__) && defined(PR_SVE_GET_VL)
  if (const int vl = prctl(PR_SVE_GET_VL, 0, 0, 0, 0); vl > 0) sve_bits = (vl & PR_SVE_VL_LEN_MASK) * 8;
#endif
  const auto measured = measure_clock_mhz();
  return peak_facts(c, theoretical_peak(c, choose_clock(c, max_khz, measured), cores_available(), sve_bits), measured);
}

}  // namespace solvebench::cpu
