// CUDA owners and device queries.
#include "solvebench/cuda_owners.hpp"

#include <cusolver_common.h>

#include "solvebench/gpu_peak.hpp"

namespace solvebench::cuda {

namespace {
// For the deleters: with `device` current, then the previous device again; failures are logged.
template <class F>
void with_device_noexcept(int device, F&& f) noexcept {
  int previous = 0;
  SB_CUDA_CHECK_NOEXCEPT(cudaGetDevice(&previous));
  SB_CUDA_CHECK_NOEXCEPT(cudaSetDevice(device));
  f();
  SB_CUDA_CHECK_NOEXCEPT(cudaSetDevice(previous));
}
}  // namespace

scoped_device::scoped_device(int device) {
  SB_CUDA_CHECK(cudaGetDevice(&previous_));
  SB_CUDA_CHECK(cudaSetDevice(device));
}

scoped_device::~scoped_device() { SB_CUDA_CHECK_NOEXCEPT(cudaSetDevice(previous_)); }

stream::stream() {
  cudaStream_t s{};
  SB_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  s_ = decltype(s_)(s, destroy{-1});
}

stream::stream(int device) {
  scoped_device on(device);
  cudaStream_t s{};
  SB_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  s_ = decltype(s_)(s, destroy{device});
}

void stream::destroy::operator()(cudaStream_t s) const noexcept {
  if (device < 0) SB_CUDA_CHECK_NOEXCEPT(cudaStreamDestroy(s));
  else with_device_noexcept(device, [s] { SB_CUDA_CHECK_NOEXCEPT(cudaStreamDestroy(s)); });
}

void stream::synchronize() const { SB_CUDA_CHECK(cudaStreamSynchronize(get())); }

event::event() {
  cudaEvent_t e{};
  SB_CUDA_CHECK(cudaEventCreate(&e));
  e_ = decltype(e_)(e);
}

void event::record(cudaStream_t s) const { SB_CUDA_CHECK(cudaEventRecord(get(), s)); }

double seconds_between(const event& earlier, const event& later) {
  SB_CUDA_CHECK(cudaEventSynchronize(later.get()));
  float ms = 0;
  SB_CUDA_CHECK(cudaEventElapsedTime(&ms, earlier.get(), later.get()));
  return static_cast<double>(ms) * 1e-3;
}

namespace memory {

void* device::allocate(std::size_t bytes) const {
  void* p = nullptr;
  SB_CUDA_CHECK(cudaMalloc(&p, bytes));
  return p;
}

void device::operator()(void* p) const noexcept { SB_CUDA_CHECK_NOEXCEPT(cudaFree(p)); }

void* on_device::allocate(std::size_t bytes) const {
  scoped_device on(id);
  return device{}.allocate(bytes);
}

void on_device::operator()(void* p) const noexcept {
  with_device_noexcept(id, [p] { SB_CUDA_CHECK_NOEXCEPT(cudaFree(p)); });
}

void* pinned_host::allocate(std::size_t bytes) const {
  void* p = nullptr;
  SB_CUDA_CHECK(cudaMallocHost(&p, bytes));
  return p;
}

void pinned_host::operator()(void* p) const noexcept { SB_CUDA_CHECK_NOEXCEPT(cudaFreeHost(p)); }

}  // namespace memory

cusolver_handle::cusolver_handle(cudaStream_t s) {
  cusolverDnHandle_t h{};
  SB_CUSOLVER_CHECK(cusolverDnCreate(&h));
  h_ = decltype(h_)(h);
  SB_CUSOLVER_CHECK(cusolverDnSetStream(h, s));
}

cublas_handle::cublas_handle(cudaStream_t s) {
  cublasHandle_t h{};
  SB_CUBLAS_CHECK(cublasCreate(&h));
  h_ = decltype(h_)(h);
  SB_CUBLAS_CHECK(cublasSetStream(h, s));
}

cusolver_params::cusolver_params() {
  cusolverDnParams_t p{};
  SB_CUSOLVER_CHECK(cusolverDnCreateParams(&p));
  p_ = decltype(p_)(p);
}

std::string why_no_device(cudaError_t status, int driver_version, int runtime_version) {
  if (status == cudaErrorInsufficientDriver && driver_version == 0)
    return "no CUDA device: no NVIDIA driver is loaded on this machine (cudaErrorInsufficientDriver, driver "
           "version 0)";
  if (status == cudaErrorInsufficientDriver)
    return "the CUDA driver (version " + std::to_string(driver_version) + ") is older than the CUDA runtime (" +
           std::to_string(runtime_version) + ") this build uses; update the NVIDIA driver";
  if (status == cudaErrorNoDevice || status == cudaSuccess) return "no CUDA device (cudaErrorNoDevice)";
  return std::string("CUDA is not usable: ") + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")";
}

int device_count(std::string* why_none) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaSuccess && count > 0) return count;
  if (why_none) {
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    *why_none = why_no_device(status, driver, runtime);
  }
  cudaGetLastError();  // clear, so later calls do not see this error
  return 0;
}

