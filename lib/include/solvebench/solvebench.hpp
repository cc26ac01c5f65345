// The whole library in one include: every public header, the CUDA ones when this build has CUDA.
// ScaLAPACK's (scalapack.hpp) is left out: it needs MPI, which solvebench::mpi brings, not this target.
#pragma once

#include "solvebench/config.hpp"

#include "solvebench/conditioned.hpp"
#include "solvebench/cpu_facts.hpp"
#include "solvebench/cpu_load.hpp"
#include "solvebench/cusolver_mg_layout.hpp"
#include "solvebench/errors.hpp"
#include "solvebench/flops.hpp"
#include "solvebench/generate.hpp"
#include "solvebench/gpu_peak.hpp"
#include "solvebench/host_device.hpp"
#include "solvebench/known_causes.hpp"
#include "solvebench/known_solution.hpp"
#include "solvebench/lapack.hpp"
#include "solvebench/lapack_batched.hpp"
#include "solvebench/lapack_loaded.hpp"
#include "solvebench/lapack_probes.hpp"
#include "solvebench/matrix.hpp"
#include "solvebench/precision.hpp"
#include "solvebench/rapl.hpp"
#include "solvebench/residual.hpp"
#include "solvebench/row_monitor.hpp"
#include "solvebench/solver_choices.hpp"

#if SOLVE_BENCH_HAVE_CUDA
#include "solvebench/cuda_errors.hpp"
#include "solvebench/cuda_owners.hpp"
#include "solvebench/cusolver.hpp"
#include "solvebench/cusolver_batched.hpp"
#include "solvebench/cusolver_mg.hpp"
#include "solvebench/cusolver_mg_context.hpp"
#include "solvebench/cusolver_probes.hpp"
#include "solvebench/device_code.hpp"
#include "solvebench/device_generate.hpp"
#include "solvebench/device_hold.hpp"
#include "solvebench/device_known_solution.hpp"
#include "solvebench/device_residual.hpp"
#include "solvebench/iterative_refinement.hpp"
#include "solvebench/nvml.hpp"
#endif
