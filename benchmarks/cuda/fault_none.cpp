// The shipped binary injects no faults.
#include "cuda/gpu_backend.hpp"

namespace solvebench::bench::gpu {
void inject_fault_if_requested(const std::string&) {}
}  // namespace solvebench::bench::gpu
