// Base for GPU tests: skips visibly (with the reason) when there is no usable CUDA device.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "solvebench/cuda_owners.hpp"
#include "solvebench/device_generate.hpp"
#include "solvebench/matrix.hpp"

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (solvebench::cuda::device_count(&why) == 0) GTEST_SKIP() << "no GPU: " << why;
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  }
};

// Copies between a test and the device. cudaMemcpy runs on the legacy default stream, which the
// library's non-blocking streams do not wait for (and a pageable H2D copy may return before
// its DMA is done): synchronise around them.
template <class T>
std::vector<T> to_host(const T* d, std::size_t count) {
  std::vector<T> h(count);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(h.data(), d, count * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  return h;
}
template <class T>
std::vector<T> to_host(const solvebench::cuda::device_buffer<T>& d) {
  return to_host(d.data(), d.size());
}
template <class T>
solvebench::cuda::device_buffer<T> to_device(const solvebench::host_matrix<T>& m) {
  solvebench::cuda::device_buffer<T> d(m.size());
  EXPECT_EQ(cudaMemcpy(d.data(), m.data(), m.size_bytes(), cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  return d;
}

// A singular fp64 system on the device, generated on `stream` (not yet synchronised): a0 is A
// to check against, a the copy a solver overwrites, b the right-hand side, x room for the answer.
struct singular_system {
  singular_system(std::int64_t order, std::uint64_t seed, cudaStream_t stream)
      : n(order), a0(elements(n * n)), a(elements(n * n)), b(elements(n)), x(elements(n)) {
    for (double* m : {a0.data(), a.data()})
      solvebench::cuda::generate_matrix(m, solvebench::matrix_kind::singular, n, seed, stream);
    solvebench::cuda::generate_rhs(b.data(), n, 1, seed, stream);
  }
  std::int64_t n;
  solvebench::cuda::device_buffer<double> a0, a, b, x;

 private:
  static std::size_t elements(std::int64_t count) { return static_cast<std::size_t>(count); }
};
