// NVML through dlopen: the library is found at run time, never linked (see nvml.hpp).
#include "solvebench/nvml.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <utility>

#include "solvebench/errors.hpp"

// The part of nvml.h this file uses, declared here: not every CUDA toolkit ships nvml.h (a
// pip-assembled one does not; Debian's sits in non-free), and these declarations are the
// driver's stable ABI: NVML gives a function a new versioned name (_v2, _v3) when a layout
// changes, never a new layout under an old name. Where nvml.h is there, the compiler checks
// that both agree.
namespace solvebench::nvml::abi {
using return_t = int;  // nvmlReturn_t
constexpr return_t success = 0;
constexpr return_t error_not_supported = 3;
constexpr return_t error_insufficient_size = 7;
using device_t = struct opaque_device*;  // nvmlDevice_t
constexpr int clock_sm = 1;              // NVML_CLOCK_SM
constexpr int feature_enabled = 1;       // NVML_FEATURE_ENABLED
constexpr int nvlink_device_type_gpu = 0;     // NVML_NVLINK_DEVICE_TYPE_GPU
constexpr int nvlink_device_type_switch = 2;  // NVML_NVLINK_DEVICE_TYPE_SWITCH
// nvmlProcessInfo_t as nvmlDeviceGetComputeRunningProcesses_v2/_v3 fill it.
struct process_info {
  unsigned int pid;
  unsigned long long used_gpu_memory;
  unsigned int gpu_instance_id, compute_instance_id;
};
// nvmlPciInfo_t (nvmlDeviceGetNvLinkRemotePciInfo_v2).
struct pci_info {
  char bus_id_legacy[16];
  unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};
}  // namespace solvebench::nvml::abi

#if __has_include(<nvml.h>)
#include <nvml.h>
namespace solvebench::nvml::abi {
static_assert(NVML_SUCCESS == success && NVML_ERROR_NOT_SUPPORTED == error_not_supported &&
              NVML_ERROR_INSUFFICIENT_SIZE == error_insufficient_size);
static_assert(sizeof(nvmlReturn_t) == sizeof(return_t) && sizeof(nvmlDevice_t) == sizeof(device_t));
static_assert(NVML_CLOCK_SM == clock_sm && NVML_FEATURE_ENABLED == feature_enabled);
static_assert(NVML_NVLINK_DEVICE_TYPE_GPU == nvlink_device_type_gpu &&
              NVML_NVLINK_DEVICE_TYPE_SWITCH == nvlink_device_type_switch);
static_assert(sizeof(nvmlProcessInfo_t) == sizeof(process_info) &&
              offsetof(nvmlProcessInfo_t, usedGpuMemory) == offsetof(process_info, used_gpu_memory) &&
              offsetof(nvmlProcessInfo_t, computeInstanceId) == offsetof(process_info, compute_instance_id));
static_assert(sizeof(nvmlPciInfo_t) == sizeof(pci_info) && offsetof(nvmlPciInfo_t, busId) == offsetof(pci_info, bus_id));
// (The clocks-event masks are checked by their older Throttle names, which every nvml.h has.)
static_assert(nvmlClocksThrottleReasonSwPowerCap == clocks_event::sw_power_cap &&
              nvmlClocksThrottleReasonHwPowerBrakeSlowdown == clocks_event::hw_power_brake_slowdown &&
              nvmlClocksThrottleReasonDisplayClockSetting == clocks_event::display_clock_setting);
}  // namespace solvebench::nvml::abi
#endif

