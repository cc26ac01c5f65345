// GPU registration for a build without the cuSOLVER backend: explains why there are no GPU rows.
#include "cuda/gpu_rows.hpp"

namespace solvebench::bench::gpu {

registration register_rows(session&, const common_options&, const gpu_options&, const mixed_options&,
                           const batched_options&, const ceilings_options&) {
  registration out;
  out.reason =
      "this build has no CUDA backend (configured with SOLVE_BENCH_CUDA=OFF, or AUTO found no CUDA toolchain); "
      "rebuild with -DSOLVE_BENCH_CUDA=ON on a machine with nvcc";
  return out;
}

}  // namespace solvebench::bench::gpu
