// The run's registry, outcomes and resources (core/session.hpp); one round of a row is in harness.cpp.
#include "core/session.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "checks/load.hpp"
#include "core/gb_flags.hpp"

namespace solvebench::bench {

session::session(continuation c) : continuation_(c) {}

session::~session() { release(); }

void session::register_row(const row_id& id, fixture_factory make, row_backend* backend) {
  if (find(id)) return;  // registered already
  rows_.push_back({id, id.name(), std::move(make), backend, {}, 0, 0});
  if (backend && std::find(backends_.begin(), backends_.end(), backend) == backends_.end())
    backends_.push_back(backend);
}

std::optional<row_key> session::find(const row_id& id) const {
  for (row_key k = 0; k < rows_.size(); ++k)
    if (rows_[k].id == id) return k;
  return std::nullopt;
}

std::vector<row_key> session::select(const std::string& filter) const {
  std::vector<row_key> out;
  for (row_key k = 0; k < rows_.size(); ++k)
    if (matches_filter(filter, rows_[k].name + "/manual_time")) out.push_back(k);
  return out;
}

void session::register_with_gbench(const std::vector<row_key>& keys) {
  benchmark::ClearRegisteredBenchmarks();
  in_gbench_ = keys;
  for (const row_key k : keys)
    benchmark::RegisterBenchmark(rows_.at(k).name.c_str(), [this, k](benchmark::State& state) { run_row(state, k); })
        ->UseManualTime()
        ->Unit(benchmark::kNanosecond);
}

std::optional<row_key> session::key_of(const benchmark::BenchmarkReporter::Run& run) const {
  // Google Benchmark numbers the families it runs in registration order; spec "." runs them all.
  if (run.family_index < 0 || static_cast<std::size_t>(run.family_index) >= in_gbench_.size()) return std::nullopt;
  return in_gbench_[static_cast<std::size_t>(run.family_index)];
}

std::optional<row_samples> session::take_samples(row_key k) {
  auto& calls = rows_.at(k).calls;
  if (calls.empty()) return std::nullopt;
  row_samples s = std::move(calls.front());
  calls.pop_front();
  return s;
}

void session::refuse(benchmark::State& state, row_key k, const std::string& message) {
  state.SkipWithError((std::string(refusal_prefix) + message).c_str());
  skipped_.push_back(rows_.at(k).name + ": " + message);
}

void session::fail(benchmark::State& state, row_key k, const std::string& message) {
  state.SkipWithError(message.c_str());
  failed_.push_back(rows_.at(k).name + ": " + message);
}

void session::set_output_failure(const std::string& message) {
  if (output_failure_.empty()) output_failure_ = message;
}

// A probe that could not read something says so once per run (not per row, nor again in the
// processes a run re-executes), saying what it did not measure.
void session::say_once(const row_backend& b, const std::string& reason) {
  if (reason.empty() || continuation_.continued || !probe_notes_said_.insert(b.name() + reason).second) return;
  std::cerr << "solve_bench: " << b.missing_text(reason) << "\n";
}

void session::note_largest(const std::string& what, std::int64_t n, std::uint64_t needed, std::uint64_t usable) {
  char text[96];
  std::snprintf(text, sizeof text, ": %.1f GiB of the %.1f GiB usable", static_cast<double>(needed) / (1ULL << 30),
                static_cast<double>(usable) / (1ULL << 30));
  largest_notes_.push_back(what + " at n = " + std::to_string(n) + text);
}

row_backend& session::cpu_backend() {
  if (!cpu_backend_) cpu_backend_ = make_cpu_rows_backend();
  return *cpu_backend_;
}

std::vector<std::string> session::problems() const {
  std::vector<std::string> out;
  for (const row_backend* b : backends_)
    for (auto& p : b->problems()) out.push_back(std::move(p));
  return out;
}

void session::release() noexcept {
  release_fixture();
  backends_.clear();
  while (!owned_.empty()) owned_.pop_back();
}

}  // namespace solvebench::bench
