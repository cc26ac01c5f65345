# cuSOLVER backend: only built when SOLVE_BENCH_CUDA found (or requires) a CUDA toolchain.
# Plain C++ where the CUDA libraries are only called; .cu only where a kernel is needed.
target_sources(solvebench PRIVATE
  src/cuda/cuda_errors.cpp
  src/cuda/cuda_owners.cpp
  src/cuda/cusolver.cpp
  src/cuda/cusolver_batched.cpp
  src/cuda/iterative_refinement.cpp
  src/cuda/device_generate.cu
  src/cuda/device_known_solution.cu
  src/cuda/device_residual.cu)
target_link_libraries(solvebench PUBLIC CUDA::cudart CUDA::cublas CUDA::cusolver)
