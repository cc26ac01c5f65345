# solve_bench_tests_back_to_back(): every test added so far in this directory runs solve_bench's
# processes back to back (SOLVE_BENCH_SPAN=0). The tests check what a run does, not how a machine
# drifts over minutes, and the default span (120 s for a run of 2 or more processes) would make
# each such run wait up to 2 minutes. smoke.rounds checks the default itself, without the variable.
function(solve_bench_tests_back_to_back)
  get_property(tests DIRECTORY PROPERTY TESTS)
  if(tests)
    set_property(TEST ${tests} APPEND PROPERTY ENVIRONMENT "SOLVE_BENCH_SPAN=0")
  endif()
endfunction()
