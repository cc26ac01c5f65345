// The CPU's theoretical peak from made-up /proc/cpuinfo texts (an AVX-512 Xeon, AMD EPYCs, an
// SSE2-only Core 2, Arm Neoverse cores), and the ISA of a BLAS kernel set from its name.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>

#include "solvebench/cpu_facts.hpp"

namespace cpu = solvebench::cpu;
namespace fs = std::filesystem;

namespace {

// One processor block as x86 Linux prints it; a second block follows, which must be ignored.
std::string x86_cpuinfo(const std::string& vendor, int family, int model, const std::string& name, double mhz,
                        const std::string& flags) {
  std::string block = "processor\t: 0\nvendor_id\t: " + vendor + "\ncpu family\t: " + std::to_string(family) +
                      "\nmodel\t\t: " + std::to_string(model) + "\nmodel name\t: " + name +
                      "\nstepping\t: 7\ncpu MHz\t\t: " + std::to_string(mhz) +
                      "\ncache size\t: 512 KB\nflags\t\t: " + flags + "\nbogomips\t: 4890.80\n\n";
  return block + "processor\t: 1\nvendor_id\t: Other\nmodel name\t: not this one\nflags\t\t: fpu\n\n";
}

const std::string avx512_flags =
    "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat lm sse sse2 ssse3 fma sse4_1 sse4_2 avx "
    "f16c avx2 bmi2 avx512f avx512dq avx512cd avx512bw avx512vl";
const std::string avx2_flags = "fpu vme de pse tsc lm sse sse2 pni ssse3 fma sse4_1 sse4_2 avx f16c avx2 bmi1 bmi2";

const std::string neoverse_n1 =
    "processor\t: 0\nBogoMIPS\t: 243.75\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp "
    "asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: "
    "0x3\nCPU part\t: 0xd0c\nCPU revision\t: 1\n\nprocessor\t: 1\nFeatures\t: fp\nCPU part\t: 0xd03\n";

std::map<std::string, std::string> as_map(const cpu::facts& f) { return {f.begin(), f.end()}; }

cpu::peak peak_of(const std::string& text, std::optional<double> max_khz, int cores, int sve_bits = 0) {
  const auto c = cpu::parse_cpuinfo(text);
  return cpu::theoretical_peak(c, cpu::choose_clock(c, max_khz), cores, sve_bits);
}

}  // namespace

TEST(CpuPeak, XeonGold6xxxHasTwoAvx512FmaUnitsAndItsNominalClock) {
  const std::string text =
      x86_cpuinfo("GenuineIntel", 6, 85, "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz", 2494.1, avx512_flags);
  const auto c = cpu::parse_cpuinfo(text);
  EXPECT_EQ(c.architecture, "x86_64");
  EXPECT_EQ(c.vendor, "GenuineIntel");
  EXPECT_EQ(c.model, 85);
  EXPECT_EQ(c.flags.count("fpu"), 1u);
  const auto p = peak_of(text, std::nullopt, 2);
  EXPECT_EQ(p.isa, "avx512");
  EXPECT_EQ(p.vector_bits, 512);
  EXPECT_EQ(p.units.units, 2);
  EXPECT_FALSE(p.units.assumed) << p.units.source;
  EXPECT_EQ(p.clk.source, "model name");
  EXPECT_DOUBLE_EQ(p.clk.mhz, 2500);
  EXPECT_DOUBLE_EQ(p.fp64_flops_per_cycle, 32);
  EXPECT_DOUBLE_EQ(p.fp64_gflops, 160);  // 2 cores x 2.5 GHz x 8 lanes x 2 (FMA) x 2 units
  EXPECT_DOUBLE_EQ(p.fp32_gflops, 320);
  EXPECT_EQ(p.basis, "2 cores x 2500 MHz x 32 fp64 flop/cycle (avx512, 2 x 512-bit FMA units)");

  const auto f = as_map(cpu::peak_facts(c, p));
  EXPECT_EQ(f.at("cpu_model"), "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz");
  EXPECT_EQ(f.at("cpu_vector_isa"), "avx512");
  EXPECT_EQ(f.at("cpu_fma_units"), "2");
  EXPECT_EQ(f.at("cpu_fma_unit_bits"), "512");
  EXPECT_NE(f.at("cpu_fma_units_source").find("Gold 6248"), std::string::npos) << f.at("cpu_fma_units_source");
  EXPECT_EQ(f.at("cpu_clock_MHz"), "2500");
  EXPECT_EQ(f.at("cpu_clock_source"), "model name");
  EXPECT_EQ(f.at("cpu_peak_fp64_GFLOPs"), "160.0");
  EXPECT_EQ(f.at("cpu_peak_fp32_GFLOPs"), "320.0");
  EXPECT_EQ(f.at("cpu_clock_measured_MHz"), "");  // none given
  EXPECT_EQ(f.size(), 12u);
}