namespace solvebench::nvml {

namespace detail {
// The functions this file calls. The first four are required; any other may be missing from
// an older driver's library (nullptr), which only empties what it would have read.
struct api {
  abi::return_t (*init)();
  abi::return_t (*shutdown)();
  const char* (*error_string)(abi::return_t);
  abi::return_t (*handle_by_bus_id)(const char*, abi::device_t*);
  abi::return_t (*clock_info)(abi::device_t, int, unsigned*);
  abi::return_t (*clocks_event_reasons)(abi::device_t, unsigned long long*);
  abi::return_t (*compute_processes)(abi::device_t, unsigned*, abi::process_info*);
  abi::return_t (*total_energy)(abi::device_t, unsigned long long*);
  abi::return_t (*max_pcie_generation)(abi::device_t, unsigned*);
  abi::return_t (*max_pcie_width)(abi::device_t, unsigned*);
  abi::return_t (*current_pcie_generation)(abi::device_t, unsigned*);
  abi::return_t (*current_pcie_width)(abi::device_t, unsigned*);
  abi::return_t (*nvlink_state)(abi::device_t, unsigned, int*);
  abi::return_t (*nvlink_remote_pci)(abi::device_t, unsigned, abi::pci_info*);
  abi::return_t (*nvlink_remote_type)(abi::device_t, unsigned, int*);

  std::string error(abi::return_t rc) const {
    const char* text = error_string ? error_string(rc) : nullptr;
    return (text ? std::string(text) : "NVML error") + " (" + std::to_string(rc) + ")";
  }
};
}  // namespace detail

namespace {

using detail::api;

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

struct loaded {
  std::shared_ptr<const api> functions;
  std::string why_not;
};

loaded open_library(const std::string& library) {
  dlerror();
  void* lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* err = dlerror();
    const std::string detail = err ? err : "";
    if (detail.find("No such file") != std::string::npos || detail.find("cannot open shared object") != std::string::npos)
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
                                                   {f->handle_by_bus_id != nullptr, "nvmlDeviceGetHandleByPciBusId_v2"}};
  for (const auto& [found, name] : required) {
    if (!found) {
      dlclose(lib);
      return {nullptr, "NVML not available: " + library + " has no " + name + " (a driver older than this code expects)"};
    }
  }
  find_symbol(lib, f->clock_info, {"nvmlDeviceGetClockInfo"});
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
  // Never dlclose'd: the functions stay valid for every session of the process.
  return {std::move(f), ""};
}

// dlopen and dlsym once per library name and process.
loaded load(const std::string& library) {
  static std::mutex mutex;
  static std::map<std::string, loaded> libraries;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = libraries.try_emplace(library);
  if (inserted) it->second = open_library(library);
  return it->second;
}

abi::device_t handle_of(const device& d) { return static_cast<abi::device_t>(d.handle); }

std::string not_in_library(const char* function) { return "this driver's NVML has no " + std::string(function); }

}  // namespace

// ---- session ------------------------------------------------------------------------------

session::session() : session("libnvidia-ml.so.1") {}

