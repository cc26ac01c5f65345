// One run's state, in one object that the driver makes and passes to the sweep, the rows and
// the printers: the registered rows (keyed by their place in the registration, never by name),
// the one live fixture, the sampling policy, the round Google Benchmark runs now, the rows'
// outcomes (failed, refused, deferred), the --sizes=max notes, what this process continues, and
// the resources a backend keeps for the run (the GPU's context). Nothing of it is process-wide:
// two sessions in one process (the core's tests) do not see each other's rows.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checks/row_id.hpp"
#include "core/harness.hpp"

namespace solvebench::bench {

// A registered row: its place in the session's registration (0, 1, ...).
using row_key = std::size_t;

// What a process learns from the environment about the run it belongs to (core/rounds.hpp's
// re-execution): whether an earlier process started it, when, and whether its rows log is a
// temporary of that process.
struct continuation {
  bool continued = false;
  double started_epoch_s = 0;
  bool temporary_log = false;
};
continuation continuation_from_environment();

class session {
 public:
  explicit session(continuation c = continuation_from_environment());
  ~session();
  session(const session&) = delete;
  session& operator=(const session&) = delete;

  // Registers one row (once: a second registration of the same id is ignored); `backend`, when
  // given, must outlive the session (own() it, or cpu_backend()).
  void register_row(const row_id& id, fixture_factory make, row_backend* backend = nullptr);
  std::size_t size() const noexcept { return rows_.size(); }
  const row_id& id(row_key k) const { return rows_.at(k).id; }
  const std::string& name(row_key k) const { return rows_.at(k).name; }        // the id's name, for display
  const row_backend* backend(row_key k) const { return rows_.at(k).backend; }  // nullptr: none
  std::optional<row_key> find(const row_id& id) const;
  // The keys whose names (with /manual_time) the Google Benchmark filter selects, in order.
  std::vector<row_key> select(const std::string& filter) const;

  // Clears Google Benchmark's registrations and registers `keys`, in that order: the run of
  // family index i is the row keys[i].
  void register_with_gbench(const std::vector<row_key>& keys);
  std::optional<row_key> key_of(const benchmark::BenchmarkReporter::Run& run) const;
  // One round of a row: its fixture built, sampled, checked, counted, freed (harness.cpp).
  void run_row(benchmark::State& state, row_key k);
  // The samples of the row's oldest round not yet reported.
  std::optional<row_samples> take_samples(row_key k);

  sampling& policy() noexcept { return policy_; }
  const sampling& policy() const noexcept { return policy_; }
  void set_round(const round_slot& slot) { round_ = slot; }
  const round_slot& current_round() const noexcept { return round_; }
  // Called as each row's round starts (the progress says which row runs); nullptr: none.
  void set_row_start_hook(std::function<void(const std::string& row)> hook) { start_hook_ = std::move(hook); }

  const std::vector<std::string>& failed_rows() const noexcept { return failed_; }
  const std::vector<std::string>& skipped_rows() const noexcept { return skipped_; }
  // Rows a broken backend could not run in this process: they run in a fresh one.
  std::size_t deferred_count() const noexcept { return deferred_.size(); }
  bool deferred(row_key k) const { return deferred_.count(k) > 0; }
  // A printer that could not write: the remaining rows do not run (the first message is kept).
  void set_output_failure(const std::string& message);
  const std::string& output_failure() const noexcept { return output_failure_; }

  // --sizes=max: what it chose and why (row.hpp's note_largest text), for stderr and the context.
  void note_largest(const std::string& what, std::int64_t n, std::uint64_t needed, std::uint64_t usable);
  void add_largest_note(const std::string& text) { largest_notes_.push_back(text); }
  const std::vector<std::string>& largest_notes() const noexcept { return largest_notes_; }

  const continuation& continued() const noexcept { return continuation_; }
  // The CPU rows' backend (RAPL energy, other processes' load), one per session.
  row_backend& cpu_backend();
  // A backend's own, kept until release(): freed in the reverse order of their adoption.
  template <class T>
  T& own(std::unique_ptr<T> thing) {
    T& out = *thing;
    owned_.push_back(std::shared_ptr<void>(std::move(thing)));
    return out;
  }
  // The backends' reasons to exit 1 after the run (a GPU row's leaked device memory); before release().
  std::vector<std::string> problems() const;
  // Frees the live fixture, then what the backends own (before the CUDA runtime or MPI goes).
  void release() noexcept;

 private:
  struct registered_row {
    row_id id;
    std::string name;
    fixture_factory make;
    row_backend* backend = nullptr;
    std::deque<row_samples> calls;
    int rounds_here = 0;     // rounds this process has run of the row
    double last_call_s = 0;  // the median call of its last round
  };
  void refuse(benchmark::State& state, row_key k, const std::string& message);
  void fail(benchmark::State& state, row_key k, const std::string& message);
  void say_once(const row_backend& b, const std::string& reason);
  void release_fixture() noexcept { live_.reset(); }
  // When the other CPU pools' threads are asleep for this row's calls (harness.cpp).
  std::chrono::steady_clock::time_point pools_settled(const registered_row& r) const;

  std::vector<registered_row> rows_;
  std::vector<row_key> in_gbench_;  // family index -> row
  std::unique_ptr<row_fixture> live_;
  sampling policy_;
  round_slot round_;
  std::function<void(const std::string&)> start_hook_;
  std::vector<std::string> failed_, skipped_;
  std::set<row_key> deferred_;
  std::string output_failure_;
  std::vector<std::string> largest_notes_;
  continuation continuation_;
  std::set<std::string> probe_notes_said_;
  std::vector<row_backend*> backends_;  // those of the registered rows, once each
  std::unique_ptr<row_backend> cpu_backend_;
  std::map<const row_backend*, std::chrono::steady_clock::time_point> pool_left_;  // a CPU pool's last round's end
  std::vector<std::shared_ptr<void>> owned_;
};

}  // namespace solvebench::bench
