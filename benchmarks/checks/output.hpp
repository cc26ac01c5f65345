// Files written whole or not at all: into a temporary beside the target, checked, flushed,
// then renamed over it. A failed write names the file and leaves the old one untouched.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace solvebench::bench {

// JSON text (indented when `indent` >= 0); bytes that are not UTF-8 become U+FFFD, never an exception.
std::string json_text(const nlohmann::ordered_json& j, int indent = -1);

// Throws solvebench::error ("cannot write X: reason") when any step fails.
void write_file_atomically(const std::string& path, const std::string& text);

// Whether `path` can be created or replaced (its folder exists and is writable; it is not a
// device or a folder): checked before a run starts, so a typo costs nothing.
std::string why_not_writable(const std::string& path);

}  // namespace solvebench::bench
