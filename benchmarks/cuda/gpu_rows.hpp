// Registers the GPU rows, or says why there are none (no device, a CPU-only build).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/options.hpp"

namespace solvebench::bench::gpu {

struct registration {
  bool registered = false;
  std::string reason;                                        // why not, when not registered
  std::vector<std::pair<std::string, std::string>> context;  // the device's facts for the JSON context
  std::vector<std::int64_t> sizes;                           // the sizes of the solve rows
};
registration register_rows(const common_options& opt, const gpu_options& gpu, const mixed_options& mixed,
                           const batched_options& batched);

// Frees the GPU context and handles (before the CUDA runtime shuts down).
void release();
// GPU rows whose fixture did not give back all the device memory it took.
std::vector<std::string> leaks();

}  // namespace solvebench::bench::gpu
