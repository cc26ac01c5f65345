// Google Benchmark's flags: validated, and those solve_bench carries out itself taken out.
#include "core/gb_flags.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <regex>

#include "core/options.hpp"

namespace solvebench::bench {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool parse_bool(const std::string& what, const std::string& v) {
  const std::string s = lower(v);
  if (s.empty() || s == "true" || s == "yes" || s == "1" || s == "t" || s == "y" || s == "on") return true;
  if (s == "false" || s == "no" || s == "0" || s == "f" || s == "n" || s == "off") return false;
  throw usage_error(what + ": '" + v + "' is not true or false");
}

std::string one_of(const std::string& what, const std::string& v, const std::vector<std::string>& allowed) {
  for (const auto& a : allowed)
    if (v == a) return v;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  throw usage_error(what + ": '" + v + "' is not one of " + list);
}

// 0.25, 0.25s: seconds; 100x: that many timed calls per row.
void parse_min_time(const std::string& what, const std::string& v, sampling& s) {
  if (!v.empty() && v.back() == 'x') {
    char* end = nullptr;
    const long long n = std::strtoll(v.c_str(), &end, 10);
    if (end != v.c_str() + v.size() - 1 || n < 1)
      throw usage_error(what + ": '" + v + "' is not a positive number of calls (e.g. 100x)");
    s.exact = n;
    return;
  }
  const std::string number = !v.empty() && v.back() == 's' ? v.substr(0, v.size() - 1) : v;
  char* end = nullptr;
  const double t = std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || !std::isfinite(t) || !(t > 0))
    throw usage_error(what + ": '" + v +
                      "' is not a positive, finite number of seconds (e.g. 0.25 or 0.25s) "
                      "nor a number of calls (e.g. 100x)");
  s.exact = 0;
  s.min_time = t;
  s.max_time = std::max(s.max_time, 4 * t);
  s.long_cap = std::max(s.long_cap, 20 * t);
  s.round_budget = std::max(s.round_budget, 4 * t);
}

// --benchmark_repetitions=N: N rounds (solve_bench runs them itself, core/rounds.hpp).
int parse_repetitions(const std::string& what, const std::string& v) {
  char* end = nullptr;
  const long long n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n < 1 || n > 10000)
    throw usage_error(what + ": '" + v + "' is not a number of repetitions from 1 to 10000");
  return static_cast<int>(n);
}

// Applies one of the flags solve_bench carries out; false when `key` is not one of them.
bool apply(const std::string& what, const std::string& key, const std::string& value, gb_settings& s) {
  if (key == "benchmark_out") {
    if (value.empty()) throw usage_error(what + ": empty path");
    s.out = value;
  } else if (key == "benchmark_out_format") {
    s.out_format = one_of(what, value, {"json", "csv", "console"});
  } else if (key == "benchmark_format") {
    s.display_format = one_of(what, value, {"console", "json"});
  } else if (key == "benchmark_repetitions") {
    s.repetitions = parse_repetitions(what, value);
  } else if (key == "benchmark_min_time") {
    parse_min_time(what, value, s.timing);
  } else if (key == "benchmark_report_aggregates_only") {
    s.report_aggregates_only = parse_bool(what, value);
  } else if (key == "benchmark_display_aggregates_only") {
    s.display_aggregates_only = parse_bool(what, value);
  } else if (key == "benchmark_time_unit") {
    one_of(what, value, {"ns", "us", "ms", "s"});  // the rows choose their own display unit
  } else if (key == "benchmark_color") {
    s.color = lower(value) == "auto" ? "auto" : parse_bool(what, value) ? "true" : "false";
  } else if (key == "benchmark_counters_tabular") {
    parse_bool(what, value);  // the table always has its columns
  } else {
    return false;
  }
  return true;
}

constexpr const char* env_taken[] = {"BENCHMARK_OUT",
                                     "BENCHMARK_OUT_FORMAT",
                                     "BENCHMARK_FORMAT",
                                     "BENCHMARK_MIN_TIME",
                                     "BENCHMARK_REPETITIONS",
                                     "BENCHMARK_REPORT_AGGREGATES_ONLY",
                                     "BENCHMARK_DISPLAY_AGGREGATES_ONLY",
                                     "BENCHMARK_TIME_UNIT",
                                     "BENCHMARK_COLOR",
                                     "BENCHMARK_COUNTERS_TABULAR"};

// The variables taken out of the environment, with their values, for a fresh process of the run.
std::vector<std::pair<std::string, std::string>>& taken_environment() {
  static std::vector<std::pair<std::string, std::string>> taken;
  return taken;
}

}  // namespace

void put_back_gb_environment() {
  for (const auto& [var, value] : taken_environment()) setenv(var.c_str(), value.c_str(), 1);
}

std::vector<std::string> take_gb_flags(int argc, char** argv, gb_settings& s, bool /*gb_version_1_8*/) {
  for (const char* var : env_taken) {
    const char* v = std::getenv(var);
    if (!v) continue;
    std::string key = lower(var);
    const std::string value = v;
    taken_environment().emplace_back(var, value);
    unsetenv(var);  // Google Benchmark must not act on it too
    apply(std::string("environment variable ") + var, key, value, s);
  }
  std::vector<std::string> gb{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--benchmark_", 0) != 0) {
      gb.push_back(arg);  // solve_bench's own flags: parse_flags reads them after Initialize
      continue;
    }
    const auto eq = arg.find('=');
    const std::string key = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    const std::string what = "--" + key;
    if (apply(what, key, value, s)) continue;
    if (key == "benchmark_list_tests") s.list_tests = parse_bool(what, value);
    if (key == "benchmark_filter" && eq == std::string::npos)
      throw usage_error(what + " needs a value: " + what + "=REGEX");
    gb.push_back(arg);
  }
  return gb;
}

std::vector<std::string> flags_for_gb(bool gb_version_1_8) {
  return {std::string("--benchmark_min_time=1e-9") + (gb_version_1_8 ? "s" : ""),
          "--benchmark_repetitions=1",
          "--benchmark_out=",
          "--benchmark_out_format=json",
          "--benchmark_format=console",
          "--benchmark_report_aggregates_only=false",
          "--benchmark_display_aggregates_only=false",
          "--benchmark_time_unit=ns",
          "--benchmark_color=false",
          "--benchmark_counters_tabular=false"};
}

bool matches_filter(const std::string& filter, const std::string& name) {
  std::string spec = filter.empty() || filter == "all" ? "." : filter;
  bool negative = false;
  if (!spec.empty() && spec[0] == '-') {
    negative = true;
    spec.erase(0, 1);
  }
  try {
    const bool hit = std::regex_search(name, std::regex(spec, std::regex::extended));
    return negative ? !hit : hit;
  } catch (const std::regex_error&) {
    return true;  // Google Benchmark reports a bad filter itself
  }
}

}  // namespace solvebench::bench
