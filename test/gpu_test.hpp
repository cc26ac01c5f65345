// Base for GPU tests: skips visibly (with the reason) when there is no usable CUDA device.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "solvebench/cuda_owners.hpp"

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (solvebench::cuda::device_count(&why) == 0) GTEST_SKIP() << "no GPU: " << why;
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  }
};
