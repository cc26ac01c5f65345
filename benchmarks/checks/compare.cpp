// The regression gate's rule and its forms.
#include "checks/compare.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "checks/history.hpp"
#include "checks/shift.hpp"
#include "checks/text.hpp"
#include "checks/thresholds.hpp"

namespace solvebench::bench {
namespace {

using json = nlohmann::ordered_json;

const row_record* find_id(const run_summary& run, const row_id& id) {
  for (const auto& r : run.rows)
    if (r.id == id) return &r;
  return nullptr;
}

std::string failure_status(const row_record& r) { return r.ok() ? "resid" : "error"; }
std::string failure_text(const row_record& r) {
  if (!r.error.empty()) return (r.skipped ? "refused: " : "error: ") + r.error;
  return "resid at or above " + sig3(limits::resid);
}

json number(const std::optional<double>& x) { return x && std::isfinite(*x) ? json(*x) : json(nullptr); }

// A finding's identity across runs: its rule, severity and rows (the message holds numbers).
std::string finding_key(const finding& f) {
  std::vector<std::string> rows;
  for (const auto& id : f.rows) rows.push_back(id.name());
  std::sort(rows.begin(), rows.end());
  return f.rule + "|" + f.severity + "|" + join(rows, ",");
}

// The fastest repetition of each pair (the counter .ci/bench-pr adds), when every repetition has one.
std::map<double, double> fastest_per_pair(const row_record& r) {
  std::map<double, double> out;
  const auto it = r.counters.find("pair");
  if (it == r.counters.end() || it->second.size() != r.times_ms.size()) return out;
  for (std::size_t i = 0; i < r.times_ms.size(); ++i) {
    const auto [at, fresh] = out.emplace(it->second[i], r.times_ms[i]);
    if (!fresh) at->second = std::min(at->second, r.times_ms[i]);
  }
  return out;
}

// The smallest number of pairs whose median has a distribution-free interval at `confidence`
// (the range of m values covers it with 1 - 2^(1-m)): 8 at 99%.
std::size_t pairs_for(double confidence) {
  return static_cast<std::size_t>(std::ceil(std::log2(2.0 / (1.0 - confidence))));
}

// The interval of the pairs' median ratio, in %: order statistics with enough pairs, else
// Student's t on the ratios' logs (their mean's interval: the pairs are independent).
double pairs_interval_pct(const std::vector<double>& ratios, double confidence) {
  if (ratios.size() >= pairs_for(confidence)) return median_noise_pct(ratios, confidence).value_or(0);
  std::vector<int> apart(ratios.size());
  for (std::size_t i = 0; i < apart.size(); ++i) apart[i] = static_cast<int>(i);
  const auto s = rerun_spread_of(ratios, apart);  // each ratio its own process: var(log r) / m
  if (!s) return 0;
  return 100.0 * std::expm1(student_t_quantile(0.5 + confidence / 2, s->df) * std::sqrt(s->centre_var));
}

int processes_of(const row_record& r) {
  std::vector<int> keys = r.process_of;
  std::sort(keys.begin(), keys.end());
  return static_cast<int>(std::unique(keys.begin(), keys.end()) - keys.begin());
}

// One side's spread between runs: its own rounds and processes, or the tracker's record of the
// row where hold_to_history gave it one and it says more (row_record::spread).
struct side_spread {
  std::optional<rerun_spread> spread;
  std::string from;
  bool held = false;  // the record has the row, whether or not it said more than the run
};
side_spread spread_of(const row_record& r) {
  side_spread out;
  out.spread = r.spread();
  out.held = r.history_run.has_value();
  if (!out.spread) return out;
  const rerun_spread& s = *out.spread;
  out.from = s.history_runs > 0 ? "the history's " + std::to_string(s.history_runs) + " runs"
                                : std::to_string(s.rounds) + " rounds in " + std::to_string(s.processes) + " process" +
                                      (s.processes == 1 ? "" : "es");
  return out;
}

// The log of each process's median round: a side's sample at the level of processes.
std::vector<double> process_centres(const row_record& r) {
  std::map<int, std::vector<double>> by;
  for (std::size_t i = 0; i < r.times_ms.size(); ++i)
    by[i < r.process_of.size() ? r.process_of[i] : 0].push_back(r.times_ms[i]);
  std::vector<double> out;
  for (const auto& [key, ms] : by) out.push_back(std::log(median(ms)));
  return out;
}

// Seconds since 1970 of a context's date (Google Benchmark's "2026-12-06T22:55:26+00:00"); none
// when it is not one.
std::optional<double> epoch_seconds(const std::string& date) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, oh = 0, om = 0;
  char sign = 0;
  if (std::sscanf(date.c_str(), "%d-%d-%dT%d:%d:%d%c%d:%d", &y, &mo, &d, &h, &mi, &s, &sign, &oh, &om) != 9 ||
      (sign != '+' && sign != '-'))
    return std::nullopt;
  // Days from 1970-01-01 to the civil date (Howard Hinnant's days_from_civil).
  y -= mo <= 2;
  const int era = (y >= 0 ? y : y - 399) / 400, yoe = y - era * 400;
  const int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1, doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const double days = static_cast<double>(era) * 146097 + doe - 719468;
  const double offset = (sign == '-' ? -1 : 1) * (oh * 3600.0 + om * 60.0);
  return days * 86400 + h * 3600.0 + mi * 60.0 + s - offset;
}

// Whether two runs took turns on the machine (A B A B, or A B B A as .ci/bench-pr orders its
// pairs): each side two or more files, and each file started next to one of the other side's.
// Such sides shared the states of the machine that outlast a run.
bool took_turns(const run_summary& a, const run_summary& b) {
  if (a.dates.size() < 2 || b.dates.size() < 2) return false;
  std::vector<std::pair<double, int>> started;
  for (const auto* run : {&a, &b})
    for (const auto& date : run->dates) {
      const auto at = epoch_seconds(date);
      if (!at) return false;
      started.emplace_back(*at, run == &a ? 0 : 1);
    }
  std::sort(started.begin(), started.end());
  for (std::size_t i = 0; i < started.size(); ++i) {
    const bool after = i > 0 && started[i - 1].second != started[i].second;
    const bool before = i + 1 < started.size() && started[i + 1].second != started[i].second;
    if (!after && !before) return false;
  }
  return true;
}

// A percentage; a change of a thousand percent or more as a factor ("45×"): such inputs decide nothing.
std::string pct(double x) { return x < 1000 ? format("%.1f%%", x) : format("%.0f×", 1 + x / 100); }

}  // namespace

