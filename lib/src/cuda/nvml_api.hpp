// The NVML reader's private half: the ABI it declares for itself, the function table it fills
// with dlsym, and the loader. Included by nvml_loader.cpp and nvml.cpp only.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "solvebench/nvml.hpp"

// The part of nvml.h the reader uses, declared here: not every CUDA toolkit ships nvml.h (a
// pip-assembled one does not; Debian's sits in non-free), and these declarations are the
// driver's stable ABI: NVML gives a function a new versioned name (_v2, _v3) when a layout
// changes, never a new layout under an old name. Where nvml.h is there, the compiler checks
// that both agree.
namespace solvebench::nvml::abi {
using return_t = int;  // nvmlReturn_t
constexpr return_t success = 0;
constexpr return_t error_not_supported = 3;
constexpr return_t error_not_found = 6;
constexpr return_t error_insufficient_size = 7;
using device_t = struct opaque_device*;       // nvmlDevice_t
constexpr int clock_sm = 1;                   // NVML_CLOCK_SM
constexpr int feature_enabled = 1;            // NVML_FEATURE_ENABLED
constexpr int nvlink_device_type_gpu = 0;     // NVML_NVLINK_DEVICE_TYPE_GPU
constexpr int nvlink_device_type_switch = 2;  // NVML_NVLINK_DEVICE_TYPE_SWITCH
constexpr int processor_clock_samples = 5;    // NVML_PROCESSOR_CLK_SAMPLES
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
// nvmlViolationTime_t (nvmlDeviceGetViolationStatus).
struct violation_time {
  unsigned long long reference_time_us, violation_time_ns;
};
// nvmlValueType_t, nvmlValue_t and nvmlSample_t (nvmlDeviceGetSamples).
enum value_type : int {
  value_double = 0,
  value_uint = 1,
  value_ulong = 2,
  value_ulonglong = 3,
  value_slonglong = 4,
  value_sint = 5,
  value_ushort = 6
};
union value {
  double d;
  unsigned int ui;
  unsigned long ul;
  unsigned long long ull;
  signed long long sll;
  int si;
  unsigned short us;
};
struct sample {
  unsigned long long time_stamp;
  value sample_value;
};
}  // namespace solvebench::nvml::abi

#if __has_include(<nvml.h>)
#include <nvml.h>
namespace solvebench::nvml::abi {
static_assert(NVML_SUCCESS == success && NVML_ERROR_NOT_SUPPORTED == error_not_supported &&
              NVML_ERROR_NOT_FOUND == error_not_found && NVML_ERROR_INSUFFICIENT_SIZE == error_insufficient_size);
static_assert(sizeof(nvmlReturn_t) == sizeof(return_t) && sizeof(nvmlDevice_t) == sizeof(device_t));
static_assert(NVML_CLOCK_SM == clock_sm && NVML_FEATURE_ENABLED == feature_enabled);
static_assert(NVML_NVLINK_DEVICE_TYPE_GPU == nvlink_device_type_gpu &&
              NVML_NVLINK_DEVICE_TYPE_SWITCH == nvlink_device_type_switch);
static_assert(sizeof(nvmlProcessInfo_t) == sizeof(process_info) &&
              offsetof(nvmlProcessInfo_t, usedGpuMemory) == offsetof(process_info, used_gpu_memory) &&
              offsetof(nvmlProcessInfo_t, computeInstanceId) == offsetof(process_info, compute_instance_id));
static_assert(sizeof(nvmlPciInfo_t) == sizeof(pci_info) &&
              offsetof(nvmlPciInfo_t, busId) == offsetof(pci_info, bus_id));
static_assert(sizeof(nvmlViolationTime_t) == sizeof(violation_time) &&
              offsetof(nvmlViolationTime_t, referenceTime) == offsetof(violation_time, reference_time_us) &&
              offsetof(nvmlViolationTime_t, violationTime) == offsetof(violation_time, violation_time_ns));
static_assert(sizeof(nvmlSample_t) == sizeof(sample) && sizeof(nvmlValue_t) == sizeof(value) &&
              offsetof(nvmlSample_t, sampleValue) == offsetof(sample, sample_value));
static_assert(static_cast<int>(NVML_PROCESSOR_CLK_SAMPLES) == static_cast<int>(processor_clock_samples) &&
              static_cast<int>(NVML_VALUE_TYPE_DOUBLE) == static_cast<int>(value_double) &&
              static_cast<int>(NVML_VALUE_TYPE_UNSIGNED_INT) == static_cast<int>(value_uint) &&
              static_cast<int>(NVML_VALUE_TYPE_UNSIGNED_LONG_LONG) == static_cast<int>(value_ulonglong) &&
              static_cast<int>(NVML_VALUE_TYPE_SIGNED_LONG_LONG) == static_cast<int>(value_slonglong));
static_assert(NVML_PERF_POLICY_POWER == static_cast<int>(perf_policy::power) &&
              NVML_PERF_POLICY_THERMAL == static_cast<int>(perf_policy::thermal) &&
              NVML_PERF_POLICY_SYNC_BOOST == static_cast<int>(perf_policy::sync_boost) &&
              NVML_PERF_POLICY_BOARD_LIMIT == static_cast<int>(perf_policy::board_limit) &&
              NVML_PERF_POLICY_LOW_UTILIZATION == static_cast<int>(perf_policy::low_utilization) &&
              NVML_PERF_POLICY_RELIABILITY == static_cast<int>(perf_policy::reliability) &&
              NVML_PERF_POLICY_TOTAL_APP_CLOCKS == static_cast<int>(perf_policy::total_app_clocks) &&
              NVML_PERF_POLICY_TOTAL_BASE_CLOCKS == static_cast<int>(perf_policy::total_base_clocks));
// (The clocks-event masks are checked by their older Throttle names, which every nvml.h has.)
static_assert(nvmlClocksThrottleReasonSwPowerCap == clocks_event::sw_power_cap &&
              nvmlClocksThrottleReasonHwPowerBrakeSlowdown == clocks_event::hw_power_brake_slowdown &&
              nvmlClocksThrottleReasonDisplayClockSetting == clocks_event::display_clock_setting);
}  // namespace solvebench::nvml::abi
#endif

namespace solvebench::nvml {

namespace detail {
// The functions the reader calls. The first four are required; any other may be missing from
// an older driver's library (nullptr), which only empties what it would have read.
struct api {
  abi::return_t (*init)();
  abi::return_t (*shutdown)();
  const char* (*error_string)(abi::return_t);
  abi::return_t (*handle_by_bus_id)(const char*, abi::device_t*);
  abi::return_t (*clock_info)(abi::device_t, int, unsigned*);
  abi::return_t (*applications_clock)(abi::device_t, int, unsigned*);
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
  abi::return_t (*violation_status)(abi::device_t, int, abi::violation_time*);
  abi::return_t (*samples)(abi::device_t, int, unsigned long long, int*, unsigned*, abi::sample*);

  std::string error(abi::return_t rc) const {
    const char* text = error_string ? error_string(rc) : nullptr;
    return (text ? std::string(text) : "NVML error") + " (" + std::to_string(rc) + ")";
  }
};

// The library's functions and, when it could not be used, why: dlopen and dlsym happen once per
// library name and process (nvml_loader.cpp).
struct loaded {
  std::shared_ptr<const api> functions;
  std::string why_not;
};
loaded load(const std::string& library);

inline abi::device_t handle_of(const device& d) { return static_cast<abi::device_t>(d.handle); }
inline std::string not_in_library(const char* function) { return "this driver's NVML has no " + std::string(function); }
}  // namespace detail

}  // namespace solvebench::nvml