session::session(const std::string& library) {
  loaded lib = load(library);
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

gpu_sample session::sample(const device& d) const {
  gpu_sample s;
  if (!api_) {
    s.missing.push_back(reason_);
    return s;
  }
  const abi::device_t h = handle_of(d);

  if (!api_->clock_info) {
    s.missing.push_back("SM clock not readable: " + not_in_library("nvmlDeviceGetClockInfo"));
  } else {
    unsigned mhz = 0;
    const abi::return_t rc = api_->clock_info(h, abi::clock_sm, &mhz);
    if (rc == abi::success)
      s.sm_clock_mhz = mhz;
    else
      s.missing.push_back("SM clock not readable: " + api_->error(rc));
  }

  if (!api_->clocks_event_reasons) {
    s.missing.push_back("clock-event (throttle) reasons not readable: " +
                        not_in_library("nvmlDeviceGetCurrentClocksEventReasons"));
  } else {
    unsigned long long mask = 0;
    const abi::return_t rc = api_->clocks_event_reasons(h, &mask);
    if (rc == abi::success)
      s.clocks_event_reasons = mask;
    else
      s.missing.push_back("clock-event (throttle) reasons not readable: " + api_->error(rc));
  }

  if (!api_->compute_processes) {
    s.missing.push_back("compute processes not readable: " + not_in_library("nvmlDeviceGetComputeRunningProcesses_v3"));
  } else {
    // Ask for the count, then for the list; a process may start in between, so ask again
    // (with room to spare) while the answer is "insufficient size".
    std::vector<abi::process_info> infos;
    unsigned count = 0;
    abi::return_t rc = api_->compute_processes(h, &count, nullptr);
    for (int attempt = 0; rc == abi::error_insufficient_size && attempt < 4; ++attempt) {
      infos.resize(count + 8);
      count = static_cast<unsigned>(infos.size());
      rc = api_->compute_processes(h, &count, infos.data());
    }
    if (rc == abi::success) {
      std::vector<unsigned> pids;
      for (unsigned i = 0; i < count && i < infos.size(); ++i) pids.push_back(infos[i].pid);
      s.other_processes = count_other_processes(pids, static_cast<unsigned>(::getpid()));
    } else {
      s.missing.push_back("compute processes not readable: " + api_->error(rc));
    }
  }

  if (!api_->total_energy) {
    s.missing.push_back("total energy counter not readable: " + not_in_library("nvmlDeviceGetTotalEnergyConsumption"));
  } else {
    unsigned long long mj = 0;
    const abi::return_t rc = api_->total_energy(h, &mj);
    if (rc == abi::success)
      s.energy_mj = mj;
    else if (rc == abi::error_not_supported)
      s.missing.push_back("total energy counter not supported on this GPU: " + api_->error(rc));
    else
      s.missing.push_back("total energy counter not readable: " + api_->error(rc));
  }
  return s;
}

namespace {
std::optional<pcie_link> read_link(const api* a, const std::string& unavailable, abi::device_t h,
                                   abi::return_t (*generation)(abi::device_t, unsigned*),
                                   abi::return_t (*width)(abi::device_t, unsigned*), const char* what, std::string* why) {
  if (!a) {
    if (why) *why = unavailable;
    return std::nullopt;
  }
  if (!generation || !width) {
    if (why) *why = std::string(what) + " not readable: " + not_in_library("its PCIe link queries");
    return std::nullopt;
  }
  pcie_link link;
  abi::return_t rc = generation(h, &link.generation);
  if (rc == abi::success) rc = width(h, &link.width);
  if (rc != abi::success) {
    if (why) *why = std::string(what) + " not readable: " + a->error(rc);
    return std::nullopt;
  }
  return link;
}
}  // namespace

std::optional<pcie_link> session::pcie_max_link(const device& d, std::string* why) const {
  return read_link(api_.get(), reason_, handle_of(d), api_ ? api_->max_pcie_generation : nullptr,
                   api_ ? api_->max_pcie_width : nullptr, "maximum PCIe link", why);
}

std::optional<pcie_link> session::pcie_current_link(const device& d, std::string* why) const {
  return read_link(api_.get(), reason_, handle_of(d), api_ ? api_->current_pcie_generation : nullptr,
                   api_ ? api_->current_pcie_width : nullptr, "current PCIe link", why);
}

std::optional<nvlink_summary> session::nvlinks(const device& d, std::string* why) const {
  if (!api_) {
    if (why) *why = reason_;
    return std::nullopt;
  }
  if (!api_->nvlink_state) {
    if (why) *why = "NVLink state not readable: " + not_in_library("nvmlDeviceGetNvLinkState");
    return std::nullopt;
  }
  const abi::device_t h = handle_of(d);
  nvlink_summary sum;
  // Past NVML_NVLINK_MAX_LINKS (18 today): a link number the device lacks is an error, skipped.
  for (unsigned link = 0; link < 32; ++link) {
    int active = 0;
    if (api_->nvlink_state(h, link, &active) != abi::success || active != abi::feature_enabled) continue;
    ++sum.links_up;
    int type = abi::nvlink_device_type_gpu;
    if (api_->nvlink_remote_type && api_->nvlink_remote_type(h, link, &type) != abi::success) continue;
    if (type == abi::nvlink_device_type_switch) {
      ++sum.to_switch;
      continue;
    }
    if (type != abi::nvlink_device_type_gpu || !api_->nvlink_remote_pci) continue;
    abi::pci_info remote{};
    if (api_->nvlink_remote_pci(h, link, &remote) == abi::success)
      sum.remote_gpu_bus_ids.emplace_back(remote.bus_id, strnlen(remote.bus_id, sizeof remote.bus_id));
  }
  return sum;
}

// ---- pure helpers -------------------------------------------------------------------------

std::string describe_clocks_event_reasons(std::uint64_t mask) {
  static const std::pair<std::uint64_t, const char*> names[] = {
      {clocks_event::gpu_idle, "gpu_idle"},
      {clocks_event::applications_clocks_setting, "applications_clocks_setting"},
      {clocks_event::sw_power_cap, "sw_power_cap"},
      {clocks_event::hw_slowdown, "hw_slowdown"},
      {clocks_event::sync_boost, "sync_boost"},
      {clocks_event::sw_thermal_slowdown, "sw_thermal_slowdown"},
      {clocks_event::hw_thermal_slowdown, "hw_thermal_slowdown"},
      {clocks_event::hw_power_brake_slowdown, "hw_power_brake_slowdown"},
      {clocks_event::display_clock_setting, "display_clock_setting"},
  };
  if (mask == 0) return "none";
  std::string out;
  std::uint64_t known = 0;
  for (const auto& [bit, name] : names) {
    known |= bit;
    if (mask & bit) out += (out.empty() ? "" : "|") + std::string(name);
  }
  if (mask & ~known) {
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(mask & ~known));
    out += (out.empty() ? "" : "|") + std::string(hex);
  }
  return out;
}

