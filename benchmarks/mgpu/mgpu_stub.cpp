// Multi-GPU registration for a build without the CUDA backend.
#include "mgpu/mgpu_rows.hpp"

namespace solvebench::bench::mgpu {

registration register_rows(session&, const common_options&, const mgpu_options& mgpu) {
  registration out;
  if (!mgpu.sizes.empty()) out.notes.push_back("MGPU rows not registered: this build has no CUDA backend");
  return out;
}

}  // namespace solvebench::bench::mgpu
