// What NVML tells about a GPU: clocks, clock-event reasons, capped time, processes, energy,
// PCIe and NVLink, and the link topology of a set of GPUs. The loader is nvml_loader.cpp.
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <utility>

#include "nvml_api.hpp"
#include "solvebench/errors.hpp"

namespace solvebench::nvml {

using detail::api;
using detail::handle_of;
using detail::not_in_library;

gpu_sample session::sample(const device& d) const {
  gpu_sample s;
  if (!api_) {
    s.missing.push_back(reason_);
    return s;
  }
  const abi::device_t h = handle_of(d);

  // The SM clock now, and the application clock (what it runs at when nothing holds it down).
  using clock_query = abi::return_t (*)(abi::device_t, int, unsigned*);
  const auto read_clock = [&](clock_query query, const char* function, const char* what) -> std::optional<unsigned> {
    unsigned mhz = 0;
    const abi::return_t rc = query ? query(h, abi::clock_sm, &mhz) : abi::success;
    if (query && rc == abi::success) return mhz;
    s.missing.push_back(std::string(what) + " not readable: " + (query ? api_->error(rc) : not_in_library(function)));
    return std::nullopt;
  };
  s.sm_clock_mhz = read_clock(api_->clock_info, "nvmlDeviceGetClockInfo", "SM clock");
  s.sm_app_clock_mhz = read_clock(api_->applications_clock, "nvmlDeviceGetApplicationsClock", "SM application clock");

  if (!api_->clocks_event_reasons) {
    s.missing.push_back("clock-event (throttle) reasons not readable: " +
                        not_in_library("nvmlDeviceGetCurrentClocksEventReasons"));
  } else {
    unsigned long long mask = 0;
    const abi::return_t rc = api_->clocks_event_reasons(h, &mask);
    if (rc == abi::success) s.clocks_event_reasons = mask;
    else s.missing.push_back("clock-event (throttle) reasons not readable: " + api_->error(rc));
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
    if (rc == abi::success) s.energy_mj = mj;
    else if (rc == abi::error_not_supported)
      s.missing.push_back("total energy counter not supported on this GPU: " + api_->error(rc));
    else s.missing.push_back("total energy counter not readable: " + api_->error(rc));
  }

  if (!api_->violation_status) {
    s.missing.push_back("capped time not readable: " + not_in_library("nvmlDeviceGetViolationStatus"));
  } else {
    // One sentence for all the policies this GPU does not time, so that a run says it once.
    std::string unread;
    std::vector<abi::return_t> errors;
    for (std::size_t i = 0; i < perf_policies.size(); ++i) {
      abi::violation_time t{};
      const abi::return_t rc = api_->violation_status(h, static_cast<int>(perf_policies[i]), &t);
      if (rc == abi::success) {
        s.capped_ns[i] = t.violation_time_ns;
        if (!s.capped_reference_us) s.capped_reference_us = t.reference_time_us;
        continue;
      }
      errors.push_back(rc);
      unread += (unread.empty() ? "" : ", ") + std::string(name_of(perf_policies[i])) + " (" + api_->error(rc) + ")";
    }
    const bool none = errors.size() == perf_policies.size() &&
                      std::all_of(errors.begin(), errors.end(), [&](abi::return_t rc) { return rc == errors[0]; });
    if (none) s.missing.push_back("capped time not readable: " + api_->error(errors[0]));
    else if (!unread.empty()) s.missing.push_back("capped time not readable for " + unread);
  }
  return s;
}

namespace {
double as_double(int type, const abi::value& v) {
  switch (type) {
    case abi::value_double: return v.d;
    case abi::value_uint: return v.ui;
    case abi::value_ulong: return static_cast<double>(v.ul);
    case abi::value_ulonglong: return static_cast<double>(v.ull);
    case abi::value_slonglong: return static_cast<double>(v.sll);
    case abi::value_sint: return v.si;
    case abi::value_ushort: return v.us;
    default: return 0;
  }
}
}  // namespace

std::optional<clock_samples> session::sm_clock_samples(const device& d, std::uint64_t after_us,
                                                       std::string* why) const {
  if (!api_) {
    if (why) *why = reason_;
    return std::nullopt;
  }
  if (!api_->samples) {
    if (why) *why = "SM clock samples not readable: " + not_in_library("nvmlDeviceGetSamples");
    return std::nullopt;
  }
  const abi::device_t h = handle_of(d);
  clock_samples out;
  out.newest_us = after_us;
  // The count first, then the samples; NOT_FOUND means none is newer than `after_us`.
  int type = abi::value_uint;
  unsigned count = 0;
  abi::return_t rc = api_->samples(h, abi::processor_clock_samples, after_us, &type, &count, nullptr);
  std::vector<abi::sample> buffer;
  if (rc == abi::success && count > 0) {
    buffer.resize(count);
    rc = api_->samples(h, abi::processor_clock_samples, after_us, &type, &count, buffer.data());
  }
  if (rc == abi::error_not_found) return out;
  if (rc != abi::success) {
    if (why) *why = "SM clock samples not readable: " + api_->error(rc);
    return std::nullopt;
  }
  double sum = 0;
  for (unsigned i = 0; i < count && i < buffer.size(); ++i) {
    if (buffer[i].time_stamp <= after_us) continue;
    sum += as_double(type, buffer[i].sample_value);
    ++out.count;
    out.newest_us = std::max<std::uint64_t>(out.newest_us, buffer[i].time_stamp);
  }
  if (out.count > 0) out.mean_mhz = sum / out.count;
  return out;
}

namespace {
std::optional<pcie_link> read_link(const api* a, const std::string& unavailable, abi::device_t h,
                                   abi::return_t (*generation)(abi::device_t, unsigned*),
                                   abi::return_t (*width)(abi::device_t, unsigned*), const char* what,
                                   std::string* why) {
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

const char* name_of(perf_policy policy) {
  switch (policy) {
    case perf_policy::power: return "power";
    case perf_policy::thermal: return "thermal";
    case perf_policy::sync_boost: return "sync_boost";
    case perf_policy::board_limit: return "board_limit";
    case perf_policy::low_utilization: return "low_utilization";
    case perf_policy::reliability: return "reliability";
    case perf_policy::total_app_clocks: return "below_app_clocks";
    case perf_policy::total_base_clocks: return "below_base_clocks";
  }
  return "unknown";
}

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
    case 1:
      gigatransfers = 2.5;
      efficiency = 8.0 / 10.0;
      break;
    case 2:
      gigatransfers = 5.0;
      efficiency = 8.0 / 10.0;
      break;
    case 3:
      gigatransfers = 8.0;
      efficiency = 128.0 / 130.0;
      break;
    case 4:
      gigatransfers = 16.0;
      efficiency = 128.0 / 130.0;
      break;
    case 5:
      gigatransfers = 32.0;
      efficiency = 128.0 / 130.0;
      break;
    case 6:
      gigatransfers = 64.0;
      efficiency = 242.0 / 256.0;
      break;
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
    if (why)
      *why = "maximum PCIe link gen" + std::to_string(link->generation) + " x" + std::to_string(link->width) +
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
  auto others =
      static_cast<unsigned>(std::count_if(pids.begin(), pids.end(), [&](unsigned p) { return p != self_pid; }));
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
    if (!links[i]) line << ", NVLink unknown";
    else if (links[i]->links_up == 0) line << ", no NVLink up";
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
      } else if (const unsigned direct =
                     std::max(nvlinks_to(*links[i], gpus[j].bus_id), nvlinks_to(*links[j], gpus[i].bus_id));
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
