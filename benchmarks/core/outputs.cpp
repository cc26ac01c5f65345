// Output paths, the resume log, and the files written at the end of a run.
#include "core/outputs.hpp"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "checks/history.hpp"
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

// The log's documents: its first context, and its rows' entries in order, each with the number
// of the context line it follows (every process of a run writes one: the segment that tells
// two processes apart, as the checks' reader does).
void read_entries(const std::string& path, json& context, std::vector<json>& entries, std::vector<int>& segment_of) {
  std::istringstream lines(slurp(path));
  int segment = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json doc;
    try {
      doc = json::parse(line);
    } catch (const json::exception&) {
      continue;  // a torn last line (rows_log_for_resume cuts it off before a resume)
    }
    if (doc.contains("context") && !doc.contains("name")) {
      if (segment++ == 0) context = doc.at("context");
    } else {
      entries.push_back(std::move(doc));
      segment_of.push_back(segment);
    }
  }
}

std::string row_name_of(const json& e) {
  if (e.contains("id")) return row_id_from_json(e.at("id")).name();
  std::string name = e.value("run_name", e.value("name", std::string()));
  const std::string tail = "/manual_time";
  if (name.size() > tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0)
    name.resize(name.size() - tail.size());
  return name;
}

// Google Benchmark's statistics (src/statistics.cc): its median is the mean below 3 values.
double stat(const std::string& which, const std::vector<double>& v) {
  const double n = static_cast<double>(v.size());
  double mean = 0;
  for (double x : v) mean += x / n;
  if (which == "mean") return mean;
  if (which == "median") return v.size() < 3 ? mean : median(v);
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  const double sd = v.size() < 2 ? 0 : std::sqrt(ss / (n - 1));
  return which == "stddev" ? sd : sd / mean;  // cv: a fraction, as Google Benchmark writes it
}

// The fields of a run that are not counters (and the per-round ones no aggregate is taken of).
const std::set<std::string> not_counters = {"name",
                                            "family_index",
                                            "per_family_instance_index",
                                            "run_name",
                                            "run_type",
                                            "repetitions",
                                            "repetition_index",
                                            "threads",
                                            "iterations",
                                            "real_time",
                                            "cpu_time",
                                            "time_unit",
                                            "error_occurred",
                                            "error_message",
                                            "label",
                                            "samples_ms",
                                            "id",
                                            "round",
                                            "process",
                                            "aggregate_name",
                                            "aggregate_unit"};

