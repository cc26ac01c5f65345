// Does this build carry code the GPU can run? The GPU backend's start-up check.
//
// A build whose CUDA architectures miss the device's (an sm_90-only build on an RTX 3060,
// which is sm_86) links and starts, then fails at its first kernel launch. Asking the runtime
// for a kernel's attributes loads that kernel for the current device, so it fails up front,
// and in one line, instead.
#pragma once

#include <string>

namespace solvebench::cuda {

// Empty when `kernel` (the address of a __global__ function) can run on `device`; otherwise
// one line: "this build has no code for sm_86; rebuild with -DCMAKE_CUDA_ARCHITECTURES=86",
// or, for any other failure (no driver, no such device), what the runtime said.
// The current device is left as it was.
std::string why_kernel_cannot_run(const void* kernel, int device);

// The same for the project's own kernels (the device generators and residuals): empty when
// the GPU rows can run on `device`.
std::string why_project_kernels_cannot_run(int device);

// The line above for a device of compute capability major.minor.
std::string no_code_for(int major, int minor);

namespace detail {
// One kernel from each of the project's .cu files (device_generate.cu, device_residual.cu).
const void* a_generator_kernel() noexcept;
const void* a_residual_kernel() noexcept;
}  // namespace detail

}  // namespace solvebench::cuda
