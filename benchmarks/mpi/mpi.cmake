# solve_bench_mpi: the ScaLAPACK rows, one binary started by mpirun on every rank. It shares
# solve_bench's flags, row harness and rows log (options.cpp, harness.cpp).
add_executable(solve_bench_mpi
  mpi/main.cpp mpi/mpi_options.cpp mpi/mpi_solve.cpp
  options.cpp harness.cpp)
target_include_directories(solve_bench_mpi PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(solve_bench_mpi PRIVATE solvebench::mpi benchmark::benchmark solvebench_warnings)
