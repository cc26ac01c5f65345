// Test builds only: a kernel that writes to an illegal address, to check that a sticky CUDA
// error fails its row with the error's name and stops the GPU rows after it.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "cuda/gpu_backend.hpp"

namespace solvebench::bench::gpu {
namespace {
__global__ void write_to_illegal_address(double* p) { *p = 1.0; }
}  // namespace

void inject_fault_if_requested(const std::string& row) {
  const char* target = std::getenv("SOLVE_BENCH_INJECT_FAULT");
  if (!target || !*target || row.find(target) == std::string::npos) return;
  // Launched on the legacy default stream, so the next synchronisation in the row sees it.
  write_to_illegal_address<<<1, 1>>>(reinterpret_cast<double*>(std::uintptr_t{0x10}));
}
}  // namespace solvebench::bench::gpu
