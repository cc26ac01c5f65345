# cmake --install: the programs, libsolvebench (and solvebench_mpi) with its headers, a CMake
# package (find_package(solvebench CONFIG) -> solvebench::solvebench, solvebench::mpi) and a
# pkg-config file. The library is static, so the package finds its link dependencies again.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(_sb_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/solvebench)

# The programs a user runs: a new one goes into this list. They keep the run-time paths of the
# libraries they link outside the system's (the CUDA toolkit's, say).
foreach(program IN ITEMS solve_bench solve_bench_mpi solve_bench_checks)
  if(TARGET ${program})
    set_target_properties(${program} PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
    install(TARGETS ${program})  # to CMAKE_INSTALL_BINDIR
  endif()
endforeach()

if(SOLVE_BENCH_SANITIZE)
  # Code built with sanitizers needs their run-time library wherever it is linked.
  target_link_options(solvebench INTERFACE $<INSTALL_INTERFACE:-fsanitize=${SOLVE_BENCH_SANITIZE}>)
endif()
install(TARGETS solvebench EXPORT solvebench-targets INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT solvebench-targets NAMESPACE solvebench:: DESTINATION ${_sb_cmake_dir})
# Every header, CUDA and MPI ones included: solvebench.hpp includes those this build can compile.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lib/include/solvebench DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
install(FILES ${PROJECT_BINARY_DIR}/lib/generated/solvebench/config.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/solvebench)
set(_sb_find_modules ${PROJECT_SOURCE_DIR}/cmake/FindLAPACKE.cmake)

if(TARGET solvebench_mpi)
  set_target_properties(solvebench_mpi PROPERTIES EXPORT_NAME mpi)
  install(TARGETS solvebench_mpi EXPORT solvebench-mpi-targets)
  install(EXPORT solvebench-mpi-targets NAMESPACE solvebench:: DESTINATION ${_sb_cmake_dir})
  list(APPEND _sb_find_modules ${PROJECT_SOURCE_DIR}/cmake/FindScaLAPACK.cmake)
endif()

# What the package's config must know to find the same dependencies again: the BLAS vendor and
# the libraries FindBLAS/FindLAPACK picked (BLIS's CI build names its LAPACK by hand), where the
# CUDA toolkit is, and whether cusolverMg came through our own imported target (lib/cuda.cmake).
get_cmake_property(_sb_cache_variables CACHE_VARIABLES)
set(SB_BLAS_LIBRARY_HINTS "")
foreach(var IN LISTS _sb_cache_variables)
  if(var MATCHES "^(BLAS|LAPACK)_[A-Za-z0-9_]+_LIBRARY$" AND ${var})
    string(APPEND SB_BLAS_LIBRARY_HINTS "set(${var} \"${${var}}\" CACHE FILEPATH \"solvebench: as built\")\n")
  endif()
endforeach()
set(SB_CUDA_ROOT "")
set(SB_CUSOLVERMG_SHIM OFF)
if(SOLVE_BENCH_HAVE_CUDA)
  get_filename_component(SB_CUDA_ROOT "${CUDAToolkit_BIN_DIR}" DIRECTORY)
  if(TARGET solvebench_cusolverMg)
    set(SB_CUSOLVERMG_SHIM ON)
  endif()
endif()
configure_package_config_file(cmake/solvebenchConfig.cmake.in ${PROJECT_BINARY_DIR}/solvebenchConfig.cmake
                              INSTALL_DESTINATION ${_sb_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/solvebenchConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)  # 0.x: a minor version may break the API
install(FILES ${PROJECT_BINARY_DIR}/solvebenchConfig.cmake ${PROJECT_BINARY_DIR}/solvebenchConfigVersion.cmake
              ${_sb_find_modules}
        DESTINATION ${_sb_cmake_dir})

# pkg-config, for builds without CMake: the static library and, after it, what it links.
# Relocatable: the prefix is found from the .pc file's own place, so --prefix at install time holds.
file(RELATIVE_PATH SB_PC_PREFIX_FROM_PCFILEDIR "/root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/root")
set(_sb_pc_libs ${LAPACKE_LIBRARY} ${LAPACK_LIBRARIES} ${BLAS_LIBRARIES})
set(_sb_pc_cflags ${OpenMP_CXX_FLAGS})
if(NOT LAPACKE_INCLUDE_DIR IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
  list(APPEND _sb_pc_cflags -I${LAPACKE_INCLUDE_DIR})
endif()
if(SOLVE_BENCH_HAVE_CUDA)
  if(TARGET CUDA::cusolverMg)
    set(_sb_pc_cusolver_mg ${CUDA_cusolverMg_LIBRARY})
  else()
    set(_sb_pc_cusolver_mg ${SOLVE_BENCH_CUSOLVERMG_LIBRARY})
  endif()
  list(PREPEND _sb_pc_libs ${_sb_pc_cusolver_mg} ${CUDA_cusolver_LIBRARY} ${CUDA_cublas_LIBRARY} ${CUDA_cudart_LIBRARY})
  foreach(dir IN LISTS CUDAToolkit_INCLUDE_DIRS)
    list(APPEND _sb_pc_cflags -I${dir})
  endforeach()
endif()
list(REMOVE_DUPLICATES _sb_pc_libs)
list(APPEND _sb_pc_libs ${OpenMP_CXX_FLAGS})
if(SOLVE_BENCH_SANITIZE)
  list(APPEND _sb_pc_libs -fsanitize=${SOLVE_BENCH_SANITIZE})
endif()
foreach(lib IN LISTS CMAKE_DL_LIBS)
  list(APPEND _sb_pc_libs -l${lib})
endforeach()
list(JOIN _sb_pc_libs " " SB_PC_LIBS)
list(JOIN _sb_pc_cflags " " SB_PC_CFLAGS)
configure_file(cmake/solvebench.pc.in ${PROJECT_BINARY_DIR}/solvebench.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/solvebench.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
