# The one GPU switch: SOLVE_BENCH_CUDA = AUTO | ON | OFF.
# Result: SOLVE_BENCH_HAVE_CUDA (ON/OFF); with ON, the CUDA language is enabled and
# CUDA::cudart, CUDA::cublas, CUDA::cusolver exist.
set(SOLVE_BENCH_HAVE_CUDA OFF)
string(TOUPPER "${SOLVE_BENCH_CUDA}" _sb_cuda)
if(NOT _sb_cuda MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "SOLVE_BENCH_CUDA must be AUTO, ON or OFF, not '${SOLVE_BENCH_CUDA}'")
endif()

if(NOT _sb_cuda STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # The H200 (and H100) is sm_90; override with -DCMAKE_CUDA_ARCHITECTURES=...
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90 CACHE STRING "CUDA architectures to build for")
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
