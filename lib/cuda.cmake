# cuSOLVER backend: only built when SOLVE_BENCH_CUDA found (or requires) a CUDA toolchain.
# Plain C++ where the CUDA libraries are only called; .cu only where a kernel is needed.
target_sources(solvebench PRIVATE
  src/cuda/cuda_errors.cpp
  src/cuda/cuda_owners.cpp
  src/cuda/device_code.cpp
  src/cuda/cusolver.cpp
  src/cuda/cusolver_batched.cpp
  src/cuda/cusolver_probes.cpp
  src/cuda/cusolver_mg.cpp
  src/cuda/cusolver_mg_context.cpp
  src/cuda/iterative_refinement.cpp
  src/cuda/nvml.cpp
  src/cuda/nvml_loader.cpp
  src/cuda/gpu_row_monitor.cpp
  src/cuda/device_generate.cu
  src/cuda/device_hold.cu
  src/cuda/device_known_solution.cu
  src/cuda/device_residual.cu)

# cusolverMg (multi-GPU, deprecated in CUDA 13): FindCUDAToolkit has no CUDA::cusolverMg target
# (CMake 3.25 at least), so find the library beside the toolkit's others when it is missing.
if(TARGET CUDA::cusolverMg)
  set(_sb_cusolver_mg CUDA::cusolverMg)
else()
  find_library(SOLVE_BENCH_CUSOLVERMG_LIBRARY cusolverMg HINTS ${CUDAToolkit_LIBRARY_DIR} REQUIRED
               DOC "libcusolverMg of the CUDA toolkit (the multi-GPU backend)")
  add_library(solvebench_cusolverMg SHARED IMPORTED GLOBAL)
  set_target_properties(solvebench_cusolverMg PROPERTIES
    IMPORTED_LOCATION "${SOLVE_BENCH_CUSOLVERMG_LIBRARY}"
    INTERFACE_LINK_LIBRARIES "CUDA::cusolver;CUDA::cublas;CUDA::cudart")
  set(_sb_cusolver_mg solvebench_cusolverMg)
endif()
target_link_libraries(solvebench PUBLIC CUDA::cudart CUDA::cublas CUDA::cusolver ${_sb_cusolver_mg})
# NVML is dlopen'd (src/cuda/nvml_loader.cpp), never linked: libnvidia-ml ships with the driver, and a
# binary linked to it would not start where there is none (CI).
