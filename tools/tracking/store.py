"""The run store: one small JSON file per solve_bench run, grouped by testbed, append-only.

    STORE/<testbed>/<UTC date>-<hash>.json      e.g. STORE/vm/20261130T154033Z-3f9c0a1b2d.json

<hash> is the start of the SHA-256 of the run file that was added, so adding the same run
twice finds the file already there. A stored run is written to a temporary file in the same
folder and then hard-linked to its name, which fails rather than replace a file that exists.

Reads every format solve_bench writes through tools/sbjson.py (Google Benchmark JSON, the
rows log X.rows.jsonl and a killed run's X.rows.jsonl.partial, concatenated logs); what is
stored is this module's own format (FORMAT), which does not move when sbjson does.

Beside the runs, STORE/<testbed>/answers/ holds what `tools/track bisect` and `confirm` found
for a change point (one JSON file each, replaced by a later answer to the same question).
Standard library only.
"""
import datetime
import hashlib
import json
import os
import re
import tempfile

import sbjson  # tools/, on the path of whatever imports tracking

FORMAT = "solve_bench-track/1"
# The context keys kept as a run's environment fingerprint (the cause of a change point is
# the keys that differ across it). Keys a run lacks are simply absent from its fingerprint.
FINGERPRINT_KEYS = (
    "cpu_model", "gpu_name", "cuda_driver_version", "cuda_runtime_version", "cusolver_version",
    "blas_vendor", "blas_version", "blas_core", "blas_threads", "blas_library", "blas_variant",
    "blas_config", "lapack_version",
    "compiler", "solve_bench_build_type", "library_build_type", "solve_bench_version",
    "solve_bench_commit", "cpu_governor", "cores_available", "thread_env", "gpu_sm_clock_khz",
)  # not cpu_peak_fp64_GFLOPs: its clock may be measured, and moves from run to run
# A context with none of these was not written by solve_bench.
SOLVE_BENCH_MARKERS = ("solve_bench_version", "solve_bench_commit")
RUN_FILE = re.compile(r"^\d{8}T\d{6}Z-[0-9a-f]{10}\.json$")
# What solve_bench writes beside a run, read with it (audit, verdict.md) or not at all: never a run.
SIDECAR_SUFFIXES = (".audit.json", ".verdict.json", ".verdict.md", ".csv")
# A run's file name less its format: X.json, X.rows.jsonl, X.rows.jsonl.partial, X.jsonl -> X.
RUN_SUFFIXES = (".rows.jsonl.partial", ".rows.jsonl", ".jsonl", ".json")


class InputError(Exception):
    """Input that is not a solve_bench run, or a store file that is not a stored run."""


def row_key(name: str, row_id) -> str:
    """A row's identity across runs: sbjson's row key (its id, else its name)."""
    return sbjson.row_key_of(row_id, name)


def parse_date(text) -> datetime.datetime:
    """An ISO 8601 date (Google Benchmark's context `date`) as an aware UTC datetime."""
    if not isinstance(text, str):
        raise ValueError("no date")
    value = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=datetime.timezone.utc)
    return value.astimezone(datetime.timezone.utc)


def is_sidecar(path: str) -> bool:
    return path.endswith(SIDECAR_SUFFIXES)


def run_stem(path: str) -> str:
    """dir/X.json, dir/X.rows.jsonl(.partial) -> dir/X: the name the sidecars share."""
    for suffix in RUN_SUFFIXES:
        if path.endswith(suffix) and len(path) > len(suffix):
            return path[: -len(suffix)]
    return path


def _read_run(path: str):
    """(context, benchmark entries, the file's bytes, notes) of any run file solve_bench writes."""
    try:
        results = sbjson.load(path)
        with open(path, "rb") as f:
            data = f.read()
    except sbjson.InputError as e:
        raise InputError(str(e)) from None
    except OSError as e:
        raise InputError("%s: %s" % (path, e.strerror)) from e
    if not results.context:
        raise InputError("%s: not a solve_bench run: no \"context\" object" % path)
    return results.context, results.rows, data, results.notes