std::vector<double> paired_ratios(const row_record& base, const row_record& contender) {
  const auto b = fastest_per_pair(base), n = fastest_per_pair(contender);
  std::vector<double> ratios;
  for (const auto& [pair, ms] : b)
    if (const auto it = n.find(pair); it != n.end() && ms > 0) ratios.push_back(it->second / ms);
  return ratios;
}

bool comparison::failed() const {
  return !new_timing_bugs.empty() ||
         std::any_of(rows.begin(), rows.end(), [](const row_change& r) { return r.fails(); });
}

bool comparison::undecided() const {
  return std::any_of(rows.begin(), rows.end(), [](const row_change& r) { return r.status == "undecided"; });
}

int comparison::exit_status() const { return failed() ? 1 : undecided() ? 3 : 0; }

std::vector<std::string> comparison::suspects() const {
  std::vector<std::string> out;
  for (const auto& r : rows)
    if (r.status == "slower" || r.status == "undecided") out.push_back(r.name);
  return out;
}

namespace {

// A row's change and the interval around it, from the strongest design the inputs have; no
// interval (and why not) when they bound no change. `at_best`: the interval covers the rounds
// of one process a side only, not what another process adds: a lower bound, which decides nothing.
struct estimate {
  double change_pct = 0;
  std::optional<double> interval_pct;
  std::string from, why_not;
  bool at_best = false;
  std::string at_best_why;  // why the interval decides nothing: what it leaves out
};

estimate unpaired(const row_record& b, const row_record& n, const side_spread& bs, const side_spread& ns,
                  double confidence) {
  estimate e;
  e.change_pct = 100.0 * (b.median_ms() > 0 ? n.median_ms() / b.median_ms() - 1 : 0);
  const auto x = process_centres(b), y = process_centres(n);
  if (x.size() >= 2 && y.size() >= 2) {
    // Processes on both sides: their shift, distribution-free (a time that takes one of a few
    // modes from process to process is not normal).
    if (const auto hl = hodges_lehmann(x, y, confidence)) {
      e.change_pct = 100.0 * std::expm1(hl->estimate);
      e.interval_pct = 100.0 * std::expm1(std::max(hl->estimate - hl->lo, hl->hi - hl->estimate));
      e.from = std::to_string(x.size()) + " against " + std::to_string(y.size()) +
               " processes (the median of their differences, distribution-free)";
    } else if (bs.spread && ns.spread) {
      // Too few processes for a distribution-free bound: their spread under Student's t still
      // says what the inputs could detect, and decides nothing (a few modes are not normal).
      e.interval_pct = bs.spread->difference_pct(*ns.spread, confidence);
      e.from = std::to_string(x.size()) + " against " + std::to_string(y.size()) + " processes (Student's t)";
      e.at_best = true;
      e.at_best_why = std::to_string(x.size()) + " against " + std::to_string(y.size()) +
                      " processes bound no change distribution-free (a time that takes a few modes from process to "
                      "process is not normal)";
    } else {
      e.why_not = std::to_string(x.size()) + " against " + std::to_string(y.size()) +
                  " processes cannot bound a change at " + format("%.4g", 100 * confidence) + "%";
    }
  }
  // Student t on the rounds where a side is one process (its rounds are all it has), and on the
  // history's spread where it floors a side; the wider interval wins.
  const bool history = bs.from.rfind("the history", 0) == 0 || ns.from.rfind("the history", 0) == 0;
  const bool one = x.size() < 2 || y.size() < 2;
  if (bs.spread && ns.spread && (one || history)) {
    const double t = bs.spread->difference_pct(*ns.spread, confidence);
    if (!e.interval_pct || t > *e.interval_pct) {
      e.interval_pct = t;
      e.from = bs.from == ns.from ? bs.from + " a side" : bs.from + " against " + ns.from;
    }
    e.at_best = one && !history && x.size() < static_cast<std::size_t>(limits::min_processes);
    e.at_best = e.at_best || (one && !history && y.size() < static_cast<std::size_t>(limits::min_processes));
    if (e.at_best)
      e.at_best_why =
          "one process a side: what another process adds is unmeasured (processes of one build differ by up to "
          "50% on a shared 2-core machine)";
  }
  // The record counts every state and mode of the machine: a side no narrower is judged by it.
  if (e.at_best && (bs.held || ns.held)) e.from += ", no narrower than the history's record";
  e.at_best = e.at_best && !bs.held && !ns.held;
  if (!e.interval_pct && e.why_not.empty())
    e.why_not = std::string(!bs.spread && !ns.spread ? "each side is one round"
                            : !bs.spread             ? "the baseline is one round"
                                                     : "the contender is one round") +
                ": nothing measured what a re-run would see (a run's own samples do not)";
  if (e.interval_pct && !std::isfinite(*e.interval_pct)) {
    e.interval_pct.reset();
    e.why_not = "too few rounds to bound a change at " + format("%.4g", 100 * confidence) + "%";
  }
  return e;
}

// The timed rows of both sides: change, interval, status and why.
void judge(row_change& ch, const row_record& b, const row_record& n, double confidence) {
  const side_spread bs = spread_of(b), ns = spread_of(n);
  if (bs.spread) ch.base_noise_pct = bs.spread->rerun_pct(limits::noise_confidence);
  if (ns.spread) ch.new_noise_pct = ns.spread->rerun_pct(limits::noise_confidence);
  estimate e;
  if (const std::vector<double> ratios = paired_ratios(b, n); ratios.size() >= 2) {
    // Pairs timed back to back: the neighbours' load and the machine's drift fall on both
    // sides of a pair alike, and cancel in its ratio.
    ch.pairs = ratios.size();
    e.change_pct = 100.0 * (median(ratios) - 1);
    e.interval_pct = ch.pair_noise_pct = pairs_interval_pct(ratios, confidence);
    e.from = std::to_string(ratios.size()) + " pairs run back to back (each side's fastest repetition)";
  } else {
    e = unpaired(b, n, bs, ns, confidence);
  }
  ch.change_pct = e.change_pct;
  ch.interval_pct = e.interval_pct;
  ch.noise_from = e.from;
  const std::string change = format("%+.1f%%", e.change_pct), floor = pct(limits::gate_floor_pct);
  if (!e.interval_pct) {
    ch.status = "undecided";
    ch.why = change + ", but " + e.why_not + ": no change can be called";
    return;
  }
  ch.threshold_pct = std::max(limits::gate_floor_pct, *e.interval_pct);
  const std::string interval =
      "the " + format("%.4g", 100 * confidence) + "% interval ±" + pct(*e.interval_pct) + " from " + e.from;
  if (e.at_best) {
    ch.status = "undecided";
    ch.why = change + " against " + interval + ", but " + e.at_best_why + ", so it can detect ≥ " +
             pct(*ch.threshold_pct) + " at best and calls nothing";
    return;
  }
  if (e.change_pct > *ch.threshold_pct) ch.status = "slower";
  else if (e.change_pct < -*ch.threshold_pct) ch.status = "faster";
  else if (*e.interval_pct <= limits::gate_floor_pct) ch.status = "same";
  else ch.status = "undecided";
  if (ch.status == "slower" || ch.status == "faster")
    ch.why = change + ", beyond " + interval +
             (*e.interval_pct < limits::gate_floor_pct ? " and the floor of " + floor : "");
  else if (ch.status == "same") ch.why = change + ", within " + interval + "; can detect " + floor + " (the floor)";
  else
    ch.why = change + ", within " + interval + ": can detect ≥ " + pct(*ch.threshold_pct) + " here, not the " + floor +
             " floor";
}

}  // namespace

