// The process-wide GPU state the GPU rows share: one context (stream + handles), made
// once so handle creation never lands in a row, and the health of the CUDA context.
#pragma once

#include <memory>
#include <string>

#include "harness.hpp"
#include "options.hpp"
#include "solvebench/cusolver.hpp"

namespace solvebench::bench {

cuda::context& gpu_context();

// Set once a row hit a sticky CUDA error: the context is unusable, later GPU rows fail
// at once with this reason instead of running.
const std::string& gpu_unusable_reason();
void mark_gpu_unusable(const std::string& reason);

// run_row for GPU rows: refuses to start when the context is already unusable, and marks
// it unusable when this row left it broken.
template <class Fixture, class Make>
bool run_gpu_row(benchmark::State& state, const std::string& row, Make&& make) {
  if (!gpu_unusable_reason().empty()) {
    fail_row(state, row, "not run: " + gpu_unusable_reason());
    return false;
  }
  const bool ok = run_row<Fixture>(state, row, [&] { return make(gpu_context()); });
  if (!ok && cuda::context_is_broken()) mark_gpu_unusable("an earlier GPU row (" + failed_rows().back() +
                                                          ") left the CUDA context unusable");
  return ok;
}

// Families registered by each GPU source.
void register_gpu_solve_rows(const options& opt);

}  // namespace solvebench::bench
