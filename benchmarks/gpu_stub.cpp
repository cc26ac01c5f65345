// GPU registration for a build without the cuSOLVER backend: explains why there are no GPU rows.
#include "registry.hpp"

namespace solvebench::bench {

gpu_registration register_gpu_benchmarks(const options&) {
  return {false,
          "this build has no CUDA backend (configured with SOLVE_BENCH_CUDA=OFF, or AUTO found no CUDA "
          "toolchain); rebuild with -DSOLVE_BENCH_CUDA=ON on a machine with nvcc",
          {}};
}

void release_gpu() {}

const std::vector<std::string>& device_memory_leaks() {
  static const std::vector<std::string> none;
  return none;
}

}  // namespace solvebench::bench
