// Entry points that register each backend's rows with Google Benchmark.
#pragma once

#include <string>
#include <vector>

#include "options.hpp"

namespace solvebench::bench {

void register_cpu_benchmarks(const options& opt);

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

}  // namespace solvebench::bench
