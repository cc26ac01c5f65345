"""Reading solve_bench results, shared by tools/regress and tools/report.

Inputs are Google Benchmark JSON files (--benchmark_out) or solve_bench's JSON-lines rows
logs (*.rows.jsonl, one {"benchmarks": [...]} document per line, the first with "context"),
which is all a sweep killed part-way leaves behind. Rows with the same name from several
files (or from concatenated logs) are pooled as repetitions of one row.

Row names read like a path: <backend>/<op>/key:value.../manual_time.
Standard library only, so it imports wherever Python 3 does.
"""
import json
import math
import re
import statistics
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

RESID_LIMIT = 16.0  # the HPL pass mark: a row with resid >= 16 failed its accuracy check
MS_PER_UNIT = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
# Trailing name elements Google Benchmark appends for the timing mode; not axes.
TIMING_SUFFIXES = {"manual_time", "real_time", "process_time"}
# Fields of Google Benchmark's run format; every other numeric field is a user counter.
GBENCH_FIELDS = {
    "name", "run_name", "run_type", "family_index", "per_family_instance_index", "repetitions",
    "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit",
    "aggregate_name", "aggregate_unit", "error_occurred", "error_message", "skipped",
    "skip_message", "label", "big_o", "rms", "cpu_coefficient", "real_coefficient",
}


class InputError(Exception):
    """A results file that cannot be read as solve_bench output."""


@dataclass(frozen=True)
class RowName:
    """A parsed row name: CPU/dgesv/n:4096/nrhs:1/manual_time."""
    backend: str
    op: str
    axes: Tuple[Tuple[str, str], ...]  # (key, value) in name order; a bare element has value ""

    @property
    def n(self) -> Optional[int]:
        value = dict(self.axes).get("n")
        return int(value) if value is not None and value.isdigit() else None

    def variant(self, without=("n",)) -> str:
        """The axes other than `without`, e.g. 'nrhs:1' for CPU/dgesv/n:64/nrhs:1."""
        return "/".join(k + (":" + v if v else "") for k, v in self.axes if k not in without)


def parse_name(name: str) -> RowName:
    parts = [p for p in name.split("/") if p]
    while parts and parts[-1] in TIMING_SUFFIXES:
        parts.pop()
    if len(parts) < 2:
        return RowName(parts[0] if parts else name, "", ())
    axes = tuple((p.split(":", 1)[0], p.split(":", 1)[1]) if ":" in p else (p, "") for p in parts[2:])
    return RowName(parts[0], parts[1], axes)


def natural_key(name: str):
    """Sort key that puts n:64 before n:128."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", name)]


@dataclass
class Results:
    context: dict
    rows: List[dict]  # Google Benchmark run objects, in file order


def load(path: str) -> Results:
    """One results file: a JSON document, or JSON lines (a rows log, possibly concatenated)."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise InputError("%s: %s" % (path, e.strerror)) from e
    try:
        docs = [json.loads(text)]
    except json.JSONDecodeError as whole_error:
        docs = _json_lines(path, text, whole_error)
    context, rows = {}, []
    for doc in docs:
        if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list):
            raise InputError("%s: not Google Benchmark output (no \"benchmarks\" list)" % path)
        context = context or doc.get("context") or {}
        rows.extend(doc["benchmarks"])
    return Results(context, rows)


def _json_lines(path, text, whole_error):
    lines = [ln for ln in text.splitlines() if ln.strip()]
    docs = []
    for number, line in enumerate(lines, 1):
        try:
            docs.append(json.loads(line))
        except json.JSONDecodeError:
            # A sweep killed mid-write leaves at most its last line cut short.
            if number == len(lines) and docs:
                print("%s: ignoring the unfinished last line %d" % (path, number), file=sys.stderr)
                break
            hint = ""
            if path.endswith(".json"):
                hint = " (a run killed part-way leaves a truncated .json; use its .rows.jsonl log)"
            raise InputError("%s: not JSON: %s%s" % (path, whole_error, hint))
    return docs


