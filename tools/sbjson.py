"""Reading solve_bench's outputs, for the tools (report, condmap, vs_numpy, mpi_scaling).

Runs: Google Benchmark JSON (--benchmark_out), solve_bench's rows logs (X.rows.jsonl: a
{"context": {...}} line, then one run object a line; logs of earlier versions hold one
{"benchmarks": [...]} document a line), and several of them concatenated (pooled rounds).
Sidecars: X.audit.json and X.verdict.json, which solve_bench and solve_bench_checks write.

It judges nothing (no threshold, no pass mark, no row taxonomy): a row passed when its run
says so; a limit a tool shows comes from a sidecar's "thresholds". Rows are keyed by their "id"
when they have one, else by name (only solve_bench_checks reads a name back into fields). A
rejection is an InputError naming the file, the line of a JSON-lines file, and the problem.
Standard library only.
"""
import json
import math
import os
import re
import statistics
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

MS_PER_UNIT = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
TIMING_SUFFIXES = ("manual_time", "real_time", "process_time")  # what Google Benchmark appends for the timing mode
# Fields of Google Benchmark's run format and solve_bench's additions; every other number is a counter.
RUN_FIELDS = {
    "name", "run_name", "run_type", "family_index", "per_family_instance_index", "repetitions",
    "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit",
    "aggregate_name", "aggregate_unit", "error_occurred", "error_message", "skipped",
    "skip_message", "label", "big_o", "rms", "cpu_coefficient", "real_coefficient", "id", "samples_ms",
}
MAX_DEPTH = 32  # solve_bench writes 4 levels; deeper input is not ours (and would exhaust the stack)
ID_TEXT = ("backend", "op", "precision")  # fields every row id has, with n (docs/tools.md)
ID_OTHER_TEXT = ("role", "device", "placement", "path", "library", "factor")


class InputError(Exception):
    """A file that cannot be read as solve_bench output; the message names it and the problem."""


class NotJSON(InputError):
    """Text that does not parse (a torn last line of a rows log is one)."""


# ---------------------------------------------------------------------------------- text and JSON

