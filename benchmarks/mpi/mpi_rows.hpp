// Registers the ScaLAPACK rows (p?gesv, p?posv) for the grid every rank shares.
#pragma once

#include "core/options.hpp"
#include "core/session.hpp"
#include "mpi/mpi_options.hpp"
#include "solvebench/scalapack.hpp"

namespace solvebench::bench::mpi {

// `grid` must outlive the benchmark run (the rows keep a reference to it).
void register_rows(session& run, const common_options& opt, const options& mpi, const scalapack::process_grid& grid);

}  // namespace solvebench::bench::mpi
