// The cusolverMg context: device checks and facts, peer access, the Mg handle and device grid.

// Every cusolverMg entry point is [[deprecated]] in CUDA 13 and we build with -Werror: the two
// translation units that call them (this one and cusolver_mg.cpp) silence it, before the first
// include of <cusolverMg.h>.
#define DISABLE_CUSOLVERMG_DEPRECATED
#include <cusolverMg.h>

#include "solvebench/cusolver_mg_context.hpp"

#include <algorithm>
#include <cstdint>

#include "solvebench/errors.hpp"

namespace solvebench::cuda::mg {

// ---- devices -------------------------------------------------------------------------------

std::vector<int> first_devices(int count) {
  if (count < 1) throw invalid_argument("a multi-GPU problem needs at least one GPU, got " + std::to_string(count));
  std::string why;
  const int found = device_count(&why);
  if (found < count)
    throw invalid_argument("needs " + std::to_string(count) + " GPUs, found " + std::to_string(found) +
                           (found == 0 ? " (" + why + ")" : ""));
  std::vector<int> ids(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) ids[static_cast<std::size_t>(i)] = i;
  return ids;
}

device_topology query_topology(const std::vector<int>& devices) {
  device_topology t;
  t.devices = devices;
  for (int d : devices) t.names.push_back(device_name(d));
  t.peer_access.assign(devices.size(), std::vector<bool>(devices.size(), false));
  for (std::size_t i = 0; i < devices.size(); ++i)
    for (std::size_t j = 0; j < devices.size(); ++j) {
      if (i == j) continue;
      int can = 0;
      SB_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, devices[i], devices[j]));
      t.peer_access[i][j] = can != 0;
    }
  return t;
}

std::vector<std::pair<std::string, std::string>> topology_facts(const device_topology& topology) {
  std::vector<std::pair<std::string, std::string>> facts;
  std::string ids, peers;
  for (std::size_t i = 0; i < topology.devices.size(); ++i) {
    const std::string id = std::to_string(topology.devices[i]);
    ids += (i ? "," : "") + id;
    facts.emplace_back("mgpu_gpu" + id + "_name", i < topology.names.size() ? topology.names[i] : "");
    for (std::size_t j = 0; j < topology.devices.size(); ++j) {
      if (i == j) continue;
      const bool can =
          i < topology.peer_access.size() && j < topology.peer_access[i].size() && topology.peer_access[i][j];
      peers += (peers.empty() ? "" : ", ") + id + "->" + std::to_string(topology.devices[j]) + (can ? " yes" : " no");
    }
  }
  facts.emplace(facts.begin(), "mgpu_devices", ids);
  facts.emplace_back("mgpu_peer_access", peers.empty() ? "none (one device)" : peers);
  return facts;
}

void enable_peer_access(const std::vector<int>& devices) {
  for (int from : devices) {
    scoped_device on(from);
    for (int to : devices) {
      if (to == from) continue;
      int can = 0;
      SB_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, from, to));
      if (!can) continue;
      const cudaError_t status = cudaDeviceEnablePeerAccess(to, 0);
      if (status == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();  // clear it: not an error here
      else SB_CUDA_CHECK(status);
    }
  }
}

device_memory memory_info_of(int device) {
  scoped_device on(device);
  return memory_info();
}

std::string device_name(int device) {
  cudaDeviceProp prop{};
  SB_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  return prop.name;
}

// ---- the context ---------------------------------------------------------------------------

namespace detail {
cusolverStatus_t destroy_handle(cusolverMgContext* handle) noexcept { return cusolverMgDestroy(handle); }
cusolverStatus_t destroy_grid(void* grid) noexcept { return cusolverMgDestroyGrid(grid); }
cusolverStatus_t destroy_matrix_desc(void* desc) noexcept { return cusolverMgDestroyMatrixDesc(desc); }
}  // namespace detail

context::context(std::vector<int> devices) : devices_(std::move(devices)) {
  if (devices_.empty()) throw invalid_argument("a cusolverMg context needs at least one device");
  std::string why;
  const int present = cuda::device_count(&why);
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    if (devices_[i] < 0 || devices_[i] >= present)
      throw invalid_argument("device " + std::to_string(devices_[i]) + " does not exist (" + std::to_string(present) +
                             " present" + (present == 0 ? ": " + why : "") + ")");
    if (std::count(devices_.begin(), devices_.end(), devices_[i]) > 1)
      throw invalid_argument("device " + std::to_string(devices_[i]) + " is listed twice");
  }
  for (int d : devices_) streams_.emplace_back(d);
  scoped_device first(devices_.front());
  cusolverMgHandle_t h{};
  SB_CUSOLVER_CHECK(cusolverMgCreate(&h));
  handle_ = mg_handle(h);
  std::vector<int> ids = devices_;  // cusolverMgDeviceSelect takes a non-const array
  SB_CUSOLVER_CHECK(cusolverMgDeviceSelect(h, device_count(), ids.data()));
  enable_peer_access(devices_);  // after selecting the devices, in the order of NVIDIA's examples
  std::vector<std::int32_t> grid_ids(devices_.begin(), devices_.end());
  cudaLibMgGrid_t g{};
  SB_CUSOLVER_CHECK(cusolverMgCreateDeviceGrid(&g, 1, static_cast<std::int32_t>(device_count()), grid_ids.data(),
                                               CUDALIBMG_GRID_MAPPING_COL_MAJOR));
  grid_ = grid_handle(g);
}

void context::synchronize() const {
  for (int d : devices_) {
    scoped_device on(d);
    SB_CUDA_CHECK(cudaDeviceSynchronize());
  }
}

}  // namespace solvebench::cuda::mg
