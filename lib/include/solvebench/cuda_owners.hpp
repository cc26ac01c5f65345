// Move-only owners of CUDA resources: streams, events, device and pinned buffers, library
// handles; plus the device facts a run records. Destructors never throw.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "solvebench/cuda_errors.hpp"

namespace solvebench::cuda {

// Owns one opaque handle; `Destroy` releases it (its status is logged, never thrown).
template <class Handle, auto Destroy>
class unique_handle {
 public:
  unique_handle() = default;
  explicit unique_handle(Handle h) noexcept : h_(h) {}
  unique_handle(unique_handle&& other) noexcept : h_(std::exchange(other.h_, Handle{})) {}
  unique_handle& operator=(unique_handle&& other) noexcept {
    if (this != &other) {
      reset();
      h_ = std::exchange(other.h_, Handle{});
    }
    return *this;
  }
  unique_handle(const unique_handle&) = delete;
  unique_handle& operator=(const unique_handle&) = delete;
  ~unique_handle() { reset(); }

  Handle get() const noexcept { return h_; }
  explicit operator bool() const noexcept { return h_ != Handle{}; }
  void reset() noexcept {
    if (h_ != Handle{}) SB_CUDA_CHECK_NOEXCEPT(Destroy(h_));
    h_ = Handle{};
  }

 private:
  Handle h_{};
};

// A non-blocking stream (work on it does not serialise with the legacy default stream), made on
// the current device or on a given one (multi-GPU work) and destroyed with that device current.
class stream {
 public:
  stream();
  explicit stream(int device);
  cudaStream_t get() const noexcept { return s_.get(); }
  void synchronize() const;

 private:
  struct destroy {
    int device;  // -1: the device current at destruction
    void operator()(cudaStream_t s) const noexcept;
  };
  std::unique_ptr<std::remove_pointer_t<cudaStream_t>, destroy> s_;
};

class event {
 public:
  event();
  cudaEvent_t get() const noexcept { return e_.get(); }
  void record(cudaStream_t s) const;

 private:
  unique_handle<cudaEvent_t, cudaEventDestroy> e_;
};

// Waits for `later`, then returns the GPU time between the two records in seconds.
double seconds_between(const event& earlier, const event& later);

// Start/stop events on one stream: the elapsed GPU time between the two records.
class event_timer {
 public:
  void start(cudaStream_t s) const { start_.record(s); }
  void stop(cudaStream_t s) const { stop_.record(s); }
  double elapsed_seconds() const { return seconds_between(start_, stop_); }

 private:
  event start_, stop_;
};

// ---- memory: one owner, one space type per memory space ---------------------------------
//
// As cuda-api-wrappers does (src/cuda/api/unique_ptr.hpp): a std::unique_ptr whose deleter is the
// memory space, which also allocates. The deleters never throw: a failed free is logged.
namespace memory {

// Device memory of the current device (cudaMalloc, cudaFree).
struct device {
  void* allocate(std::size_t bytes) const;
  void operator()(void* p) const noexcept;
};
// Device memory of one given device, for multi-GPU work: allocated and freed with `id` current
// (the current device is restored).
struct on_device {
  int id = 0;
  void* allocate(std::size_t bytes) const;
  void operator()(void* p) const noexcept;
};
// Page-locked host memory (cudaMallocHost, cudaFreeHost): what fast, truly asynchronous copies need.
struct pinned_host {
  void* allocate(std::size_t bytes) const;
  void operator()(void* p) const noexcept;
};

// `count` elements of T in one memory space, uninitialised; nothing allocated for count 0.
// Move-only: the moved-from buffer is empty.
template <class T, class Space>
class unique_buffer {
 public:
  unique_buffer() = default;
  explicit unique_buffer(std::size_t count, Space space = {})
      : p_(count ? static_cast<T*>(space.allocate(count * sizeof(T))) : nullptr, space), n_(count) {}
  unique_buffer(unique_buffer&& other) noexcept : p_(std::move(other.p_)), n_(std::exchange(other.n_, 0)) {}
  unique_buffer& operator=(unique_buffer&& other) noexcept {
    p_ = std::move(other.p_);
    n_ = std::exchange(other.n_, 0);
    return *this;
  }

  T* data() const noexcept { return p_.get(); }
  std::size_t size() const noexcept { return n_; }
  std::size_t size_bytes() const noexcept { return n_ * sizeof(T); }

 private:
  std::unique_ptr<T, Space> p_;
  std::size_t n_ = 0;
};

}  // namespace memory

template <class T>
using device_buffer = memory::unique_buffer<T, memory::device>;
template <class T>
using device_buffer_on = memory::unique_buffer<T, memory::on_device>;  // device_buffer_on<T>(n, {id})
template <class T>
using pinned_buffer = memory::unique_buffer<T, memory::pinned_host>;

// Makes `device` current for its lifetime and restores the previous one after.
class scoped_device {
 public:
  explicit scoped_device(int device);
  ~scoped_device();
  scoped_device(const scoped_device&) = delete;
  scoped_device& operator=(const scoped_device&) = delete;

 private:
  int previous_ = 0;
};

// cuSOLVER dense handle, bound to a stream for its whole life.
class cusolver_handle {
 public:
  explicit cusolver_handle(cudaStream_t s);
  cusolverDnHandle_t get() const noexcept { return h_.get(); }

 private:
  unique_handle<cusolverDnHandle_t, cusolverDnDestroy> h_;
};

// cuBLAS handle, bound to a stream for its whole life.
class cublas_handle {
 public:
  explicit cublas_handle(cudaStream_t s);
  cublasHandle_t get() const noexcept { return h_.get(); }

 private:
  unique_handle<cublasHandle_t, cublasDestroy> h_;
};

// Options of the 64-bit generic cuSOLVER API (default algorithms).
class cusolver_params {
 public:
  cusolver_params();
  cusolverDnParams_t get() const noexcept { return p_.get(); }

 private:
  unique_handle<cusolverDnParams_t, cusolverDnDestroyParams> p_;
};

// ---- the device as a run sees it -------------------------------------------------------

// Number of usable devices; 0 with `why_none` set ("no CUDA device", "driver older than
// the runtime", ...) when there are none.
int device_count(std::string* why_none);
// The sentence device_count gives for a failed cudaGetDeviceCount (or a count of zero).
std::string why_no_device(cudaError_t status, int driver_version, int runtime_version);

struct device_memory {
  std::uint64_t free_bytes, total_bytes;
};
device_memory memory_info();

// Throws out_of_memory("GPU", needed, free) when `needed_bytes` does not fit in free memory.
void require_device_memory(std::uint64_t needed_bytes);

// Key/value facts for the JSON context: name, SMs, memory, clocks, versions, capability, and the
// theoretical peaks (gpu_peak_fp64_GFLOPs, gpu_peak_fp32_GFLOPs, gpu_peak_fp16_tensor_GFLOPs,
// gpu_peak_basis: see gpu_peak.hpp).
std::vector<std::pair<std::string, std::string>> device_facts(int device);

// After a CUDA error: true when the context is unusable (a sticky error such as an illegal
// address), so no further GPU work can succeed in this process.
bool context_is_broken() noexcept;

}  // namespace solvebench::cuda
