// Reading tools/track's store, and a row's spread from run to run.
#include "checks/history.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "checks/load.hpp"
#include "checks/text.hpp"
#include "checks/thresholds.hpp"
#include "legacy/row_names.hpp"

namespace solvebench::bench {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

constexpr const char* store_format = "solve_bench-track/1";
// The efficiency of the median absolute deviation against the standard deviation, for normal
// data: its estimate is worth this share of the differences as degrees of freedom.
constexpr double mad_efficiency = 0.37;

// tools/tracking/store.py's RUN_FILE: <UTC date>-<hash>.json.
bool stored_run_file(const std::string& name) {
  static const std::regex pattern("^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{10}\\.json$");
  return std::regex_match(name, pattern);
}

std::vector<fs::path> run_files(const fs::path& folder) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file() && stored_run_file(it->path().filename().string())) out.push_back(it->path());
  std::sort(out.begin(), out.end());  // the name starts with the date: oldest first
  return out;
}

json read_json(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw load_error(path.string() + ": cannot open it");
  std::stringstream text;
  text << in.rdbuf();
  try {
    return json::parse(text.str());
  } catch (const json::exception& e) {
    throw load_error(path.string() + ": not JSON: " + e.what());
  }
}

// store.py's safe_testbed: a host name as a folder name.
std::string safe_testbed(const std::string& name) {
  std::string out;
  for (const char c : name)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c : '_';
  const auto first = out.find_first_not_of('.'), last = out.find_last_not_of('.');
  out = first == std::string::npos ? "" : out.substr(first, last - first + 1);
  return out.empty() ? "unnamed" : out;
}

// The p quantile of v (linear between order statistics, as numpy's default); v not empty.
double quantile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const double h = p * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(h);
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (h - static_cast<double>(lo));
}

// A stored run's fingerprint as one text, its keys sorted: runs with equal texts ran one stack.
std::string stack_of(const json& doc) {
  const auto it = doc.find("fingerprint");
  return it != doc.end() && it->is_object() ? nlohmann::json(*it).dump() : "";
}

// One stored run's spread, as a rerun_spread of one process over the row's runs on record.
rerun_spread history_spread(double centre_var, double df, std::size_t runs) {
  rerun_spread s;
  s.centre_var = centre_var;
  s.df = df;
  s.rounds = static_cast<int>(runs);
  s.processes = 1;
  s.history_runs = static_cast<int>(runs);
  return s;
}

// The wider of two spreads, either of which may be unknown.
std::optional<rerun_spread> wider(const std::optional<rerun_spread>& a, const std::optional<rerun_spread>& b) {
  if (a && b) return b->centre_var > a->centre_var ? b : a;
  return a ? a : b;
}

}  // namespace

std::optional<rerun_spread> row_history::steps() const {
  if (median_ms.size() < static_cast<std::size_t>(limits::history_min_runs)) return std::nullopt;
  std::vector<double> steps;
  for (std::size_t i = 1; i < median_ms.size(); ++i)
    steps.push_back(std::fabs(std::log(median_ms[i] / median_ms[i - 1])));
  const double sigma = 1.4826 * median(steps) / std::sqrt(2.0);
  return history_spread(sigma * sigma, std::max(1.0, mad_efficiency * static_cast<double>(steps.size())),
                        median_ms.size());
}

std::optional<rerun_spread> row_history::reruns() const {
  std::map<std::string, std::vector<double>> by_stack;
  for (std::size_t i = 0; i < median_ms.size(); ++i)
    if (i < stack.size() && !stack[i].empty()) by_stack[stack[i]].push_back(std::log(median_ms[i]));
  std::vector<double> gaps;
  std::size_t df = 0;
  for (const auto& [key, logs] : by_stack) {
    df += logs.size() - 1;
    for (std::size_t i = 0; i < logs.size(); ++i)
      for (std::size_t j = i + 1; j < logs.size(); ++j) gaps.push_back(std::fabs(logs[i] - logs[j]));
  }
  if (df + 1 < static_cast<std::size_t>(limits::history_min_runs)) return std::nullopt;
  const double t = student_t_quantile(0.5 + limits::noise_confidence / 2, static_cast<double>(df));
  const double q = quantile(gaps, limits::noise_confidence) / t;
  // rerun_pct, t * sqrt(2 * centre_var), is then the quantile.
  return history_spread(q * q / 2, static_cast<double>(df), median_ms.size());
}

std::optional<rerun_spread> row_history::per_run() const { return wider(steps(), reruns()); }

std::optional<double> row_history::detectable_step_pct(int runs_after, double confidence) const {
  const auto s = steps();
  if (!s || runs_after < 1) return std::nullopt;
  const double n = static_cast<double>(median_ms.size());
  const double se = std::sqrt(s->centre_var * (1.0 / runs_after + 1.0 / n));
  return 100.0 * std::expm1(student_t_quantile(0.5 + confidence / 2, s->df) * se);
}

std::string hold_to_history(run_summary& run, const run_history& h, bool took_turns) {
  // The processes of one run share its minutes, and the machine's state in them: the record's
  // spread of a run shrinks with the runs pooled, not with the processes inside each.
  const double runs = static_cast<double>(std::max<std::size_t>(1, run.sources.size()));
  for (auto& r : run.rows) {
    const row_history* stored = h.find(r.id);
    if (!stored) continue;
    if (auto s = took_turns ? stored->steps() : stored->per_run()) {
      s->centre_var /= runs;
      r.history_run = s;
    }
  }
  std::string text = h.store + ", testbed " + h.testbed + ": " + std::to_string(h.runs) + " runs" +
                     (took_turns ? " (the sides took turns: the spread of neighbouring runs)" : "");
  run.context["noise_history"] = text;
  return text;
}

