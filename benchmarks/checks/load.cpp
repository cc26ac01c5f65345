// Reading Google Benchmark JSON and rows logs, with nlohmann-json.
#include "checks/load.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "legacy/row_names.hpp"

namespace solvebench::bench {
namespace {

using json = nlohmann::ordered_json;

// Two contexts of one pool that differ: never mistaken for a torn last line.
class pooling_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

constexpr int max_depth = 32;  // solve_bench writes 4 levels; deeper input is not ours

// Fields of Google Benchmark's run format and solve_bench's additions: every other number is a counter.
const std::set<std::string> run_fields = {"name",
                                          "run_name",
                                          "run_type",
                                          "family_index",
                                          "per_family_instance_index",
                                          "repetitions",
                                          "repetition_index",
                                          "threads",
                                          "iterations",
                                          "real_time",
                                          "cpu_time",
                                          "time_unit",
                                          "aggregate_name",
                                          "aggregate_unit",
                                          "error_occurred",
                                          "error_message",
                                          "skipped",
                                          "skip_message",
                                          "label",
                                          "big_o",
                                          "rms",
                                          "cpu_coefficient",
                                          "real_coefficient",
                                          "id",
                                          "samples_ms",
                                          "backend",
                                          "device",
                                          "placement",
                                          "path",
                                          "op",
                                          "precision",
                                          "factor",
                                          "library",
                                          "role"};

double ms_per_unit(const std::string& unit) {
  if (unit == "ns") return 1e-6;
  if (unit == "us") return 1e-3;
  if (unit == "ms") return 1.0;
  if (unit == "s") return 1e3;
  throw std::invalid_argument("unknown time_unit '" + unit + "'");
}

// Rejects nesting deeper than max_depth before the parser recurses into it.
void check_depth(const std::string& text) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth)
        throw std::invalid_argument("nested deeper than " + std::to_string(max_depth) + " levels");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

// Google Benchmark's JSON writes a non-finite counter as a bare NaN, -NaN, Infinity or -Infinity
// (JSON has none): read them as null, which the checks treat as a missing value.
std::string without_non_finite(const std::string& text) {
  static const char* const tokens[] = {"-Infinity", "Infinity", "-NaN", "NaN", "-nan", "nan", "-inf", "inf"};
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) out += text[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == 'N' || c == 'I' || c == 'n' || c == 'i' || c == '-') {
      bool replaced = false;
      for (const char* t : tokens) {
        const std::size_t len = std::char_traits<char>::length(t);
        if (text.compare(i, len, t) == 0 &&
            (i + len == text.size() || std::string(",]} \t\r\n").find(text[i + len]) != std::string::npos)) {
          out += "null";
          i += len - 1;
          replaced = true;
          break;
        }
      }
      if (replaced) continue;
    }
    out += c;
  }
  return out;
}

json parse(const std::string& raw) {
  check_depth(raw);
  const std::string text = raw.find_first_of("NIni") == std::string::npos ? raw : without_non_finite(raw);
  try {
    return json::parse(text);
  } catch (const json::exception& e) {  // parse_error; out_of_range for a number beyond a double (1e999)
    const std::string why = e.what();
    const auto tag = why.find("] ");  // "[json.exception.parse_error.101] "
    throw std::invalid_argument("not JSON: " + (tag == std::string::npos ? why : why.substr(tag + 2)));
  }
}

std::string flat_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) return v.dump();
  if (v.is_array()) {  // load_avg: scalars joined by commas
    std::string out;
    for (const auto& e : v) {
      if (e.is_object() || e.is_array()) return "";
      out += (out.empty() ? "" : ",") + flat_text(e);
    }
    return out;
  }
  return "";
}

// Pooled files are repetitions of the same rows only when they ran on the same stack: a row's id
// names no host, BLAS or GPU, so a run on another of these would be averaged in unseen. A key
// that one side lacks (older results) is not a difference.
const char* const pooled_alike[] = {"host_name",    "cpu_model", "blas_vendor",
                                    "blas_version", "gpu_name",  "cusolver_version"};