double pcie_GBps(unsigned generation, unsigned lanes) {
  double gigatransfers = 0, efficiency = 0;
  switch (generation) {
    case 1: gigatransfers = 2.5; efficiency = 8.0 / 10.0; break;
    case 2: gigatransfers = 5.0; efficiency = 8.0 / 10.0; break;
    case 3: gigatransfers = 8.0; efficiency = 128.0 / 130.0; break;
    case 4: gigatransfers = 16.0; efficiency = 128.0 / 130.0; break;
    case 5: gigatransfers = 32.0; efficiency = 128.0 / 130.0; break;
    case 6: gigatransfers = 64.0; efficiency = 242.0 / 256.0; break;
    default:
      throw invalid_argument("PCIe generation " + std::to_string(generation) + " is not one this code knows (1-6)");
  }
  if (lanes == 0) throw invalid_argument("a PCIe link of 0 lanes");
  return gigatransfers * efficiency * lanes / 8.0;
}

std::optional<double> pcie_max_GBps(const session& s, int cuda_device, std::string* why) {
  const auto d = s.device_for_cuda(cuda_device, why);
  if (!d) return std::nullopt;
  const auto link = s.pcie_max_link(*d, why);
  if (!link) return std::nullopt;
  if (link->generation < 1 || link->generation > 6 || link->width == 0) {
    if (why) *why = "maximum PCIe link gen" + std::to_string(link->generation) + " x" + std::to_string(link->width) +
                    " is not one this code knows";
    return std::nullopt;
  }
  return pcie_GBps(link->generation, link->width);
}

namespace {
// domain, bus, device, function; empty when `text` is no PCI address.
std::optional<std::array<unsigned, 4>> parse_pci(const std::string& text) {
  std::array<unsigned, 4> p{};
  char tail = 0;
  if (std::sscanf(text.c_str(), "%x:%x:%x.%x%c", &p[0], &p[1], &p[2], &p[3], &tail) == 4) return p;
  p = {};
  if (std::sscanf(text.c_str(), "%x:%x.%x%c", &p[1], &p[2], &p[3], &tail) == 3) return p;
  return std::nullopt;
}
}  // namespace

bool same_pci_function(const std::string& a, const std::string& b) {
  const auto pa = parse_pci(a), pb = parse_pci(b);
  if (pa && pb) return *pa == *pb;
  if (a.size() != b.size()) return false;
  return std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  });
}