def rows_of(entries, path="run") -> list:
    """One row per row key, as sbjson pools them (repetitions; a run of aggregates only: its
    median aggregate): its median time in ms, its error, and the counters the store keeps."""
    try:
        pooled = sbjson.summarize(entries)
    except (KeyError, TypeError, ValueError) as err:
        raise InputError("%s: not a solve_bench run (%s)" % (path, err)) from None
    rows = []
    for r in pooled.values():
        if not r.samples_ms and not (r.error or r.skipped):
            continue  # only mean/stddev/cv aggregates: nothing to take a median of
        row = {"name": r.name}
        if isinstance(r.id, dict):
            row["id"] = r.id
        if r.error or r.skipped:
            row["error"], row["median_ms"] = str(r.error or r.skipped), None
        else:
            row["median_ms"] = float("%.6g" % r.median_ms)  # 6 digits: noise is >= 0.1%
        row["repetitions"] = r.repetitions or len(r.samples_ms)
        for counter in ("noise_pct", "samples", "cpu_other_busy"):
            value = r.counter(counter)
            if value is not None:
                row[counter] = value
        rows.append(row)
    return rows


def _audit(path: str):
    try:
        audit = sbjson.load_sidecar(sbjson.sidecar_path(path, "audit"), "audit")
    except sbjson.InputError as e:
        raise InputError("%s: its audit sidecar: %s" % (path, e)) from None
    if audit is None:
        return None
    # The checks' thresholds with it: the tracker judges by them (a change in load, a change
    # point's minimum), never by numbers of its own.
    return {"clean": audit["clean"], "findings": list(audit["findings"]),
            "thresholds": dict(audit.get("thresholds") or {})}


def _verdict_md(path: str):
    verdict = run_stem(path) + ".verdict.md"
    if not os.path.exists(verdict):
        return None
    with open(verdict, encoding="utf-8", errors="replace") as f:
        return f.read()


def safe_testbed(name: str) -> str:
    """A testbed name usable as a folder name."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", name).strip(".")
    return safe or "unnamed"


def record_of(path: str, testbed=None, notes=None) -> dict:
    """The stored form of the run in `path`: its rows, audit, verdict and fingerprint. What
    reading left out (a torn last line of a killed run's log) is appended to `notes`."""
    context, entries, data, read_notes = _read_run(path)
    if not any(k in context for k in SOLVE_BENCH_MARKERS):
        raise InputError("%s: not a solve_bench run: its context has none of %s"
                         % (path, ", ".join(SOLVE_BENCH_MARKERS)))
    try:
        date = parse_date(context.get("date"))
    except ValueError:
        raise InputError("%s: context date %r is not an ISO 8601 date" % (path, context.get("date"))) from None
    rows = rows_of(entries, path)  # stored without their key: load_stored() adds it
    if not rows:
        raise InputError("%s: a solve_bench run without rows" % path)
    record = {
        "format": FORMAT,
        "testbed": safe_testbed(testbed or str(context.get("host_name") or "unnamed")),
        "date": date.isoformat(),
        "source": {"file": os.path.basename(path), "sha256": hashlib.sha256(data).hexdigest()},
        "fingerprint": {k: context[k] for k in FINGERPRINT_KEYS if k in context},
        "rows": rows,
        "audit": _audit(path),
        "verdict_md": _verdict_md(path),
    }
    for row in rows:
        row["key"] = row_key(row["name"], row.get("id"))
    if notes is not None:
        notes.extend(read_notes)
    return record


def file_name(record: dict) -> str:
    stamp = parse_date(record["date"]).strftime("%Y%m%dT%H%M%SZ")
    return "%s-%s.json" % (stamp, record["source"]["sha256"][:10])


def dumps(record: dict) -> str:
    """A stored run as JSON text: one row a line, so that a diff of two runs reads."""
    head = json.dumps({k: v for k, v in record.items() if k != "rows"}, indent=1, sort_keys=True)
    rows = ",\n".join("  " + json.dumps({k: v for k, v in r.items() if k != "key"}, sort_keys=True)
                      for r in record["rows"])
    return head[:-2] + ',\n "rows": [\n' + rows + "\n ]\n}\n"


def same_run(folder: str, record: dict):
    """A stored run of this testbed that is `record` in another format (X.json and its rows log
    X.rows.jsonl, or the .partial log of a killed run): the same date and the same file stem."""
    stamp = file_name(record)[:16]
    stem = run_stem(record["source"]["file"])
    for name in sorted(os.listdir(folder)):
        if name.startswith(stamp) and RUN_FILE.match(name) and name != file_name(record):
            try:
                with open(os.path.join(folder, name)) as f:
                    other = json.load(f)
            except (OSError, ValueError):
                continue
            if run_stem(str((other.get("source") or {}).get("file"))) == stem and other.get("date") == record["date"]:
                return os.path.join(folder, name)
    return None


def write(store: str, record: dict) -> tuple:
    """Write one run into the store; (path, False) when it was stored already (this file, or
    the same run in another format). Raises InputError when a different file has its name: a
    stored run is never replaced."""
    folder = os.path.join(store, record["testbed"])
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, file_name(record))
    other = same_run(folder, record)
    if other:
        return other, False
    text = dumps(record)
    try:
        write_whole(folder, text, lambda tmp: os.link(tmp, path))  # link: fails instead of replacing
    except FileExistsError:
        with open(path) as f:
            if f.read() == text:
                return path, False
        raise InputError("%s exists with other content: not overwritten (run %s)"
                         % (path, record["source"]["file"])) from None
    return path, True


