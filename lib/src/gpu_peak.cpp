// Per-SM arithmetic rates by compute capability, and the peaks they give (see gpu_peak.hpp).
#include "solvebench/gpu_peak.hpp"

#include <cstdio>

namespace solvebench {
namespace {

// flop per clock per SM (2 per FMA): the Programming Guide's results per clock per SM for
// 32- and 64-bit add/multiply/multiply-add, times 2; tensor rates from the whitepapers' dense
// peaks (T4 65 TFLOP/s fp16, A100 19.5 fp64 and 312 fp16, A40 150 fp16, L40S 362 fp16, H100
// SXM 67 fp64 and 989 fp16, B200 2250 fp16, RTX 5090 419 fp16) divided by SMs x clock.
struct sm_rates {
  int major, minor;
  double fp64, fp64_tensor, fp32, fp16_tensor;  // fp64_tensor 0: no FP64 tensor cores
  const char* chips;
};
// One capability a line:
// clang-format off
constexpr sm_rates table[] = {
    {7, 5, 4, 0, 128, 1024, "Turing: T4, RTX 20xx"},
    {8, 0, 64, 128, 128, 2048, "A100, A30"},
    {8, 6, 4, 0, 256, 1024, "A10, A40, RTX 30xx"},
    {8, 7, 4, 0, 256, 2048, "Jetson Orin"},
    {8, 9, 4, 0, 256, 1024, "L4, L40, RTX 40xx"},
    {9, 0, 128, 256, 256, 4096, "H100, H200, GH200"},
    {10, 0, 128, 0, 256, 8192, "B200, GB200"},
    {12, 0, 4, 0, 256, 1024, "RTX 50xx, RTX PRO Blackwell"},
};
// clang-format on

std::string number(double v, const char* format) {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

}  // namespace

gpu_peak theoretical_gpu_peak(int cc_major, int cc_minor, int sm_count, double sm_clock_MHz) {
  gpu_peak peak;
  const std::string cc = std::to_string(cc_major) + "." + std::to_string(cc_minor);
  const sm_rates* rates = nullptr;
  for (const auto& r : table)
    if (r.major == cc_major && r.minor == cc_minor) rates = &r;
  if (!rates) {
    peak.basis = "no peak: compute capability " + cc + " is not in the per-SM rate table (lib/src/gpu_peak.cpp)";
    return peak;
  }
  if (sm_count <= 0 || !(sm_clock_MHz > 0)) {
    peak.basis =
        "no peak: the device reported " + std::to_string(sm_count) + " SMs at " + number(sm_clock_MHz, "%.0f") + " MHz";
    return peak;
  }
  const double giga_sm_cycles_per_s = sm_count * sm_clock_MHz * 1e-3;
  const bool tensor64 = rates->fp64_tensor > rates->fp64;
  const double fp64 = tensor64 ? rates->fp64_tensor : rates->fp64;
  peak.fp64_GFLOPs = giga_sm_cycles_per_s * fp64;
  peak.fp32_GFLOPs = giga_sm_cycles_per_s * rates->fp32;
  peak.fp16_tensor_GFLOPs = giga_sm_cycles_per_s * rates->fp16_tensor;
  peak.basis = std::to_string(sm_count) + " SMs x " + number(sm_clock_MHz, "%.0f") + " MHz x per-SM flop/clk of CC " +
               cc + " (" + rates->chips + "): fp64 " + number(fp64, "%.0f") + (tensor64 ? " (tensor cores)" : "") +
               ", fp32 " + number(rates->fp32, "%.0f") + ", fp16 tensor " + number(rates->fp16_tensor, "%.0f") +
               " (dense)";
  return peak;
}

std::vector<std::pair<std::string, std::string>> gpu_peak_facts(const gpu_peak& peak) {
  const auto value = [](const std::optional<double>& v) { return v ? number(*v, "%.1f") : std::string(); };
  return {{"gpu_peak_fp64_GFLOPs", value(peak.fp64_GFLOPs)},
          {"gpu_peak_fp32_GFLOPs", value(peak.fp32_GFLOPs)},
          {"gpu_peak_fp16_tensor_GFLOPs", value(peak.fp16_tensor_GFLOPs)},
          {"gpu_peak_basis", peak.basis}};
}

}  // namespace solvebench