comparison compare_runs(const run_summary& base_run, const run_summary& contender_run, const run_history* history) {
  comparison c;
  // Copies only to hold them to the history: a comparison without one reads the runs as given.
  std::optional<run_summary> held_base, held_contender;
  if (history) {
    held_base = base_run;
    held_contender = contender_run;
    const bool turns = took_turns(base_run, contender_run);
    c.history = hold_to_history(*held_base, *history, turns);
    hold_to_history(*held_contender, *history, turns);
  }
  const run_summary& base = held_base ? *held_base : base_run;
  const run_summary& contender = held_contender ? *held_contender : contender_run;
  // The rows judged by time: gate_confidence is the whole comparison's (Bonferroni), so that an
  // A/A comparison of many rows calls none slower 99 times in 100, not each row.
  std::size_t timed = 0;
  for (const auto& b : base.rows)
    if (const row_record* n = find_id(contender, b.id); b.passed() && n && n->passed()) ++timed;
  c.row_confidence = 1 - (1 - limits::gate_confidence) / static_cast<double>(std::max<std::size_t>(1, timed));
  for (const auto& b : base.rows) {
    row_change ch;
    ch.id = b.id;
    ch.name = b.name;
    ch.base_repetitions = b.times_ms.size();
    ch.base_processes = processes_of(b);
    if (b.ok()) ch.base_ms = b.median_ms();
    const row_record* n = find_id(contender, b.id);
    if (n) {
      ch.new_repetitions = n->times_ms.size();
      ch.new_processes = processes_of(*n);
      if (n->ok()) ch.new_ms = n->median_ms();
    }
    if (!b.passed()) {
      ch.status = "base-failed";
      ch.why = failure_text(b) + " in the baseline";
    } else if (!n) {
      ch.status = "missing";
      ch.why = "not in the contender";
    } else if (!n->passed()) {
      ch.status = failure_status(*n);
      ch.why = failure_text(*n);
    } else {
      judge(ch, b, *n, c.row_confidence);
    }
    c.rows.push_back(std::move(ch));
  }
  for (const auto& n : contender.rows) {
    if (find_id(base, n.id)) continue;
    row_change ch;
    ch.id = n.id;
    ch.name = n.name;
    ch.new_repetitions = n.times_ms.size();
    ch.new_processes = processes_of(n);
    if (n.ok()) ch.new_ms = n.median_ms();
    ch.status = n.passed() ? "new" : failure_status(n);
    if (!n.passed()) ch.why = failure_text(n);
    c.rows.push_back(std::move(ch));
  }
  std::map<std::string, bool> in_base;
  for (const auto& f : run_audit(base).findings) in_base[finding_key(f)] = true;
  for (const auto& f : run_audit(contender).findings)
    if (f.severity == std::string(severity_timing_bug) && !in_base.count(finding_key(f)))
      c.new_timing_bugs.push_back(f);
  return c;
}

