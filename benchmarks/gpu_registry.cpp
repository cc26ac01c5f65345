// GPU registration: checks for a device, records its facts, registers every GPU family.
#include <iostream>
#include <memory>

#include "gpu_context.hpp"
#include "registry.hpp"

namespace solvebench::bench {
namespace {
std::unique_ptr<cuda::context>& context_slot() {
  static std::unique_ptr<cuda::context> ctx;
  return ctx;
}
std::string& unusable_reason() {
  static std::string reason;
  return reason;
}
}  // namespace

cuda::context& gpu_context() {
  auto& slot = context_slot();
  if (!slot) slot = std::make_unique<cuda::context>();
  return *slot;
}

const std::string& gpu_unusable_reason() { return unusable_reason(); }
void mark_gpu_unusable(const std::string& reason) { unusable_reason() = reason; }

gpu_registration register_gpu_benchmarks(const options& opt) {
  gpu_registration out;
  std::string why;
  if (cuda::device_count(&why) == 0) {
    out.reason = why;
    return out;
  }
  try {
    SB_CUDA_CHECK(cudaSetDevice(0));
    out.context = cuda::device_facts(0);
    out.context.emplace_back("cusolver_api", opt.cusolver_api);
    gpu_context();  // handles made once, before any row is timed
  } catch (const std::exception& e) {
    out.reason = std::string("the GPU could not be initialised: ") + e.what();
    return out;
  }
  register_gpu_solve_rows(opt);
  out.registered = true;
  return out;
}

void release_gpu() { context_slot().reset(); }

}  // namespace solvebench::bench
