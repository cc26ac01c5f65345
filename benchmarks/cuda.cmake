# GPU rows (added with the GPU backend); until then the stub explains their absence.
target_sources(solve_bench PRIVATE gpu_stub.cpp)
