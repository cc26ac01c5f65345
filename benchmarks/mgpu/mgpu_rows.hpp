// Registers the multi-GPU rows (cusolverMg over G devices of this host), or says why not.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/options.hpp"
#include "core/session.hpp"

namespace solvebench::bench::mgpu {

struct registration {
  std::vector<std::string> notes;  // one line per GPU count that was asked for and is not present
  std::vector<std::pair<std::string, std::string>> context;  // the devices and how they are linked
};
// Into `run`, which owns the rows' Mg contexts (freed by its release()).
registration register_rows(session& run, const common_options& opt, const mgpu_options& mgpu);

}  // namespace solvebench::bench::mgpu
