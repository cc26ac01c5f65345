// The GPU rows' shared context, its health, and the device-memory watch.
#include "cuda/gpu_backend.hpp"

namespace solvebench::bench::gpu {
namespace {

// Stream-ordered frees (cudaFreeAsync, which the libraries use for some workspaces) return
// memory to the driver only at a synchronisation: synchronise before each reading. False: the
// context cannot say (it is broken; that is reported elsewhere).
bool settled_free_bytes(std::uint64_t& free) {
  std::size_t free_now = 0, total = 0;
  if (cudaDeviceSynchronize() != cudaSuccess || cudaMemGetInfo(&free_now, &total) != cudaSuccess) return false;
  free = free_now;
  return true;
}

}  // namespace

cuda::context& backend::context() {
  if (!context_) context_ = std::make_unique<cuda::context>();
  return *context_;
}

void backend::before(const std::string& row) {
  inject_fault_if_requested(row);  // first: the memory read below synchronises and meets it
  watched_.clear();
  std::uint64_t free = 0;  // read before every build, watched or not, as the adapters' watch did
  const bool read = settled_free_bytes(free);
  if (!built_.insert(row).second && read) {
    watched_ = row;
    free_at_start_ = free;
  }
}

void backend::after(bool ok, const std::string& failure) {
  std::uint64_t free_now = 0;
  if (!watched_.empty() && settled_free_bytes(free_now) && free_now < free_at_start_)
    leaks_.push_back(watched_ + ": " + std::to_string(free_at_start_ - free_now) +
                     " bytes of device memory not returned");
  watched_.clear();
  if (!ok && unusable_.empty() && cuda::context_is_broken())
    unusable_ = "an earlier GPU row (" + failure + ") left the CUDA context unusable";
}

std::vector<std::string> backend::problems() const {
  std::vector<std::string> out;
  for (const auto& leak : leaks_) out.push_back("device memory leak: " + leak);
  return out;
}

}  // namespace solvebench::bench::gpu