TEST(CpuPeak, CpufreqMaximumWinsOverTheNominalClock) {
  const auto p =
      peak_of(x86_cpuinfo("GenuineIntel", 6, 85, "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz", 1000, avx512_flags),
              3900000.0, 4);
  EXPECT_EQ(p.clk.source, "cpufreq cpuinfo_max_freq");
  EXPECT_DOUBLE_EQ(p.fp64_gflops, 4 * 3900 * 32 / 1e3);
}

TEST(CpuPeak, AMeasuredClockAboveTheStatedOneReplacesIt) {
  // A VM's "cpu MHz" is its host's nominal clock; the core boosts above it.
  const auto c = cpu::parse_cpuinfo(x86_cpuinfo("AuthenticAMD", 25, 1, "AMD EPYC", 2445.404, avx2_flags));
  const auto boosted = cpu::choose_clock(c, std::nullopt, 3200.0);
  EXPECT_DOUBLE_EQ(boosted.mhz, 3200);
  EXPECT_EQ(boosted.source, "measured, above the 2445 MHz of /proc/cpuinfo cpu MHz");
  const auto close = cpu::choose_clock(c, std::nullopt, 2500.0);  // within 3%: the stated one stays
  EXPECT_DOUBLE_EQ(close.mhz, 2445.404);
  EXPECT_EQ(close.source, "/proc/cpuinfo cpu MHz");
  EXPECT_EQ(cpu::choose_clock(c, 3500000.0, 3200.0).source, "cpufreq cpuinfo_max_freq");
  EXPECT_EQ(cpu::choose_clock(cpu::parse_cpuinfo(neoverse_n1), std::nullopt, 2600.0).source, "measured");
  const auto p = cpu::theoretical_peak(c, boosted, 2);
  EXPECT_EQ(p.basis, "2 cores x 3200 MHz x 16 fp64 flop/cycle (avx2, 2 x 256-bit FMA units)");
  EXPECT_EQ(as_map(cpu::peak_facts(c, p, 3200.4)).at("cpu_clock_measured_MHz"), "3200");
}

TEST(CpuPeak, MeasuresThisCoresClock) {
#if defined(__x86_64__) || defined(__aarch64__)
  const auto mhz = cpu::measure_clock_mhz();
  ASSERT_TRUE(mhz);
  std::cout << "measured clock: " << *mhz << " MHz\n";
  EXPECT_GT(*mhz, 300);   // no server core this decade runs slower, and preemption cannot
  EXPECT_LT(*mhz, 7000);  // make the best chain faster than one add a cycle
#else
  EXPECT_FALSE(cpu::measure_clock_mhz());
#endif
}

