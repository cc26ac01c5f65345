# SOLVE_BENCH_COMMIT: the source's git commit (with -dirty when the tree had changes at configure
# time), recorded in every run's context as solve_bench_commit so that a history can name the
# commits between two runs. CMake re-runs this whenever HEAD or the branch it names moves.
set(SOLVE_BENCH_COMMIT "unknown")
find_package(Git QUIET)
# A copy of the tree without its history (the lent GPU machine) says which commit it is.
set(SOLVE_BENCH_COMMIT_OVERRIDE "" CACHE STRING "The commit to record when the source tree has no git history")
if(SOLVE_BENCH_COMMIT_OVERRIDE)
  set(SOLVE_BENCH_COMMIT "${SOLVE_BENCH_COMMIT_OVERRIDE}")
elseif(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse HEAD WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE _sb_head OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _sb_rc ERROR_QUIET)
  if(_sb_rc EQUAL 0)
    set(SOLVE_BENCH_COMMIT "${_sb_head}")
    execute_process(COMMAND ${GIT_EXECUTABLE} status --porcelain --untracked-files=no WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                    OUTPUT_VARIABLE _sb_dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_sb_dirty)
      string(APPEND SOLVE_BENCH_COMMIT "-dirty")
    endif()
    foreach(_sb_ref HEAD refs/heads packed-refs)
      execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --git-path ${_sb_ref} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                      OUTPUT_VARIABLE _sb_path OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(_sb_path AND NOT IS_ABSOLUTE "${_sb_path}")
        set(_sb_path "${PROJECT_SOURCE_DIR}/${_sb_path}")
      endif()
      if(EXISTS "${_sb_path}" AND NOT IS_DIRECTORY "${_sb_path}")
        set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_sb_path}")
      endif()
    endforeach()
    execute_process(COMMAND ${GIT_EXECUTABLE} symbolic-ref -q HEAD WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                    OUTPUT_VARIABLE _sb_branch OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_sb_branch)
      execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --git-path ${_sb_branch} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                      OUTPUT_VARIABLE _sb_path OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(_sb_path AND NOT IS_ABSOLUTE "${_sb_path}")
        set(_sb_path "${PROJECT_SOURCE_DIR}/${_sb_path}")
      endif()
      if(EXISTS "${_sb_path}")
        set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_sb_path}")
      endif()
    endif()
  endif()
endif()
set(SOLVE_BENCH_COMPILER "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}")