device_memory memory_info() {
  std::size_t free_b = 0, total_b = 0;
  SB_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  return {free_b, total_b};
}

void require_device_memory(std::uint64_t needed_bytes) {
  const auto mem = memory_info();
  if (needed_bytes > mem.free_bytes) throw out_of_memory("GPU", needed_bytes, mem.free_bytes);
}

std::vector<std::pair<std::string, std::string>> device_facts(int device) {
  cudaDeviceProp prop{};
  SB_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  auto attr = [device](cudaDeviceAttr a) {
    int v = 0;
    SB_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, device));
    return v;
  };
  int driver = 0, runtime = 0, solver_major = 0, solver_minor = 0, solver_patch = 0, cublas_version = 0;
  SB_CUDA_CHECK(cudaDriverGetVersion(&driver));
  SB_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  SB_CUSOLVER_CHECK(cusolverGetProperty(MAJOR_VERSION, &solver_major));
  SB_CUSOLVER_CHECK(cusolverGetProperty(MINOR_VERSION, &solver_minor));
  SB_CUSOLVER_CHECK(cusolverGetProperty(PATCH_LEVEL, &solver_patch));
  SB_CUBLAS_CHECK(cublasGetProperty(MAJOR_VERSION, &cublas_version));
  const auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  const int sm_count = attr(cudaDevAttrMultiProcessorCount), sm_clock_khz = attr(cudaDevAttrClockRate);
  std::vector<std::pair<std::string, std::string>> facts = {
      {"gpu_name", prop.name},
      {"gpu_compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor)},
      {"gpu_sm_count", std::to_string(sm_count)},
      {"gpu_memory_bytes", std::to_string(prop.totalGlobalMem)},
      {"gpu_sm_clock_khz", std::to_string(sm_clock_khz)},
      {"gpu_memory_clock_khz", std::to_string(attr(cudaDevAttrMemoryClockRate))},
      {"gpu_memory_bus_bits", std::to_string(attr(cudaDevAttrGlobalMemoryBusWidth))},
      {"cuda_driver_version", version(driver)},
      {"cuda_runtime_version", version(runtime)},
      {"cusolver_version",
       std::to_string(solver_major) + "." + std::to_string(solver_minor) + "." + std::to_string(solver_patch)},
      {"cublas_major_version", std::to_string(cublas_version)},
  };
  // cudaDevAttrClockRate is the maximum SM clock: the peak's clock.
  for (auto& f : gpu_peak_facts(theoretical_gpu_peak(prop.major, prop.minor, sm_count, sm_clock_khz * 1e-3)))
    facts.push_back(std::move(f));
  return facts;
}

bool context_is_broken() noexcept {
  cudaGetLastError();  // clears a non-sticky error; a sticky one stays
  void* probe = nullptr;
  const cudaError_t status = cudaMalloc(&probe, 256);
  if (status == cudaSuccess) cudaFree(probe);
  return status != cudaSuccess && status != cudaErrorMemoryAllocation;
}

}  // namespace solvebench::cuda
