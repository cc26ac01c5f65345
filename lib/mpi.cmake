# ScaLAPACK-over-MPI backend (built only with MPI): solvebench::mpi, on top of solvebench.
add_library(solvebench_mpi
  src/mpi/grid.cpp
  src/mpi/distributed_matrix.cpp
  src/mpi/solvers.cpp
  src/mpi/residual.cpp
  src/mpi/agreement.cpp
  src/mpi/runtime_info.cpp)
add_library(solvebench::mpi ALIAS solvebench_mpi)
target_link_libraries(solvebench_mpi
  PUBLIC solvebench MPI::MPI_CXX
  PRIVATE ScaLAPACK::ScaLAPACK ${CMAKE_DL_LIBS} $<BUILD_INTERFACE:solvebench_warnings>)
