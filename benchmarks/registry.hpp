// Entry points that register each backend's rows with Google Benchmark.
#pragma once

#include <string>
#include <vector>

#include "options.hpp"

namespace solvebench::bench {

void register_cpu_benchmarks(const options& opt);
// Families registered by each CPU source.
void register_cpu_solve_rows(const options& opt);
void register_cpu_mixed_rows(const options& opt);
void register_cpu_batched_rows(const options& opt);

// Registers the GPU rows, or returns why none were registered (no device, CPU-only build).
// `context` receives key/value pairs describing the device for the JSON context.
struct gpu_registration {
  bool registered = false;
  std::string reason;  // when not registered
  std::vector<std::pair<std::string, std::string>> context;
};
gpu_registration register_gpu_benchmarks(const options& opt);
// Releases the GPU context and handles (before the CUDA runtime shuts down).
void release_gpu();
// GPU rows whose fixture did not give back all the device memory it took.
const std::vector<std::string>& device_memory_leaks();

}  // namespace solvebench::bench
