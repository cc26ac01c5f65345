// solve_bench_mpi's flags: solve_bench's own (sizes, nrhs, precisions, kind, seed, rows log)
// plus the distributed ones (block size, BLAS threads per rank).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "options.hpp"

namespace solvebench::bench {

struct mpi_options {
  options common;                    // parsed by parse_options, as solve_bench does
  std::vector<std::int64_t> nb{64};  // ScaLAPACK block sizes (square blocks)
  int blas_threads = 1;              // OpenBLAS threads per rank
};

// Reads SOLVE_BENCH_NB, SOLVE_BENCH_BLAS_THREADS and the matching
// flags, hands everything else to parse_options; usage_error on anything wrong, including
// Google Benchmark flags that would let the ranks run different rows
// (--benchmark_enable_random_interleaving).
mpi_options parse_mpi_options(int argc, char** argv, const std::vector<std::string>& gb_flags);

std::string mpi_usage_text();

// Default sweep: solve_bench's CPU sizes, so MPI rows meet CPU rows of the same n.
std::vector<std::int64_t> mpi_sizes(const mpi_options& opt);

}  // namespace solvebench::bench