def read_text(path: str) -> str:
    """The file as UTF-8 text, or an InputError saying why it is not."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise InputError("%s: %s" % (path, e.strerror or e)) from e
    if not data.strip():
        raise InputError("%s: empty file: no run in it" % path)
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in data[:64]:
        raise InputError("%s: UTF-16 text; solve_bench writes UTF-8 JSON" % path)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise InputError("%s:%d: not UTF-8 text (byte 0x%02x)" % (path, line, data[e.start])) from None


def _too_deep(text: str) -> bool:
    depth, in_string, escaped = 0, False, False
    for c in text:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif c in "]}":
            depth -= 1
    return False


def parse_json(where: str, text: str):
    """One JSON document; `where` ("file" or "file:line") names it in the error."""
    if _too_deep(text):
        raise InputError("%s: nested deeper than %d levels: not solve_bench output" % (where, MAX_DEPTH))
    try:
        return json.loads(text)
    except RecursionError:
        raise InputError("%s: nested too deeply: not solve_bench output" % where) from None
    except json.JSONDecodeError as e:  # a line of a JSON-lines file is named by `where`: give the column
        at = "column %d" % e.colno if e.lineno == 1 else "line %d column %d" % (e.lineno, e.colno)
        raise NotJSON("%s: not JSON: %s (%s)" % (where, e.msg, at)) from None
    except ValueError as e:  # integers longer than Python converts
        raise InputError("%s: not JSON: %s" % (where, str(e).split(";")[0])) from None


def _number(value) -> Optional[float]:  # a JSON number as a float; None for anything else (booleans too)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return float(value)
    except OverflowError:  # an integer beyond a double
        return math.inf if value > 0 else -math.inf


KINDS = {str: "text", bool: "true/false", list: "a list", dict: "an object", type(None): "null"}


def _kind(value) -> str:
    return KINDS.get(type(value), "a number")


# ---------------------------------------------------------------------------------- runs

@dataclass
class Results:  # one results file as read: its context and its Google Benchmark run objects, checked
    path: str
    context: dict
    rows: List[dict]                                   # run objects, in file order
    notes: List[str] = field(default_factory=list)     # what reading left out (a torn last line)


def strip_timing_suffix(name: str) -> str:
    """CPU/dgesv/n:64/nrhs:1/manual_time -> CPU/dgesv/n:64/nrhs:1 (how the sidecars name rows)."""
    parts = name.split("/")
    while len(parts) > 1 and parts[-1] in TIMING_SUFFIXES:
        parts.pop()
    return "/".join(parts)


def _check_run(where: str, run) -> None:  # what the tools read from a run object, of the right kind
    if not isinstance(run, dict):
        raise InputError("%s: a row that is not an object (%s)" % (where, _kind(run)))
    for key in ("name", "run_name", "run_type", "time_unit", "error_message", "skip_message", "aggregate_name"):
        if key in run and run[key] is not None and not isinstance(run[key], str):
            raise InputError('%s: "%s" is not text (%s)' % (where, key, _kind(run[key])))
    name = run.get("run_name") or run.get("name")
    if not name:
        raise InputError("%s: a row without a name" % where)
    where = "%s: row '%s'" % (where, name)
    if run.get("run_type") not in (None, "iteration", "aggregate"):
        raise InputError("%s: run_type '%s' is neither iteration nor aggregate" % (where, run["run_type"]))
    if "id" in run:
        _check_id(where, run["id"])
    if run.get("error_occurred") is True or run.get("skipped") is True:
        return
    if "big_o" in run or "rms" in run or run.get("aggregate_name") in ("BigO", "RMS"):
        return  # a complexity entry: not a timing
    if "real_time" not in run:
        raise InputError("%s: no real_time (and no error)" % where)
    value = _number(run["real_time"])
    if value is None:
        raise InputError("%s: real_time is %s, not a number" % (where, _kind(run["real_time"])))
    if run.get("aggregate_unit", "time") == "time" and not (value >= 0 and math.isfinite(value)):
        raise InputError("%s: real_time %.4g is not a time (negative, NaN or infinite)" % (where, value))
    unit = run.get("time_unit") or "ns"
    if unit not in MS_PER_UNIT:
        raise InputError("%s: unknown time_unit '%s'" % (where, unit))
    samples = run.get("samples_ms", [])
    if not isinstance(samples, list) or not all(_number(s) is not None and _number(s) >= 0 for s in samples):
        raise InputError('%s: "samples_ms" is not a list of times' % where)


def _check_id(where: str, row_id) -> None:  # the kinds of value solve_bench writes in an id
    if not isinstance(row_id, dict):
        raise InputError('%s: "id" is not an object (%s)' % (where, _kind(row_id)))
    for key in ID_TEXT:
        if key not in row_id:
            raise InputError('%s: its id has no "%s" text' % (where, key))
    for key, value in row_id.items():
        count = key in ("n", "nrhs") and (isinstance(value, bool) or not isinstance(value, int) or value < 0)
        text = key in ID_TEXT + ID_OTHER_TEXT and (not isinstance(value, str) or not value)
        if count or text or isinstance(value, bool) or not isinstance(value, (str, int)):
            raise InputError('%s: its id\'s "%s" is %s, not %s' % (where, key, _kind(value), "a count" if count else
                                                                  "text" if text else "text or an integer"))
    if "n" not in row_id:
        raise InputError('%s: its id has no "n" count' % where)

def _read_document(results: Results, where: str, doc, line_of_log: bool) -> None:
    """A whole file, or one line of a rows log: a context, a {"benchmarks": [...]} document, or a row."""
    if not isinstance(doc, dict):
        raise InputError("%s: not a JSON object (%s)" % (where, _kind(doc)))
    if "context" in doc:
        if not isinstance(doc["context"], dict):
            raise InputError('%s: "context" is not an object (%s)' % (where, _kind(doc["context"])))
        if not results.context:  # pooled files: the first file's context
            results.context = doc["context"]
    if "benchmarks" in doc:
        if not isinstance(doc["benchmarks"], list):
            raise InputError('%s: "benchmarks" is not a list (%s)' % (where, _kind(doc["benchmarks"])))
        for i, run in enumerate(doc["benchmarks"]):
            _check_run(where if line_of_log else "%s: benchmarks[%d]" % (where, i), run)
            results.rows.append(run)
    elif "name" in doc or "run_name" in doc:
        _check_run(where, doc)
        results.rows.append(doc)
    elif "context" not in doc:
        raise InputError('%s: neither a run (no "benchmarks" list, no row) nor a context line' % where)


def load(path: str) -> Results:
    """One results file: a JSON document, or JSON lines (a rows log, possibly concatenated)."""
    text = read_text(path)
    results = Results(path, {}, [])
    try:
        whole = parse_json(path, text)
    except InputError as whole_error:
        lines = text.splitlines()
        while lines and not lines[-1].strip():
            lines.pop()
        if len(lines) < 2:
            raise whole_error from None
        read = 0
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            where = "%s:%d" % (path, number)
            try:
                doc = parse_json(where, line)
            except NotJSON:
                if number == len(lines) and read:  # the line a killed run was writing
                    results.notes.append("%s: ignoring the unfinished last line" % where)
                    break
                raise
            _read_document(results, where, doc, line_of_log=True)
            read += 1
    else:
        _read_document(results, path, whole, line_of_log=False)
    if not results.rows and not results.context:
        raise InputError("%s: no solve_bench rows and no context in it" % path)
    _check_ours(results)
    return results


def _check_ours(results: Results) -> None:
    """Another program's Google Benchmark output (BM_foo rows) is named, not half-read:
    solve_bench's context has solve_bench_version, and its rows of today an id."""
    if "solve_bench_version" in results.context or any("id" in r for r in results.rows):
        return
    if results.context:
        example = next((r.get("run_name") or r.get("name") for r in results.rows), None)
        raise InputError("%s: not a solve_bench run (no solve_bench_version in its context, no row id%s); "
                         "another program's Google Benchmark output?" % (
                             results.path, ", rows like '%s'" % example if example else ""))


