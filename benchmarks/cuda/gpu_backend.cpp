// The GPU rows' shared context, its health, and the device-memory watch.
#include "cuda/gpu_backend.hpp"

#include <memory>
#include <set>

namespace solvebench::bench::gpu {
namespace {

std::unique_ptr<cuda::context>& context_slot() {
  static std::unique_ptr<cuda::context> ctx;
  return ctx;
}

std::vector<std::string>& leak_list() {
  static std::vector<std::string> list;
  return list;
}

bool built_before(const std::string& row) {
  static std::set<std::string> seen;
  return !seen.insert(row).second;
}

// Stream-ordered frees (cudaFreeAsync, which the libraries use for some workspaces) return
// memory to the driver only at a synchronisation: synchronise before each reading.
std::uint64_t settled_free_bytes() {
  SB_CUDA_CHECK(cudaDeviceSynchronize());
  return cuda::memory_info().free_bytes;
}

}  // namespace

cuda::context& context() {
  auto& slot = context_slot();
  if (!slot) slot = std::make_unique<cuda::context>();
  return *slot;
}

void release_context() { context_slot().reset(); }

void backend::before(const std::string& row) { inject_fault_if_requested(row); }

void backend::after(bool ok) {
  if (!ok && unusable_.empty() && cuda::context_is_broken())
    unusable_ = "an earlier GPU row (" + failed_rows().back() + ") left the CUDA context unusable";
}

backend& rows_backend() {
  static backend b;
  return b;
}

device_memory_watch::device_memory_watch(std::string row)
    : row_(std::move(row)), watched_(built_before(row_)), free_at_start_(settled_free_bytes()) {}

device_memory_watch::~device_memory_watch() {
  if (!watched_) return;
  std::size_t free_now = 0, total = 0;
  if (cudaDeviceSynchronize() != cudaSuccess) return;  // a broken context is reported elsewhere
  if (cudaMemGetInfo(&free_now, &total) != cudaSuccess) return;
  if (free_now < free_at_start_)
    leak_list().push_back(row_ + ": " + std::to_string(free_at_start_ - free_now) +
                          " bytes of device memory not returned");
}

const std::vector<std::string>& device_memory_leaks() { return leak_list(); }

}  // namespace solvebench::bench::gpu
