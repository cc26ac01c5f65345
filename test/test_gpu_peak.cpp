// The GPU's theoretical peaks from (capability, SMs, clock): pure arithmetic, run on every machine.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "solvebench/gpu_peak.hpp"

namespace sb = solvebench;

namespace {
bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
}  // namespace

TEST(GpuPeak, H200FromItsTensorCores) {
  // 132 SMs at 1980 MHz; NVIDIA's H100/H200 SXM sheet: 67 TFLOP/s fp64 (tensor) and fp32.
  const sb::gpu_peak p = sb::theoretical_gpu_peak(9, 0, 132, 1980);
  ASSERT_TRUE(p.fp64_GFLOPs && p.fp32_GFLOPs && p.fp16_tensor_GFLOPs) << p.basis;
  EXPECT_DOUBLE_EQ(*p.fp64_GFLOPs, 132 * 1.980 * 256);  // 66908 GFLOP/s
  EXPECT_DOUBLE_EQ(*p.fp32_GFLOPs, 132 * 1.980 * 256);
  EXPECT_DOUBLE_EQ(*p.fp16_tensor_GFLOPs, 132 * 1.980 * 4096);
  EXPECT_GT(*p.fp64_GFLOPs, 56900);  // above what cuBLAS dgemm reaches there (56.9 TFLOP/s)
  EXPECT_TRUE(contains(p.basis, "132 SMs x 1980 MHz")) << p.basis;
  EXPECT_TRUE(contains(p.basis, "fp64 256 (tensor cores)")) << p.basis;
}

TEST(GpuPeak, ConsumerAmpereHasOneSixtyFourthFp64) {
  // RTX 3060: CC 8.6, 28 SMs, 1777 MHz boost; NVIDIA states 12.7 TFLOP/s fp32.
  const sb::gpu_peak p = sb::theoretical_gpu_peak(8, 6, 28, 1777);
  ASSERT_TRUE(p.fp64_GFLOPs && p.fp32_GFLOPs && p.fp16_tensor_GFLOPs) << p.basis;
  EXPECT_NEAR(*p.fp32_GFLOPs, 12737.5, 0.1);
  EXPECT_DOUBLE_EQ(*p.fp64_GFLOPs, *p.fp32_GFLOPs / 64);
  EXPECT_DOUBLE_EQ(*p.fp16_tensor_GFLOPs, *p.fp32_GFLOPs * 4);
  EXPECT_FALSE(contains(p.basis, "tensor cores")) << p.basis;  // no FP64 tensor cores on GA10x
}

TEST(GpuPeak, A100Fp64IsItsTensorCoreRate) {
  const sb::gpu_peak p = sb::theoretical_gpu_peak(8, 0, 108, 1410);  // A100 SXM: 19.5 TFLOP/s fp64 tensor
  ASSERT_TRUE(p.fp64_GFLOPs);
  EXPECT_NEAR(*p.fp64_GFLOPs, 19492, 1);
  EXPECT_NEAR(*p.fp32_GFLOPs, 19492, 1);          // 19.5 TFLOP/s fp32 as well
  EXPECT_NEAR(*p.fp16_tensor_GFLOPs, 311869, 1);  // 312 TFLOP/s dense
}

TEST(GpuPeak, EveryTargetedCapabilityHasRates) {
  // What the default build targets (SASS for 7.5-9.0; PTX that reaches 10.0 and 12.0), and Orin.
  const std::vector<std::pair<int, int>> targeted = {{7, 5}, {8, 0}, {8, 6}, {8, 7}, {8, 9}, {9, 0}, {10, 0}, {12, 0}};
  for (const auto& [major, minor] : targeted) {
    const sb::gpu_peak p = sb::theoretical_gpu_peak(major, minor, 100, 1500);
    EXPECT_TRUE(p.fp64_GFLOPs && p.fp32_GFLOPs && p.fp16_tensor_GFLOPs) << major << "." << minor << ": " << p.basis;
    EXPECT_LE(*p.fp64_GFLOPs, *p.fp32_GFLOPs) << major << "." << minor;
    EXPECT_GT(*p.fp16_tensor_GFLOPs, *p.fp32_GFLOPs) << major << "." << minor;
  }
}

TEST(GpuPeak, UnknownCapabilityLeavesTheKeysEmptyAndSaysWhy) {
  const sb::gpu_peak p = sb::theoretical_gpu_peak(11, 0, 20, 1500);
  EXPECT_FALSE(p.fp64_GFLOPs || p.fp32_GFLOPs || p.fp16_tensor_GFLOPs);
  EXPECT_TRUE(contains(p.basis, "compute capability 11.0 is not in the per-SM rate table")) << p.basis;
  const auto facts = sb::gpu_peak_facts(p);
  const std::map<std::string, std::string> f(facts.begin(), facts.end());
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f.at("gpu_peak_fp64_GFLOPs"), "");
  EXPECT_EQ(f.at("gpu_peak_fp32_GFLOPs"), "");
  EXPECT_EQ(f.at("gpu_peak_fp16_tensor_GFLOPs"), "");
  EXPECT_EQ(f.at("gpu_peak_basis"), p.basis);
  EXPECT_FALSE(sb::theoretical_gpu_peak(9, 0, 0, 1980).fp64_GFLOPs);  // a device that reports no SMs
}

TEST(GpuPeak, FactsCarryOneDecimal) {
  const auto facts = sb::gpu_peak_facts(sb::theoretical_gpu_peak(9, 0, 132, 1980));
  const std::map<std::string, std::string> f(facts.begin(), facts.end());
  EXPECT_EQ(f.at("gpu_peak_fp64_GFLOPs"), "66908.2");
  EXPECT_EQ(f.at("gpu_peak_fp32_GFLOPs"), "66908.2");
  EXPECT_EQ(f.at("gpu_peak_fp16_tensor_GFLOPs"), "1070530.6");
}
