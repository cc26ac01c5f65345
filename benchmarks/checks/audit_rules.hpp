// Private to the audit: what a rule sees, and the rule tables of each family of rules.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "checks/audit.hpp"

namespace solvebench::bench::audit_detail {

struct rule_input {
  const run_summary& run;
  std::vector<const row_record*> rows;  // the rows that finished; errored rows feed no rule

  std::string context(const std::string& key) const { return run.context_value(key); }
  std::optional<double> number(const std::string& key) const;
  // A fact about the library that timed a row (blas_vendor, blas_version, blas_threads ...): the
  // row's own, as a run of several CPU libraries writes it in each row, else the run's context.
  std::string fact(const row_record& r, const std::string& key) const;
  std::optional<double> fact_number(const row_record& r, const std::string& key) const;
  // Rows whose arithmetic ran on the host's cores (CPU, CPU-driver, MPI ...).
  std::vector<const row_record*> cpu_rows() const;
  // The finished row whose id satisfies `match`.
  template <class Match>
  const row_record* find(Match&& match) const {
    for (const auto* r : rows)
      if (match(r->id)) return r;
    return nullptr;
  }
};

// The axes beyond n and nrhs, sorted (kind, cond, batch, gpus, ranks ...): rows compare only when
// these agree; `without` leaves some out (the matrix kind changes no ceiling).
std::vector<std::pair<std::string, std::string>> other_axes(const row_id& id, const std::string& without = "");

// A rule adds its findings, or returns why it could not look at this run.
using rule_check = std::optional<std::string> (*)(const rule_input&, std::vector<finding>&);
struct rule {
  const char* id;
  rule_check check;
};

// Each family's rules, in the order they run.
const std::vector<rule>& row_rules();      // rows against rows: audit_rows.cpp
const std::vector<rule>& machine_rules();  // rows against the machine: audit_machine.cpp
const std::vector<rule>& gpu_rules();      // the GPU's state during the rows: audit_gpu.cpp
const std::vector<rule>& scan_rules();     // neighbouring sizes of a size scan: cliffs.cpp

// The load a row met during its loop, from its counters: other processes' cores (at least
// limits::other_busy_cores), the time tasks waited for a CPU (limits::cpu_wait_pct), steal
// (limits::steal_pct); "1.9 cores busy, a task waiting for a CPU 80% of the time"; "" when none.
std::string load_met(const row_record& r);

// What the rules that hold rows against each other judge a row by (audit_rows.cpp), beside its
// between-run noise (rerun_noise_pct, record.hpp): whether a CPU row had the cores its threads need: "ran 2 BLAS
// threads on 1.1 cores" when it used fewer than blas_threads (a batched row: its loop's batch_threads) /
// limits::cores_ratio (its CPU time over its loop's wall time, cpu_self_busy), "" when it had them or nothing says.
std::string short_of_threads(const rule_input& in, const row_record& r);

// Rows measured at different moments compare only on a quiet host: another process that held
// cores during one of them can open any gap, so a rule that holds rows against each other (or
// against the machine) states the load instead of judging. Empty when none of `rows` was loaded.
std::string load_during(std::initializer_list<const row_record*> rows);

// "12 CPU rows", "1 row".
std::string count(std::size_t n, const std::string& what);
// "GPU/dgetrf/n:256, GPU/dgetrs/n:256/nrhs:1 and 3 more".
std::string row_list(const std::vector<row_id>& rows, std::size_t shown = 4);

}  // namespace solvebench::bench::audit_detail
