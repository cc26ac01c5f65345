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