TEST(CpuPeak, XeonSilverHasOneFmaUnitAndIceLakeSilverTwo) {
  const auto silver =
      peak_of(x86_cpuinfo("GenuineIntel", 6, 85, "Intel(R) Xeon(R) Silver 4214 CPU @ 2.20GHz", 0, avx512_flags),
              std::nullopt, 1);
  EXPECT_EQ(silver.units.units, 1);
  EXPECT_DOUBLE_EQ(silver.fp64_flops_per_cycle, 16);
  EXPECT_EQ(silver.basis, "1 core x 2200 MHz x 16 fp64 flop/cycle (avx512, 1 x 512-bit FMA units)");
  const auto gold5 =
      peak_of(x86_cpuinfo("GenuineIntel", 6, 85, "Intel(R) Xeon(R) Gold 5218 CPU @ 2.30GHz", 0, avx512_flags),
              std::nullopt, 1);
  EXPECT_EQ(gold5.units.units, 1);
  const auto ice =
      peak_of(x86_cpuinfo("GenuineIntel", 6, 106, "Intel(R) Xeon(R) Silver 4314 CPU @ 2.40GHz", 0, avx512_flags),
              std::nullopt, 1);
  EXPECT_EQ(ice.units.units, 2);
  const auto spr = peak_of(x86_cpuinfo("GenuineIntel", 6, 143, "Intel(R) Xeon(R) Platinum 8480+", 2000, avx512_flags),
                           std::nullopt, 1);
  EXPECT_EQ(spr.units.units, 2);
  EXPECT_FALSE(spr.units.assumed);
  EXPECT_EQ(spr.clk.source, "/proc/cpuinfo cpu MHz");
}

TEST(CpuPeak, AVirtualSkylakeWithoutASkuNameIsAssumedToHaveTwoUnits) {
  const auto p = peak_of(x86_cpuinfo("GenuineIntel", 6, 85, "Intel Xeon Processor (Skylake, IBRS)", 2600, avx512_flags),
                         std::nullopt, 2);
  EXPECT_EQ(p.units.units, 2);
  EXPECT_TRUE(p.units.assumed);
  EXPECT_EQ(p.units.source.rfind("assumed: ", 0), 0u) << p.units.source;
  EXPECT_EQ(p.basis, "2 cores x 2600 MHz x 32 fp64 flop/cycle (avx512, 2 x 512-bit FMA units assumed)");
}

TEST(CpuPeak, AmdEpycByFamily) {
  // Zen 3 (Milan): family 25, no AVX-512. "cpu MHz" is all a VM may give.
  const auto milan =
      peak_of(x86_cpuinfo("AuthenticAMD", 25, 1, "AMD EPYC 7763 64-Core Processor", 2445.404, avx2_flags), std::nullopt,
              4);
  EXPECT_EQ(milan.isa, "avx2");
  EXPECT_EQ(milan.units.units, 2);
  EXPECT_EQ(milan.units.unit_bits, 256);
  EXPECT_FALSE(milan.units.assumed);
  EXPECT_NE(milan.units.source.find("Zen 3"), std::string::npos);
  EXPECT_DOUBLE_EQ(milan.fp64_flops_per_cycle, 16);
  EXPECT_DOUBLE_EQ(milan.fp64_gflops, 4 * 2445.404 * 16 / 1e3);
  EXPECT_EQ(milan.clk.source, "/proc/cpuinfo cpu MHz");
  // Zen 4 (Genoa) runs AVX-512 on 256-bit units: no more flops per cycle than Zen 3.
  const auto genoa = peak_of(x86_cpuinfo("AuthenticAMD", 25, 17, "AMD EPYC 9654 96-Core Processor", 2400, avx512_flags),
                             std::nullopt, 1);
  EXPECT_EQ(genoa.isa, "avx512");
  EXPECT_EQ(genoa.units.unit_bits, 256);
  EXPECT_DOUBLE_EQ(genoa.fp64_flops_per_cycle, 16);
  // Zen 1 (Naples): 2 x 128-bit.
  const auto naples =
      peak_of(x86_cpuinfo("AuthenticAMD", 23, 1, "AMD EPYC 7601 32-Core Processor", 2200, avx2_flags), std::nullopt, 1);
  EXPECT_DOUBLE_EQ(naples.fp64_flops_per_cycle, 8);
  // Zen 2 (Rome).
  const auto rome = peak_of(x86_cpuinfo("AuthenticAMD", 23, 49, "AMD EPYC 7742 64-Core Processor", 2250, avx2_flags),
                            std::nullopt, 1);
  EXPECT_DOUBLE_EQ(rome.fp64_flops_per_cycle, 16);
}