# ---------------------------------------------------------------------------------- rows

@dataclass
class Row:
    """One row with its repetitions gathered (from one file or several pooled)."""
    name: str                   # without the timing suffix: CPU/dgesv/n:64/nrhs:1
    id: Optional[dict]          # the row's id object; None in results from before ids
    times_ms: List[float] = field(default_factory=list)   # real (manual) time, one per repetition
    counters: Dict[str, List[float]] = field(default_factory=dict)
    error: Optional[str] = None     # error_occurred: a failed check, a library error, a refusal
    skipped: Optional[str] = None   # Google Benchmark >= 1.8 SkipWithMessage
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
        times = self.samples_ms
        return statistics.median(times) if times else None

    def counter(self, key: str) -> Optional[float]:
        """The median of a counter over the repetitions (GFLOP/s, resid, ...)."""
        values = self.counters.get(key) or self.aggregate_counters.get("median", {}).get(key) \
            or self.aggregate_counters.get("mean", {}).get(key)
        values = [v for v in values or [] if not math.isnan(v)]
        return statistics.median(values) if values else None

    @property
    def ok(self) -> bool:
        """The row ran and its run says it passed (a failed check sets error_occurred)."""
        return self.error is None and self.skipped is None and bool(self.samples_ms)


def row_key_of(row_id: Optional[dict], name: str) -> str:
    """A row's key across files and runs (the tools' one): its id as sorted-key JSON less its role
    (what a row is for, not which row: ids written before roles lack it), else its name."""
    return json.dumps({k: v for k, v in row_id.items() if k != "role"}, sort_keys=True) \
        if isinstance(row_id, dict) else strip_timing_suffix(name)


def run_name(run: dict) -> str:
    """The row a run object belongs to: run_name, or an aggregate's name without its suffix."""
    if run.get("run_name"):
        return run["run_name"]
    name = run["name"]
    if run.get("run_type") == "aggregate" and run.get("aggregate_name"):
        name = re.sub("_" + re.escape(run["aggregate_name"]) + "$", "", name)
    return name


def _counters(run: dict) -> Dict[str, float]:
    numbers = {key: _number(value) for key, value in run.items() if key not in RUN_FIELDS}
    return {key: value for key, value in numbers.items() if value is not None}


