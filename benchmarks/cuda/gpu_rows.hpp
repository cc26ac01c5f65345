// Registers the GPU rows, or says why there are none (no device, a CPU-only build).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/options.hpp"
#include "core/session.hpp"

namespace solvebench::bench::gpu {

struct registration {
  bool registered = false;
  std::string reason;                                        // why not, when not registered
  std::vector<std::pair<std::string, std::string>> context;  // the device's facts for the JSON context
  std::vector<std::int64_t> sizes;                           // the sizes of the solve rows
};
// Into `run`, which owns the GPU rows' context (freed by its release(), before the CUDA runtime
// shuts down) and reports their leaks as its problems.
registration register_rows(session& run, const common_options& opt, const gpu_options& gpu, const mixed_options& mixed,
                           const batched_options& batched, const ceilings_options& ceilings);

}  // namespace solvebench::bench::gpu