const row_history* run_history::find(const row_id& id) const& {
  for (const auto& r : rows)
    if (r.id == id) return &r;
  return nullptr;
}

std::vector<std::string> history_testbeds(const std::string& store) {
  std::error_code ec;
  if (!fs::is_directory(store, ec)) throw load_error(store + ": not a folder (a tools/track store)");
  std::vector<std::string> out;
  for (fs::directory_iterator it(store, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory() && !run_files(it->path()).empty()) out.push_back(it->path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

run_history load_history(const std::string& store, const std::string& testbed) {
  const auto testbeds = history_testbeds(store);
  if (std::find(testbeds.begin(), testbeds.end(), testbed) == testbeds.end()) {
    std::string have;
    for (const auto& t : testbeds) have += (have.empty() ? "" : ", ") + t;
    throw load_error(store + ": no stored runs of testbed '" + testbed + "' (it has " +
                     (have.empty() ? std::string("none") : have) + ")");
  }
  run_history h;
  h.store = store;
  h.testbed = testbed;
  for (const auto& path : run_files(fs::path(store) / testbed)) {
    const json doc = read_json(path);
    try {
      if (doc.value("format", std::string()) != store_format)
        throw std::invalid_argument("its format is not " + std::string(store_format));
      const std::string stack = stack_of(doc);
      for (const auto& r : doc.at("rows")) {
        const auto ms = r.find("median_ms");
        if (ms == r.end() || !ms->is_number() || !(ms->get<double>() > 0)) continue;  // a failed row
        const std::string name = r.at("name").get<std::string>();
        const row_id id = r.contains("id") ? row_id_from_json(r.at("id")) : legacy_row_id(name);
        auto it = std::find_if(h.rows.begin(), h.rows.end(), [&](const row_history& x) { return x.id == id; });
        if (it == h.rows.end()) it = h.rows.insert(h.rows.end(), row_history{id, id.name(), {}, {}});
        it->median_ms.push_back(ms->get<double>());
        it->stack.push_back(stack);
      }
    } catch (const std::exception& e) {
      throw load_error(path.string() + ": not a stored run: " + e.what());
    }
    ++h.runs;
  }
  return h;
}

namespace {
// One run's spread about the row's level, in % (the sigma of its log time).
std::optional<double> spread_pct(const std::optional<rerun_spread>& s) {
  if (!s) return std::nullopt;
  return 100 * std::sqrt(s->centre_var);
}
std::string pct_text(const std::optional<double>& x) { return x ? format("%.1f%%", *x) : std::string("-"); }
json number(const std::optional<double>& x) { return x && std::isfinite(*x) ? json(*x) : json(nullptr); }
}  // namespace

std::string history_text(const run_history& h, int runs_after) {
  std::string out = "testbed " + h.testbed + ": " + std::to_string(h.runs) +
                    " runs; per row, the spread of one run about its level (the wider of: reruns of one stack, "
                    "successive steps) and the smallest lasting step in it (from the steps) that " +
                    std::to_string(runs_after) + " runs after the step tell apart (" +
                    sig3(100 * limits::gate_confidence) + "%)\n";
  for (const auto& r : h.rows) {
    const auto step = r.detectable_step_pct(runs_after, limits::gate_confidence);
    const auto reruns = r.reruns(), steps = r.steps();
    out += format("  %-48s %3zu runs  spread %6s (reruns %6s, steps %6s)  detects %s\n", r.name.c_str(),
                  r.median_ms.size(), pct_text(spread_pct(wider(steps, reruns))).c_str(),
                  pct_text(spread_pct(reruns)).c_str(), pct_text(spread_pct(steps)).c_str(),
                  step ? format(">= %.1f%%", *step).c_str()
                       : format("- (fewer than %d runs)", limits::history_min_runs).c_str());
  }
  return out;
}

json history_json(const run_history& h, int runs_after) {
  json rows = json::array();
  for (const auto& r : h.rows) {
    const auto reruns = r.reruns(), steps = r.steps();
    rows.push_back({{"row", r.name},
                    {"id", to_json(r.id)},
                    {"runs", r.median_ms.size()},
                    {"run_spread_pct", number(spread_pct(wider(steps, reruns)))},
                    {"rerun_spread_pct", number(spread_pct(reruns))},
                    {"step_spread_pct", number(spread_pct(steps))},
                    {"detectable_step_pct", number(r.detectable_step_pct(runs_after, limits::gate_confidence))}});
  }
  return {{"runs", h.runs}, {"rows", rows}};
}

std::string testbed_for(const std::string& store, const std::string& given, const run_summary& run) {
  if (!given.empty()) return given;
  const auto testbeds = history_testbeds(store);
  const std::string host = run.context_value("host_name");
  if (!host.empty() && std::find(testbeds.begin(), testbeds.end(), safe_testbed(host)) != testbeds.end())
    return safe_testbed(host);
  if (testbeds.size() == 1) return testbeds.front();
  std::string have;
  for (const auto& t : testbeds) have += (have.empty() ? "" : ", ") + t;
  throw load_error(store + ": which testbed? the run's host_name '" + host + "' is not one of its testbeds (" +
                   (have.empty() ? std::string("none") : have) + "): give --testbed NAME");
}

}  // namespace solvebench::bench
