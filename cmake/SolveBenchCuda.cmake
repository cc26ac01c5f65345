# The one GPU switch: SOLVE_BENCH_CUDA = AUTO | ON | OFF.
# Result: SOLVE_BENCH_HAVE_CUDA (ON/OFF); with ON, the CUDA language is enabled and
# CUDA::cudart, CUDA::cublas, CUDA::cusolver exist.

# The default architectures: code that runs on every NVIDIA GPU from compute capability 7.5 up.
# SASS for 7.5 (T4), 8.0 (A100), 8.6 (RTX 30xx, A10, A40), 8.9 (L4, L40, RTX 40xx) and 9.0
# (H100, H200), and SASS + PTX for the newest architecture this nvcc knows. PTX for 9.0 as well:
# without it a GPU between 9.0 and the newest (B200 is 10.0, RTX 50xx is 12.0, while nvcc 13.0's
# newest is 12.1) would have no code at all; with it the driver JIT-compiles the few small
# kernels once. Only the project's few .cu files pay for the list: the rest is plain C++.
function(_sb_default_cuda_architectures out_list out_why)
  set(wanted 75 80 86 89 90)
  execute_process(COMMAND "${CMAKE_CUDA_COMPILER}" --list-gpu-arch
                  OUTPUT_VARIABLE listed RESULT_VARIABLE status ERROR_QUIET)
  string(REGEX MATCHALL "compute_[0-9]+" known "${listed}")
  string(REPLACE "compute_" "" known "${known}")
  if(NOT status EQUAL 0 OR NOT known)
    set(${out_list} "75-real;80-real;86-real;89-real;90" PARENT_SCOPE)
    set(${out_why} "SASS for each, PTX for 90; '${CMAKE_CUDA_COMPILER} --list-gpu-arch' gave no list" PARENT_SCOPE)
    return()
  endif()
  set(newest 0)
  foreach(arch IN LISTS known)
    if(arch GREATER newest)
      set(newest ${arch})
    endif()
  endforeach()
  set(archs "")
  set(ptx ${newest})
  foreach(arch IN LISTS wanted)
    if(arch EQUAL 90 AND newest GREATER 90 AND "90" IN_LIST known)
      list(APPEND archs 90)  # SASS and PTX
      set(ptx "90 and ${newest}")
    elseif(arch IN_LIST known AND arch LESS newest)
      list(APPEND archs ${arch}-real)
    endif()
  endforeach()
  list(APPEND archs ${newest})  # SASS and PTX
  set(${out_list} "${archs}" PARENT_SCOPE)
  set(${out_why} "SASS for each; PTX for ${ptx}, ${newest} being the newest this nvcc knows" PARENT_SCOPE)
endfunction()

set(SOLVE_BENCH_HAVE_CUDA OFF)
string(TOUPPER "${SOLVE_BENCH_CUDA}" _sb_cuda)
if(NOT _sb_cuda MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "SOLVE_BENCH_CUDA must be AUTO, ON or OFF, not '${SOLVE_BENCH_CUDA}'")
endif()

if(NOT _sb_cuda STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # Ours to (re)compute while it holds the default we set: a newer nvcc then adds its newest
    # architecture. A build folder from before this default (its "90" with the old help text)
    # counts as ours too; any value the user gave is kept.
    get_property(_sb_archs_help CACHE CMAKE_CUDA_ARCHITECTURES PROPERTY HELPSTRING)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES
       OR CMAKE_CUDA_ARCHITECTURES STREQUAL "${_SOLVE_BENCH_DEFAULT_CUDA_ARCHITECTURES}"
       OR (CMAKE_CUDA_ARCHITECTURES STREQUAL "90" AND _sb_archs_help STREQUAL "CUDA architectures to build for"))
      _sb_default_cuda_architectures(_sb_archs _sb_archs_why)
      set(CMAKE_CUDA_ARCHITECTURES "${_sb_archs}" CACHE STRING
          "CUDA architectures to build for (default: every GPU from compute capability 7.5 up)" FORCE)
      set(_SOLVE_BENCH_DEFAULT_CUDA_ARCHITECTURES "${_sb_archs}" CACHE INTERNAL "")
      message(STATUS "solve_bench: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES} (${_sb_archs_why}; "
                     "override with -DCMAKE_CUDA_ARCHITECTURES=...)")
    else()
      message(STATUS "solve_bench: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES} (as given)")
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit)
  endif()
  if(CMAKE_CUDA_COMPILER AND CUDAToolkit_FOUND AND TARGET CUDA::cusolver)
    set(SOLVE_BENCH_HAVE_CUDA ON)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  elseif(_sb_cuda STREQUAL "ON")
    message(FATAL_ERROR
      "SOLVE_BENCH_CUDA=ON but no usable CUDA toolchain was found "
      "(CUDA compiler: '${CMAKE_CUDA_COMPILER}', CUDAToolkit found: '${CUDAToolkit_FOUND}'). "
      "Install the CUDA toolkit and put nvcc on PATH (or set CMAKE_CUDA_COMPILER), "
      "or configure with -DSOLVE_BENCH_CUDA=OFF for a CPU-only build.")
  else()
    message(STATUS "solve_bench: no CUDA toolchain found, building the CPU backend only")
  endif()
endif()
