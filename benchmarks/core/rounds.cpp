// The round plan and the re-execution that continues a run in a fresh process.
#include "core/rounds.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <thread>

#include "checks/operation.hpp"
#include "core/gb_flags.hpp"
#include "solvebench/generate.hpp"

namespace solvebench::bench {
namespace {

constexpr const char* depth_variable = "SOLVE_BENCH_REEXEC_DEPTH";  // fault re-executions so far
constexpr const char* started_variable = "SOLVE_BENCH_REEXEC_STARTED";
constexpr const char* temporary_variable = "SOLVE_BENCH_REEXEC_TEMPORARY";
constexpr int max_fault_reexec = 32;

std::string row_of(const json& e) {
  std::string name = e.value("run_name", e.value("name", std::string()));
  const std::string tail = "/manual_time";
  if (name.size() > tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0)
    name.resize(name.size() - tail.size());
  return name;
}

int int_of(const json& e, const char* key) {
  const auto it = e.find(key);
  return it != e.end() && it->is_number() ? static_cast<int>(it->get<double>()) : 0;
}

double number_of(const json& e, const char* key) {
  const auto it = e.find(key);
  return it != e.end() && it->is_number() ? it->get<double>() : 0;
}

// Seconds one round of a row should take, before the run has measured it (only ratios matter:
// the plan scales these by what the measured rows took). A round times at least min_time, a
// warm-up call and a few calls, and builds its problem.
double estimated_round_s(const row_id& id, double min_time) {
  const operation* op = find_operation(id.op, id.batched());
  const double n = static_cast<double>(id.n);
  const double k = static_cast<double>(op && op->probe ? id.int_axis("nb").value_or(1) : id.nrhs.value_or(1));
  const double flops = op ? solvebench::flops<double>(op->counts(n, k)) : 2 * n * n * n / 3;
  const double batch = static_cast<double>(id.int_axis("batch").value_or(1));
  const double call = flops * batch / (id.device == row_device::cpu ? 2e10 : 5e12);
  return min_time + 3 * call + n * n * batch * 1e-8;
}

}  // namespace

std::vector<std::size_t> shuffled_places(std::size_t count, std::uint64_t seed, int process, int round) {
  std::vector<std::size_t> places(count);
  for (std::size_t i = 0; i < count; ++i) places[i] = i;
  const std::uint64_t salt = std::uint64_t{0x524f554e44} +
                             static_cast<std::uint64_t>(process) * std::uint64_t{0x10001} +
                             static_cast<std::uint64_t>(round);
  const std::uint64_t key = rng::mix64(seed ^ rng::mix64(salt));
  for (std::size_t i = count; i > 1; --i) {
    const auto j = static_cast<std::size_t>(rng::uniform01(key, i) * static_cast<double>(i));
    std::swap(places[i - 1], places[std::min(j, i - 1)]);
  }
  return places;
}

std::vector<std::string> shuffled(std::vector<std::string> names, std::uint64_t seed, int process, int round) {
  std::vector<std::string> out;
  for (const std::size_t i : shuffled_places(names.size(), seed, process, round)) out.push_back(std::move(names[i]));
  return out;
}

round_plan::round_plan(std::vector<std::string> rows, const round_design& design, const std::vector<row_id>& ids)
    : order_(std::move(rows)), design_(design) {
  for (std::size_t i = 0; i < order_.size(); ++i) {
    row_state& r = rows_[order_[i]];
    if (i < ids.size()) r.estimate = estimated_round_s(ids[i], design_.min_time);
  }
}

void round_plan::add(const std::vector<row_id>& ids) {
  for (const auto& id : ids) {
    const std::string name = id.name();
    if (rows_.count(name)) continue;
    order_.push_back(name);
    rows_[name].estimate = estimated_round_s(id, design_.min_time);
  }
}

void round_plan::take(const json& e) {
  if (e.value("run_type", std::string("iteration")) == "aggregate") return;
  const auto it = rows_.find(row_of(e));
  if (it == rows_.end()) return;  // a row this command does not select
  row_state& r = it->second;
  const int process = int_of(e, "process"), round = int_of(e, "round");
  r.rounds_of[process].push_back(round);
  if (e.value("error_occurred", false)) {
    r.failed = true;
    return;
  }
  // The round's timed seconds: its calls' median times their count (the log keeps a subsample).
  const double calls = std::max(1.0, number_of(e, "samples"));
  double call_s = number_of(e, "real_time") * 1e-9;  // ns: the unit every row is registered with
  if (const auto s = e.find("samples_ms"); s != e.end() && s->is_array() && !s->empty()) {
    double sum = 0;
    for (const auto& v : *s) sum += v.is_number() ? v.get<double>() : 0;
    call_s = sum / static_cast<double>(s->size()) * 1e-3;
  }
  const double wall = number_of(e, "round_s");
  if (wall > 0) r.round_s = wall;
  r.spent_round_s = design_.budget_on_wall && wall > 0 ? wall : call_s * calls;
  r.spent_s[process] += r.spent_round_s;
}

void round_plan::rows(const std::vector<row_entry>& runs) {
  for (const auto& r : runs) take(r.entry);
}

bool round_plan::has(const row_state& r, int process, int round) const {
  const auto it = r.rounds_of.find(process);
  return it != r.rounds_of.end() && std::find(it->second.begin(), it->second.end(), round) != it->second.end();
}

bool round_plan::through(const row_state& r, int process) const { return rounds_left(r, process) == 0; }

// The rounds a row still gets in `process`: those it misses, until its rounds there have taken
// the budget (a row never measured in it gets at least one).
int round_plan::rounds_left(const row_state& r, int process) const {
  if (r.failed) return 0;
  int missing = 0;
  for (int k = 0; k < design_.rounds; ++k) missing += has(r, process, k) ? 0 : 1;
  const auto t = r.spent_s.find(process);
  const double spent = t == r.spent_s.end() ? 0 : t->second;
  const double budget = design_.rounds * design_.round_budget;
  if (missing == 0 || spent >= budget) return 0;
  if (!(r.spent_round_s > 0)) return missing;
  return std::min(missing, static_cast<int>(std::ceil((budget - spent) / r.spent_round_s)));
}

int round_plan::process_to_run() const {
  for (int p = 0; p < design_.processes; ++p)
    for (const auto& name : order_)
      if (!through(rows_.at(name), p)) return p;
  return -1;
}

std::vector<std::size_t> round_plan::places_for(int process, int round) const {
  std::vector<std::size_t> left;
  for (std::size_t i = 0; i < order_.size(); ++i) {
    const row_state& r = rows_.at(order_[i]);
    if (!has(r, process, round) && !through(r, process)) left.push_back(i);
  }
  std::vector<std::size_t> out;
  for (const std::size_t j : shuffled_places(left.size(), design_.seed, process, round)) out.push_back(left[j]);
  return out;
}

std::vector<std::string> round_plan::rows_for(int process, int round) const {
  std::vector<std::string> out;
  for (const std::size_t i : places_for(process, round)) out.push_back(order_[i]);
  return out;
}

// Measured rows say how far the estimates are off: the median of their ratios scales the others.
double round_plan::estimate_scale() const {
  std::vector<double> ratios;
  for (const auto& [name, r] : rows_)
    if (r.round_s > 0 && r.estimate > 0) ratios.push_back(r.round_s / r.estimate);
  return ratios.empty() ? 1.0 : median(ratios);
}

double round_plan::expected_s(const std::string& row) const {
  const auto it = rows_.find(row);
  if (it == rows_.end()) return 0;
  return it->second.round_s > 0 ? it->second.round_s : it->second.estimate * estimate_scale();
}

progress_count round_plan::count(double now_epoch_s) const {
  const double scale = estimate_scale();
  progress_count c;
  std::vector<double> work(static_cast<std::size_t>(std::max(design_.processes, 1)), 0.0);  // seconds left
  for (const auto& name : order_) {
    const row_state& r = rows_.at(name);
    for (const auto& [p, done] : r.rounds_of) c.done += done.size();
    for (int p = 0; p < design_.processes; ++p) {
      const int left = rounds_left(r, p);
      c.total += static_cast<std::size_t>(left);
      work[static_cast<std::size_t>(p)] += left * (r.round_s > 0 ? r.round_s : r.estimate * scale);
    }
  }
  c.total += c.done;
  // The processes one after another, none before its start under the span (the running one's has
  // passed).
  c.remaining_s = 0;
  for (int p = 0; p < design_.processes; ++p)
    if (const double w = work[static_cast<std::size_t>(p)]; w > 0)
      c.remaining_s += span_wait_s(design_, p, now_epoch_s + c.remaining_s) + w;
  return c;
}

round_design design_of(const common_options& o, const sampling& policy, bool ranks_in_step, double started_epoch_s) {
  round_design design;
  design.rounds = o.rounds;
  design.processes = o.processes;
  design.seed = o.seed;
  design.round_budget = policy.round_budget;
  design.budget_on_wall = !ranks_in_step;
  design.min_time = policy.min_time;
  design.span_s = o.span_s;
  design.started_epoch_s = started_epoch_s;
  return design;
}

double span_wait_s(const round_design& design, int process, double now_epoch_s) {
  if (design.span_s <= 0 || design.processes < 2 || process < 1) return 0;
  const double start = design.started_epoch_s + design.span_s * process / (design.processes - 1);
  return std::max(0.0, start - now_epoch_s);
}

void wait_for_span(const round_design& design, int process) {
  const double wait = span_wait_s(design, process, epoch_now());
  if (wait <= 0) return;
  std::cerr << "solve_bench: process " << process + 1 << " waits " << std::lround(wait)
            << " s (--span=" << std::lround(design.span_s) << ")\n"
            << std::flush;
  std::this_thread::sleep_for(std::chrono::duration<double>(wait));
}

void continue_in_fresh_process(int argc, char** argv, const std::string& live, const std::string& why, bool fault,
                               bool temporary_log, const continuation& here) {
  if (fault) {
    const char* depth_text = std::getenv(depth_variable);
    const int depth = depth_text ? std::atoi(depth_text) : 0;
    if (depth >= max_fault_reexec) return;
    setenv(depth_variable, std::to_string(depth + 1).c_str(), 1);
  }
  if (!here.continued) setenv(started_variable, std::to_string(here.started_epoch_s).c_str(), 1);
  if (temporary_log) setenv(temporary_variable, "1", 1);
  put_back_gb_environment();  // BENCHMARK_OUT and the rest: the next process writes what this one would have
  std::vector<std::string> args;
  for (int i = 0; i < argc; ++i)
    if (std::strncmp(argv[i], "--resume=", 9) != 0) args.emplace_back(argv[i]);
  args.push_back("--resume=" + live);
  std::vector<char*> c_args;
  for (auto& a : args) c_args.push_back(a.data());
  c_args.push_back(nullptr);
  std::cerr << "solve_bench: " << why << "\n" << std::flush;
  execv("/proc/self/exe", c_args.data());
  std::cerr << "solve_bench: could not start a fresh process: " << std::strerror(errno) << "\n";
}

continuation continuation_from_environment() {
  continuation c;
  const char* started = std::getenv(started_variable);
  c.continued = started != nullptr;
  c.started_epoch_s = started ? std::strtod(started, nullptr) : epoch_now();
  const char* temporary = std::getenv(temporary_variable);
  c.temporary_log = temporary && std::strcmp(temporary, "1") == 0;
  return c;
}

}  // namespace solvebench::bench
