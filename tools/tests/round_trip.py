#!/usr/bin/env python3
"""Every format solve_bench writes, read by every reader that says it reads it (issue 31).

usage: round_trip.py --solve-bench BIN --checks BIN --work DIR [--compare-py PATH]

The current binary writes, at n = 64 (CPU rows, fp64): a run's X.json, X.rows.jsonl and its
sidecars X.audit.json, X.verdict.json, X.verdict.md; the same run's CSV (--benchmark_out_format=csv,
Y.csv); and a killed run's K.rows.jsonl.partial (SIGKILL once it has finished two rows). Then:

  solve_bench_checks  X.json, X.rows.jsonl, K.rows.jsonl.partial: the rows each holds (--rows-json),
                      the partial's a subset; a sidecar or the CSV refused (exit 2, the file named)
  tools/regress       X.json against X.rows.jsonl (one run: passes); the partial against X.json
                      on the partial's rows (read: every row judged)
  tools/report        X.json (its sidecars as they are), X.rows.jsonl, the partial: table.md
                      names the rows
  tools/track add     X.json, X.rows.jsonl, the partial, each stored with all its rows; the
                      glob X.* stores the run and skips its sidecars; the audit and verdict.md
                      beside a run stored with it
  compare.py          X.json against itself (Google Benchmark's own reader)
  csv, pandas         Y.csv has usage.md's columns and the run's rows and times (pandas where
                      installed: a visible skip where not)
  sbjson              the sidecars, through the tools' reader

Every failure is printed (format, reader, why) and the test fails at the end; exit 0 when all
passed, 1 when one failed, 2 on bad usage.
"""
import argparse
import csv
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

TOOLS = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
sys.path.insert(0, TOOLS)
import sbjson  # noqa: E402

FLAGS = ["--sizes=64", "--precisions=d", "--benchmark_filter=^CPU(-driver)?/d(ge|po)(sv|tr[fs])/n:",
         "--benchmark_min_time=0.01"]
SIDECARS = (".audit.json", ".verdict.json", ".verdict.md")
failures = []


def check(fmt, reader, ok, why=""):
    print("%s %-22s %-16s %s" % ("ok  " if ok else "FAIL", fmt, reader, "" if ok else why))
    if not ok:
        failures.append("%s read by %s: %s" % (fmt, reader, why))
    return ok


def run(cmd, env=None, timeout=300):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=dict(os.environ, **(env or {})))
    p.tail = "\n".join((p.stdout + p.stderr).strip().splitlines()[-8:])
    return p


def rows_of(checks, path, work):
    """The rows solve_bench_checks reads from a file: {name: median_ms}, or None (and why)."""
    out = os.path.join(work, "rows-%s.json" % os.path.basename(path))
    p = run([checks, path, "--no-files", "--rows-json=" + out])
    if p.returncode not in (0, 1):
        return None, "exit %d: %s" % (p.returncode, p.tail)
    with open(out) as f:
        return {r["row"]: r["median_ms"] for r in json.load(f)["rows"]}, ""