TEST(CpuPeak, AnSse2OnlyCpuHasNoFmaAndFourFlopsPerCycle) {
  const std::string text = x86_cpuinfo("GenuineIntel", 6, 23, "Intel(R) Core(TM)2 Duo CPU     E8400  @ 3.00GHz", 2000,
                                       "fpu vme de pse tsc lm sse sse2 pni ssse3 sse4_1");
  const auto p = peak_of(text, std::nullopt, 2);
  EXPECT_EQ(p.isa, "sse2");
  EXPECT_FALSE(p.units.fma);
  EXPECT_TRUE(p.units.assumed);
  EXPECT_DOUBLE_EQ(p.fp64_flops_per_cycle, 4);  // one 2-lane add and one 2-lane multiply
  EXPECT_DOUBLE_EQ(p.fp64_gflops, 24);
  EXPECT_EQ(p.basis, "2 cores x 3000 MHz x 4 fp64 flop/cycle (sse2, 1 x 128-bit add + multiply pipes assumed)");
  // AVX without FMA (Sandy Bridge): 8.
  const auto snb = peak_of(x86_cpuinfo("GenuineIntel", 6, 45, "Intel(R) Xeon(R) CPU E5-2670 0 @ 2.60GHz", 0,
                                       "fpu lm sse sse2 ssse3 sse4_1 sse4_2 avx"),
                           std::nullopt, 1);
  EXPECT_EQ(snb.isa, "avx");
  EXPECT_DOUBLE_EQ(snb.fp64_flops_per_cycle, 8);
}

TEST(CpuPeak, NeoverseN1HasNoNameButItsPartNumber) {
  const auto c = cpu::parse_cpuinfo(neoverse_n1);
  EXPECT_EQ(c.architecture, "aarch64");
  EXPECT_EQ(c.part, "0xd0c");
  const auto no_clock = cpu::theoretical_peak(c, cpu::choose_clock(c, std::nullopt), 2);
  EXPECT_EQ(no_clock.isa, "neon");
  EXPECT_DOUBLE_EQ(no_clock.fp64_gflops, 0);
  EXPECT_EQ(no_clock.basis, "unknown: no clock could be read");
  const auto f0 = as_map(cpu::peak_facts(c, no_clock));
  EXPECT_EQ(f0.at("cpu_model"), "ARM Neoverse-N1");
  EXPECT_EQ(f0.at("cpu_peak_fp64_GFLOPs"), "");
  EXPECT_EQ(f0.at("cpu_clock_source"), "");

  const auto p = cpu::theoretical_peak(c, cpu::choose_clock(c, 2500000.0), 64);
  EXPECT_DOUBLE_EQ(p.fp64_flops_per_cycle, 8);  // 2 x 128-bit FMA
  EXPECT_DOUBLE_EQ(p.fp64_gflops, 64 * 2500 * 8 / 1e3);
  EXPECT_FALSE(p.units.assumed);
}

TEST(CpuPeak, NeoverseV1UsesSveAndItsVectorLength) {
  std::string v1 = neoverse_n1;
  v1.replace(v1.find("0xd0c"), 5, "0xd40");
  v1.replace(v1.find("asimd "), 6, "asimd sve ");
  const auto p = peak_of(v1, 2600000.0, 1);
  EXPECT_EQ(p.isa, "sve");
  EXPECT_EQ(p.vector_bits, 256);  // from the table: no vector length given
  EXPECT_DOUBLE_EQ(p.fp64_flops_per_cycle, 16);
  // An unknown SVE core: 128-bit vectors and 2 units, assumed.
  std::string other = v1;
  other.replace(other.find("0xd40"), 5, "0xfff");
  const auto q = peak_of(other, 2000000.0, 1, 512);
  EXPECT_EQ(q.vector_bits, 512);
  EXPECT_TRUE(q.units.assumed);
  EXPECT_DOUBLE_EQ(q.fp64_flops_per_cycle, 32);
}

TEST(CpuPeak, AnUnknownArchitectureHasNoPeak) {
  const auto c = cpu::parse_cpuinfo(
      "processor\t: 0\ncpu\t\t: POWER9 (architected), altivec supported\nclock\t\t: 2200.000000MHz\n");
  const auto p = cpu::theoretical_peak(c, cpu::choose_clock(c, std::nullopt), 8);
  EXPECT_EQ(p.isa, "");
  EXPECT_DOUBLE_EQ(p.fp64_gflops, 0);
  EXPECT_EQ(as_map(cpu::peak_facts(c, p)).at("cpu_peak_fp64_GFLOPs"), "");
}

