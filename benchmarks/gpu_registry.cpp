// GPU registration: checks for a device, records its facts, registers every GPU family.
#include <iostream>
#include <memory>
#include <set>

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

namespace {
std::vector<std::string>& leak_list() {
  static std::vector<std::string> list;
  return list;
}
}  // namespace

namespace {
bool built_before(const std::string& row) {
  static std::set<std::string> seen;
  return !seen.insert(row).second;
}
}  // namespace

// Stream-ordered frees (cudaFreeAsync, which the libraries use for some workspaces) return
// memory to the driver only at a synchronisation: synchronise before each reading.
std::uint64_t settled_free_bytes() {
  SB_CUDA_CHECK(cudaDeviceSynchronize());
  return cuda::memory_info().free_bytes;
}

device_memory_watch::device_memory_watch(std::string row)
    : row_(std::move(row)), watched_(built_before(row_)), free_at_start_(settled_free_bytes()) {}

device_memory_watch::~device_memory_watch() {
  if (!watched_) return;
  std::size_t free_now = 0, total = 0;
  if (cudaDeviceSynchronize() != cudaSuccess) return;  // a broken context is reported elsewhere
  if (cudaMemGetInfo(&free_now, &total) != cudaSuccess) return;  // a broken context is reported elsewhere
  if (free_now < free_at_start_)
    leak_list().push_back(row_ + ": " + std::to_string(free_at_start_ - free_now) +
                          " bytes of device memory not returned");
}

const std::vector<std::string>& device_memory_leaks() { return leak_list(); }
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
  register_gpu_mixed_rows(opt);
  register_gpu_batched_rows(opt);
  out.registered = true;
  return out;
}

void release_gpu() { context_slot().reset(); }

}  // namespace solvebench::bench