def summarize(runs: List[dict]) -> Dict[str, Row]:
    """Runs (checked by load) gathered into rows by key, in order of first appearance."""
    rows: Dict[str, Row] = {}
    for run in runs:
        name = strip_timing_suffix(run_name(run))
        row_id = run.get("id")
        row = rows.setdefault(row_key_of(row_id, name), Row(name, row_id))
        if run.get("error_occurred") is True:
            row.error = row.error or run.get("error_message") or "error"
            continue
        if run.get("skipped") is True:
            row.skipped = row.skipped or run.get("skip_message") or "skipped"
            continue
        if "real_time" not in run or "big_o" in run or "rms" in run:
            continue  # a complexity entry: not a timing
        time_ms = _number(run["real_time"]) * MS_PER_UNIT[run.get("time_unit") or "ns"]
        counters = _counters(run)
        if run.get("run_type") == "aggregate":
            which = run.get("aggregate_name") or ""
            if run.get("aggregate_unit", "time") == "time" and which in ("median", "mean"):
                row.aggregate_times_ms.setdefault(which, []).append(time_ms)
                for key, value in counters.items():
                    row.aggregate_counters.setdefault(which, {}).setdefault(key, []).append(value)
            continue
        row.times_ms.append(time_ms)
        for key, value in counters.items():
            row.counters.setdefault(key, []).append(value)
    return rows


def load_rows(paths: List[str], name_filter: Optional[str] = None) -> Tuple[Dict[str, Row], List[dict]]:
    """Rows of one or more files, pooled by key; also each file's context. name_filter: a
    regular expression searched in the row's name (with and without /manual_time)."""
    results = [load(path) for path in paths]
    contexts = [r.context for r in results]
    rows = summarize([run for r in results for run in r.rows])
    if name_filter:
        keep = name_matcher(name_filter)
        rows = {k: r for k, r in rows.items() if keep(r.name)}
    return rows, contexts


def name_matcher(name_filter: str):
    """A test of row names (without the timing suffix) by a regular expression, searched in
    the name with and without /manual_time, so filters written for either form work."""
    try:
        pattern = re.compile(name_filter)
    except re.error as e:
        raise InputError("--filter %r is not a regular expression: %s" % (name_filter, e)) from None
    return lambda name: bool(pattern.search(name) or pattern.search(name + "/manual_time"))


