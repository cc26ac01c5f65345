// solve_bench_mpi's own flags, beside the common ones: block size and BLAS threads per rank.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/options.hpp"

namespace solvebench::bench::mpi {

struct options {
  std::vector<std::int64_t> nb{64};  // ScaLAPACK block sizes (square blocks)
  int blas_threads = 1;              // BLAS threads per rank
};
std::vector<flag> flags(options& o);

// Google Benchmark flags that would let the ranks run different rows are refused
// (--benchmark_enable_random_interleaving: every rank would shuffle on its own).
void check_gb_flags(const std::vector<std::string>& gb_flags);

}  // namespace solvebench::bench::mpi
