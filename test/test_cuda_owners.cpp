// CUDA owners release what they own; errors carry status, call and place.
#include <gtest/gtest.h>

#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <utility>

#include "gpu_test.hpp"
#include "solvebench/cuda_errors.hpp"
#include "solvebench/cuda_owners.hpp"
#include "solvebench/device_hold.hpp"
#include "solvebench/errors.hpp"

namespace cuda = solvebench::cuda;

TEST(CudaDevice, NoDeviceGivesAReason) {
  std::string why;
  const int count = cuda::device_count(&why);
  if (count > 0) GTEST_SKIP() << "this machine has " << count << " device(s); the no-device path is tested in CI";
  EXPECT_FALSE(why.empty());
  EXPECT_TRUE(why.find("no CUDA device") != std::string::npos || why.find("driver") != std::string::npos) << why;
}

TEST(CudaDevice, EachReasonForNoGpuIsSpelledOut) {
  // The statuses cudaGetDeviceCount gives on machines we cannot always test on.
  const std::string old_driver = cuda::why_no_device(cudaErrorInsufficientDriver, 12040, 13000);
  EXPECT_NE(old_driver.find("the CUDA driver (version 12040) is older than the CUDA runtime (13000)"),
            std::string::npos)
      << old_driver;
  EXPECT_NE(old_driver.find("update the NVIDIA driver"), std::string::npos);
  EXPECT_NE(cuda::why_no_device(cudaErrorInsufficientDriver, 0, 13000).find("no NVIDIA driver is loaded"),
            std::string::npos);
  EXPECT_EQ(cuda::why_no_device(cudaErrorNoDevice, 13000, 13000), "no CUDA device (cudaErrorNoDevice)");
  EXPECT_EQ(cuda::why_no_device(cudaSuccess, 13000, 13000), "no CUDA device (cudaErrorNoDevice)");
  EXPECT_NE(cuda::why_no_device(cudaErrorDevicesUnavailable, 13000, 13000).find("cudaErrorDevicesUnavailable"),
            std::string::npos);
}

TEST(CudaStatus, EveryCusolverStatusHasAName) {
  for (int s = 0; s <= 31; ++s) {
    const char* name = cuda::status_name(static_cast<cusolverStatus_t>(s));
    const bool known = std::strncmp(name, "CUSOLVER_STATUS_", 16) == 0;
    EXPECT_TRUE(known) << s;
  }
  EXPECT_STREQ(cuda::status_name(CUSOLVER_STATUS_INVALID_VALUE), "CUSOLVER_STATUS_INVALID_VALUE");
}

TEST(CudaStatus, ErrorsCarryStatusCallAndPlace) {
  try {
    SB_CUSOLVER_CHECK(CUSOLVER_STATUS_ARCH_MISMATCH);
    FAIL();
  } catch (const cuda::cusolver_error& e) {
    EXPECT_EQ(e.status(), CUSOLVER_STATUS_ARCH_MISMATCH);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("CUSOLVER_STATUS_ARCH_MISMATCH"), std::string::npos) << msg;
    EXPECT_NE(msg.find("test_cuda_owners.cpp:"), std::string::npos) << msg;
  }
  try {
    SB_CUBLAS_CHECK(CUBLAS_STATUS_NOT_SUPPORTED);
    FAIL();
  } catch (const cuda::cublas_error& e) {
    EXPECT_NE(std::string(e.what()).find("CUBLAS_STATUS_NOT_SUPPORTED"), std::string::npos);
  }
  try {
    SB_CUDA_CHECK(cudaErrorInvalidValue);
    FAIL();
  } catch (const cuda::cuda_error& e) {
    EXPECT_EQ(e.status_name().rfind("cudaErrorInvalidValue", 0), 0u) << e.status_name();
    EXPECT_NE(std::string(e.what()).find(" from cudaErrorInvalidValue at "), std::string::npos) << e.what();
  }
}

class CudaOwners : public GpuTest {};

TEST_F(CudaOwners, DeviceBufferReturnsItsMemory) {
  const auto before = cuda::memory_info().free_bytes;
  const std::size_t count = std::size_t{64} << 20;  // 512 MiB of doubles
  {
    cuda::device_buffer<double> buf(count);
    ASSERT_NE(buf.data(), nullptr);
    EXPECT_EQ(buf.size_bytes(), count * sizeof(double));
    EXPECT_LE(cuda::memory_info().free_bytes + count * sizeof(double), before + (std::size_t{2} << 20));
    cuda::device_buffer<double> moved(std::move(buf));
    EXPECT_EQ(buf.data(), nullptr);  // NOLINT(bugprone-use-after-move): the moved-from state is the point
    EXPECT_NE(moved.data(), nullptr);
  }
  EXPECT_EQ(cuda::memory_info().free_bytes, before);
}