TEST(CpuPeak, ReadsCpuinfoAndCpufreqUnderTheRootsItIsGiven) {
  const fs::path root = fs::temp_directory_path() / ("sb_cpufacts_" + std::to_string(::getpid()));
  fs::create_directories(root / "proc");
  std::ofstream(root / "proc" / "cpuinfo")
      << x86_cpuinfo("GenuineIntel", 6, 85, "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz", 1000, avx512_flags);
  // The clock of the first CPU this process may run on is read.
  cpu_set_t mask;
  CPU_ZERO(&mask);
  ASSERT_EQ(sched_getaffinity(0, sizeof mask, &mask), 0);
  std::size_t first = 0;
  while (!CPU_ISSET(first, &mask)) ++first;
  const fs::path cpufreq = root / "sys" / ("cpu" + std::to_string(first)) / "cpufreq";
  fs::create_directories(cpufreq);
  std::ofstream(cpufreq / "cpuinfo_max_freq") << "9900000\n";  // above any core's measured clock
  const auto f = as_map(cpu::cpu_peak_facts((root / "proc").string(), (root / "sys").string()));
  fs::remove_all(root);
  const int cores = cpu::cores_available();
  ASSERT_GE(cores, 1);
  EXPECT_EQ(f.at("cpu_clock_source"), "cpufreq cpuinfo_max_freq");
  EXPECT_EQ(f.at("cpu_clock_MHz"), "9900");
  EXPECT_DOUBLE_EQ(std::stod(f.at("cpu_peak_fp64_GFLOPs")), cores * 9900 * 32 / 1e3);
  EXPECT_EQ(f.at("cpu_peak_basis").rfind(std::to_string(cores) + (cores == 1 ? " core x" : " cores x"), 0), 0u);
}

TEST(CpuPeak, ThisMachineHasAPeakWhenItsIsaIsKnown) {
  const auto f = as_map(cpu::cpu_peak_facts());
  std::cout << "this machine: " << f.at("cpu_model") << " | " << f.at("cpu_peak_basis") << " = "
            << f.at("cpu_peak_fp64_GFLOPs") << " fp64 GFLOP/s\n";
  if (f.at("cpu_vector_isa").empty()) GTEST_SKIP() << "no vector ISA this table knows";
  EXPECT_GT(std::stod(f.at("cpu_peak_fp64_GFLOPs")), 0);
}

TEST(BlasCoreIsa, NamesTheVectorIsaOfOpenBlasAndBlisKernels) {
  EXPECT_EQ(cpu::blas_core_isa("Prescott"), "sse3");
  EXPECT_EQ(cpu::blas_core_isa("Core2"), "sse3");
  EXPECT_EQ(cpu::blas_core_isa("Sandybridge"), "avx");
  EXPECT_EQ(cpu::blas_core_isa("Haswell"), "avx2");
  EXPECT_EQ(cpu::blas_core_isa("Zen"), "avx2");
  EXPECT_EQ(cpu::blas_core_isa("SkylakeX"), "avx512");
  EXPECT_EQ(cpu::blas_core_isa("SKYLAKEX"), "avx512");  // a build for one target says it in capitals
  EXPECT_EQ(cpu::blas_core_isa("SapphireRapids"), "avx512");
  EXPECT_EQ(cpu::blas_core_isa("NEOVERSEN1"), "neon");
  EXPECT_EQ(cpu::blas_core_isa("armv8"), "neon");
  EXPECT_EQ(cpu::blas_core_isa("neoversev1"), "sve");
  EXPECT_EQ(cpu::blas_core_isa("zen3"), "avx2");  // BLIS
  EXPECT_EQ(cpu::blas_core_isa("skx"), "avx512");
  EXPECT_EQ(cpu::blas_core_isa("penryn"), "sse3");
  EXPECT_EQ(cpu::blas_core_isa("generic"), "generic");
  EXPECT_EQ(cpu::blas_core_isa("OPENBLAS-OPENMP"), "");  // a FlexiBLAS backend: not a kernel set
  EXPECT_EQ(cpu::blas_core_isa(""), "");
}

