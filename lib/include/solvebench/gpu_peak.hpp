// The GPU's own ceilings: theoretical fp64, fp32 and fp16 tensor peaks from its compute
// capability, SM count and maximum SM clock. Pure arithmetic, no CUDA: built and unit-tested
// everywhere (test/test_gpu_peak.cpp); device_facts() puts them in a CUDA run's context.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace solvebench {

// Peaks in GFLOP/s (1e9 flop/s, an FMA counting 2); empty when the capability is not in the
// table, `basis` saying so. fp64 is the faster of the FP64 units and, where the chip has them
// (8.0, 9.0), the FP64 tensor cores, which cuBLAS dgemm uses. fp16_tensor is dense (no
// sparsity), fp16 inputs at the chip's full rate; GeForce cards halve it with fp32 accumulation.
struct gpu_peak {
  std::optional<double> fp64_GFLOPs, fp32_GFLOPs, fp16_tensor_GFLOPs;
  std::string basis;  // "132 SMs x 1980 MHz x per-SM flop/clk: fp64 256 (tensor cores), ..."
};

// SMs x maximum SM clock x the per-SM rate of the capability (CUDA C++ Programming Guide,
// "Arithmetic Instructions", and the architecture whitepapers).
gpu_peak theoretical_gpu_peak(int cc_major, int cc_minor, int sm_count, double sm_clock_MHz);

// The context keys: gpu_peak_fp64_GFLOPs, gpu_peak_fp32_GFLOPs, gpu_peak_fp16_tensor_GFLOPs
// (one decimal; empty when unknown) and gpu_peak_basis.
std::vector<std::pair<std::string, std::string>> gpu_peak_facts(const gpu_peak& peak);

}  // namespace solvebench
