// The checks' results for people (console, Markdown) and for tools (JSON sidecars, which
// tools/report, tools/regress, tools/track and tools/condmap.py read instead of judging again).
#pragma once

#include <map>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "checks/audit.hpp"
#include "checks/verdict.hpp"

namespace solvebench::bench {

// Console sections, lines of at most about 100 characters. `more_in`: the file that holds the
// findings the console leaves out ("" when none is written).
std::string audit_console(const audit_report& report, const std::string& more_in);
std::string verdict_console(const run_verdict& v);
std::string verdict_markdown(const run_verdict& v);
std::string caveat_text(const verdict_caveat& c);
// " " + a finding's cause where it is the first in `said` to carry it, else " The same cause as
// †k."; "" without one. `said`: the causes said so far, and by which finding (its index).
std::string cause_once(const finding& f, std::size_t index, std::map<std::string, std::size_t>& said);

// {"clean", "rules_checked", "rules_skipped", "rows_checked", "rows_failed", "findings": [{"rule",
// "severity", "rows": [names], "ids": [id objects], "message"}], "thresholds": {...}}
nlohmann::ordered_json audit_json(const audit_report& report);
nlohmann::ordered_json verdict_json(const run_verdict& v);
// One row of the verdict's "ceilings": pct_of_peak, pct_of_gemm, headroom and the bound's terms.
nlohmann::ordered_json ceiling_json(const row_ceiling& c);
// The limits the checks judged by (thresholds.hpp), for the tools to print beside their tables.
nlohmann::ordered_json thresholds_json();
// The operations rows time (operation.hpp), by the id's op (batched ones "gesv_batched"): what
// each factors, solves or multiplies, whether it has right-hand sides, a driver's two halves,
// whether it is a probe of the bound (ceilings.hpp: rows only --ceilings=on registers).
// In the sidecars beside "thresholds", so that the tools read the one table.
nlohmann::ordered_json operations_json();

// X.audit.json, X.verdict.json and X.verdict.md for the base path X, each written whole or not
// at all; throws solvebench::error naming the file that could not be written.
struct check_files {
  std::string audit, verdict_json, verdict_markdown;
};
check_files check_files_for(const std::string& base);
void write_check_files(const std::string& base, const audit_report& audit, const run_verdict& verdict);

}  // namespace solvebench::bench
