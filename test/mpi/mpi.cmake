# MPI tests: the library tests on a 1x2 and a 2x2 grid, and checked runs of solve_bench_mpi
# (test/mpi/bench_mpi_smoke.py).
# A hang is a failure: every test has a TIMEOUT.
add_executable(solvebench_mpi_tests mpi/test_scalapack.cpp)
target_link_libraries(solvebench_mpi_tests PRIVATE
  solvebench::mpi LAPACKE::LAPACKE GTest::gtest solvebench_warnings)

# In containers Open MPI's shared-memory transport cannot always use CMA (ptrace rules);
# copying through the shared segment works everywhere and is fast enough for tests.
# Everything runs on this machine, so Open MPI needs no ssh (which minimal images lack).
set(_sb_mpi_test_env
  OMPI_MCA_btl_vader_single_copy_mechanism=none
  OMPI_MCA_plm_rsh_agent=false
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  OPENBLAS_NUM_THREADS=1)

foreach(ranks 2 4)
  add_test(NAME mpi.scalapack.np${ranks}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} ${SOLVE_BENCH_MPIEXEC_PREFLAGS}
                   ${MPIEXEC_PREFLAGS} $<TARGET_FILE:solvebench_mpi_tests> ${MPIEXEC_POSTFLAGS})
  set_tests_properties(mpi.scalapack.np${ranks} PROPERTIES
    LABELS "mpi" TIMEOUT 300 PROCESSORS 2 ENVIRONMENT "${_sb_mpi_test_env}")
endforeach()

find_package(Python3 REQUIRED COMPONENTS Interpreter)
foreach(case run one_rank singular usage lockstep out_rank0 min_time_1x nothing nan)
  add_test(NAME solve_bench_mpi.smoke.${case}
           COMMAND Python3::Interpreter ${CMAKE_CURRENT_SOURCE_DIR}/mpi/bench_mpi_smoke.py ${case}
                   $<TARGET_FILE:solve_bench_mpi> ${CMAKE_CURRENT_BINARY_DIR}/smoke_mpi
                   ${MPIEXEC_EXECUTABLE} ${SOLVE_BENCH_MPIEXEC_PREFLAGS} ${MPIEXEC_PREFLAGS})
  set_tests_properties(solve_bench_mpi.smoke.${case} PROPERTIES
    LABELS "mpi;smoke" TIMEOUT 600 PROCESSORS 2 ENVIRONMENT "${_sb_mpi_test_env}")
endforeach()
