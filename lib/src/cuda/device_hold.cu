// The GPU-side hold before a timed region (device_hold.hpp).
#include <cstdlib>
#include <string>

#include "solvebench/cuda_errors.hpp"
#include "solvebench/device_hold.hpp"
#include "solvebench/errors.hpp"

namespace solvebench::cuda {
namespace {

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void hold_kernel(unsigned long long ns) {
  const unsigned long long t0 = global_ns();
  while (global_ns() - t0 < ns) __nanosleep(500);
}

}  // namespace

void hold_stream(cudaStream_t s, unsigned microseconds) {
  if (microseconds == 0) return;
  hold_kernel<<<1, 1, 0, s>>>(1000ull * microseconds);
  SB_CUDA_CHECK(cudaGetLastError());
}

unsigned parse_hold_microseconds(const char* text) {
  if (!text || !*text) return default_hold_microseconds;
  char* end = nullptr;
  const unsigned long v = std::strtoul(text, &end, 10);
  if (*end || v > 10000 || *text < '0' || *text > '9')
    throw invalid_argument(std::string("SOLVE_BENCH_GPU_HOLD_US=") + text +
                           ": give whole microseconds from 0 to 10000");
  return static_cast<unsigned>(v);
}

unsigned gpu_hold_microseconds() {
  static const unsigned us = parse_hold_microseconds(std::getenv("SOLVE_BENCH_GPU_HOLD_US"));
  return us;
}

}  // namespace solvebench::cuda
