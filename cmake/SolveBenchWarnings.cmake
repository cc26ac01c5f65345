# Strict warnings (and optional sanitizers) for solve_bench's own targets only;
# third-party headers come in through imported targets and stay SYSTEM.
add_library(solvebench_warnings INTERFACE)
set(_sb_cxx_warnings -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
    -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wnull-dereference)
if(SOLVE_BENCH_WERROR)
  list(APPEND _sb_cxx_warnings -Werror)
endif()
string(REPLACE ";" "," _sb_cuda_host_warnings "-Wall;-Wextra;-Wshadow")
target_compile_options(solvebench_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:${_sb_cxx_warnings}>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${_sb_cuda_host_warnings}>
  $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${SOLVE_BENCH_WERROR}>>:-Werror=all-warnings>)

# Messages carry __FILE__ (the error macros): relative to the source root, never the build
# machine's absolute path.
target_compile_options(solvebench_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-fmacro-prefix-map=${PROJECT_SOURCE_DIR}/=>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fmacro-prefix-map=${PROJECT_SOURCE_DIR}/=>)

if(SOLVE_BENCH_SANITIZE)
  target_compile_options(solvebench_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=${SOLVE_BENCH_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all>)
  target_link_options(solvebench_warnings INTERFACE -fsanitize=${SOLVE_BENCH_SANITIZE})
endif()
