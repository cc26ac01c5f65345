# ScaLAPACK-over-MPI backend (built only with MPI): solvebench::mpi, on top of solvebench.
add_library(solvebench_mpi src/mpi/scalapack.cpp)
add_library(solvebench::mpi ALIAS solvebench_mpi)
target_link_libraries(solvebench_mpi
  PUBLIC solvebench MPI::MPI_CXX
  PRIVATE ScaLAPACK::ScaLAPACK ${CMAKE_DL_LIBS} solvebench_warnings)
