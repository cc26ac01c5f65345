# GPU rows: one source per family, plus the shared context and registration.
target_sources(solve_bench_rows PRIVATE gpu_registry.cpp gpu_solve.cpp gpu_mixed.cpp gpu_batched.cpp)

if(SOLVE_BENCH_TESTS)
  # Test-only twin whose GPU rows can be made to hit a sticky CUDA error on demand.
  add_executable(solve_bench_fault_injection gpu_fault_inject.cu)
  target_link_libraries(solve_bench_fault_injection PRIVATE solve_bench_rows solvebench_warnings)
endif()
