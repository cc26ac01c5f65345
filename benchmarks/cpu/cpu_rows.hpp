// Registers the CPU rows (LAPACKE over the linked BLAS).
#pragma once

#include "core/options.hpp"
#include "core/row.hpp"
#include "core/session.hpp"

namespace solvebench::bench::cpu {

// The linked library's dense rows (CPU/..., CPU-driver/...); a library loaded beside it
// (cpu_library/) describes its rows as these, its name aside.
inline constexpr backend_desc halves_desc{
    "CPU", row_role::reference, row_device::cpu, row_placement::resident, row_path::halves, "lapack", "blas"};
inline constexpr backend_desc driver_desc{"CPU-driver",     row_role::reference,
                                          row_device::cpu,  row_placement::resident,
                                          row_path::driver, "lapack"};

void register_rows(session& run, const common_options& opt, const mixed_options& mixed, const batched_options& batched,
                   const ceilings_options& ceilings);

}  // namespace solvebench::bench::cpu
