# The CPU library: BLAS, LAPACK and LAPACKE, found by stock CMake (nothing downloaded).
# OpenBLAS unless the user picks another with -DBLA_VENDOR=... (docs/cpu-libraries.md):
# e.g. FLAME (BLIS + libflame), FlexiBLAS, Intel10_64lp (MKL).
# Result: BLAS::BLAS, LAPACK::LAPACK, LAPACKE::LAPACKE, and
#   SOLVE_BENCH_BLAS_VENDOR          the vendor the run context must then name ("" when
#                                    BLA_VENDOR does not say, e.g. Generic or All);
#   SOLVE_BENCH_BLAS_VENDOR_VERSION  its version where the system says it at configure time
#                                    (pkg-config, for the library actually linked), else "".
if(NOT DEFINED BLA_VENDOR)
  if(DEFINED ENV{BLA_VENDOR})  # FindBLAS reads it from the environment too
    set(BLA_VENDOR "$ENV{BLA_VENDOR}")
  else()
    set(BLA_VENDOR OpenBLAS)
  endif()
endif()
find_package(BLAS REQUIRED)
find_package(LAPACK REQUIRED)
find_package(LAPACKE REQUIRED)

# BLA_VENDOR names as FindBLAS spells them -> the vendor blas_runtime.cpp reports.
set(SOLVE_BENCH_BLAS_VENDOR "")
set(_sb_pc_module "")
if(BLA_VENDOR STREQUAL "OpenBLAS")
  set(SOLVE_BENCH_BLAS_VENDOR OpenBLAS)
  set(_sb_pc_module openblas)
elseif(BLA_VENDOR STREQUAL "FLAME")
  set(SOLVE_BENCH_BLAS_VENDOR BLIS)
elseif(BLA_VENDOR STREQUAL "FlexiBLAS")
  set(SOLVE_BENCH_BLAS_VENDOR FlexiBLAS)
  set(_sb_pc_module flexiblas)
elseif(BLA_VENDOR MATCHES "^Intel10_64")
  set(SOLVE_BENCH_BLAS_VENDOR MKL)
endif()

# The version, only when pkg-config describes the very library that was linked.
set(SOLVE_BENCH_BLAS_VENDOR_VERSION "")
find_package(PkgConfig QUIET)
if(_sb_pc_module AND PKG_CONFIG_FOUND)
  pkg_check_modules(_sb_blas_pc QUIET ${_sb_pc_module})
  list(GET BLAS_LIBRARIES 0 _sb_blas_first)
  if(_sb_blas_pc_FOUND AND EXISTS "${_sb_blas_first}")
    file(REAL_PATH "${_sb_blas_first}" _sb_blas_real)
    get_filename_component(_sb_blas_dir "${_sb_blas_real}" DIRECTORY)
    foreach(_sb_dir IN LISTS _sb_blas_pc_LIBRARY_DIRS)
      file(REAL_PATH "${_sb_dir}" _sb_dir_real)
      if(_sb_dir_real STREQUAL _sb_blas_dir)
        set(SOLVE_BENCH_BLAS_VENDOR_VERSION "${_sb_blas_pc_VERSION}")
      endif()
    endforeach()
  endif()
endif()

set(_sb_vendor_said "${SOLVE_BENCH_BLAS_VENDOR} ${SOLVE_BENCH_BLAS_VENDOR_VERSION}")
string(STRIP "${_sb_vendor_said}" _sb_vendor_said)
if(NOT _sb_vendor_said)
  set(_sb_vendor_said "named at run time")
endif()
set(_sb_lapack_said ${LAPACK_LIBRARIES})
list(REMOVE_DUPLICATES _sb_lapack_said)
message(STATUS "solve_bench: CPU library BLA_VENDOR=${BLA_VENDOR} (${_sb_vendor_said}): BLAS ${BLAS_LIBRARIES}; "
               "LAPACK ${_sb_lapack_said}; LAPACKE ${LAPACKE_LIBRARY}")
