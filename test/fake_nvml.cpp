// A stand-in for libnvidia-ml.so.1, so the NVML reader's present-driver paths run where there is
// no driver: two GPUs (buses 0x0a, 0x0b) joined by four NVLinks, the second with two more links
// to an NVSwitch and no SM clock, energy counter, capped time or clock samples. It exports the
// clock-event reasons only under their pre-12.2 name, so the reader's fallback to it is what
// these tests exercise. A test plants capped time and SM clock samples on the first GPU through
// fake_nvml_plant_capped and fake_nvml_plant_clock_sample, and sets its SM clock through
// fake_nvml_set_sm_clock (its application clock stays 1980 MHz, an H200's).
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

struct fake_device {
  unsigned bus;
};
fake_device devices[2] = {{0x0a}, {0x0b}};
int sessions = 0;
unsigned long long energy_mj = 1000000;

bool first(const fake_device* d) { return d == &devices[0]; }

// The first GPU's capped time per NVML_PERF_POLICY_* (0-5, 10, 11), ns since the "driver loaded":
// not zero, so a reader that reports the counter instead of its change is caught.
unsigned long long capped_ns[12] = {5000000000ull,  7000000,     0, 0, 9000000000ull, 0, 0, 0, 0, 0,
                                    14007000000ull, 300000000ull};
bool policy_exists(int p) { return (p >= 0 && p <= 5) || p == 10 || p == 11; }
// The counters' reference time (us): when they last moved. Each planted stretch of capped time
// moves it on by as much, as a driver that updates them at the end of each stretch would.
unsigned long long capped_reference_us = 1000;
unsigned sm_clock_mhz = 1980;

struct clock_sample {
  unsigned long long time_us;
  unsigned mhz;
};
std::vector<clock_sample> clock_samples = {{1000, 1980}, {1001, 1980}};

struct process_info {  // nvmlProcessInfo_t
  unsigned pid;
  unsigned long long used_gpu_memory;
  unsigned gpu_instance_id, compute_instance_id;
};
struct pci_info {  // nvmlPciInfo_t
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};
struct violation_time {  // nvmlViolationTime_t
  unsigned long long reference_time_us, violation_time_ns;
};
struct sample {  // nvmlSample_t, its value an unsigned int here (NVML_VALUE_TYPE_UNSIGNED_INT)
  unsigned long long time_stamp;
  union {
    double d;
    unsigned ui;
    unsigned long long ull;
  } value;
};

}  // namespace