void read_context(run_summary& run, const json& context, const std::string& where) {
  if (!context.is_object()) throw std::invalid_argument("\"context\" is not an object");
  std::map<std::string, std::string> mine;
  for (const auto& [key, value] : context.items())
    if (!value.is_object()) mine[key] = flat_text(value);
  run.dates.push_back(mine.count("date") ? mine.at("date") : std::string());
  if (run.context.empty()) {
    run.context = std::move(mine);
    run.context_source = where;
    return;
  }
  for (const char* key : pooled_alike) {  // pooled: the first context stays, if it is the same stack
    const auto a = run.context.find(key), b = mine.find(key);
    if (a == run.context.end() || b == mine.end() || a->second.empty() || b->second.empty()) continue;
    if (a->second != b->second)
      throw pooling_error(std::string("cannot pool it with ") + run.context_source + ": " + key + " is '" + b->second +
                          "' here and '" + a->second + "' there; runs on another host, BLAS or GPU are not " +
                          "repetitions of the same rows (solve_bench_checks compare holds one against the other)");
  }
}

std::string text_field(const json& run, const char* key) {
  const auto it = run.find(key);
  if (it == run.end() || it->is_null()) return "";
  if (!it->is_string()) throw std::invalid_argument(std::string("\"") + key + "\" is not text");
  return it->get<std::string>();
}

double number_field(const json& run, const char* key) {
  const auto it = run.find(key);
  if (it == run.end() || !it->is_number()) throw std::invalid_argument(std::string("\"") + key + "\" is not a number");
  return it->get<double>();
}

// The row's name: run_name, or for an aggregate its name without the aggregate's suffix.
std::string row_name(const json& run) {
  std::string name = text_field(run, "run_name");
  if (name.empty()) name = text_field(run, "name");
  if (name.empty()) throw std::invalid_argument("a row without a name");
  return name;
}

// real_time in ms (its time_unit; ns where there is none, Google Benchmark's default).
double time_ms(const json& r) {
  const std::string unit = text_field(r, "time_unit");
  const double ms = number_field(r, "real_time") * ms_per_unit(unit.empty() ? "ns" : unit);
  if (!std::isfinite(ms) || ms < 0) throw std::invalid_argument("a negative or non-finite time");
  return ms;
}

void read_named_run(run_summary& run, const json& r, const std::string& name, std::vector<const json*>& aggregates) {
  const std::string type = text_field(r, "run_type");
  if (!type.empty() && type != "iteration" && type != "aggregate")
    throw std::invalid_argument("run_type '" + type + "' is neither iteration nor aggregate");
  const row_id id = r.contains("id") ? row_id_from_json(r.at("id")) : legacy_row_id(name);
  const bool failed = (r.contains("error_occurred") && r.at("error_occurred") == true) ||
                      (r.contains("skipped") && r.at("skipped") == true);
  if (failed) {
    std::string message = text_field(r, "error_message");
    if (message.empty()) message = text_field(r, "skip_message");
    if (message.empty()) message = "failed";
    const bool refused = message.rfind(refusal_prefix, 0) == 0;
    add_failure(run, id, refused ? message.substr(std::string(refusal_prefix).size()) : message, refused);
    return;
  }
  if (r.contains("big_o") || r.contains("rms")) return;  // a complexity entry: not a timing
  if (!r.contains("real_time")) throw std::invalid_argument("no real_time");
  const double ms = time_ms(r);
  if (type == "aggregate") {
    aggregates.push_back(&r);
    return;
  }
  std::vector<double> samples;
  if (const auto it = r.find("samples_ms"); it != r.end()) {
    if (!it->is_array()) throw std::invalid_argument("\"samples_ms\" is not a list");
    for (const auto& s : *it) {
      if (!s.is_number() || !std::isfinite(s.get<double>()) || s.get<double>() < 0)
        throw std::invalid_argument("a sample is not a time");
      samples.push_back(s.get<double>());
    }
  }
  std::map<std::string, double> counters;
  std::map<std::string, std::string> facts;  // text beside the counters: the row's library facts
  for (const auto& [key, value] : r.items()) {
    if (run_fields.count(key)) continue;
    if (value.is_number()) counters[key] = value.get<double>();
    else if (value.is_string()) facts[key] = value.get<std::string>();
  }
  add_repetition(run, id, ms, samples, counters, facts);
}

void read_run(run_summary& run, const json& r, std::vector<const json*>& aggregates) {
  if (!r.is_object()) throw std::invalid_argument("a row that is not an object");
  const std::string name = row_name(r);
  try {
    read_named_run(run, r, name, aggregates);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("row '" + name + "': " + e.what());
  }
}

