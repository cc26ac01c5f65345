// The start-up check: cudaFuncGetAttributes loads a kernel for the current device, and fails
// with cudaErrorNoKernelImageForDevice when the fat binary holds neither SASS the device can
// run nor PTX it can compile.
#include "solvebench/device_code.hpp"

#include <cuda_runtime_api.h>

namespace solvebench::cuda {
namespace {

std::string runtime_said(const char* what, int device, cudaError_t status) {
  return std::string("cannot check this build's kernels on device ") + std::to_string(device) + " (" + what +
         "): " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status);
}

}  // namespace

std::string no_code_for(int major, int minor) {
  const std::string arch = std::to_string(major) + std::to_string(minor);
  return "this build has no code for sm_" + arch + "; rebuild with -DCMAKE_CUDA_ARCHITECTURES=" + arch;
}

std::string why_kernel_cannot_run(const void* kernel, int device) {
  int previous = 0;
  if (const cudaError_t s = cudaGetDevice(&previous); s != cudaSuccess) {
    cudaGetLastError();
    return runtime_said("cudaGetDevice", device, s);
  }
  if (const cudaError_t s = cudaSetDevice(device); s != cudaSuccess) {
    cudaGetLastError();
    return runtime_said("cudaSetDevice", device, s);
  }
  cudaFuncAttributes attributes{};
  const cudaError_t status = cudaFuncGetAttributes(&attributes, kernel);
  // Not sticky: clear it, or the next launch check (cudaGetLastError) would report it.
  cudaGetLastError();
  std::string why;
  if (status == cudaErrorNoKernelImageForDevice || status == cudaErrorInvalidDeviceFunction) {
    int major = 0, minor = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
    why = no_code_for(major, minor);
  } else if (status != cudaSuccess) {
    why = runtime_said("cudaFuncGetAttributes", device, status);
  }
  cudaSetDevice(previous);
  return why;
}

std::string why_project_kernels_cannot_run(int device) {
  for (const void* kernel : {detail::a_generator_kernel(), detail::a_residual_kernel()})
    if (std::string why = why_kernel_cannot_run(kernel, device); !why.empty()) return why;
  return {};
}

}  // namespace solvebench::cuda
