// NVML's loader: dlopen of the driver's library, the function table by dlsym, error strings,
// and the session (init, shutdown, devices by bus id). See nvml.hpp.
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <initializer_list>
#include <map>
#include <mutex>
#include <utility>

#include "nvml_api.hpp"

namespace solvebench::nvml {

using detail::api;
using detail::loaded;

namespace {

template <class F>
void find_symbol(void* lib, F& fn, std::initializer_list<const char*> names) {
  fn = nullptr;
  for (const char* name : names) {
    if (void* p = dlsym(lib, name)) {
      fn = reinterpret_cast<F>(p);
      return;
    }
  }
}

loaded open_library(const std::string& library) {
  dlerror();
  void* lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* err = dlerror();
    const std::string detail = err ? err : "";
    if (detail.find("No such file") != std::string::npos ||
        detail.find("cannot open shared object") != std::string::npos)
      return {nullptr, "NVML not available: " + library + " not found (no NVIDIA driver?)"};
    return {nullptr, "NVML not available: cannot load " + library + ": " + detail};
  }
  auto f = std::make_shared<api>();
  find_symbol(lib, f->init, {"nvmlInit_v2"});
  find_symbol(lib, f->shutdown, {"nvmlShutdown"});
  find_symbol(lib, f->error_string, {"nvmlErrorString"});
  find_symbol(lib, f->handle_by_bus_id, {"nvmlDeviceGetHandleByPciBusId_v2"});
  const std::pair<bool, const char*> required[] = {{f->init != nullptr, "nvmlInit_v2"},
                                                   {f->shutdown != nullptr, "nvmlShutdown"},
                                                   {f->error_string != nullptr, "nvmlErrorString"},
                                                   {f->handle_by_bus_id != nullptr,
                                                    "nvmlDeviceGetHandleByPciBusId_v2"}};
  for (const auto& [found, name] : required) {
    if (!found) {
      dlclose(lib);
      return {nullptr,
              "NVML not available: " + library + " has no " + name + " (a driver older than this code expects)"};
    }
  }
  find_symbol(lib, f->clock_info, {"nvmlDeviceGetClockInfo"});
  find_symbol(lib, f->applications_clock, {"nvmlDeviceGetApplicationsClock"});
  // Renamed in CUDA 12.2's NVML; drivers keep the old name, older drivers have only it.
  find_symbol(lib, f->clocks_event_reasons,
              {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"});
  find_symbol(lib, f->compute_processes,
              {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"});
  find_symbol(lib, f->total_energy, {"nvmlDeviceGetTotalEnergyConsumption"});
  find_symbol(lib, f->max_pcie_generation, {"nvmlDeviceGetMaxPcieLinkGeneration"});
  find_symbol(lib, f->max_pcie_width, {"nvmlDeviceGetMaxPcieLinkWidth"});
  find_symbol(lib, f->current_pcie_generation, {"nvmlDeviceGetCurrPcieLinkGeneration"});
  find_symbol(lib, f->current_pcie_width, {"nvmlDeviceGetCurrPcieLinkWidth"});
  find_symbol(lib, f->nvlink_state, {"nvmlDeviceGetNvLinkState"});
  find_symbol(lib, f->nvlink_remote_pci, {"nvmlDeviceGetNvLinkRemotePciInfo_v2"});
  find_symbol(lib, f->nvlink_remote_type, {"nvmlDeviceGetNvLinkRemoteDeviceType"});
  find_symbol(lib, f->violation_status, {"nvmlDeviceGetViolationStatus"});
  find_symbol(lib, f->samples, {"nvmlDeviceGetSamples"});
  // Never dlclose'd: the functions stay valid for every session of the process.
  return {std::move(f), ""};
}

}  // namespace

// dlopen and dlsym once per library name and process.
loaded detail::load(const std::string& library) {
  static std::mutex mutex;
  static std::map<std::string, loaded> libraries;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = libraries.try_emplace(library);
  if (inserted) it->second = open_library(library);
  return it->second;
}

// ---- session ------------------------------------------------------------------------------

session::session() : session("libnvidia-ml.so.1") {}

session::session(const std::string& library) {
  loaded lib = detail::load(library);
  if (!lib.functions) {
    reason_ = std::move(lib.why_not);
    return;
  }
  const abi::return_t rc = lib.functions->init();
  if (rc != abi::success) {
    reason_ = "NVML not available: nvmlInit_v2 failed: " + lib.functions->error(rc);
    return;
  }
  api_ = std::move(lib.functions);
}

session::~session() {
  if (api_) api_->shutdown();  // its status is of no use here: the session is over either way
}

session::session(session&& other) noexcept : api_(std::move(other.api_)), reason_(std::move(other.reason_)) {
  other.api_.reset();
}

session& session::operator=(session&& other) noexcept {
  if (this != &other) {
    if (api_) api_->shutdown();
    api_ = std::move(other.api_);
    other.api_.reset();
    reason_ = std::move(other.reason_);
  }
  return *this;
}

std::optional<device> session::device_by_bus_id(const std::string& bus_id, std::string* why) const {
  if (!api_) {
    if (why) *why = reason_;
    return std::nullopt;
  }
  abi::device_t h{};
  const abi::return_t rc = api_->handle_by_bus_id(bus_id.c_str(), &h);
  if (rc != abi::success) {
    if (why) *why = "NVML has no device at PCI bus id " + bus_id + ": " + api_->error(rc);
    return std::nullopt;
  }
  return device{bus_id, h};
}

std::optional<device> session::device_for_cuda(int cuda_device, std::string* why) const {
  if (!api_) {
    if (why) *why = reason_;
    return std::nullopt;
  }
  char bus_id[32] = {};
  const cudaError_t status = cudaDeviceGetPCIBusId(bus_id, static_cast<int>(sizeof bus_id), cuda_device);
  if (status != cudaSuccess) {
    cudaGetLastError();  // not sticky; clear it so later CUDA calls do not report it
    if (why) *why = "no PCI bus id for CUDA device " + std::to_string(cuda_device) + ": " + cudaGetErrorName(status);
    return std::nullopt;
  }
  return device_by_bus_id(bus_id, why);
}

}  // namespace solvebench::nvml
