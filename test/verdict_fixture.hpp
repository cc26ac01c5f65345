// test/data/verdict_cases.txt (synthetic runs; the format is described at its top) read into
// what make_verdict takes.
#pragma once

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "checks/verdict.hpp"
#include "legacy/row_names.hpp"

namespace solvebench::bench::testing {

struct verdict_case {
  std::string name;
  run_summary run;
  std::vector<finding> findings;
};

inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, sep);) out.push_back(part);
  return out;
}

inline std::vector<verdict_case> read_verdict_cases(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<verdict_case> cases;
  verdict_case* current = nullptr;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const auto start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') continue;
    line = line.substr(start, line.find_last_not_of(" \t\r") + 1 - start);
    const auto space = line.find(' ');
    const std::string word = line.substr(0, space);
    const std::string rest = space == std::string::npos ? "" : line.substr(space + 1);
    const auto bad = [&](const std::string& why) {
      return std::runtime_error(path + ":" + std::to_string(number) + ": " + why + ": " + line);
    };
    if (word == "case") {
      cases.push_back({rest, {}, {}});
      current = &cases.back();
      continue;
    }
    if (word == "end") {
      current = nullptr;
      continue;
    }
    if (current == nullptr) throw bad("outside a case");
    if (word == "context") {
      const auto sp = rest.find(' ');
      current->run.context[rest.substr(0, sp)] = sp == std::string::npos ? "" : rest.substr(sp + 1);
    } else if (word == "row") {
      const auto err = rest.find(" error=");
      std::stringstream fields(rest.substr(0, err));
      std::string name, times;
      if (!(fields >> name >> times)) throw bad("a row needs a name and times");
      row_record r;
      r.id = legacy_row_id(name);
      r.name = r.id.name();
      if (times != "-")
        for (const auto& t : split(times, ',')) r.times_ms.push_back(std::stod(t));
      for (std::string kv; fields >> kv;) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos) throw bad("a counter is KEY=VALUE");
        r.counters[kv.substr(0, eq)] = std::vector<double>(r.times_ms.size(), std::stod(kv.substr(eq + 1)));
      }
      if (err != std::string::npos) {
        r.error = rest.substr(err + 7);
        r.times_ms.clear();
        r.counters.clear();
      }
      current->run.rows.push_back(std::move(r));
    } else if (word == "finding") {
      const auto bar = rest.find(" | ");
      if (bar == std::string::npos) throw bad("a finding is RULE SEVERITY ROWS | MESSAGE");
      std::stringstream head(rest.substr(0, bar));
      finding f;
      std::string rows;
      if (!(head >> f.rule >> f.severity >> rows)) throw bad("a finding is RULE SEVERITY ROWS | MESSAGE");
      if (rows != "-")
        for (const auto& row : split(rows, ',')) f.rows.push_back(legacy_row_id(row));
      f.message = rest.substr(bar + 3);
      if (const auto cause = f.message.find(" || "); cause != std::string::npos) {
        f.cause = f.message.substr(cause + 4);
        f.message.erase(cause);
      }
      current->findings.push_back(std::move(f));
    } else {
      throw bad("unknown line");
    }
  }
  return cases;
}

}  // namespace solvebench::bench::testing
