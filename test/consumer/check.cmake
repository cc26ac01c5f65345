# CTest install.consumer: install the build into a fresh prefix, then build test/consumer against it
# with find_package(solvebench CONFIG) (and with pkg-config where there is one) and run it.
# cmake -DBUILD_DIR=... -DCONFIG=... -DWORK_DIR=... -DGENERATOR=... -DCXX=... [-DWITH_MPI=ON]
#       [-DPKG_CONFIG=...] -P check.cmake
cmake_minimum_required(VERSION 3.25)
set(source_dir ${CMAKE_CURRENT_LIST_DIR})
set(prefix ${WORK_DIR}/prefix)
set(consumer ${WORK_DIR}/build)

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${what} failed (${status}): ${ARGN}")
  endif()
endfunction()

# The umbrella header must name every public header (scalapack.hpp belongs to solvebench::mpi).
get_filename_component(public ${source_dir}/../../lib/include/solvebench ABSOLUTE)
file(READ ${public}/solvebench.hpp umbrella)
file(GLOB headers RELATIVE ${public} ${public}/*.hpp)
list(REMOVE_ITEM headers solvebench.hpp scalapack.hpp)
foreach(h IN LISTS headers)
  string(FIND "${umbrella}" "#include \"solvebench/${h}\"" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "lib/include/solvebench/solvebench.hpp does not include solvebench/${h}")
  endif()
endforeach()

file(REMOVE_RECURSE ${WORK_DIR})
run("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --config ${CONFIG})
foreach(f bin/solve_bench include/solvebench/solvebench.hpp include/solvebench/config.hpp)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "the install has no ${f}")
  endif()
endforeach()

run("configure the consumer" ${CMAKE_COMMAND} -S ${source_dir} -B ${consumer} -G ${GENERATOR}
    -DCMAKE_BUILD_TYPE=${CONFIG} -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${prefix}
    -DSOLVEBENCH_CONSUMER_MPI=${WITH_MPI})
file(STRINGS ${consumer}/CMakeCache.txt found REGEX "^solvebench_DIR:")
if(NOT found MATCHES "=${prefix}/")
  message(FATAL_ERROR "the consumer found another solvebench: ${found}")
endif()
run("build the consumer" ${CMAKE_COMMAND} --build ${consumer} --config ${CONFIG})
file(GLOB_RECURSE program ${consumer}/consumer ${consumer}/consumer.exe)
run("the consumer" ${program})

if(PKG_CONFIG)
  file(GLOB_RECURSE pc ${prefix}/solvebench.pc)
  get_filename_component(pc_dir "${pc}" DIRECTORY)
  set(ENV{PKG_CONFIG_PATH} "${pc_dir}")
  execute_process(COMMAND ${PKG_CONFIG} --cflags --libs solvebench OUTPUT_VARIABLE flags
                  OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run("pkg-config build" ${CXX} -std=c++17 ${source_dir}/main.cpp ${flags} -o ${WORK_DIR}/consumer_pc)
  run("the pkg-config consumer" ${WORK_DIR}/consumer_pc)
endif()
