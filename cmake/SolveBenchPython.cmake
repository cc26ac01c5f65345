# Python tests that need modules (scipy, matplotlib) which not every interpreter has: a
# pyenv or venv `python3` on PATH may shadow the distribution's /usr/bin/python3 that has
# the Debian packages. Each test gets the first candidate that imports what it needs; with
# none, a test that CTest reports as skipped and that says what to install, or, with
# SOLVE_BENCH_REQUIRE_TOOL_TESTS=ON (CI), a configure error.

# solve_bench_python_with(<var> <module>...): FindPython3's interpreter, then /usr/bin/python3.
function(solve_bench_python_with out_var)
  string(JOIN ", " imports ${ARGN})
  get_property(known GLOBAL PROPERTY "solve_bench_python_with ${imports}" SET)
  if(known)  # asked before in this configure run
    get_property(found GLOBAL PROPERTY "solve_bench_python_with ${imports}")
    set(${out_var} "${found}" PARENT_SCOPE)
    return()
  endif()
  find_package(Python3 COMPONENTS Interpreter QUIET)
  set(found "")
  foreach(python IN ITEMS "${Python3_EXECUTABLE}" /usr/bin/python3)
    if(python AND EXISTS "${python}")
      execute_process(COMMAND "${python}" -c "import ${imports}"
                      RESULT_VARIABLE failed OUTPUT_QUIET ERROR_QUIET)
      if(NOT failed)
        set(found "${python}")
        break()
      endif()
    endif()
  endforeach()
  set_property(GLOBAL PROPERTY "solve_bench_python_with ${imports}" "${found}")
  if(found)
    message(STATUS "solve_bench: Python with ${imports}: ${found}")
  else()
    message(STATUS "solve_bench: no Python 3 with ${imports}: the tests that need it will be skipped")
  endif()
  set(${out_var} "${found}" PARENT_SCOPE)
endfunction()

# solve_bench_add_python_test(NAME <name> MODULES <module>... COMMAND <script> [<arg>...]
#                             [REQUIRES_FILE <path>] [PROPERTIES <property> <value>...])
# REQUIRES_FILE: a file the test needs besides the modules (e.g. compare.py); when it is
# empty, *-NOTFOUND or absent, the test is skipped too.
function(solve_bench_add_python_test)
  cmake_parse_arguments(arg "" "NAME;REQUIRES_FILE" "MODULES;COMMAND;PROPERTIES" ${ARGN})
  solve_bench_python_with(python ${arg_MODULES})
  set(skip_reason "")
  if(NOT python)
    list(TRANSFORM arg_MODULES PREPEND "python3-" OUTPUT_VARIABLE packages)
    string(JOIN " " skip_reason "no Python 3 that imports" ${arg_MODULES}
           "(Debian/Ubuntu: apt install" ${packages} "; tools/quickstart test installs them)")
  elseif("REQUIRES_FILE" IN_LIST ARGN AND (NOT arg_REQUIRES_FILE OR NOT EXISTS "${arg_REQUIRES_FILE}"))
    set(skip_reason "no file '${arg_REQUIRES_FILE}'")
  endif()
  if(NOT skip_reason STREQUAL "" AND SOLVE_BENCH_REQUIRE_TOOL_TESTS)
    message(FATAL_ERROR "solve_bench: test ${arg_NAME} would be skipped: ${skip_reason} "
                        "(SOLVE_BENCH_REQUIRE_TOOL_TESTS=ON)")
  endif()
  if(NOT skip_reason STREQUAL "")  # not if(skip_reason): a text ending in -NOTFOUND is false
    add_test(NAME ${arg_NAME} COMMAND ${CMAKE_COMMAND} -E echo "SKIPPED: ${skip_reason}")
    set_tests_properties(${arg_NAME} PROPERTIES SKIP_REGULAR_EXPRESSION "SKIPPED: " ${arg_PROPERTIES})
  else()
    add_test(NAME ${arg_NAME} COMMAND "${python}" ${arg_COMMAND})
    if(arg_PROPERTIES)
      set_tests_properties(${arg_NAME} PROPERTIES ${arg_PROPERTIES})
    endif()
  endif()
endfunction()