TEST(BlasCoreIsa, RanksTellAWeakerKernelFromOneThatMatches) {
  EXPECT_LT(cpu::vector_isa_rank(cpu::blas_core_isa("Prescott")), cpu::vector_isa_rank("avx512"));
  EXPECT_LT(cpu::vector_isa_rank(cpu::blas_core_isa("Haswell")), cpu::vector_isa_rank("avx512"));
  EXPECT_EQ(cpu::vector_isa_rank(cpu::blas_core_isa("SkylakeX")), cpu::vector_isa_rank("avx512"));
  EXPECT_EQ(cpu::vector_isa_rank(cpu::blas_core_isa("Zen")), cpu::vector_isa_rank("avx2"));
  EXPECT_LT(cpu::vector_isa_rank("neon"), cpu::vector_isa_rank("sve"));
  EXPECT_EQ(cpu::vector_isa_rank(""), -1);
  EXPECT_EQ(cpu::vector_isa_rank("mystery"), -1);
}

TEST(BlasCoreIsa, TellsAWeakKernelFromAMatchingOneAndOneThatCannotRun) {
  using cpu::kernel_fit;
  EXPECT_EQ(cpu::compare_kernel_isa("sse3", "avx512", 512), kernel_fit::narrower);  // Prescott on a Xeon
  EXPECT_EQ(cpu::compare_kernel_isa("avx2", "avx512", 512), kernel_fit::narrower);  // Haswell on a Xeon
  EXPECT_EQ(cpu::compare_kernel_isa("avx512", "avx512", 512), kernel_fit::matches);
  EXPECT_EQ(cpu::compare_kernel_isa("avx2", "avx512", 256), kernel_fit::matches);  // Zen kernels on Zen 4
  EXPECT_EQ(cpu::compare_kernel_isa("sse3", "avx512", 256), kernel_fit::narrower);
  EXPECT_EQ(cpu::compare_kernel_isa("avx2", "avx2", 256), kernel_fit::matches);
  EXPECT_EQ(cpu::compare_kernel_isa("avx512", "avx2", 256), kernel_fit::beyond);  // SkylakeX on Zen 3: SIGILL
  EXPECT_EQ(cpu::compare_kernel_isa("generic", "neon"), kernel_fit::narrower);
  EXPECT_EQ(cpu::compare_kernel_isa("neon", "sve"), kernel_fit::narrower);
  EXPECT_EQ(cpu::compare_kernel_isa("neon", "avx2"), kernel_fit::unknown);
  EXPECT_EQ(cpu::compare_kernel_isa("", "avx2"), kernel_fit::unknown);
  EXPECT_EQ(cpu::compare_kernel_isa("avx2", ""), kernel_fit::unknown);
  EXPECT_STREQ(cpu::to_string(kernel_fit::beyond), "beyond");
}

TEST(BlasCoreOverride, ListsTheKernelVariablesThatAreSet) {
  const std::map<std::string, std::string> env{{"OPENBLAS_CORETYPE", "SkylakeX"},
                                               {"BLIS_ARCH_TYPE", "haswell"},
                                               {"OMP_NUM_THREADS", "2"}};
  const auto getenv = [&](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  EXPECT_EQ(cpu::blas_core_override(getenv), "OPENBLAS_CORETYPE=SkylakeX;BLIS_ARCH_TYPE=haswell");
  EXPECT_EQ(cpu::blas_core_override([](const char*) -> const char* { return nullptr; }), "");
}

TEST(BlasCoreOverride, ReadsTheRealEnvironment) {
  const char* before = std::getenv("OPENBLAS_CORETYPE");
  const std::string saved = before ? before : "";
  ::setenv("OPENBLAS_CORETYPE", "Prescott", 1);
  const auto f = as_map(cpu::blas_core_facts("Prescott"));
  if (before) ::setenv("OPENBLAS_CORETYPE", saved.c_str(), 1);
  else ::unsetenv("OPENBLAS_CORETYPE");
  EXPECT_EQ(f.at("blas_core_isa"), "sse3");
  EXPECT_NE(f.at("blas_core_override").find("OPENBLAS_CORETYPE=Prescott"), std::string::npos);
}
