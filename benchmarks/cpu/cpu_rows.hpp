// Registers the CPU rows (LAPACKE over the linked BLAS).
#pragma once

#include "core/options.hpp"
#include "core/session.hpp"

namespace solvebench::bench::cpu {

void register_rows(session& run, const common_options& opt, const mixed_options& mixed, const batched_options& batched);

}  // namespace solvebench::bench::cpu
