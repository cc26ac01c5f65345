// The table on stdout (and in --benchmark_out_format=console): a row a line, from the run as the
// checks read it, once the run is over.
#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "checks/ceilings.hpp"
#include "checks/load.hpp"
#include "checks/output.hpp"
#include "checks/text.hpp"
#include "core/printers.hpp"

namespace solvebench::bench {
namespace {

std::optional<double> get(const json& e, const char* key) {
  const auto it = e.find(key);
  if (it == e.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// Lines stay within this many characters, more only where a row's name is longer than its column.
constexpr std::size_t console_width = 100;

// `line` followed by `words`, one space apart; a word that would take the line past `first_limit`
// (later lines: console_width) starts a new line indented by `indent`.
std::string flow(std::string line, const std::vector<std::string>& words, std::size_t first_limit, std::size_t indent) {
  std::string out;
  bool bare = true;  // the line holds none of `words` yet
  for (const auto& w : words) {
    const std::size_t limit = out.empty() ? first_limit : console_width;
    if (line.size() + 1 + w.size() > limit && !(bare && !out.empty())) {
      out += line + "\n";
      line = std::string(indent, ' ');
      bare = true;
    }
    line += (bare && !out.empty() ? "" : " ") + w;
    bare = false;
  }
  return out + line;
}

std::vector<std::string> words_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find(' ', start), text.size());
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// What a row measures beside its time, in a few words each.
std::vector<std::string> notes_of(const json& e) {
  std::vector<std::string> out;
  if (const auto v = get(e, "fwd_err")) out.push_back("fwd_err " + plain(*v));
  if (const auto v = get(e, "niters")) out.push_back("iters " + format("%.0f", *v));
  if (const auto v = get(e, "fell_back"); v && *v >= 1) out.push_back("fell back to fp64");
  if (const auto v = get(e, "xfer_share")) out.push_back("transfers " + percent(*v));
  if (const auto v = get(e, "systems/s")) out.push_back(sig3(*v / 1e6) + " Msystems/s");
  if (const auto v = get(e, "worst_system")) out.push_back("worst system " + format("%.0f", *v));
  if (const auto v = get(e, "J/solve")) out.push_back(sig3(*v) + " J/solve");
  if (const auto v = get(e, "warm_up_calls")) out.push_back("warmed up over " + format("%.0f", *v) + " more calls");
  if (const auto v = get(e, "drift_pct")) out.push_back("drifted " + format("%+.1f", *v) + "% in its round");
  if (const auto v = get(e, "restore_pct"); v && *v > 50) out.push_back("restore " + sig3(*v) + "% of wall");
  for (std::size_t i = 0; i + 1 < out.size(); ++i) out[i] += ",";
  return out;
}

std::string pad(std::string s, std::size_t w) {
  if (s.size() < w) s.resize(w, ' ');
  return s;
}
std::string right(const std::string& s, std::size_t w) {
  return s.size() >= w ? s : std::string(w - s.size(), ' ') + s;
}

std::string count_of(int n, const std::string& what) {
  const bool es = !what.empty() && what.back() == 's';
  return std::to_string(n) + " " + what + (n == 1 ? "" : es ? "es" : "s");
}

// What the +- column is, said once above the header: how many rounds and processes it comes from.
std::string what_the_interval_is(const display_options& o, const std::string& history) {
  const std::string from = o.processes > 1
                               ? count_of(o.processes, "process") + " of " +
                                     (o.rounds == 1 ? std::string("one round") : count_of(o.rounds, "round")) + " each"
                               : count_of(o.rounds, "round") + " in one process";
  std::string text = "time: the median of a row's rounds; ±: a re-run lands within it 19 times in 20, from " + from +
                     span_words(o.span_s) + " (a row with fewer says so), no narrower than its device's median row";
  if (!history.empty()) text += ", and no narrower than one run of the row on record (" + history + ")";
  else if (o.processes > 1 && o.span_s > 0)
    text +=
        "; a state of the machine that outlasts the span (a VM's host, for minutes) is not in it: --history "
        "holds it to a record of earlier runs";
  if (o.processes == 1) text += "; what differs between processes is not in it: --processes=3 measures that";
  if (o.processes > 1 && o.span_s == 0)
    text +=
        "; the processes ran one after another (--span=0): on a machine whose speed moves over minutes, the "
        "default --span=120 spreads them";
  return wrap(text, console_width, "") + "\n";
}

std::string row_line(const row_record& r, const row_ceiling* ceiling, const display_options& o) {
  const std::string shown = r.name.size() > o.name_width ? r.name : pad(r.name, o.name_width);
  const std::size_t limit = console_width + shown.size() - o.name_width;
  if (!r.error.empty()) {
    const std::string msg = (r.skipped ? std::string(refusal_prefix) : std::string()) + r.error;
    return flow(shown + " " + (o.color ? "\033[31m" : "") + "ERROR", words_of(msg), limit, o.name_width + 7) +
           (o.color ? "\033[0m" : "");
  }
  json e = json::object();  // the counters' medians over the rounds, for the notes
  for (const auto& [key, values] : r.counters)
    if (!values.empty()) e[key] = median(values);
  const auto noise = r.noise_pct();
  const auto rate = r.counter("GFLOP/s");
  const auto resid =
      r.counters.count("resid")
          ? std::optional<double>(*std::max_element(r.counters.at("resid").begin(), r.counters.at("resid").end()))
          : std::nullopt;
  double calls = 0;
  if (const auto it = r.counters.find("samples"); it != r.counters.end())
    for (double c : it->second) calls += c;
  std::vector<std::string> notes = notes_of(e);
  // How close to the machine (checks/ceilings.hpp): the share of peak, and the bound where probes ran.
  if (ceiling && ceiling->pct_of_peak) {
    if (!notes.empty()) notes.back() += ",";
    notes.push_back(percent(*ceiling->pct_of_peak / 100) + " of peak");
    if (ceiling->headroom) {
      notes.back() += ",";
      notes.push_back(times(*ceiling->headroom) + " bound (" + ceiling->bound->dominant() +
                      (ceiling->bound_leaves_out.empty() ? "" : ", solve not measured") + ")");
    }
  }
  const int rounds = static_cast<int>(r.times_ms.size());
  if (rounds < o.rounds * o.processes || !noise) {
    if (!notes.empty()) notes.back() += ",";
    notes.push_back(count_of(rounds, "round") + (noise ? "" : ": ± unknown"));
  }
  const std::string columns = shown + " " + right(time_text(r.median_ms() * 1e6), 9) + " " +
                              right(noise ? "±" + sig3(*noise) + "%" : "", 8) + " " +
                              right(calls > 0 ? format("%.0f", calls) : "", 6) + " " +
                              right(rate ? sig3(*rate) : "", 9) + " " + right(resid ? plain(*resid) : "", 8) + " ";
  // The notes may take a row's line 20 characters further, so that its numbers and its notes
  // mostly share one line; what is left of them continues below. ±: one column, two bytes.
  return flow(columns, notes, limit + 20 + (noise ? 1 : 0), o.name_width + 1);
}

}  // namespace

std::string time_text(double ns) {
  if (!(ns >= 0)) return "–";
  if (ns >= 1e9) return sig3(ns / 1e9) + " s";
  if (ns >= 1e6) return sig3(ns / 1e6) + " ms";
  if (ns >= 1e3) return sig3(ns / 1e3) + " us";
  return sig3(ns) + " ns";
}

std::string span_words(int span_s) { return span_s > 0 ? ", started over " + std::to_string(span_s) + " s" : ""; }

std::string render_table(const run_summary& run, const display_options& o) {
  std::string out = what_the_interval_is(o, run.context_value("noise_history"));
  out += pad("row", o.name_width) + " " + right("time", 9) + " " + right("±re-run", 8) + " " + right("calls", 6) + " " +
         right("GFLOP/s", 9) + " " + right("resid", 8) + "  notes\n" + std::string(console_width, '-') + "\n";
  const ceilings_report ceilings = ceilings_of(run);
  for (const auto& r : run.rows) out += row_line(r, ceilings.find(r.name), o) + "\n";
  return out;
}

}  // namespace solvebench::bench
