// Move-only owners of CUDA resources: streams, events, device and pinned buffers, library
// handles; plus the device facts a run records. Destructors never throw.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
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

// A non-blocking stream: work on it does not serialise with the legacy default stream.
class stream {
 public:
  stream();
  cudaStream_t get() const noexcept { return s_.get(); }
  void synchronize() const;

 private:
  unique_handle<cudaStream_t, cudaStreamDestroy> s_;
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

// Typed device memory: cudaMalloc once, cudaFree on destruction. No zero-fill.
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t count);
  device_buffer(device_buffer&& other) noexcept
      : p_(std::exchange(other.p_, nullptr)), n_(std::exchange(other.n_, 0)) {}
  device_buffer& operator=(device_buffer&& other) noexcept {
    if (this != &other) {
      release();
      p_ = std::exchange(other.p_, nullptr);
      n_ = std::exchange(other.n_, 0);
    }
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() { release(); }

  T* data() const noexcept { return p_; }
  std::size_t size() const noexcept { return n_; }
  std::size_t size_bytes() const noexcept { return n_ * sizeof(T); }

 private:
  void release() noexcept;
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

// Page-locked host memory (cudaMallocHost): what fast, truly asynchronous copies need.
template <class T>
class pinned_buffer {
 public:
  pinned_buffer() = default;
  explicit pinned_buffer(std::size_t count);
  pinned_buffer(pinned_buffer&& other) noexcept
      : p_(std::exchange(other.p_, nullptr)), n_(std::exchange(other.n_, 0)) {}
  pinned_buffer& operator=(pinned_buffer&& other) noexcept {
    if (this != &other) {
      release();
      p_ = std::exchange(other.p_, nullptr);
      n_ = std::exchange(other.n_, 0);
    }
    return *this;
  }
  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;
  ~pinned_buffer() { release(); }

  T* data() const noexcept { return p_; }
  std::size_t size() const noexcept { return n_; }

 private:
  void release() noexcept;
  T* p_ = nullptr;
  std::size_t n_ = 0;
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

// Key/value facts for the JSON context: name, SMs, memory, clocks, versions, capability.
std::vector<std::pair<std::string, std::string>> device_facts(int device);

// After a CUDA error: true when the context is unusable (a sticky error such as an illegal
// address), so no further GPU work can succeed in this process.
bool context_is_broken() noexcept;

extern template class device_buffer<float>;
extern template class device_buffer<double>;
extern template class device_buffer<int>;
extern template class device_buffer<std::int64_t>;
extern template class device_buffer<std::byte>;
extern template class device_buffer<float*>;
extern template class device_buffer<double*>;
extern template class pinned_buffer<float>;
extern template class pinned_buffer<double>;

// Complex precisions (c, z): their matrices, and the std::complex<double> residual vectors.
extern template class device_buffer<std::complex<float>>;
extern template class device_buffer<std::complex<double>>;
extern template class pinned_buffer<std::complex<float>>;
extern template class pinned_buffer<std::complex<double>>;

}  // namespace solvebench::cuda
