// Registers the ScaLAPACK rows (p?gesv, p?posv) for the grid every rank shares.
#pragma once

#include "mpi/mpi_options.hpp"
#include "solvebench/scalapack.hpp"

namespace solvebench::bench {

// `grid` must outlive the benchmark run (the rows keep a reference to it).
void register_mpi_benchmarks(const mpi_options& opt, const scalapack::process_grid& grid);

}  // namespace solvebench::bench
