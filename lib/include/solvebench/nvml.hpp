// NVML, the driver's management library, loaded at run time: SM clock, clock-event (throttle)
// reasons, the time the GPU spent capped, other processes, the total-energy counter, and the PCIe
// and NVLink facts of a GPU. (The loader is lib/src/cuda/nvml_loader.cpp; the facts nvml.cpp.)
//
// libnvidia-ml.so.1 ships with the NVIDIA driver, not with the CUDA toolkit, so nothing links
// it: a binary built where there is no driver (CI) still starts there. Where the library or a
// counter is missing, answers are empty and a sentence says why. Plain C++ here; the source is
// built with the cuSOLVER backend, since devices are named by their CUDA ordinal.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "solvebench/row_monitor.hpp"

namespace solvebench::nvml {

namespace detail {
struct api;  // the library's functions, dlsym'd once per process
}

// nvmlClocksEventReason* bits (nvml.h): why the SM clock is below its maximum.
namespace clocks_event {
constexpr std::uint64_t gpu_idle = 0x1;
constexpr std::uint64_t applications_clocks_setting = 0x2;
constexpr std::uint64_t sw_power_cap = 0x4;
constexpr std::uint64_t hw_slowdown = 0x8;
constexpr std::uint64_t sync_boost = 0x10;
constexpr std::uint64_t sw_thermal_slowdown = 0x20;
constexpr std::uint64_t hw_thermal_slowdown = 0x40;
constexpr std::uint64_t hw_power_brake_slowdown = 0x80;
constexpr std::uint64_t display_clock_setting = 0x100;
// The reasons that mean "running slower than it could, because of power or heat". Idle and
// an operator's clock settings are not throttling.
constexpr std::uint64_t throttling =
    sw_power_cap | hw_slowdown | sw_thermal_slowdown | hw_thermal_slowdown | hw_power_brake_slowdown;
}  // namespace clocks_event
// "sw_power_cap|hw_thermal_slowdown" ("none" for 0; unknown bits as hex).
std::string describe_clocks_event_reasons(std::uint64_t mask);

// nvmlPerfPolicyType_t: the limiters whose time NVML counts (nvmlDeviceGetViolationStatus):
// how long each held the GPU below its application clocks, in ns since the driver loaded. The
// bits above say a limiter was active at one instant; these say for how long. low_utilization
// is the GPU clocking down for want of work, and total_app_clocks counts it too (it is the sum
// of any limiter), so neither means throttling; total_base_clocks is the time below base clock.
enum class perf_policy : int {
  power = 0,
  thermal = 1,
  sync_boost = 2,
  board_limit = 3,
  low_utilization = 4,
  reliability = 5,
  total_app_clocks = 10,
  total_base_clocks = 11,
};
inline constexpr std::array<perf_policy, 8> perf_policies = {perf_policy::power,
                                                             perf_policy::thermal,
                                                             perf_policy::sync_boost,
                                                             perf_policy::board_limit,
                                                             perf_policy::low_utilization,
                                                             perf_policy::reliability,
                                                             perf_policy::total_app_clocks,
                                                             perf_policy::total_base_clocks};
// "power", "thermal", ..., "below_app_clocks", "below_base_clocks".
const char* name_of(perf_policy policy);

// One reading of one device; each field empty when it could not be read (`missing` says why).
struct gpu_sample {
  std::optional<unsigned> sm_clock_mhz;
  // The SM clock the device runs work at when nothing limits it (nvmlDeviceGetApplicationsClock:
  // the application clock, the boost target; 1980 MHz on an H200).
  std::optional<unsigned> sm_app_clock_mhz;
  std::optional<std::uint64_t> clocks_event_reasons;  // clocks_event bits
  std::optional<unsigned> other_processes;            // compute processes other than this one
  std::optional<std::uint64_t> energy_mj;             // total energy since the driver loaded
  // Capped time per policy, cumulative ns, in the order of perf_policies, and the counters' own
  // timestamp (nvmlViolationTime_t's referenceTime, a CPU time in us): NVML documents the
  // difference of two readings' violation times at their two reference times as the time capped.
  std::array<std::optional<std::uint64_t>, perf_policies.size()> capped_ns;
  std::optional<std::uint64_t> capped_reference_us;
  std::vector<std::string> missing;  // one sentence per kind of empty field
};

// The SM clock samples NVML's driver took (nvmlDeviceGetSamples, NVML_PROCESSOR_CLK_SAMPLES).
struct clock_samples {
  unsigned count = 0;           // samples newer than the timestamp asked for; 0: none yet
  double mean_mhz = 0;          // their mean (0 when count is 0)
  std::uint64_t newest_us = 0;  // the newest one's timestamp (the driver's, microseconds), or the one asked for
};

struct pcie_link {
  unsigned generation = 0, width = 0;
};

// The NVLinks of one device that are up.
struct nvlink_summary {
  unsigned links_up = 0;
  unsigned to_switch = 0;                       // links whose far end is an NVSwitch
  std::vector<std::string> remote_gpu_bus_ids;  // one entry per link to a GPU
};

// A device as NVML knows it.
struct device {
  std::string bus_id;      // as it was looked up
  void* handle = nullptr;  // nvmlDevice_t
};

// One NVML session: nvmlInit_v2 on construction, nvmlShutdown on destruction (NVML counts
// them). Move-only. A session whose library could not be loaded or initialised is !available()
// and answers everything empty; it never throws for that.
class session {
 public:
  session();                                     // libnvidia-ml.so.1, the driver's
  explicit session(const std::string& library);  // another file (tests: a fake, or a missing name)
  ~session();
  session(session&& other) noexcept;
  session& operator=(session&& other) noexcept;
  session(const session&) = delete;
  session& operator=(const session&) = delete;

