// The shipped binary injects no faults.
#include "gpu_context.hpp"

namespace solvebench::bench {
void inject_fault_if_requested(const std::string&) {}
}  // namespace solvebench::bench