// mean, median, stddev and cv of a row's repetitions, as Google Benchmark's JSONReporter writes them.
std::vector<json> aggregates_of(const std::vector<json>& reps) {
  std::vector<json> out;
  const json& first = reps.front();
  std::map<std::string, std::vector<double>> values;
  std::vector<std::string> keys;
  for (const auto& e : reps)
    for (const auto& [key, value] : e.items())
      if (!not_counters.count(key) && value.is_number()) {
        if (!values.count(key)) keys.push_back(key);
        values[key].push_back(value.get<double>());
      }
  for (const std::string which : {"mean", "median", "stddev", "cv"}) {
    json a;
    a["name"] = first.value("run_name", std::string()) + "_" + which;
    for (const char* key : {"family_index", "per_family_instance_index", "run_name"})
      if (first.contains(key)) a[key] = first.at(key);
    a["run_type"] = "aggregate";
    a["repetitions"] = reps.size();
    a["threads"] = first.value("threads", 1);
    a["aggregate_name"] = which;
    a["aggregate_unit"] = which == "cv" ? "percentage" : "time";
    a["iterations"] = reps.size();
    for (const char* key : {"real_time", "cpu_time"}) {
      std::vector<double> v;
      for (const auto& e : reps)
        if (e.contains(key) && e.at(key).is_number()) v.push_back(e.at(key).get<double>());
      if (!v.empty()) a[key] = stat(which, v);
    }
    a["time_unit"] = first.value("time_unit", std::string("ns"));
    for (const char* key : {"id", "backend", "device", "placement", "path", "library", "op", "precision", "factor"})
      if (first.contains(key)) a[key] = first.at(key);
    for (const auto& key : keys) {
      const double v = stat(which, values.at(key));
      a[key] = std::isfinite(v) ? json(v) : json(nullptr);
    }
    out.push_back(std::move(a));
  }
  return out;
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

output_plan plan_outputs(const common_options& opt, const gb_settings& gb, const std::string& program,
                         bool temporary_log) {
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
    plan.temporary = temporary_log && plan.rows.empty();
    if (plan.rows.empty() && !plan.temporary) plan.rows = strip(opt.resume, ".partial");
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

std::string rows_log_for_resume(const std::string& rows_log) {
  std::string text = slurp(rows_log);
  if (!text.empty() && text.back() != '\n') {  // a run killed mid-line: drop the partial line
    const auto last = text.rfind('\n');
    const std::size_t keep = last == std::string::npos ? 0 : last + 1;
    if (::truncate(rows_log.c_str(), static_cast<off_t>(keep)) != 0)
      throw error("cannot cut the torn last line off " + rows_log + ": " + std::strerror(errno));
    text.resize(keep);
  }
  if (text.find_first_not_of(" \t\r\n") != std::string::npos) {
    run_summary run;
    try {
      load_text(run, rows_log, text);
    } catch (const load_error& e) {
      throw usage_error(std::string("--resume: ") + e.what());
    }
  }
  return text;
}

run_summary read_rows_log(const std::string& rows_log) {
  run_summary run;
  load_text(run, rows_log, slurp(rows_log));
  return run;
}

void hold_to_store(run_summary& run, const common_options& opt) {
  if (opt.record) hold_to_history(run, *opt.record);
}

std::vector<json> result_entries(const std::string& rows_log, const run_summary& run, json& context) {
  std::vector<json> entries;
  std::vector<int> segment_of;
  read_entries(rows_log, context, entries, segment_of);
  // Each row's repetitions in log order; the process that made each, numbered in order of appearance.
  std::map<std::string, std::vector<std::size_t>> of_row;
  std::map<std::pair<int, int>, int> process_number;
  std::vector<int> process_of(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].value("run_type", std::string()) == "aggregate") continue;
    of_row[row_name_of(entries[i])].push_back(i);
    const auto key = std::make_pair(segment_of[i], entries[i].value("process", 0));
    process_of[i] = process_number.emplace(key, static_cast<int>(process_number.size())).first->second;
  }
  std::vector<json> out;
  int family = 0;
  for (const auto& r : run.rows) {
    const auto it = of_row.find(r.name);
    if (it == of_row.end()) continue;
    std::vector<json> reps;
    std::set<int> processes;
    bool failed = false;
    for (std::size_t i : it->second) processes.insert(process_of[i]);
    const auto noise = r.noise_pct();
    for (std::size_t i : it->second) {
      json e = entries[i];
      failed = failed || e.value("error_occurred", false);
      e["family_index"] = family;
      e["per_family_instance_index"] = 0;
      e["repetitions"] = it->second.size();
      e["repetition_index"] = reps.size();
      e["process"] = process_of[i];
      e["rounds"] = it->second.size();
      e["processes"] = processes.size();
      if (noise) e["noise_pct"] = *noise;
      else e.erase("noise_pct");
      reps.push_back(std::move(e));
    }
    ++family;
    const bool aggregated = !failed && reps.size() >= 2;
    std::vector<json> aggregates = aggregated ? aggregates_of(reps) : std::vector<json>{};
    for (auto& e : reps) out.push_back(std::move(e));
    for (auto& a : aggregates) out.push_back(std::move(a));
  }
  return out;
}

std::string results_text(const output_plan& plan, const gb_settings& gb, const run_summary& run,
                         const std::string& format) {
  json context = json::object();
  std::vector<json> kept;
  std::vector<json> entries = result_entries(plan.live, run, context);
  if (const std::string h = run.context_value("noise_history"); !h.empty()) context["noise_history"] = h;
  for (auto& e : entries) {
    const bool aggregate = e.value("run_type", std::string()) == "aggregate";
    const bool failed = e.value("error_occurred", false);
    if (gb.report_aggregates_only && !aggregate && !failed && e.value("repetitions", 1) > 1) continue;
    e.erase("samples_ms");
    kept.push_back(std::move(e));
  }
  if (format == "csv") return csv_of(kept);
  if (format == "console") {
    display_options o;
    o.rounds = std::atoi(run.context_value("rounds").c_str());
    o.processes = std::atoi(run.context_value("processes").c_str());
    return render_table(run, o);
  }
  return json_text(json{{"context", context}, {"benchmarks", kept}}, 2) + "\n";
}

void write_results(const output_plan& plan, const gb_settings& gb, const run_summary& run) {
  if (plan.out.empty()) return;
  write_file_atomically(plan.out, results_text(plan, gb, run, plan.out_format));
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