unsigned nvlinks_to(const nvlink_summary& from, const std::string& to_bus_id) {
  return static_cast<unsigned>(std::count_if(from.remote_gpu_bus_ids.begin(), from.remote_gpu_bus_ids.end(),
                                             [&](const std::string& b) { return same_pci_function(b, to_bus_id); }));
}

unsigned count_other_processes(const std::vector<unsigned>& pids, unsigned self_pid) {
  const bool self_seen = std::find(pids.begin(), pids.end(), self_pid) != pids.end();
  auto others = static_cast<unsigned>(std::count_if(pids.begin(), pids.end(), [&](unsigned p) { return p != self_pid; }));
  if (!self_seen && others > 0) --others;  // our own context, under a pid of another namespace
  return others;
}

// ---- topology -----------------------------------------------------------------------------

std::string link_topology(const session& s, const std::vector<gpu_endpoint>& gpus,
                          const std::function<bool(int, int)>& can_access_peer) {
  std::vector<std::optional<nvlink_summary>> links(gpus.size());
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    std::ostringstream line;
    line << "GPU" << gpus[i].cuda_device << " " << gpus[i].bus_id << ": ";
    const auto d = s.device_by_bus_id(gpus[i].bus_id);
    if (!d) {
      line << "PCIe and NVLink unknown";
      parts.push_back(line.str());
      continue;
    }
    const auto current = s.pcie_current_link(*d), max = s.pcie_max_link(*d);
    if (current) line << "PCIe gen" << current->generation << " x" << current->width << " ";
    if (max) {
      line << "(max gen" << max->generation << " x" << max->width;
      if (max->generation >= 1 && max->generation <= 6 && max->width > 0) {
        char rate[32];
        std::snprintf(rate, sizeof rate, "%.1f", pcie_GBps(max->generation, max->width));
        line << ", " << rate << " GB/s one way";
      }
      line << ")";
    } else if (!current) {
      line << "PCIe unknown";
    }
    links[i] = s.nvlinks(*d);
    if (!links[i])
      line << ", NVLink unknown";
    else if (links[i]->links_up == 0)
      line << ", no NVLink up";
    else {
      line << ", NVLink " << links[i]->links_up << " up";
      if (links[i]->to_switch > 0) line << " (" << links[i]->to_switch << " to NVSwitch)";
    }
    parts.push_back(line.str());
  }
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    for (std::size_t j = i + 1; j < gpus.size(); ++j) {
      std::ostringstream pair;
      pair << gpus[i].cuda_device << "-" << gpus[j].cuda_device << ": "
           << (can_access_peer(gpus[i].cuda_device, gpus[j].cuda_device) ? "peer" : "no peer") << ", ";
      if (!links[i] || !links[j]) {
        pair << "NVLink unknown";
      } else if (const unsigned direct = std::max(nvlinks_to(*links[i], gpus[j].bus_id), nvlinks_to(*links[j], gpus[i].bus_id));
                 direct > 0) {
        pair << "NVLink x" << direct;
      } else if (links[i]->to_switch > 0 && links[j]->to_switch > 0) {
        pair << "NVLink via NVSwitch";
      } else {
        pair << "no NVLink";
      }
      parts.push_back(pair.str());
    }
  }
  if (!s.available()) parts.push_back(s.unavailable_reason());
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

std::string link_topology(const session& s, const std::vector<int>& cuda_devices) {
  std::vector<gpu_endpoint> gpus;
  for (int dev : cuda_devices) {
    char bus_id[32] = {};
    if (cudaDeviceGetPCIBusId(bus_id, static_cast<int>(sizeof bus_id), dev) != cudaSuccess) {
      cudaGetLastError();
      std::snprintf(bus_id, sizeof bus_id, "unknown");
    }
    gpus.push_back({dev, bus_id});
  }
  return link_topology(s, gpus, [](int a, int b) {
    int yes = 0;
    if (cudaDeviceCanAccessPeer(&yes, a, b) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    return yes != 0;
  });
}

}  // namespace solvebench::nvml
