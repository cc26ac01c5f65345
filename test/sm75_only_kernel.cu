// Test only: a kernel built for sm_75 alone (SASS, no PTX; see cuda.cmake), so every other
// device has no code for it: the case the GPU backend's start-up check must name.
namespace {
__global__ void runs_on_sm75_only(int* out) {
  if (out) *out = 75;
}
}  // namespace

const void* kernel_built_for_sm75_only() { return reinterpret_cast<const void*>(&runs_on_sm75_only); }
