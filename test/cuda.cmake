# GPU tests: built with the cuSOLVER backend, skipped (visibly) where there is no device.
target_sources(solvebench_tests PRIVATE test_cuda_owners.cpp test_cusolver.cpp test_cusolver_batched.cpp
                                       test_iterative_refinement.cpp)
