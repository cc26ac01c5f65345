# The distributed CPU switch: SOLVE_BENCH_MPI = AUTO | ON | OFF.
# Result: SOLVE_BENCH_HAVE_MPI (ON/OFF); with ON, MPI::MPI_C, MPI::MPI_CXX and
# ScaLAPACK::ScaLAPACK exist, plus SOLVE_BENCH_MPIEXEC_PREFLAGS for the tests' mpiexec.
set(SOLVE_BENCH_HAVE_MPI OFF)
string(TOUPPER "${SOLVE_BENCH_MPI}" _sb_mpi)
if(NOT _sb_mpi MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "SOLVE_BENCH_MPI must be AUTO, ON or OFF, not '${SOLVE_BENCH_MPI}'")
endif()

if(NOT _sb_mpi STREQUAL "OFF")
  # We call MPI's C API from C++; the deprecated MPI-2 C++ bindings only slow the build.
  set(MPI_CXX_SKIP_MPICXX ON CACHE BOOL "Skip the MPI-2 C++ bindings")
  set(MPI_DETERMINE_LIBRARY_VERSION TRUE)  # MPI_C_LIBRARY_VERSION_STRING: which MPI this is
  find_package(MPI COMPONENTS C CXX)
  if(MPI_C_FOUND AND MPI_CXX_FOUND)
    # Debian builds ScaLAPACK once per MPI; link the one made for this MPI.
    if(MPI_C_LIBRARY_VERSION_STRING MATCHES "Open MPI")
      set(ScaLAPACK_MPI_FLAVOR openmpi)
    elseif(MPI_C_LIBRARY_VERSION_STRING MATCHES "MPICH")
      set(ScaLAPACK_MPI_FLAVOR mpich)
    endif()
    find_package(ScaLAPACK)
  endif()

  if(MPI_C_FOUND AND MPI_CXX_FOUND AND ScaLAPACK_FOUND)
    set(SOLVE_BENCH_HAVE_MPI ON)
  elseif(_sb_mpi STREQUAL "ON")
    message(FATAL_ERROR
      "SOLVE_BENCH_MPI=ON but MPI or ScaLAPACK was not found "
      "(MPI C: '${MPI_C_FOUND}', MPI C++: '${MPI_CXX_FOUND}', ScaLAPACK: '${ScaLAPACK_LIBRARY}'). "
      "On Debian/Ubuntu: apt-get install libopenmpi-dev openmpi-bin libscalapack-openmpi-dev; "
      "elsewhere point MPI_CXX_COMPILER at mpicxx and ScaLAPACK_LIBRARY at libscalapack, "
      "or configure with -DSOLVE_BENCH_MPI=OFF.")
  else()
    message(STATUS "solve_bench: MPI or ScaLAPACK not found, not building solve_bench_mpi")
  endif()
endif()

if(SOLVE_BENCH_HAVE_MPI)
  # Open MPI refuses to start more ranks than cores, or to run as root, unless told to;
  # the tests start 2 ranks, which CI (2 cores, root) and smaller machines must allow.
  if(MPI_C_LIBRARY_VERSION_STRING MATCHES "Open MPI")
    set(_sb_mpiexec_default --oversubscribe --allow-run-as-root)
  endif()
  set(SOLVE_BENCH_MPIEXEC_PREFLAGS "${_sb_mpiexec_default}" CACHE STRING
      "Flags the MPI tests pass to ${MPIEXEC_EXECUTABLE} before the program")
endif()
