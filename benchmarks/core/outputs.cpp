// Output paths, the resume log, and the files written at the end of a run.
#include "core/outputs.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "checks/load.hpp"
#include "checks/output.hpp"
#include "core/printers.hpp"
#include "solvebench/errors.hpp"

namespace solvebench::bench {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw error("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The log's documents: its context, and its rows' entries in order.
void read_entries(const std::string& path, json& context, std::vector<json>& entries) {
  std::istringstream lines(slurp(path));
  for (std::string line; std::getline(lines, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json doc;
    try {
      doc = json::parse(line);
    } catch (const json::exception&) {
      continue;  // a torn last line (finished_rows cuts it off before a resume)
    }
    if (doc.contains("context") && !doc.contains("name")) context = doc.at("context");
    else entries.push_back(std::move(doc));
  }
}

std::string csv_cell(const json& v) {
  std::string s = v.is_string() ? v.get<std::string>() : v.is_null() ? "" : v.dump();
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// One flat line a run: the id's fields, the time in ms and every counter as a column.
std::string csv_of(const std::vector<json>& entries) {
  static const char* const fixed[] = {"name",    "backend",      "device",         "placement",        "path",
                                      "library", "op",           "precision",      "factor",           "n",
                                      "nrhs",    "run_type",     "aggregate_name", "repetition_index", "iterations",
                                      "time_ms", "error_message"};
  static const std::set<std::string> skip = {"id",
                                             "samples_ms",
                                             "run_name",
                                             "family_index",
                                             "per_family_instance_index",
                                             "repetitions",
                                             "threads",
                                             "real_time",
                                             "cpu_time",
                                             "time_unit",
                                             "aggregate_unit",
                                             "error_occurred",
                                             "label"};
  std::vector<std::string> columns(std::begin(fixed), std::end(fixed));
  std::set<std::string> seen(columns.begin(), columns.end());
  std::vector<std::string> axes;
  for (const auto& e : entries)
    for (const auto& [key, value] : e.items())
      if (!seen.count(key) && !skip.count(key) && seen.insert(key).second) axes.push_back(key);
  columns.insert(columns.end(), axes.begin(), axes.end());
  static const std::map<std::string, double> ms_per = {{"ns", 1e-6}, {"us", 1e-3}, {"ms", 1}, {"s", 1e3}};
  std::string out;
  for (std::size_t i = 0; i < columns.size(); ++i) out += (i ? "," : "") + csv_cell(columns[i]);
  out += "\n";
  for (const auto& e : entries) {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      json v;
      if (columns[i] == "time_ms") {
        if (e.contains("real_time") && e.at("real_time").is_number())
          v = e.at("real_time").get<double>() * ms_per.at(e.value("time_unit", std::string("ns")));
      } else if (columns[i] == "name") {
        v = e.contains("id") ? json(row_id_from_json(e.at("id")).name()) : e.value("name", json());
      } else if (e.contains(columns[i])) {
        v = e.at(columns[i]);
      }
      out += (i ? "," : "") + csv_cell(v);
    }
    out += "\n";
  }
  return out;
}

}  // namespace

output_plan plan_outputs(const common_options& opt, const gb_settings& gb, const std::string& program) {
  output_plan plan;
  plan.out = gb.out;
  plan.out_format = gb.out_format;
  const auto strip = [](std::string s, const std::string& ext) {
    if (s.size() > ext.size() && s.compare(s.size() - ext.size(), ext.size(), ext) == 0)
      s.resize(s.size() - ext.size());
    return s;
  };
  std::string stem;
  if (!plan.out.empty()) stem = strip(strip(plan.out, ".json"), ".csv");
  plan.rows = !opt.rows_out.empty() ? opt.rows_out : stem.empty() ? "" : stem + ".rows.jsonl";
  if (!opt.resume.empty()) {
    plan.live = opt.resume;
    plan.appending = true;
    if (plan.rows.empty()) plan.rows = strip(opt.resume, ".partial");
  } else if (!plan.rows.empty()) {
    plan.live = plan.rows + ".partial";
  } else {
    plan.live = "/tmp/" + program + "-" + std::to_string(getpid()) + ".rows.jsonl";
    plan.temporary = true;
  }
  plan.base = !stem.empty() ? stem : plan.rows.empty() ? "" : strip(strip(plan.rows, ".partial"), ".rows.jsonl");
  std::vector<std::pair<std::string, std::string>> files;
  if (!plan.out.empty()) files.emplace_back("--benchmark_out", plan.out);
  if (!plan.rows.empty()) files.emplace_back("the rows log", plan.rows);
  if (!plan.base.empty())
    for (const std::string ext : {".audit.json", ".verdict.json", ".verdict.md"})
      files.emplace_back("a sidecar", plan.base + ext);
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (const std::string why = why_not_writable(files[i].second); !why.empty())
      throw usage_error(files[i].first + ": " + why);
    for (std::size_t j = 0; j < i; ++j)
      if (files[i].second == files[j].second)
        throw usage_error(files[i].first + " and " + files[j].first + " are the same file, " + files[i].second +
                          ": give --rows_out another name");
  }
  if (plan.appending && ::access(plan.live.c_str(), R_OK | W_OK) != 0)
    throw usage_error("--resume=" + plan.live + ": " + std::strerror(errno));
  return plan;
}

std::set<std::string> finished_rows(const std::string& rows_log) {
  std::string text = slurp(rows_log);
  if (!text.empty() && text.back() != '\n') {  // a run killed mid-line: drop the partial line
    const auto last = text.rfind('\n');
    const std::size_t keep = last == std::string::npos ? 0 : last + 1;
    if (::truncate(rows_log.c_str(), static_cast<off_t>(keep)) != 0)
      throw error("cannot cut the torn last line off " + rows_log + ": " + std::strerror(errno));
    text.resize(keep);
  }
  run_summary run;
  if (text.find_first_not_of(" \t\r\n") != std::string::npos) {
    try {
      load_text(run, rows_log, text);
    } catch (const load_error& e) {
      throw usage_error(std::string("--resume: ") + e.what());
    }
  }
  std::set<std::string> names;
  for (const auto& r : run.rows) names.insert(r.name);
  return names;
}

run_summary read_rows_log(const std::string& rows_log) {
  run_summary run;
  load_text(run, rows_log, slurp(rows_log));
  return run;
}

void write_results(const output_plan& plan, const gb_settings& gb) {
  if (plan.out.empty()) return;
  json context = json::object();
  std::vector<json> entries;
  read_entries(plan.live, context, entries);
  std::vector<json> kept;
  for (auto& e : entries) {
    const bool aggregate = e.value("run_type", std::string()) == "aggregate";
    const bool failed = e.value("error_occurred", false);
    if (gb.report_aggregates_only && !aggregate && !failed && e.value("repetitions", 1) > 1) continue;
    if (plan.out_format != "csv") e.erase("samples_ms");
    kept.push_back(e);
  }
  std::string text;
  if (plan.out_format == "csv") {
    text = csv_of(kept);
  } else if (plan.out_format == "console") {
    std::ostringstream table;
    display_options o;
    o.aggregates_only = gb.report_aggregates_only;
    auto console = make_display(o, table);
    for (const auto& e : kept) {
      row_entry r{e, e.contains("id") ? row_id_from_json(e.at("id")).name() : e.value("name", std::string()),
                  e.value("run_type", std::string()) == "aggregate", e.value("error_occurred", false)};
      console->rows({r});
    }
    text = table.str();
  } else {
    json doc = {{"context", context}, {"benchmarks", kept}};
    text = json_text(doc, 2) + "\n";
  }
  write_file_atomically(plan.out, text);
}

void settle_rows_log(const output_plan& plan) {
  if (plan.temporary) {
    std::remove(plan.live.c_str());
    return;
  }
  if (plan.live == plan.rows) return;
  if (std::rename(plan.live.c_str(), plan.rows.c_str()) != 0)
    throw error("cannot rename " + plan.live + " to " + plan.rows + ": " + std::strerror(errno));
}

}  // namespace solvebench::bench