TEST_F(CudaOwners, PinnedBufferAndHandlesRelease) {
  const auto use = [] {
    cuda::pinned_buffer<float> host(1 << 20);
    ASSERT_NE(host.data(), nullptr);
    host.data()[123] = 4.0f;
    cuda::stream s;
    cuda::cusolver_handle solver(s.get());
    cuda::cublas_handle blas(s.get());
    cuda::event_timer t;
    t.start(s.get());
    t.stop(s.get());
    EXPECT_GE(t.elapsed_seconds(), 0.0);
  };
  // The first creation loads the libraries' modules, which stay resident; stream-ordered
  // frees inside the libraries settle at a synchronisation.
  use();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto before = cuda::memory_info().free_bytes;
  use();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  // Handles allocate device memory; all of it must come back.
  EXPECT_EQ(cuda::memory_info().free_bytes, before);
}

TEST_F(CudaOwners, TooLargeIsOutOfMemoryWithNeededAndFree) {
  const auto mem = cuda::memory_info();
  try {
    cuda::require_device_memory(mem.total_bytes * 2);
    FAIL();
  } catch (const solvebench::out_of_memory& e) {
    EXPECT_EQ(e.needed_bytes(), mem.total_bytes * 2);
    EXPECT_NE(std::string(e.what()).find("not enough GPU memory: needed"), std::string::npos) << e.what();
  }
  EXPECT_THROW(cuda::device_buffer<double>(mem.total_bytes), cuda::cuda_error);
  EXPECT_FALSE(cuda::context_is_broken()) << "an allocation failure is not sticky";
}

TEST_F(CudaOwners, DeviceFactsNameTheGpu) {
  const auto facts = cuda::device_facts(0);
  bool has_name = false, has_cusolver = false;
  for (const auto& [k, v] : facts) {
    has_name = has_name || (k == "gpu_name" && !v.empty());
    has_cusolver = has_cusolver || (k == "cusolver_version" && !v.empty());
  }
  EXPECT_TRUE(has_name);
  EXPECT_TRUE(has_cusolver);
  const std::map<std::string, std::string> f(facts.begin(), facts.end());
  ASSERT_EQ(f.count("gpu_peak_basis"), 1u);
  const std::string& basis = f.at("gpu_peak_basis");
  std::cout << "gpu_peak_fp64_GFLOPs " << f.at("gpu_peak_fp64_GFLOPs") << ", fp32 " << f.at("gpu_peak_fp32_GFLOPs")
            << ", fp16 tensor " << f.at("gpu_peak_fp16_tensor_GFLOPs") << "; " << basis << "\n";
  if (basis.rfind("no peak", 0) == 0) return;  // a capability the table does not know: said, not guessed
  EXPECT_GT(std::stod(f.at("gpu_peak_fp64_GFLOPs")), 0) << basis;
  EXPECT_GE(std::stod(f.at("gpu_peak_fp32_GFLOPs")), std::stod(f.at("gpu_peak_fp64_GFLOPs"))) << basis;
  EXPECT_NE(basis.find(f.at("gpu_sm_count") + " SMs x "), std::string::npos) << basis;
}

TEST(CudaHold, HoldValuesAreWholeMicroseconds) {
  EXPECT_EQ(cuda::parse_hold_microseconds(nullptr), cuda::default_hold_microseconds);
  EXPECT_EQ(cuda::parse_hold_microseconds(""), cuda::default_hold_microseconds);
  EXPECT_EQ(cuda::parse_hold_microseconds("0"), 0u);
  EXPECT_EQ(cuda::parse_hold_microseconds("40"), 40u);
  EXPECT_EQ(cuda::parse_hold_microseconds("10000"), 10000u);
  for (const char* bad : {"-5", "4.5", "40us", "10001", " 4", "x"})
    EXPECT_THROW(cuda::parse_hold_microseconds(bad), solvebench::invalid_argument) << bad;
}

class CudaHoldGpu : public GpuTest {};

// The hold keeps the stream busy for its time and no longer: work queued behind it starts when it ends.
TEST_F(CudaHoldGpu, HoldsTheStreamForItsTime) {
  cuda::stream s;
  const cuda::event_timer none, held;
  none.start(s.get());
  cuda::hold_stream(s.get(), 0);
  none.stop(s.get());
  held.start(s.get());
  cuda::hold_stream(s.get(), 2000);
  held.stop(s.get());
  EXPECT_LT(none.elapsed_seconds(), 100e-6);
  const double t = held.elapsed_seconds();
  EXPECT_GE(t, 2000e-6);
  EXPECT_LT(t, 2000e-6 * 1.5 + 200e-6);
}
