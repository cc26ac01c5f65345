// Results written before rows carried an id (those of earlier versions) name their rows only:
// "GPU-pinned/dgesv/n:4096/nrhs:1". This reads such a name back into a row_id, by a table of
// the backends those versions had. It is the one place a backend's name is read into fields,
// kept out of benchmarks/checks/, whose rules see only the fields; the loaders of saved runs
// (checks/load.cpp, checks/history.cpp) call it for a row without an id.
#pragma once

#include <string>

#include "checks/row_id.hpp"

namespace solvebench::bench {

// The id the name implies; throws std::invalid_argument saying what in the name is wrong.
row_id legacy_row_id(const std::string& name);

}  // namespace solvebench::bench
