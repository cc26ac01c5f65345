// What the NVML tests on a real GPU share: a session on CUDA device 0 (skipped without one) and a
// dgemm loop that keeps the GPU busy (and, on a datacenter GPU, at its power cap).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "solvebench/cuda_errors.hpp"
#include "solvebench/cusolver.hpp"
#include "solvebench/nvml.hpp"

class NvmlOnGpu : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    session_ = std::make_unique<solvebench::nvml::session>();
    ASSERT_TRUE(session_->available()) << session_->unavailable_reason();
    std::string why;
    device_ = session_->device_for_cuda(0, &why);
    ASSERT_TRUE(device_) << why;
  }
  std::unique_ptr<solvebench::nvml::session> session_;
  std::optional<solvebench::nvml::device> device_;
};

// n x n dgemm on device-resident random matrices (zeros would draw less power than real data).
class gemm_work {
 public:
  static constexpr std::int64_t n = 4096;
  gemm_work() : a_(n * n), b_(n * n), c_(n * n) {
    std::vector<double> host(static_cast<std::size_t>(n * n));
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> u(-1, 1);
    for (auto& v : host) v = u(rng);
    SB_CUDA_CHECK(cudaMemcpy(a_.data(), host.data(), a_.size_bytes(), cudaMemcpyHostToDevice));
    SB_CUDA_CHECK(cudaMemcpy(b_.data(), host.data(), b_.size_bytes(), cudaMemcpyHostToDevice));
  }
  void run(long long times) {
    for (long long i = 0; i < times; ++i) solvebench::cuda::gemm<double>(ctx_, n, a_.data(), b_.data(), c_.data());
    ctx_.synchronize();
  }
  // Iterations that keep the GPU busy for about `seconds` (after a warm-up that lets the clocks
  // and the power draw settle).
  long long iterations_for(double seconds) {
    run(20);
    const auto t0 = std::chrono::steady_clock::now();
    run(20);
    const double per = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 20;
    long long warm = static_cast<long long>(0.5 / per) + 1;
    run(warm);
    return static_cast<long long>(std::ceil(seconds / per));
  }
  static double flops() { return 2.0 * static_cast<double>(n) * n * n; }

 private:
  solvebench::cuda::context ctx_;
  solvebench::cuda::device_buffer<double> a_, b_, c_;
};
