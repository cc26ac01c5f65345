// The audit: a finished run's rows held against each other and against the machine, so that a
// number that cannot be true (a solve faster than GEMM) or a run that cannot be fair (the BLAS
// on one core, Prescott kernels on an AVX-512 CPU) is named in the run's own output. Pure logic
// over a run_summary; a difference between rows is a finding only beyond what their noise explains.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "checks/record.hpp"

namespace solvebench::bench {

// Severities, worst first: a timing bug means a number is wrong; a warning means a number may
// be unfair or unsteady; a note is context that changes nothing by itself.
inline constexpr const char* severity_timing_bug = "timing-bug";
inline constexpr const char* severity_warning = "warning";
inline constexpr const char* severity_note = "note";
inline constexpr const char* severities[] = {severity_timing_bug, severity_warning, severity_note};

struct finding {
  std::string rule;          // the rule's id, e.g. "driver_vs_halves"
  std::string severity;      // severity_timing_bug, severity_warning or severity_note
  std::vector<row_id> rows;  // the rows it is about (empty: a fact about the whole run)
  std::string message;       // one sentence or two, for a person
  // A known cause that several findings share word for word (a library's defect): said once,
  // with the first finding it explains; "" when none is known (the {} lets rules leave it out).
  std::string cause{};
};

// A finding is cited by its number, "†3" for findings[2] (index 2): run_audit orders them worst
// first, and the console, audit.json ("number"), the verdict and verdict.md use the same numbers.
std::string finding_mark(std::size_t index);

// A rule that could not be applied to this run, and why (e.g. no bus ceiling is known).
struct skipped_rule {
  std::string rule;
  std::string reason;
};

struct audit_report {
  std::vector<finding> findings;           // worst first (timing bugs, warnings, notes), each rule's in its order
  std::vector<std::string> rules_checked;  // the rules that ran, in table order
  std::vector<skipped_rule> rules_skipped;
  std::size_t rows_checked = 0;  // rows that finished without error; errored rows feed no rule
  std::size_t rows_failed = 0;   // rows that failed or were refused
  // Clean: no timing bug and no warning. Notes do not spoil a run.
  bool clean() const;
};

// Every rule over every row that finished.
audit_report run_audit(const run_summary& run);

// The rule ids, in the order they run.
std::vector<std::string> audit_rule_ids();

}  // namespace solvebench::bench