  bool available() const noexcept { return api_ != nullptr; }
  // "NVML not available: libnvidia-ml.so.1 not found (no NVIDIA driver?)", ...; empty when available.
  const std::string& unavailable_reason() const noexcept { return reason_; }

  // By PCI bus id, in any form NVML accepts ("0000:17:00.0", "00000000:17:00.0").
  std::optional<device> device_by_bus_id(const std::string& bus_id, std::string* why = nullptr) const;
  // By CUDA ordinal, mapped through cudaDeviceGetPCIBusId: CUDA's order (CUDA_VISIBLE_DEVICES,
  // CUDA_DEVICE_ORDER) and NVML's need not agree, a bus id is the same in both.
  std::optional<device> device_for_cuda(int cuda_device, std::string* why = nullptr) const;

  // Call from the process whose work is on the device (it counts itself out of the processes).
  gpu_sample sample(const device& d) const;
  // SM clock samples newer than `after_us` (0: all the driver holds). Empty, with `why`, when
  // this GPU or driver keeps none.
  std::optional<clock_samples> sm_clock_samples(const device& d, std::uint64_t after_us,
                                                std::string* why = nullptr) const;
  std::optional<pcie_link> pcie_max_link(const device& d, std::string* why = nullptr) const;
  std::optional<pcie_link> pcie_current_link(const device& d, std::string* why = nullptr) const;
  std::optional<nvlink_summary> nvlinks(const device& d, std::string* why = nullptr) const;

 private:
  std::shared_ptr<const detail::api> api_;
  std::string reason_;
};

// Theoretical one-direction PCIe bandwidth in GB/s (1e9 bytes): transfer rate x encoding
// efficiency x lanes / 8 bits. Gen 1: 2.5 GT/s, gen 2: 5 GT/s, both 8b/10b; gen 3: 8 GT/s,
// gen 4: 16, gen 5: 32, all 128b/130b; gen 6: 64 GT/s (PAM4) in 256-byte FLITs of which 242
// carry TLPs and DLLPs (the other 14: CRC and FEC), so 242/256. Protocol overhead above that
// (TLP headers, flow control) is not subtracted: this is the ceiling no copy can beat.
// Gen 5 x16: 63.0; gen 4 x16: 31.5. invalid_argument for generations other than 1-6 or 0 lanes.
double pcie_GBps(unsigned generation, unsigned lanes);
// pcie_GBps of the device's maximum link (the GPU's and the slot's, whichever is lower; the
// current link drops its generation when idle, so it is not the ceiling).
std::optional<double> pcie_max_GBps(const session& s, int cuda_device, std::string* why = nullptr);

// NVLinks from `from` whose far end is the GPU with bus id `to` (bus ids compared as numbers).
unsigned nvlinks_to(const nvlink_summary& from, const std::string& to_bus_id);
// True when two PCI bus id strings name the same domain:bus:device.function, whatever their
// spelling (CUDA writes a 4-digit domain, NVML an 8-digit one, case varies).
bool same_pci_function(const std::string& a, const std::string& b);

// Compute processes on the device other than `self_pid`. When `self_pid` is not among `pids`
// although the caller has work on the device, NVML reports pids of another namespace (a
// container): one of the entries is the caller, so it is counted out all the same.
unsigned count_other_processes(const std::vector<unsigned>& pids, unsigned self_pid);

// One GPU for link_topology: its label (CUDA ordinal) and PCI bus id.
struct gpu_endpoint {
  int cuda_device = 0;
  std::string bus_id;
};
// Text for the run's JSON context: per GPU its PCIe link and NVLinks, then per pair whether
// peer access works and how many NVLinks join them, e.g. "GPU0 0000:18:00.0: PCIe gen5 x16
// (max gen5 x16, 63.0 GB/s one way), NVLink 18 up (18 to NVSwitch); 0-1: peer, NVLink via NVSwitch".
std::string link_topology(const session& s, const std::vector<gpu_endpoint>& gpus,
                          const std::function<bool(int, int)>& can_access_peer);
// The same for CUDA devices: bus ids from cudaDeviceGetPCIBusId, peers from cudaDeviceCanAccessPeer.
std::string link_topology(const session& s, const std::vector<int>& cuda_devices);

// The GPU row monitor on a given session and device (make_gpu_row_monitor(int) uses the
// driver's NVML and the CUDA device's bus id).
std::unique_ptr<row_monitor> make_gpu_row_monitor(session s, const std::string& bus_id);

}  // namespace solvebench::nvml
