// The cusolverMg context over the GPUs of one host: which devices (and what the CUDA runtime
// knows of them: names, peer access), the Mg handle with those devices selected, the 1 x G
// device grid, and a stream per device. The solver on it is in cusolver_mg.hpp.
//
// Like cusolver_mg.hpp, this header does not include <cusolverMg.h> (deprecated in CUDA 13):
// only the two sources that call cusolverMg see it, so -Werror holds everywhere else.
#pragma once

#include <cuda_runtime_api.h>
#include <cusolver_common.h>

#include <string>
#include <utility>
#include <vector>

#include "solvebench/cuda_owners.hpp"

struct cusolverMgContext;  // what cusolverMgHandle_t points to

namespace solvebench::cuda::mg {

// ---- devices -------------------------------------------------------------------------------

// Devices 0 .. count-1; invalid_argument ("needs 2 GPUs, found 1") when fewer are present.
std::vector<int> first_devices(int count);

// CUDA-runtime facts about a set of devices (NVLink topology comes from NVML elsewhere).
struct device_topology {
  std::vector<int> devices;
  std::vector<std::string> names;
  // [i][j]: devices[i] can map devices[j]'s memory (cudaDeviceCanAccessPeer); false for i == j.
  std::vector<std::vector<bool>> peer_access;
};
device_topology query_topology(const std::vector<int>& devices);
// For the JSON context: mgpu_devices "0,1", mgpu_gpu0_name "NVIDIA H200", ...,
// mgpu_peer_access "0->1 yes, 1->0 yes" ("none" for one device).
std::vector<std::pair<std::string, std::string>> topology_facts(const device_topology& topology);

// Peer access between every ordered pair that allows it; "already enabled" is not an error.
void enable_peer_access(const std::vector<int>& devices);

// cudaMemGetInfo on `device` (the current device is restored).
device_memory memory_info_of(int device);
// cudaDeviceProp::name of `device`.
std::string device_name(int device);

// ---- the context ---------------------------------------------------------------------------

namespace detail {
// Defined in cusolver_mg_context.cpp, which includes <cusolverMg.h>.
cusolverStatus_t destroy_handle(cusolverMgContext* handle) noexcept;
cusolverStatus_t destroy_grid(void* grid) noexcept;
cusolverStatus_t destroy_matrix_desc(void* desc) noexcept;
}  // namespace detail

using mg_handle = unique_handle<cusolverMgContext*, detail::destroy_handle>;
using grid_handle = unique_handle<void*, detail::destroy_grid>;         // cudaLibMgGrid_t
using matrix_desc = unique_handle<void*, detail::destroy_matrix_desc>;  // cudaLibMgMatrixDesc_t

// One cusolverMg handle with `devices` selected, peer access enabled between them, a 1 x G device
// grid (column-major mapping) over them, and a stream per device for our own kernels.
class context {
 public:
  explicit context(std::vector<int> devices);

  const std::vector<int>& devices() const noexcept { return devices_; }
  int device_count() const noexcept { return static_cast<int>(devices_.size()); }
  cusolverMgContext* handle() const noexcept { return handle_.get(); }
  void* grid() const noexcept { return grid_.get(); }
  cudaStream_t stream(int p) const noexcept { return streams_[static_cast<std::size_t>(p)].get(); }
  // cudaDeviceSynchronize on every device: waits for the Mg library's own streams too.
  void synchronize() const;

 private:
  std::vector<int> devices_;
  std::vector<cuda::stream> streams_;  // one per device, made on it
  mg_handle handle_;
  grid_handle grid_;
};

}  // namespace solvebench::cuda::mg
