// Row names back into their parts.
#include "core/run_record.hpp"

namespace solvebench::bench {

row_record parse_row_name(const std::string& run_name) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= run_name.size()) {
    const std::size_t slash = run_name.find('/', start);
    const std::size_t end = slash == std::string::npos ? run_name.size() : slash;
    if (end > start) parts.push_back(run_name.substr(start, end - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  while (!parts.empty() && (parts.back() == "manual_time" || parts.back() == "real_time" ||
                            parts.back() == "process_time"))
    parts.pop_back();
  row_record r;
  for (std::size_t i = 0; i < parts.size(); ++i) r.name += (i ? "/" : "") + parts[i];
  if (!parts.empty()) r.backend = parts[0];
  if (parts.size() > 1) r.op = parts[1];
  for (std::size_t i = 2; i < parts.size(); ++i) {
    const auto colon = parts[i].find(':');
    if (colon == std::string::npos) r.axes.emplace_back(parts[i], "");
    else r.axes.emplace_back(parts[i].substr(0, colon), parts[i].substr(colon + 1));
  }
  return r;
}

}  // namespace solvebench::bench