def natural_key(text: str):
    """Sort key that puts n:64 before n:128."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", text)]


# ---------------------------------------------------------------------------------- sidecars

def sidecar_path(results_path: str, kind: str) -> str:
    """X.json, X.rows.jsonl(.partial), X.jsonl -> X.<kind>.json (kind: audit, verdict)."""
    for suffix in (".rows.jsonl.partial", ".rows.jsonl", ".jsonl", ".json"):
        if results_path.endswith(suffix) and len(results_path) > len(suffix):
            return results_path[:-len(suffix)] + ".%s.json" % kind
    return results_path + ".%s.json" % kind


# A small schema of what the tools read from the sidecars: a type, a list [spec], an object
# {key: spec} (other keys allowed; "*": every value), Opt(spec) (absent or null), NUM (a number).
class Opt:
    def __init__(self, spec):
        self.spec = spec


NUM = (int, float)
OPT_NUM = Opt(NUM)
CAVEAT = {"rule": str, "severity": str, "message": Opt(str), "rows": Opt([str])}  # message: before issue 31
POINT = {"n": int, "cpu_ms": OPT_NUM, "gpu_ms": OPT_NUM, "speedup": OPT_NUM, "noise_pct": OPT_NUM,
         "cpu_row": Opt(str), "gpu_row": Opt(str)}
CROSSOVER = {"kind": str, "n": Opt(int), "interpolated": Opt(bool), "between": Opt([int]), "gpu_wins_at": Opt([int])}
METHOD = {"row": str, "op": str, "refine": Opt(str), "ms": OPT_NUM, "speedup": OPT_NUM, "accurate": bool,
          "why_not": Opt(str), "niters": OPT_NUM, "outer_iters": OPT_NUM, "fell_back": OPT_NUM}
VERDICT = {
    "has_gpu_rows": Opt(bool),
    "solves": [{"op": str, "nrhs": Opt(int), "cpu_best": Opt([{"n": int, "ms": OPT_NUM, "path": str, "library": Opt(str), "library_name": Opt(str), "row": Opt(str)}]),
                "forms": [{"backend": str, "placement": Opt(str), "points": [POINT], "crossover": Opt(CROSSOVER)}],
                "caveats": Opt([CAVEAT])}],
    "batched": Opt([{"op": str, "batch": int, "points": [POINT], "caveats": Opt([CAVEAT])}]),
    "mixed_map": Opt([{"backend": str, "matrix": str, "nrhs": Opt(int), "n": int, "reference": Opt(str),
                       "dgesv_ms": OPT_NUM, "reference_error": Opt(str), "methods": [METHOD],
                       "winner": Opt(int), "speedup": OPT_NUM}]),
    "caveats": Opt([CAVEAT]),
    "lines": Opt([str]),
    "thresholds": Opt({"*": NUM}),
    "operations": Opt({"*": {"op": str, "factors": bool, "solves": bool, "multiplies": bool, "has_rhs": bool}}),
}
FINDING = {"rule": str, "severity": str, "message": str, "cause": Opt(str), "rows": Opt([str]), "ids": Opt([{}])}
AUDIT = {"clean": bool, "rules_checked": [str], "rows_checked": int, "findings": [FINDING],
         "thresholds": Opt({"*": NUM}), "operations": VERDICT["operations"]}


def _check(value, spec, where: str) -> None:
    """Raises ValueError('where: problem') where value does not fit spec."""
    if isinstance(spec, Opt):
        if value is not None:
            _check(value, spec.spec, where)
    elif isinstance(spec, list):
        if not isinstance(value, list):
            raise ValueError("%s is %s, not a list" % (where, _kind(value)))
        for i, item in enumerate(value):
            _check(item, spec[0], "%s[%d]" % (where, i))
    elif isinstance(spec, dict):
        if not isinstance(value, dict):
            raise ValueError("%s is %s, not an object" % (where, _kind(value)))
        for key, sub in ({k: spec["*"] for k in value} if "*" in spec else spec).items():
            if key not in value and not isinstance(sub, Opt):
                raise ValueError('%s has no "%s"' % (where, key))
            _check(value.get(key), sub, "%s.%s" % (where, key))
    elif spec is NUM:
        if _number(value) is None:
            raise ValueError("%s is %s, not a number" % (where, _kind(value)))
    elif spec is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError("%s is %s, not an integer" % (where, _kind(value)))
    elif not isinstance(value, spec) or (spec is not bool and isinstance(value, bool)):
        raise ValueError("%s is %s, not %s" % (where, _kind(value), {str: "text", bool: "true/false"}[spec]))


def load_sidecar(path: str, kind: str) -> Optional[dict]:
    """The `kind` object ("audit" or "verdict") of a sidecar file, checked against what the
    tools read; None when there is no such file."""
    if not os.path.lexists(path):
        return None
    doc = parse_json(path, read_text(path))
    body = doc.get(kind) if isinstance(doc, dict) else None
    if not isinstance(body, dict):
        raise InputError('%s: no "%s" object: not a solve_bench %s' % (path, kind, kind))
    try:
        _check(body, {"audit": AUDIT, "verdict": VERDICT}[kind], kind)
        if kind == "verdict":
            for i, cell in enumerate(body.get("mixed_map") or []):
                if cell.get("winner") is not None and not 0 <= cell["winner"] < len(cell["methods"]):
                    raise ValueError("verdict.mixed_map[%d].winner is not the index of a method" % i)
    except ValueError as e:
        raise InputError("%s: malformed %s: %s" % (path, kind, e)) from None
    return body


@dataclass(frozen=True)
class Finding:
    rule: str                # e.g. driver_vs_halves
    severity: str            # timing-bug, warning, note (the C++ checks decide which)
    rows: Tuple[str, ...]    # row names without the timing suffix; empty: about the whole run
    message: str
    cause: str = ""          # a known cause several findings share word for word


@dataclass
class Audit:
    path: str                # the sidecar it was read from
    clean: bool
    rules_checked: List[str]
    rows_checked: int
    findings: List[Finding]  # in the audit's order: findings[N - 1] is the one "†N" cites
    thresholds: Dict[str, float]


def parse_audit(path: str, body: dict) -> Audit:
    findings = [Finding(f["rule"], f["severity"], tuple(strip_timing_suffix(r) for r in f.get("rows") or []),
                        f["message"], f.get("cause") or "") for f in body["findings"]]
    return Audit(path, body["clean"], list(body["rules_checked"]), body["rows_checked"], findings,
                 dict(body.get("thresholds") or {}))


def load_audit(results_path: str) -> Optional[Audit]:
    """The audit beside a results file (X.audit.json); None when there is none."""
    path = sidecar_path(results_path, "audit")
    body = load_sidecar(path, "audit")
    return None if body is None else parse_audit(path, body)


def load_verdict(results_path: str) -> Optional[dict]:
    """The verdict beside a results file (X.verdict.json), checked; None when there is none."""
    return load_sidecar(sidecar_path(results_path, "verdict"), "verdict")