@dataclass
class Row:
    """One benchmark row with its repetitions reduced: what regress and report work on."""
    name: str                  # the run name, e.g. CPU/dgesv/n:64/nrhs:1/manual_time
    parsed: RowName
    times_ms: List[float] = field(default_factory=list)   # real (manual) time, one per repetition
    counters: Dict[str, List[float]] = field(default_factory=dict)
    error: Optional[str] = None    # error_occurred (a failed check or LAPACK error)
    skipped: Optional[str] = None  # Google Benchmark >= 1.8 SkipWithMessage
    aggregate_times_ms: Dict[str, List[float]] = field(default_factory=dict)  # by aggregate_name
    aggregate_counters: Dict[str, Dict[str, List[float]]] = field(default_factory=dict)

    @property
    def repetitions(self) -> int:
        return len(self.times_ms)

    @property
    def samples_ms(self) -> List[float]:
        """Per-repetition times; with --benchmark_report_aggregates_only, the medians."""
        aggregates = self.aggregate_times_ms
        return self.times_ms or aggregates.get("median") or aggregates.get("mean", [])

    @property
    def median_ms(self) -> Optional[float]:
        samples = self.samples_ms
        return statistics.median(samples) if samples else None

    def counter(self, key: str) -> Optional[float]:
        """The median of a counter over repetitions (GFLOP/s, n, ...)."""
        values = self.counters.get(key) or self.aggregate_counters.get("median", {}).get(key) \
            or self.aggregate_counters.get("mean", {}).get(key)
        return statistics.median(values) if values else None

    @property
    def resid(self) -> Optional[float]:
        """The worst resid of any repetition (NaN counts as worst)."""
        values = self.counters.get("resid") or self.aggregate_counters.get("median", {}).get("resid")
        if not values:
            return None
        return math.nan if any(math.isnan(v) for v in values) else max(values)

    @property
    def resid_failed(self) -> bool:
        resid = self.resid
        return resid is not None and not resid < RESID_LIMIT

    @property
    def ok(self) -> bool:
        return self.error is None and self.skipped is None and not self.resid_failed


def _run_name(row: dict) -> str:
    if row.get("run_name"):
        return row["run_name"]
    name = row["name"]
    if row.get("run_type") == "aggregate" and row.get("aggregate_name"):
        name = re.sub("_" + re.escape(row["aggregate_name"]) + "$", "", name)
    return name


def _numeric_counters(row: dict) -> Dict[str, float]:
    return {k: float(v) for k, v in row.items()
            if k not in GBENCH_FIELDS and isinstance(v, (int, float)) and not isinstance(v, bool)}


def summarize(rows: List[dict]) -> Dict[str, Row]:
    """Group Google Benchmark runs by row, in order of first appearance."""
    by_name: Dict[str, Row] = {}
    for run in rows:
        name = _run_name(run)
        row = by_name.setdefault(name, Row(name, parse_name(name)))
        if run.get("error_occurred"):
            row.error = row.error or run.get("error_message") or "error"
            continue
        if run.get("skipped"):
            row.skipped = row.skipped or run.get("skip_message") or "skipped"
            continue
        if "real_time" not in run:
            continue  # a complexity (big O / RMS) row: not a timing
        time_ms = float(run["real_time"]) * MS_PER_UNIT.get(run.get("time_unit", "ns"), 1e-6)
        counters = _numeric_counters(run)
        if run.get("run_type") == "aggregate":
            which = run.get("aggregate_name", "")
            if run.get("aggregate_unit", "time") == "time" and which in ("median", "mean"):
                row.aggregate_times_ms.setdefault(which, []).append(time_ms)
                for key, value in counters.items():
                    row.aggregate_counters.setdefault(which, {}).setdefault(key, []).append(value)
            continue
        row.times_ms.append(time_ms)
        for key, value in counters.items():
            row.counters.setdefault(key, []).append(value)
    return by_name


def load_rows(paths: List[str], name_filter: Optional[str] = None) -> Tuple[Dict[str, Row], List[dict]]:
    """Rows of one or more files, pooled by name; also each file's context."""
    all_runs, contexts = [], []
    for path in paths:
        results = load(path)
        all_runs.extend(results.rows)
        contexts.append(results.context)
    rows = summarize(all_runs)
    if name_filter:
        pattern = re.compile(name_filter)
        rows = {name: row for name, row in rows.items() if pattern.search(name)}
    return rows, contexts


# ---------------------------------------------------------------------------------- audit
# solve_bench holds a run's rows against each other and against the machine once they have
# run, and writes its findings beside the results: X.json and X.rows.jsonl both get
# X.audit.json, {"audit": {"clean": bool, "rules_checked": [...], "rows_checked": N,
# "findings": [{"rule", "severity", "rows": [row names], "message"}]}}.

AUDIT_SEVERITIES = ("timing-bug", "warning", "note")  # worst first


def row_key(name: str) -> str:
    """A row's name without Google Benchmark's timing suffix, as the audit names rows:
    CPU/dgesv/n:64/nrhs:1/manual_time -> CPU/dgesv/n:64/nrhs:1."""
    parts = name.split("/")
    while parts and parts[-1] in TIMING_SUFFIXES:
        parts.pop()
    return "/".join(parts)


@dataclass(frozen=True)
class Finding:
    rule: str                # e.g. driver_vs_halves
    severity: str            # one of AUDIT_SEVERITIES
    rows: Tuple[str, ...]    # row keys (no timing suffix); empty: about the whole run
    message: str

    @property
    def key(self):
        """What makes two runs' findings the same finding: the message carries numbers
        that move from run to run, so it is left out."""
        return (self.rule, self.severity, tuple(sorted(self.rows)))

    def in_scope(self, name_filter: Optional[str]) -> bool:
        """Whether the finding concerns the rows a --filter keeps (run-wide ones always do)."""
        if not name_filter or not self.rows:
            return True
        pattern = re.compile(name_filter)
        return any(pattern.search(r) or pattern.search(r + "/manual_time") for r in self.rows)


