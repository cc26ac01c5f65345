# GPU tests: their own binary, built with the cuSOLVER backend and skipped (visibly) where
# there is no device. They run one at a time: several read device-wide free memory
# (cudaMemGetInfo), which another test process allocating beside them would falsify.

# A kernel built for sm_75 alone (no PTX), so the start-up check has a kernel that no other
# device can run (test_device_code.cpp).
add_library(solvebench_sm75_only_kernel OBJECT sm75_only_kernel.cu)
set_target_properties(solvebench_sm75_only_kernel PROPERTIES CUDA_ARCHITECTURES 75-real)
target_link_libraries(solvebench_sm75_only_kernel PRIVATE solvebench_warnings)

add_executable(solvebench_gpu_tests
  test_cuda_owners.cpp
  test_cusolver.cpp
  test_cusolver_batched.cpp
  test_cusolver_mg.cpp
  test_device_code.cpp
  test_device_conditioned.cpp
  test_iterative_refinement.cpp
  test_iterative_refinement_options.cpp
  test_nvml.cpp
  test_nvml_counters.cpp
  $<TARGET_OBJECTS:solvebench_sm75_only_kernel>)
target_link_libraries(solvebench_gpu_tests PRIVATE
  solvebench::solvebench LAPACKE::LAPACKE GTest::gtest_main solvebench_warnings)
# Discovery runs the binary, which loads cuSOLVER and cuBLAS (~1 GB): from a cold disk that
# takes longer than gtest_discover_tests' 5 s default (see test/CMakeLists.txt).
gtest_discover_tests(solvebench_gpu_tests DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT ${SB_DISCOVERY_TIMEOUT}
                     PROPERTIES LABELS "unit;gpu" RUN_SERIAL TRUE)

# A stand-in libnvidia-ml for test_nvml.cpp: dlopen'd by path (never linked), so the reader's
# present-driver paths run on machines without a driver.
add_library(solvebench_fake_nvml SHARED fake_nvml.cpp)
target_link_libraries(solvebench_fake_nvml PRIVATE solvebench_warnings)
add_dependencies(solvebench_gpu_tests solvebench_fake_nvml)
target_compile_definitions(solvebench_gpu_tests PRIVATE SB_FAKE_NVML="$<TARGET_FILE:solvebench_fake_nvml>")
# test_nvml_counters.cpp holds the NVML counters to the audit's step (checks/thresholds.hpp).
target_include_directories(solvebench_gpu_tests PRIVATE ${PROJECT_SOURCE_DIR}/benchmarks)
