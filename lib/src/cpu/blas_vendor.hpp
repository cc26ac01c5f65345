// Inside the CPU backend: who a BLAS is and how to set its threads, for any loaded BLAS (the
// linked one, or one a loaded_library put in a namespace of its own), by its service functions.
#pragma once

#include <functional>
#include <string>

#include "solvebench/lapack.hpp"

namespace solvebench::lapack::detail {

struct vendor_facts {
  runtime_info info;  // vendor, version, blas_config, blas_core, blas_variant, blas_library, why_threads_fixed
  std::function<int()> threads;          // 0 where it cannot say
  std::function<void(int)> set_threads;  // a no-op where it has no way (why_threads_fixed says why)
};

// `handle`: a dlopen or dlmopen handle whose search scope holds the BLAS; `dgemm`: its dgemm_.
vendor_facts vendor_facts_in(void* handle, const void* dgemm);

// The shared object that holds `address`, symbolic links resolved ("unknown" when none does).
std::string library_file(const void* address);

}  // namespace solvebench::lapack::detail