@dataclass
class Audit:
    path: str                # the sidecar it was read from
    clean: bool
    rules_checked: List[str]
    rows_checked: int
    findings: List[Finding]


def audit_path(results_path: str) -> str:
    """The audit sidecar of a results file: X.json, X.rows.jsonl (and X.jsonl) -> X.audit.json."""
    for suffix in (".rows.jsonl", ".jsonl", ".json"):
        if results_path.endswith(suffix):
            return results_path[:-len(suffix)] + ".audit.json"
    return results_path + ".audit.json"


def load_audit(results_path: str) -> Optional[Audit]:
    """The audit of a results file, from its sidecar; None when there is none (a run from
    before the audit, or one that did not finish)."""
    path = audit_path(results_path)
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise InputError("%s: %s" % (path, e.strerror)) from e
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError("%s: the audit is not JSON: %s" % (path, e)) from e
    return _parse_audit(path, doc)


def _parse_audit(path: str, doc) -> Audit:
    def bad(what):
        return InputError("%s: malformed audit: %s" % (path, what))

    audit = doc.get("audit") if isinstance(doc, dict) else None
    if not isinstance(audit, dict):
        raise bad('no "audit" object')
    clean, rules, checked, findings = (audit.get(k) for k in ("clean", "rules_checked", "rows_checked", "findings"))
    if not isinstance(clean, bool):
        raise bad('"clean" is not true or false')
    if not isinstance(rules, list) or not all(isinstance(r, str) for r in rules):
        raise bad('"rules_checked" is not a list of names')
    if not isinstance(checked, int) or isinstance(checked, bool) or checked < 0:
        raise bad('"rows_checked" is not a count')
    if not isinstance(findings, list):
        raise bad('"findings" is not a list')
    parsed = []
    for i, f in enumerate(findings):
        if not isinstance(f, dict):
            raise bad("finding %d is not an object" % i)
        for key in ("rule", "severity", "message"):
            if not isinstance(f.get(key), str) or not f[key]:
                raise bad('finding %d has no "%s" text' % (i, key))
        # a misspelt severity would slip past the gate, which fails on "timing-bug"
        if f["severity"] not in AUDIT_SEVERITIES:
            raise bad("finding %d (%s) has severity %r; expected one of %s"
                      % (i, f["rule"], f["severity"], ", ".join(AUDIT_SEVERITIES)))
        rows = f.get("rows", [])
        if not isinstance(rows, list) or not all(isinstance(r, str) for r in rows):
            raise bad('finding %d (%s): "rows" is not a list of row names' % (i, f["rule"]))
        parsed.append(Finding(f["rule"], f["severity"], tuple(row_key(r) for r in rows), f["message"]))
    return Audit(path, clean, list(rules), checked, parsed)


def load_audits(results_paths: List[str]) -> List[Audit]:
    """The audits of several results files, each sidecar once (X.json and X.rows.jsonl share one)."""
    audits, seen = [], set()
    for path in results_paths:
        sidecar = audit_path(path)
        if sidecar not in seen:
            seen.add(sidecar)
            audit = load_audit(path)
            if audit is not None:
                audits.append(audit)
    return audits


def merge_audits(audits: List[Audit], path: str) -> Audit:
    """One audit for rounds pooled into one input: clean only if every round was, each
    finding once (the first round's message)."""
    findings, seen = [], set()
    for audit in audits:
        for f in audit.findings:
            if f.key not in seen:
                seen.add(f.key)
                findings.append(f)
    rules = sorted({r for a in audits for r in a.rules_checked})
    return Audit(path, all(a.clean for a in audits), rules,
                 max((a.rows_checked for a in audits), default=0), findings)


def write_audit(audit: Audit) -> None:
    doc = {"audit": {"clean": audit.clean, "rules_checked": audit.rules_checked,
                     "rows_checked": audit.rows_checked,
                     "findings": [{"rule": f.rule, "severity": f.severity, "rows": list(f.rows),
                                   "message": f.message} for f in audit.findings]}}
    with open(audit.path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def _main(argv: List[str]) -> int:
    """python3 tools/sbjson.py merge-audits POOLED ROUND...: writes POOLED's audit sidecar
    from the sidecars of the ROUND results files that have one (none: writes nothing), so
    that rounds pooled into one log (.ci/bench-pr) keep their audit."""
    if len(argv) < 2 or argv[0] != "merge-audits":
        print(_main.__doc__, file=sys.stderr)
        return 2
    try:
        audits = load_audits(argv[2:])
    except InputError as e:
        print("sbjson: %s" % e, file=sys.stderr)
        return 2
    if not audits:
        print("sbjson: no audit beside %s; none written" % " ".join(argv[2:]))
        return 0
    merged = merge_audits(audits, audit_path(argv[1]))
    write_audit(merged)
    print("sbjson: wrote %s (%d findings from %d audits)" % (merged.path, len(merged.findings), len(audits)))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
