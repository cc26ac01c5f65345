# GPU rows: one source per family, plus the shared context and registration.
target_sources(solve_bench PRIVATE gpu_registry.cpp gpu_solve.cpp)