extern "C" {

// Tests read this to see that each session shut down what it initialised, once.
int fake_nvml_open_sessions() { return sessions; }

// The first GPU spent `ns` more capped by `policy` (and so below its application clocks).
void fake_nvml_plant_capped(int policy, unsigned long long ns) {
  if (!policy_exists(policy)) return;
  capped_ns[policy] += ns;
  if (policy <= 5) capped_ns[10] += ns;
  capped_reference_us += ns / 1000;
}
// The first GPU's SM clock from now on.
void fake_nvml_set_sm_clock(unsigned mhz) { sm_clock_mhz = mhz; }
// The driver of the first GPU took one more SM clock sample, 1 us after the one before.
void fake_nvml_plant_clock_sample(unsigned mhz) { clock_samples.push_back({clock_samples.back().time_us + 1, mhz}); }

int nvmlInit_v2() {
  ++sessions;
  return 0;
}
int nvmlShutdown() {
  if (sessions == 0) return 1;  // NVML_ERROR_UNINITIALIZED
  --sessions;
  return 0;
}
const char* nvmlErrorString(int rc) {
  switch (rc) {
    case 0: return "Success";
    case 2: return "Invalid Argument";
    case 3: return "Not Supported";
    case 6: return "Not Found";
    case 7: return "Insufficient Size";
    default: return "Unknown Error";
  }
}
int nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, fake_device** out) {
  unsigned domain = 0, bus = 0, dev = 0, fn = 0;
  if (std::sscanf(bus_id, "%x:%x:%x.%x", &domain, &bus, &dev, &fn) != 4) return 2;
  for (auto& d : devices) {
    if (domain == 0 && d.bus == bus && dev == 0 && fn == 0) {
      *out = &d;
      return 0;
    }
  }
  return 6;
}
int nvmlDeviceGetClockInfo(fake_device* d, int type, unsigned* mhz) {
  if (type != 1) return 2;  // only NVML_CLOCK_SM is ever asked for
  if (!first(d)) return 3;
  *mhz = sm_clock_mhz;
  return 0;
}
int nvmlDeviceGetApplicationsClock(fake_device* d, int type, unsigned* mhz) {
  if (type != 1) return 2;
  if (!first(d)) return 3;
  *mhz = 1980;
  return 0;
}
int nvmlDeviceGetCurrentClocksThrottleReasons(fake_device* d, unsigned long long* mask) {
  *mask = first(d) ? 0x4 : 0x1;  // sw_power_cap; gpu_idle
  return 0;
}
int nvmlDeviceGetComputeRunningProcesses_v3(fake_device* d, unsigned* count, process_info* infos) {
  if (!first(d)) {
    *count = 0;
    return 0;
  }
  const unsigned pids[3] = {4242, static_cast<unsigned>(::getpid()), 4343};
  if (*count < 3 || !infos) {
    *count = 3;
    return 7;
  }
  for (unsigned i = 0; i < 3; ++i) infos[i] = {pids[i], 1u << 20, 0xFFFFFFFFu, 0xFFFFFFFFu};
  *count = 3;
  return 0;
}
int nvmlDeviceGetTotalEnergyConsumption(fake_device* d, unsigned long long* mj) {
  if (!first(d)) return 3;
  energy_mj += 2500;  // each reading 2.5 J after the one before
  *mj = energy_mj;
  return 0;
}
int nvmlDeviceGetViolationStatus(fake_device* d, int policy, violation_time* t) {
  if (!first(d)) return 3;
  if (!policy_exists(policy)) return 2;
  *t = {capped_reference_us, capped_ns[policy]};
  return 0;
}
int nvmlDeviceGetSamples(fake_device* d, int type, unsigned long long last_seen_us, int* value_type, unsigned* count,
                         sample* samples) {
  if (!first(d)) return 3;
  if (type != 5) return 2;  // only NVML_PROCESSOR_CLK_SAMPLES is ever asked for
  std::vector<clock_sample> newer;
  for (const auto& c : clock_samples)
    if (c.time_us > last_seen_us) newer.push_back(c);
  if (newer.empty()) return 6;  // NVML_ERROR_NOT_FOUND, as the driver answers
  *value_type = 1;
  if (!samples) {
    *count = static_cast<unsigned>(newer.size());
    return 0;
  }
  if (*count < newer.size()) return 7;
  for (std::size_t i = 0; i < newer.size(); ++i) {
    samples[i].time_stamp = newer[i].time_us;
    samples[i].value.ull = 0;
    samples[i].value.ui = newer[i].mhz;
  }
  *count = static_cast<unsigned>(newer.size());
  return 0;
}
int nvmlDeviceGetMaxPcieLinkGeneration(fake_device* d, unsigned* v) {
  *v = first(d) ? 5 : 4;
  return 0;
}
int nvmlDeviceGetMaxPcieLinkWidth(fake_device* d, unsigned* v) {
  *v = first(d) ? 16 : 8;
  return 0;
}
int nvmlDeviceGetCurrPcieLinkGeneration(fake_device* d, unsigned* v) {
  *v = first(d) ? 1 : 4;
  return 0;
}
int nvmlDeviceGetCurrPcieLinkWidth(fake_device* d, unsigned* v) {
  *v = first(d) ? 16 : 8;
  return 0;
}
int nvmlDeviceGetNvLinkState(fake_device* d, unsigned link, int* active) {
  if (link >= 18) return 2;
  *active = link < (first(d) ? 4u : 6u) ? 1 : 0;
  return 0;
}
int nvmlDeviceGetNvLinkRemoteDeviceType(fake_device* d, unsigned link, int* type) {
  *type = !first(d) && link >= 4 ? 2 : 0;  // NVSWITCH : GPU
  return 0;
}
int nvmlDeviceGetNvLinkRemotePciInfo_v2(fake_device* d, unsigned link, pci_info* pci) {
  std::memset(pci, 0, sizeof *pci);
  pci->bus = first(d) ? 0x0b : (link < 4 ? 0x0a : 0xc0);
  std::snprintf(pci->bus_id, sizeof pci->bus_id, "%08X:%02X:00.0", 0u, pci->bus);
  return 0;
}

}  // extern "C"
