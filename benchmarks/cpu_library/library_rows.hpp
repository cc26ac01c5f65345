// Rows of the CPU libraries loaded at run time beside the linked one (--cpu_libraries):
// CPU[blis]/dgesv/n:1024/nrhs:1, CPU-driver[reference]/dposv/..., each library in a link-map
// namespace of its own (solvebench/lapack_loaded.hpp), each row carrying its library's facts.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/options.hpp"
#include "core/session.hpp"

namespace solvebench::bench::cpu_library {

struct options {
  std::vector<std::string> names;  // as given: none (the default), auto, or names of known_libraries()
};
std::vector<flag> flags(options& o);

struct registration {
  std::vector<std::string> notes;                            // one line per library skipped or loaded
  std::vector<std::pair<std::string, std::string>> context;  // cpu_libraries: what ran, what did not
};
// Where --cpu_libraries (or its variable) asks for libraries and this process's thread stacks
// are cached, starts the program again with GLIBC_TUNABLES holding
// lapack::uncached_thread_stacks (solvebench/lapack_loaded.hpp says why); returns where it
// cannot, the libraries that run more than one thread then refused by name. Before anything runs.
void restart_for_namespaces(char** argv);

// Also gives the linked library's rows (cpu/) their facts, whichever libraries are chosen.
registration register_rows(session& run, const common_options& opt, const options& libs);

}  // namespace solvebench::bench::cpu_library