// With --benchmark_report_aggregates_only a file holds only mean/median/stddev/cv: the median
// stands for the row where no repetition is there.
void read_aggregates(run_summary& run, const std::vector<const json*>& aggregates) {
  for (const json* r : aggregates) {
    if (text_field(*r, "aggregate_name") != "median") continue;
    const row_id id = r->contains("id") ? row_id_from_json(r->at("id")) : legacy_row_id(row_name(*r));
    bool has_repetitions = false;
    for (const auto& row : run.rows)
      if (row.id == id && !row.times_ms.empty()) has_repetitions = true;
    if (has_repetitions) continue;
    const double ms = time_ms(*r);
    std::map<std::string, double> counters;
    for (const auto& [key, value] : r->items())
      if (!run_fields.count(key) && value.is_number()) counters[key] = value.get<double>();
    add_repetition(run, id, ms, {}, counters);
  }
}

void read_document(run_summary& run, const json& doc, const std::string& where) {
  if (!doc.is_object()) throw std::invalid_argument("not a JSON object");
  if (doc.contains("context")) {
    ++run.segment;  // a context starts a process: its rows are not the same process's as earlier ones
    read_context(run, doc.at("context"), where);
  }
  const auto it = doc.find("benchmarks");
  if (it == doc.end()) {
    if (doc.contains("context")) return;                     // the context line of a rows log
    if (doc.contains("run_name") || doc.contains("name")) {  // a row line of a rows log
      std::vector<const json*> aggregates;
      read_run(run, doc, aggregates);
      read_aggregates(run, aggregates);
      return;
    }
    throw std::invalid_argument("not Google Benchmark output (no \"benchmarks\" list)");
  }
  if (!it->is_array()) throw std::invalid_argument("\"benchmarks\" is not a list");
  // Another program's Google Benchmark output: rows solve_bench cannot read, and a context
  // without solve_bench's version in it.
  const bool ours = !doc.contains("context") || doc.at("context").contains("solve_bench_version");
  std::vector<const json*> aggregates;
  try {
    for (const auto& r : *it) read_run(run, r, aggregates);
  } catch (const std::invalid_argument& e) {
    if (ours) throw;
    throw std::invalid_argument(std::string("not a solve_bench run (no solve_bench_version in its context): ") +
                                e.what());
  }
  read_aggregates(run, aggregates);
}

}  // namespace

void load_text(run_summary& run, const std::string& path, const std::string& text) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw load_error(path + ": empty file: no run in it");
  if (text.size() >= 2 && ((text[0] == '\xff' && text[1] == '\xfe') || (text[0] == '\xfe' && text[1] == '\xff')))
    throw load_error(path + ": UTF-16 text; solve_bench writes UTF-8 JSON");
  ++run.segment;  // every file is a process (or several) of its own
  const std::size_t rows_before = run.rows.size();
  const bool had_context = !run.context.empty();
  std::optional<json> whole;
  std::string whole_error;
  try {
    whole = parse(text);
  } catch (const std::invalid_argument& e) {
    whole_error = e.what();
  }
  if (whole) {
    try {
      read_document(run, *whole, path);
    } catch (const pooling_error& e) {
      throw load_error(path + ": " + e.what());
    } catch (const std::invalid_argument& e) {
      throw load_error(path + ": " + e.what());
    }
  } else {
    // Not one document: JSON lines, one document a line. A killed run may leave its last line cut short.
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    while (!lines.empty() && lines.back().find_first_not_of(" \t\r") == std::string::npos) lines.pop_back();
    if (lines.size() < 2) throw load_error(path + ": " + whole_error);
    int read = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].find_first_not_of(" \t\r") == std::string::npos) continue;
      try {
        read_document(run, parse(lines[i]), path + ":" + std::to_string(i + 1));
        ++read;
      } catch (const pooling_error& e) {
        throw load_error(path + ":" + std::to_string(i + 1) + ": " + e.what());
      } catch (const std::invalid_argument& e) {
        const bool torn = i + 1 == lines.size() && read > 0 && std::string(e.what()).rfind("not JSON", 0) == 0;
        if (torn) {  // the line a killed run was writing
          run.notes.push_back(path + ":" + std::to_string(i + 1) + ": ignoring the unfinished last line");
          break;
        }
        throw load_error(path + ":" + std::to_string(i + 1) + ": " + e.what());
      }
    }
  }
  if (run.rows.size() == rows_before && !(had_context || !run.context.empty()))
    throw load_error(path + ": no solve_bench rows and no context in it");
  pool_device_noise(run);
}

run_summary load_runs(const std::vector<std::string>& paths) {
  run_summary run;
  for (const auto& path : paths) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw load_error(path + ": cannot open it");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw load_error(path + ": read error");
    load_text(run, path, text.str());
    run.sources.push_back(path);
  }
  return run;
}

}  // namespace solvebench::bench