def kill_after_rows(exe, base, rows, work):
    """A run killed (SIGKILL) once its rows log holds `rows` finished rows: its .partial."""
    partial = base + ".rows.jsonl.partial"
    slow = [f for f in FLAGS if not f.startswith("--benchmark_min_time")] + ["--benchmark_min_time=0.4"]
    p = subprocess.Popen([exe, "--benchmark_out=" + base + ".json"] + slow, cwd=work,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and p.poll() is None:
            if os.path.exists(partial):
                with open(partial) as f:
                    if sum(1 for line in f if line.endswith("\n")) >= rows + 1:  # + the context line
                        break
            time.sleep(0.05)
    finally:
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
        p.wait()
    return partial if os.path.exists(partial) else None


def stored(store):
    out = []
    for path in sorted(glob.glob(os.path.join(store, "*", "*.json"))):
        with open(path) as f:
            out.append(json.load(f))
    return out


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--solve-bench", required=True)
    parser.add_argument("--checks", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--compare-py")
    args = parser.parse_args(argv)
    os.makedirs(args.work, exist_ok=True)
    work = tempfile.mkdtemp(prefix="round_trip_", dir=args.work)
    exe, checks = os.path.realpath(args.solve_bench), os.path.realpath(args.checks)
    env_tools = {"SOLVE_BENCH_CHECKS": checks}

    # ------------------------------------------------------------------ the writers
    x = os.path.join(work, "run", "X")
    os.makedirs(os.path.dirname(x))
    p = run([exe, "--benchmark_out=" + x + ".json"] + FLAGS)
    if p.returncode != 0:
        print("FAIL solve_bench did not write the run: exit %d\n%s" % (p.returncode, p.tail))
        return 1
    written = [x + ext for ext in (".json", ".rows.jsonl") + SIDECARS]
    check("X.*", "solve_bench", all(map(os.path.exists, written)),
          "missing: %s" % [w for w in written if not os.path.exists(w)])
    y = os.path.join(work, "csv", "Y")
    os.makedirs(os.path.dirname(y))
    p = run([exe, "--benchmark_out=" + y + ".csv", "--benchmark_out_format=csv"] + FLAGS)
    check("Y.csv", "solve_bench", p.returncode == 0 and os.path.exists(y + ".csv"), "exit %d: %s" % (p.returncode, p.tail))
    partial = kill_after_rows(exe, os.path.join(work, "killed", "K"), 2,
                              os.makedirs(os.path.join(work, "killed")) or os.path.join(work, "killed"))
    check("K.rows.jsonl.partial", "solve_bench (killed)", partial is not None, "a killed run left no .partial")
    with open(x + ".json") as f:
        doc = json.load(f)
    names = sorted({b["run_name"] if "run_name" in b else b["name"] for b in doc["benchmarks"]})
    short = sorted(sbjson.strip_timing_suffix(n) for n in names)

    # ------------------------------------------------------------------ solve_bench_checks
    full, why = rows_of(checks, x + ".json", work)
    check("X.json", "solve_bench_checks", full is not None and sorted(full) == short,
          why or "rows %s, the run wrote %s" % (sorted(full or []), short))
    log, why = rows_of(checks, x + ".rows.jsonl", work)
    check("X.rows.jsonl", "solve_bench_checks", log is not None and log == full,
          why or "not the JSON's rows and medians: %s" % log)
    part = None
    if partial:
        part, why = rows_of(checks, partial, work)
        check("K.rows.jsonl.partial", "solve_bench_checks",
              part is not None and len(part) >= 2 and set(part) <= set(short),
              why or "rows %s (want 2 or more, all of them the run's)" % sorted(part or []))
    for bad in [x + ".audit.json", x + ".verdict.json", x + ".verdict.md", y + ".csv"]:
        p = run([checks, bad, "--no-files"])
        check(os.path.basename(bad), "solve_bench_checks", p.returncode == 2 and bad in p.stderr,
              "exit %d (want 2, naming the file): %s" % (p.returncode, p.tail))

    # ------------------------------------------------------------------ tools/regress
    out = os.path.join(work, "regress.json")
    p = run([sys.executable, os.path.join(TOOLS, "regress"), "--checks", checks, "--json", out,
             x + ".json", x + ".rows.jsonl"])
    check("X.json + X.rows.jsonl", "tools/regress", p.returncode in (0, 3) and os.path.exists(out),
          "one run against itself: exit %d: %s" % (p.returncode, p.tail))
    if part:
        regex = "^(%s)(/manual_time)?$" % "|".join(re.escape(n) for n in part)
        p = run([sys.executable, os.path.join(TOOLS, "regress"), "--checks", checks, "--json", out,
                 "--filter", regex, partial, x + ".json"])
        judged = []
        if p.returncode in (0, 1, 3) and os.path.exists(out):
            with open(out) as f:
                judged = [r.get("row") or r.get("name") for r in json.load(f)["compare"]["rows"]]
        check("K.rows.jsonl.partial", "tools/regress", p.returncode in (0, 1, 3) and len(judged) == len(part),
              "exit %d, rows judged %s of %d: %s" % (p.returncode, len(judged), len(part), p.tail))

    # ------------------------------------------------------------------ tools/report
    inputs = [("X.json", x + ".json"), ("X.rows.jsonl", x + ".rows.jsonl")]
    if partial:
        inputs.append(("K.rows.jsonl.partial", partial))
    for label, path in inputs:
        dest = os.path.join(work, "report-" + label)
        p = run([sys.executable, os.path.join(TOOLS, "report"), "--checks", checks, "--out", dest,
                 "--formats", "svg", path])
        table = open(os.path.join(dest, "table.md")).read() if os.path.exists(os.path.join(dest, "table.md")) else ""
        want = sorted(part) if label.startswith("K") else short
        check(label, "tools/report", p.returncode == 0 and all(n.split("/")[1] in table for n in want),
              "exit %d, table.md %s: %s" % (p.returncode, "written" if table else "missing", p.tail))

    # ------------------------------------------------------------------ tools/track add
    track = os.path.join(TOOLS, "track")
    for label, path, count in [("X.json", x + ".json", len(short)), ("X.rows.jsonl", x + ".rows.jsonl", len(short)),
                               ("K.rows.jsonl.partial", partial, len(part or []))]:
        if not path:
            continue
        store = os.path.join(work, "store-" + label)
        p = run([sys.executable, track, "add", "--store", store, path], env=env_tools)
        runs = stored(store) if p.returncode == 0 else []
        check(label, "tools/track add",
              p.returncode == 0 and len(runs) == 1 and len(runs[0].get("rows", [])) == count,
              "exit %d, %d runs stored (want 1 with %d rows): %s" % (p.returncode, len(runs), count, p.tail))
    store = os.path.join(work, "store-glob")
    everything = sorted(glob.glob(x + ".*"))
    p = run([sys.executable, track, "add", "--store", store] + everything, env=env_tools)
    runs = stored(store) if p.returncode == 0 else []
    sources = sorted(os.path.basename((r.get("source") or {}).get("file", "")) for r in runs)
    check("X.* (with sidecars)", "tools/track add",
          p.returncode == 0 and runs and all(s in ("X.json", "X.rows.jsonl") for s in sources),
          "exit %d, stored %s: %s" % (p.returncode, sources, p.tail))
    if runs:
        with open(x + ".verdict.md") as f:
            md = f.read()
        with open(x + ".audit.json") as f:
            audit = json.load(f)["audit"]
        r = runs[0]
        check("X.audit.json, .verdict.md", "tools/track add",
              r.get("verdict_md") == md and len((r.get("audit") or {}).get("findings", [])) == len(audit["findings"]),
              "the stored run lacks its sidecars' audit or verdict")

    # ------------------------------------------------------------------ compare.py
    if args.compare_py and os.path.exists(args.compare_py):
        p = run([sys.executable, args.compare_py, "benchmarks", x + ".json", x + ".json"])
        check("X.json", "compare.py", p.returncode == 0 and all(n in p.stdout for n in names[:3]),
              "exit %d: %s" % (p.returncode, p.tail))
    else:
        print("skip X.json               compare.py       (no compare.py given: Debian libbenchmark-tools)")

    # ------------------------------------------------------------------ the CSV
    with open(y + ".csv", newline="") as f:
        table = list(csv.DictReader(f))
    columns = set(table[0]) if table else set()
    need = {"name", "backend", "op", "precision", "n", "run_type", "time_ms", "error_message"}
    csv_rows = {r["name"]: float(r["time_ms"]) for r in table if r.get("run_type") == "iteration"}
    check("Y.csv", "csv", need <= columns and sorted(csv_rows) == short and all(v > 0 for v in csv_rows.values()),
          "columns %s, rows %s" % (sorted(need - columns), sorted(csv_rows)))
    try:
        import pandas  # noqa: F401 (python3-pandas; tools/quickstart test installs it)
    except ImportError:
        print("skip Y.csv                pandas           (no pandas in %s)" % sys.executable)
    else:
        df = pandas.read_csv(y + ".csv")
        check("Y.csv", "pandas", sorted(set(df["name"])) == short, "rows %s" % sorted(set(df["name"])))
        lines = pandas.read_json(x + ".rows.jsonl", lines=True)
        check("X.rows.jsonl", "pandas", sorted(set(lines["name"].dropna()).__iter__()) == names,
              "rows %s" % sorted(set(lines["name"].dropna())))

    # ------------------------------------------------------------------ the sidecars, as the tools read them
    try:
        audit, verdict = sbjson.load_audit(x + ".json"), sbjson.load_verdict(x + ".json")
        check("X.audit.json, .verdict.json", "sbjson", audit is not None and verdict is not None, "absent")
    except sbjson.InputError as e:
        check("X.audit.json, .verdict.json", "sbjson", False, str(e))

    if failures:
        print("round_trip: %d failed:\n  %s" % (len(failures), "\n  ".join(failures)))
        return 1
    print("round_trip: every format read by every reader")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