std::string undecided_advice(const comparison& c) {
  std::size_t n = 0, unmeasured = 0;
  double worst = 0;
  for (const auto& r : c.rows) {
    if (r.status != "undecided") continue;
    ++n;
    if (r.threshold_pct) worst = std::max(worst, *r.threshold_pct);
    else ++unmeasured;
  }
  if (!n) return "";
  std::string out =
      std::to_string(n) + " row" + (n == 1 ? "" : "s") + " undecided at the " + pct(limits::gate_floor_pct) + " floor";
  if (unmeasured)
    out += " (" + std::to_string(unmeasured) +
           " whose inputs bound no change: one round a side, or too few processes for the confidence)";
  if (worst > 0) out += "; the widest can detect only ≥ " + pct(worst);
  return out +
         ". To decide them, re-run each side with more rounds (--benchmark_repetitions=N) or processes "
         "(--processes=K, or several files a side), give --history STORE (the tracker's record of these rows on this "
         "testbed), or time both builds back to back with .ci/bench-pr.";
}

namespace {

std::string rule_text() {
  const std::string conf = sig3(100 * limits::gate_confidence) + "%", floor = pct(limits::gate_floor_pct);
  return "Each row's change (the ratio of the medians; for repetitions tagged as pairs run back to back, the median "
         "over the pairs of the ratio of each side's fastest repetition) is held to its interval at " +
         conf + " for the comparison as a whole (each of m rows at 1 - " + sig3(1 - limits::gate_confidence) +
         " / m: Bonferroni), from what a re-run would see: the spread between the pairs, else the shift between the "
         "sides' processes (distribution-free), else Student t (Welch) on each side's rounds and processes, each side "
         "at least the spread of one run in the tracker's history (--history) over the runs it pools (where the sides "
         "took turns, A B A B, the spread of neighbouring runs); never a process's own samples. slower / faster: "
         "beyond the interval's half-width and at least " +
         floor + "; same: within it, the half-width at most " + floor +
         "; undecided: within it, the half-width above " + floor +
         " (detectable_pct: the smallest change these inputs could call slower), or, without a history of the row, "
         "a side of one round or too few processes for a distribution-free bound. Suspects (for a re-run): the "
         "slower and the undecided rows";
}

std::string upper(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

std::string decision(const comparison& c) { return c.failed() ? "FAILED" : c.undecided() ? "UNDECIDED" : "passed"; }

}  // namespace

json comparison_json(const comparison& c) {
  json rows = json::array();
  for (const auto& r : c.rows)
    rows.push_back({{"row", r.name},
                    {"id", to_json(r.id)},
                    {"status", r.status},
                    {"fails", r.fails()},
                    {"why", r.why},
                    {"base_ms", number(r.base_ms)},
                    {"new_ms", number(r.new_ms)},
                    {"change_pct", number(r.change_pct)},
                    {"interval_pct", number(r.interval_pct)},
                    {"threshold_pct", number(r.threshold_pct)},
                    {"detectable_pct", number(r.detectable_pct())},
                    {"noise_from", r.noise_from},
                    {"base_noise_pct", number(r.base_noise_pct)},
                    {"new_noise_pct", number(r.new_noise_pct)},
                    {"pairs", r.pairs},
                    {"pair_noise_pct", number(r.pair_noise_pct)},
                    {"base_repetitions", r.base_repetitions},
                    {"new_repetitions", r.new_repetitions},
                    {"base_processes", r.base_processes},
                    {"new_processes", r.new_processes}});
  json bugs = json::array();
  for (const auto& f : c.new_timing_bugs) {
    json names = json::array();
    for (const auto& id : f.rows) names.push_back(id.name());
    bugs.push_back({{"rule", f.rule}, {"severity", f.severity}, {"rows", names}, {"message", f.message}});
  }
  std::map<std::string, int> tally;
  for (const auto& r : c.rows) ++tally[r.status];
  json counts = json::object();
  for (const auto& [k, v] : tally) counts[k] = v;
  return {{"failed", c.failed()},
          {"undecided", c.undecided()},
          {"exit_status", c.exit_status()},
          {"counts", counts},
          {"suspects", c.suspects()},
          {"advice", undecided_advice(c)},
          {"history", c.history.empty() ? json(nullptr) : json(c.history)},
          {"confidence", limits::gate_confidence},
          {"row_confidence", c.row_confidence},
          {"floor_pct", limits::gate_floor_pct},
          {"rows", rows},
          {"new_timing_bugs", bugs},
          {"rule", rule_text()}};
}

std::string comparison_text(const comparison& c) {
  std::string out;
  std::map<std::string, int> tally;
  for (const auto& r : c.rows) {
    ++tally[r.status];
    if (r.status == "same" || r.status == "new") continue;
    out += format("  %-11s %s: %s\n", (r.fails() ? upper(r.status) : r.status).c_str(), r.name.c_str(), r.why.c_str());
  }
  for (const auto& f : c.new_timing_bugs) out += "  NEW timing bug " + f.rule + ": " + f.message + "\n";
  if (const std::string advice = undecided_advice(c); !advice.empty()) out += wrap("  " + advice, 100, "    ") + "\n";
  std::vector<std::string> parts;
  for (const auto& [k, v] : tally) parts.push_back(std::to_string(v) + " " + k);
  return "compare: " + decision(c) + " (" + join(parts, ", ") + ")" +
         (c.history.empty() ? "" : "; history " + c.history) + "\n" + out;
}

std::string comparison_markdown(const comparison& c, const std::vector<std::string>& base_files,
                                const std::vector<std::string>& new_files) {
  std::string out = "## solve_bench regression gate: " + decision(c) + "\n\n";
  out += "Baseline `" + join(base_files, " ") + "`, contender `" + join(new_files, " ") + "`" +
         (c.history.empty() ? "" : ", history " + c.history) + ". " + rule_text() +
         ". A row also fails when it errs, its resid reaches " + sig3(limits::resid) +
         " or it is missing; the run fails on a timing bug its audit finds and the baseline's did not.\n\n";
  if (const std::string advice = undecided_advice(c); !advice.empty()) out += "**Undecided.** " + advice + "\n\n";
  out +=
      "| status | row | base ms | new ms | change | can detect | re-run ± base / new | from |\n| --- | --- | ---: | "
      "---: | "
      "---: | ---: | ---: | --- |\n";
  for (const auto& r : c.rows)
    out += "| " + r.status + " | `" + r.name + "` | " + sig3(r.base_ms) + " | " + sig3(r.new_ms) + " | " +
           (r.change_pct ? format("%+.1f%%", *r.change_pct) : "–") + " | " +
           (r.threshold_pct ? "≥ " + pct(*r.threshold_pct) : "–") + " | " +
           (r.base_noise_pct ? pct(*r.base_noise_pct) : "–") + " / " + (r.new_noise_pct ? pct(*r.new_noise_pct) : "–") +
           " | " + (r.noise_from.empty() ? "–" : r.noise_from) + " |\n";
  for (const auto& f : c.new_timing_bugs) out += "\n- **new timing bug** `" + f.rule + "`: " + f.message + "\n";
  return out;
}

}  // namespace solvebench::bench
