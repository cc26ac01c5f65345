// The GPU backend's start-up check (device_code.hpp): the project's kernels run on the device
// present, and a kernel built only for another architecture is named as missing code.
#include <gtest/gtest.h>

#include <string>

#include "gpu_test.hpp"
#include "solvebench/device_code.hpp"

namespace cuda = solvebench::cuda;

const void* kernel_built_for_sm75_only();  // sm75_only_kernel.cu, built with CUDA_ARCHITECTURES 75-real

namespace {

struct compute_capability {
  int major = 0, minor = 0;
};

compute_capability of_device(int device) {
  compute_capability cc;
  EXPECT_EQ(cudaDeviceGetAttribute(&cc.major, cudaDevAttrComputeCapabilityMajor, device), cudaSuccess);
  EXPECT_EQ(cudaDeviceGetAttribute(&cc.minor, cudaDevAttrComputeCapabilityMinor, device), cudaSuccess);
  return cc;
}

}  // namespace

TEST(DeviceCodeMessage, NamesTheArchitectureToRebuildFor) {
  EXPECT_EQ(cuda::no_code_for(8, 6), "this build has no code for sm_86; rebuild with -DCMAKE_CUDA_ARCHITECTURES=86");
  EXPECT_EQ(cuda::no_code_for(12, 0), "this build has no code for sm_120; rebuild with -DCMAKE_CUDA_ARCHITECTURES=120");
}

class DeviceCode : public GpuTest {};

TEST_F(DeviceCode, ProjectKernelsRunOnThisDevice) {
  const auto cc = of_device(0);
  EXPECT_EQ(cuda::why_project_kernels_cannot_run(0), "")
      << "device 0 is sm_" << cc.major << cc.minor << "; this build's CMAKE_CUDA_ARCHITECTURES miss it";
}

TEST_F(DeviceCode, KernelBuiltForAnotherArchitectureIsNamed) {
  const auto cc = of_device(0);
  if (cc.major == 7 && cc.minor == 5) GTEST_SKIP() << "device 0 is sm_75, which can run the sm_75-only kernel";
  const std::string arch = std::to_string(cc.major) + std::to_string(cc.minor);
  const std::string why = cuda::why_kernel_cannot_run(kernel_built_for_sm75_only(), 0);
  EXPECT_EQ(why, cuda::no_code_for(cc.major, cc.minor));
  EXPECT_NE(why.find("no code for sm_" + arch), std::string::npos) << why;
  // The failed load leaves nothing behind for the next launch check, and the project's
  // own kernels still pass.
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cuda::why_project_kernels_cannot_run(0), "");
}

TEST_F(DeviceCode, ANonexistentDeviceIsAReasonNotACrash) {
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  const std::string why = cuda::why_project_kernels_cannot_run(count);
  EXPECT_NE(why.find("cudaErrorInvalidDevice"), std::string::npos) << why;
  int current = -1;
  EXPECT_EQ(cudaGetDevice(&current), cudaSuccess);
  EXPECT_EQ(current, 0) << "the current device is left as it was";
}