def write_whole(folder: str, text: str, place):
    """text into a temporary file of `folder`, synced, then place(temporary path) puts it at its
    name (os.link or os.replace); the temporary file is gone afterwards either way."""
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=folder)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # as open() would make it, not mkstemp's 0600
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        place(tmp)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def load_stored(path: str) -> dict:
    try:
        with open(path) as f:
            record = json.load(f)
        if record.get("format") != FORMAT:
            raise ValueError("format is %r, not %r" % (record.get("format"), FORMAT))
        parse_date(record["date"])
        for row in record["rows"]:
            if not isinstance(row.get("name"), str):
                raise ValueError("a row without a name")
            row["key"] = row_key(row["name"], row.get("id"))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise InputError("%s: not a stored run (%s)" % (path, e)) from None
    record["path"] = path
    return record


def testbeds(store: str) -> dict:
    """{testbed: [stored run file, ...] oldest first} (by the UTC date their names begin with)."""
    if not os.path.isdir(store):
        raise InputError("%s: no such store" % store)
    found = {}
    for name in sorted(os.listdir(store)):
        folder = os.path.join(store, name)
        if name.startswith(".") or not os.path.isdir(folder):
            continue
        files = sorted(f for f in os.listdir(folder) if RUN_FILE.match(f))
        if files:
            found[name] = [os.path.join(folder, f) for f in files]
    return found


def load_store(store: str) -> dict:
    """{testbed: [stored run, ...] in run order (date, then file name)}."""
    out = {}
    for testbed, files in testbeds(store).items():
        records = [load_stored(f) for f in files]
        records.sort(key=lambda r: (parse_date(r["date"]), os.path.basename(r["path"])))
        out[testbed] = records
    return out


def prune(store: str, keep: int) -> list:
    """Remove all but the newest `keep` runs of each testbed; the removed files."""
    removed = []
    for files in testbeds(store).values():
        for path in files[: max(0, len(files) - keep)]:
            os.unlink(path)
            removed.append(path)
    return removed


# ---------------------------------------------------------------------------------- answers

ANSWER_FORMAT = "solve_bench-track-answer/1"


def answers_folder(store: str, testbed: str) -> str:
    return os.path.join(store, safe_testbed(testbed), "answers")


def write_answer(store: str, testbed: str, name: str, answer: dict) -> str:
    """Keep what bisect or confirm found (replacing an earlier answer of that name)."""
    folder = answers_folder(store, testbed)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, re.sub(r"[^A-Za-z0-9._-]", "_", name) + ".json")
    text = json.dumps(dict(answer, format=ANSWER_FORMAT), indent=1, sort_keys=True) + "\n"
    write_whole(folder, text, lambda tmp: os.replace(tmp, path))
    return path


def answers(store: str, testbed: str) -> list:
    """The answers kept for a testbed (each with its "path"); unreadable ones raise InputError."""
    folder = answers_folder(store, testbed)
    out = []
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else ():
        if not name.endswith(".json") or name.startswith("."):
            continue
        path = os.path.join(folder, name)
        try:
            with open(path) as f:
                answer = json.load(f)
            if answer.get("format") != ANSWER_FORMAT:
                raise ValueError("format is %r, not %r" % (answer.get("format"), ANSWER_FORMAT))
        except (OSError, ValueError, AttributeError) as e:
            raise InputError("%s: not a bisect or confirm answer (%s)" % (path, e)) from None
        answer["path"] = path
        out.append(answer)
    return out
