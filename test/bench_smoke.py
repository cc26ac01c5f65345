#!/usr/bin/env python3
"""Smoke runs of the solve_bench binary whose output is checked, not just the exit code.

usage: bench_smoke.py CASE SOLVE_BENCH WORKDIR [SOLVE_BENCH_CHECKS]
(issue 21, "lose nothing": bench_lose_nothing.py)
  run          tiny CPU sweep: exit 0, every expected row, counters, resid < 16, context, rows log
  singular     a singular matrix: named error per row, other rows still run, exit 1
  usage        bad flags and environment values: one line naming the problem, exit 2; --help
  badinput     NaN in A names its place; a size larger than host memory is refused with needed vs
               available bytes; the other rows still run and pass
  checks       a run ends with its audit and verdict and writes them beside the JSON; with
               OPENBLAS_NUM_THREADS=1 the audit names it, without it stays silent on it;
               solve_bench_checks on the saved JSON gives the verdict the run gave
  aggregates   --benchmark_report_aggregates_only and --benchmark_display_aggregates_only keep
               the audit and the verdict, on the console and beside the JSON (issue 20)
  console      the table, the progress lines and the help read right (issue 26 items 2 and 5;
               issue 31 item 7)
  rounds       rounds shuffled per round from the seed, --benchmark_repetitions as rounds,
               compare.py on two runs, --processes into one log, --span and its default (issue 30)
  history      --history=STORE: each row's ± at least the spread of the tools/track record of it,
               named in the header and the context; solve_bench_checks the same; bad stores refused
  memory       (GPU) every GPU row built twice gives back all its device memory the second time
"""

import json
import os
import re
import subprocess

import smoke_lib as sb
from smoke_history import case_history
from smoke_rounds import case_rounds
from smoke_lib import (BLAS_VENDOR, CONTEXT_KEYS, ROW_LINE, THRESHOLD, WIDTH, dense_operations, fail, load_rows_log,
                       no_build_paths, require_gpu, run, table_lines, usage_error)


def case_run(exe, work):
    out = os.path.join(work, "run.json")
    sizes = [16, 33]
    p = run(exe, ["--sizes=16,33", "--nrhs=1,2", "--benchmark_min_time=5x", "--batch_n=4,9",
                  "--batch_count=3,20", "--mixed_kinds=diagdom,uniform", "--refine=classical,gmres",
                  "--benchmark_out=" + out, "--benchmark_out_format=json"])
    print(p.stderr[-2000:])
    if p.returncode != 0:
        fail("exit status %d" % p.returncode)
    doc = json.load(open(out))
    reps = sb.repetitions(doc)
    names = {name: rounds[-1] for name, rounds in reps.items()}
    expected = []
    ops_rhs, ops_no_rhs = dense_operations(out)  # the checks' table of operations, from the run's sidecar
    for prec in "ds":
        for op in ops_rhs:
            expected += ["CPU/%s%s/n:%d/nrhs:%d/manual_time" % (prec, op, n, k) for n in sizes for k in (1, 2)]
        for op in ops_no_rhs:
            expected += ["CPU/%s%s/n:%d/manual_time" % (prec, op, n) for n in sizes]
    missing = [e for e in expected if e not in names]
    if missing:
        fail("missing rows: %s" % missing)
    for name in expected:
        b = names[name]
        if b.get("error_occurred"):
            fail("%s: %s" % (name, b.get("error_message")))
        for key in ("GFLOP/s", "resid", "n", "id", "samples", "noise_pct", "noise_within_pct", "round", "process",
                    "rounds", "processes"):
            if key not in b:
                fail("%s has no %s" % (name, key))
        # The default (issue 30): 3 processes of one round each, each round a repetition, then the aggregates.
        slots = [(r["process"], r["round"]) for r in reps[name]]
        if slots != [(k, 0) for k in range(3)] or {r["rounds"] for r in reps[name]} != {3} or \
                [r["repetition_index"] for r in reps[name]] != list(range(3)) or b["processes"] != 3:
            fail("%s: (process, round) %r, repetition_index %r" % (name, slots,
                                                                    [r["repetition_index"] for r in reps[name]]))
        if sorted(sb.aggregates(doc).get(name, {})) != ["cv", "mean", "median", "stddev"]:
            fail("%s: aggregates %r" % (name, sorted(sb.aggregates(doc).get(name, {}))))
        if not (0 <= b["resid"] < THRESHOLD):
            fail("%s: resid %r" % (name, b["resid"]))
        if not b["GFLOP/s"] > 0:
            fail("%s: GFLOP/s %r" % (name, b["GFLOP/s"]))
        if b["n"] != int(name.split("/n:")[1].split("/")[0]) or b["id"]["n"] != b["n"]:
            fail("%s: counter n = %r, id %r" % (name, b["n"], b["id"]))
        if b["iterations"] != b["samples"] or "samples_ms" in b:
            fail("%s: iterations %r are not the row's timed calls %r, or samples_ms in the JSON"
                 % (name, b["iterations"], b["samples"]))
    # Mixed precision and batched families, with their own counters.
    mixed = ["CPU/%s/n:%d/nrhs:1/kind:%s%s/manual_time" % (op, n, k, tail)
             for n in sizes for k in ("diagdom", "uniform")
             for op, tail in (("dgesv", ""), ("dsgesv", "/refine:classical"))]
    batched = ["CPU/%s%s_batched/n:%d/batch:%d/manual_time" % (p_, op, n, c)
               for p_ in "ds" for op in ("gesv", "posv") for n in (4, 9) for c in (3, 20)]
    for name, keys in [(m, ("GFLOP/s", "resid") + (("niters", "fell_back") if "dsgesv" in m else ()))
                       for m in mixed] + [(b, ("GFLOP/s", "resid", "systems/s", "worst_system")) for b in batched]:
        b = names.get(name)
        if b is None or b.get("error_occurred"):
            fail("%s: %r" % (name, b))
        missing_keys = [k for k in keys if k not in b]
        if missing_keys or not b["resid"] < THRESHOLD:
            fail("%s: missing %s or resid %r" % (name, missing_keys, b["resid"]))
    expected += mixed + batched
    for key in CONTEXT_KEYS:
        if key not in doc["context"]:
            fail("context lacks %s" % key)
    ctx = doc["context"]
    if BLAS_VENDOR and ctx["blas_vendor"] != BLAS_VENDOR:
        fail("built for %s, but the run's library is %r (%r)" % (BLAS_VENDOR, ctx["blas_vendor"], ctx["blas_config"]))
    if BLAS_VENDOR == "OpenBLAS" and "OpenBLAS" not in ctx["blas_config"]:
        fail("blas_config does not name OpenBLAS: %r" % ctx["blas_config"])
    if not ctx["blas_version"] or ctx["blas_version"] not in ctx["blas_config"]:
        fail("blas_version %r is not the one blas_config states: %r" % (ctx["blas_version"], ctx["blas_config"]))
    gpu = doc["context"]["gpu_rows"]
    if gpu.startswith("absent") and "GPU rows not registered" not in p.stderr:
        fail("GPU rows absent but no line says why")
    if gpu == "registered":
        # Every CPU row has its GPU twin, plus the transfer-inclusive gesv/posv rows.
        twins = [e.replace("CPU/", "GPU/", 1) for e in expected]
        for backend in ("GPU-pinned", "GPU-pageable"):
            twins += ["%s/%s%s/n:%d/nrhs:%d/manual_time" % (backend, p_, op, n, k)
                      for p_ in "ds" for op in ("gesv", "posv") for n in sizes for k in (1, 2)]
        missing = [t for t in twins if t not in names]
        if missing:
            fail("missing GPU rows: %s" % missing)
        for t in twins:
            b = names[t]
            if b.get("error_occurred") or not (0 <= b.get("resid", 99) < THRESHOLD):
                fail("%s: %s resid=%r" % (t, b.get("error_message"), b.get("resid")))
        for key in ("gpu_name", "gpu_sm_count", "cuda_driver_version", "cuda_runtime_version", "cusolver_version",
                    "gpu_compute_capability"):
            if key not in doc["context"]:
                fail("context lacks %s" % key)
        expected += twins
    if os.path.exists(os.path.join(work, "run.rows.jsonl.partial")):
        fail("the live rows log was not renamed at the end")
    ctx, logged = load_rows_log(os.path.join(work, "run.rows.jsonl"))
    if ctx is None or "blas_config" not in ctx:
        fail("rows log has no context line")
    if sorted(sb.slots(logged)) != sorted((name, r["process"], r["round"]) for name in names for r in reps[name]):
        fail("the rows log and the JSON hold different rows and rounds")
    # Each round of each process runs the rows in an order of its own.
    orders = [[name for name, p, r in sb.slots(logged) if (p, r) == (k, 0)] for k in range(3)]
    if len({tuple(o) for o in orders}) < 2:
        fail("every round ran the rows in the same order")
    if not all(b.get("samples_ms") and len(b["samples_ms"]) == min(256, b["samples"]) for b in logged):
        fail("rows log entries lack their samples_ms")
    print("ok: %d rows, all resid < 16" % len(expected))


def case_singular(exe, work):
    out = os.path.join(work, "singular.json")
    p = run(exe, ["--sizes=40", "--kind=singular", "--precisions=d", "--benchmark_min_time=5x",
                  "--benchmark_filter=^CPU/d(gesv|getrf|gemm)/n:40(/nrhs:1)?/manual_time$", "--benchmark_out=" + out])
    print(p.stdout[-1500:], p.stderr[-1500:])
    if p.returncode != 1:
        fail("expected exit 1, got %d" % p.returncode)
    doc = json.load(open(out))
    rows = {b["name"]: b for b in doc["benchmarks"]}
    for name in ("CPU/dgesv/n:40/nrhs:1/manual_time", "CPU/dgetrf/n:40/manual_time"):
        b = rows.get(name)
        if not b or not b.get("error_occurred"):
            fail("%s should have failed" % name)
        if "singular matrix" not in b["error_message"] or "pivot 21" not in b["error_message"]:
            fail("%s: error does not name the singular pivot: %r" % (name, b["error_message"]))
        if "%s: LAPACKE_dgetrf: singular matrix" % name.replace("/manual_time", "") not in p.stderr:
            fail("stderr summary does not name the row and its error")
    gemm = rows.get("CPU/dgemm/n:40/manual_time")
    if not gemm or gemm.get("error_occurred") or not gemm["resid"] < THRESHOLD:
        fail("the other rows must still run and pass: %r" % gemm)
    no_build_paths(p.stdout + p.stderr + " ".join(b.get("error_message", "") for b in doc["benchmarks"]),
                   "a failed row's message")
    print("ok: singular rows named their pivot, gemm still ran, exit 1")


def case_usage(exe, work):
    cases = [
        (["--sizes=0"], {}, "--sizes: 0 must be at least 1"),
        (["--sizes=12x"], {}, "'12x' is not an integer"),
        (["--sizes=99999999999"], {}, "too large"),
        (["--nrhs=-2"], {}, "must be at least 1"),
        (["--kind=hilbert"], {}, "unknown matrix kind 'hilbert'"),
        (["--precisions=q"], {}, "'q' is not a precision"),
        (["--frobnicate"], {}, "unknown argument '--frobnicate'"),
        (["--sizes"], {}, "--sizes needs a value"),
        (["--benchmark_filter=("], {}, "is not a regular expression"),
        ([], {"SOLVE_BENCH_SIZES": "abc"}, "environment variable SOLVE_BENCH_SIZES: 'abc' is not an integer"),
        ([], {"SOLVE_BENCH_KIND": "x"}, "SOLVE_BENCH_KIND"),
    ]
    for args, env, needle in cases:
        filtered = any(a.startswith("--benchmark_filter") for a in args)
        usage_error(run(exe, args + ([] if filtered else ["--benchmark_filter=none"]), env), needle)
    p = run(exe, ["--help"])
    if p.returncode != 0 or "--sizes" not in p.stdout or "Exit status: 0" not in p.stdout:
        fail("--help")
    for code in ("0 every row ran", "1 a row failed", "2 bad flags", "4 nothing was measured"):
        if code not in p.stdout:
            fail("--help does not document exit status %r" % code)
    # --benchmark_min_time in either spelling ("0.01", "0.01s"), whichever Google Benchmark is
    # linked (solve_bench samples the rows itself); the environment variable too.
    for args, env in ((["--benchmark_min_time=0.01"], {}), (["--benchmark_min_time=0.01s"], {}),
                      ([], {"BENCHMARK_MIN_TIME": "0.01s"}), ([], {"BENCHMARK_MIN_TIME": "0.01"})):
        p = run(exe, args + ["--sizes=16", "--precisions=d", "--benchmark_filter=^CPU/dgesv/n:16/nrhs:1/manual_time"],
                env)
        if p.returncode != 0 or "CPU/dgesv/n:16/nrhs:1 " not in p.stdout:
            fail("%s %s: min_time spelling refused (exit %d):\n%s" % (args, env, p.returncode, p.stderr))
    print("ok: %d bad inputs rejected with exit 2 in one line; both min_time spellings accepted" % len(cases))


def case_badinput(exe, work):
    out = os.path.join(work, "badinput.json")
    p = run(exe, ["--sizes=40", "--kind=nan", "--precisions=d", "--benchmark_min_time=5x",
                  "--benchmark_filter=^CPU/d(gesv|posv)/n:[0-9]+/nrhs:1/manual_time", "--benchmark_out=" + out])
    print(p.stderr[-1500:])
    if p.returncode != 1:
        fail("NaN input: expected exit 1, got %d" % p.returncode)
    for b in json.load(open(out))["benchmarks"]:
        if not b.get("error_occurred") or "holds NaN at (20,20)" not in b["error_message"]:
            fail("NaN input: %s: %r" % (b["name"], b.get("error_message")))

    huge = 3000000  # 2 n^2 doubles: 144 TB
    p = run(exe, ["--sizes=%d,32" % huge, "--precisions=d", "--benchmark_min_time=5x",
                  "--benchmark_filter=^CPU/dgesv/n:[0-9]+/nrhs:1/manual_time", "--benchmark_out=" + out])
    print(p.stderr[-1500:])
    rows = {b["name"]: b for b in json.load(open(out))["benchmarks"]}
    big = rows.get("CPU/dgesv/n:%d/nrhs:1/manual_time" % huge)
    msg = (big or {}).get("error_message", "")
    if not big or not big.get("error_occurred") or not msg.startswith("skipped: not enough host memory: needed") \
            or "available" not in msg:
        fail("oversized row: %r" % big)
    small = rows.get("CPU/dgesv/n:32/nrhs:1/manual_time")
    if not small or small.get("error_occurred") or not small["resid"] < THRESHOLD:
        fail("the other row must still run: %r" % small)
    if p.returncode != 0 or "1 row(s) refused" not in p.stderr or "n:%d/nrhs:1: not enough host memory" % huge not in p.stderr:
        fail("a refused row is listed and does not fail the run (exit %d)" % p.returncode)
    print("ok: NaN named by position, oversized row refused with needed vs available, the rest ran")


def case_checks(exe, work):
    import math
    out = os.path.join(work, "checks.json")
    for stale in ("checks.audit.json", "checks.verdict.json", "checks.verdict.md"):
        if os.path.exists(os.path.join(work, stale)):
            os.remove(os.path.join(work, stale))
    quiet = {k: v for k, v in os.environ.items() if not k.startswith(("OPENBLAS_", "OMP_", "GOTO_", "MKL_", "BLIS_"))}
    args = ["--sizes=64,200", "--precisions=d", "--benchmark_min_time=5x",
            "--benchmark_filter=^CPU[^/]*/d(gesv|posv|getrf|getrs|potrf|potrs|gemm)/n:[0-9]+(/nrhs:1)?/manual_time",
            "--benchmark_out=" + out]
    p = subprocess.run([exe] + args, capture_output=True, text=True, env=dict(quiet, OPENBLAS_NUM_THREADS="1"),
                       timeout=600)
    print(p.stdout[-3000:], p.stderr[-1500:])
    if p.returncode != 0:
        fail("exit status %d" % p.returncode)
    # The run ends with the audit, then the verdict; the audit names the variable and its value.
    last_row = p.stdout.rindex("\nCPU")  # the console's last row line
    tail = p.stdout[last_row:]
    if "\naudit: " not in tail or "\nverdict\n" not in tail or tail.index("audit: ") > tail.index("verdict\n"):
        fail("the run does not end with its audit and verdict:\n" + p.stdout[-3000:])
    audit_text = tail[tail.index("audit: "):tail.index("verdict\n")]
    if "thread_env" not in audit_text or "OPENBLAS_NUM_THREADS=1" not in audit_text:
        fail("OPENBLAS_NUM_THREADS=1 is not named by the audit:\n" + audit_text)
    audit = json.load(open(os.path.join(work, "checks.audit.json")))["audit"]
    if not any(f["rule"] == "thread_env" and "OPENBLAS_NUM_THREADS=1" in f["message"] for f in audit["findings"]):
        fail("checks.audit.json lacks the thread_env finding: %r" % audit)
    for name in ("checks.verdict.json", "checks.verdict.md"):
        if not os.path.exists(os.path.join(work, name)):
            fail("%s was not written" % name)
    # The same verdict from the saved JSON by solve_bench_checks.
    if sb.CHECKS:
        prefix = os.path.join(work, "checks.again")
        q = subprocess.run([sb.CHECKS, "--out-prefix=" + prefix, out], capture_output=True, text=True, timeout=120)
        if q.returncode != 0:
            fail("solve_bench_checks: exit %d\n%s" % (q.returncode, q.stderr))
        ours, theirs = (json.load(open(os.path.join(work, "checks.verdict.json"))),
                        json.load(open(prefix + ".verdict.json")))

        def same(a, b, where):
            if isinstance(a, dict) and isinstance(b, dict):
                if sorted(a) != sorted(b):
                    fail("%s: keys %s vs %s" % (where, sorted(a), sorted(b)))
                for k in a:
                    same(a[k], b[k], where + "." + k)
            elif isinstance(a, list) and isinstance(b, list):
                if len(a) != len(b):
                    fail("%s: %d vs %d entries" % (where, len(a), len(b)))
                for i, (x, y) in enumerate(zip(a, b)):
                    same(x, y, "%s[%d]" % (where, i))
            elif isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
                if not math.isclose(a, b, rel_tol=1e-9):
                    fail("%s: %r (solve_bench) vs %r (solve_bench_checks)" % (where, a, b))
            elif a != b:
                fail("%s: %r vs %r" % (where, a, b))
        same(ours, theirs, "verdict")

    # Without the variable the audit says nothing about it.
    p = subprocess.run([exe] + args, capture_output=True, text=True, env=quiet, timeout=600)
    if p.returncode != 0 or "thread_env" in p.stdout:
        fail("a run without thread variables must not flag them (exit %d):\n%s" % (p.returncode, p.stdout[-2000:]))
    print("ok: audit and verdict at the end and beside the JSON; OPENBLAS_NUM_THREADS=1 named; verdicts agree")


def case_aggregates(exe, work):
    # Issue 20: every reporting flag keeps the audit and the verdict, on the console and beside
    # the JSON, aggregates-only included.
    for flag in ("--benchmark_report_aggregates_only=true", "--benchmark_display_aggregates_only=true"):
        out = os.path.join(work, "agg.json")
        for ext in (".json", ".audit.json", ".verdict.json", ".verdict.md"):
            if os.path.exists(os.path.join(work, "agg" + ext)):
                os.remove(os.path.join(work, "agg" + ext))
        p = subprocess.run([exe, "--sizes=64", "--precisions=d", "--benchmark_min_time=0.01",
                            "--benchmark_filter=^CPU/dgesv/n:64/nrhs:1/manual_time$", "--benchmark_repetitions=3",
                            flag, "--benchmark_out=" + out], capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            fail("%s: exit status %d\n%s" % (flag, p.returncode, p.stderr[-2000:]))
        if "\naudit: " not in p.stdout or "\nverdict\n" not in p.stdout:
            fail("%s: no audit or verdict on the console:\n%s" % (flag, p.stdout[-2000:]))
        audit = json.load(open(os.path.join(work, "agg.audit.json")))["audit"]
        verdict = json.load(open(os.path.join(work, "agg.verdict.json")))["verdict"]
        if audit["rows_checked"] != 1 or not isinstance(verdict, dict):
            fail("%s: the sidecars do not cover the row: %r" % (flag, audit))
    print("ok: aggregates-only runs end with their audit and verdict, sidecars written")


def case_console(exe, work):
    out = os.path.join(work, "console.json")
    p = run(exe, ["--sizes=16,33", "--precisions=d", "--benchmark_min_time=5x", "--batch_n=4",
                  "--batch_count=3", "--mixed_kinds=diagdom", "--refine=classical", "--benchmark_repetitions=2",
                  "--benchmark_filter=^CPU/d(gesv|sgesv|gesv_batched|getrf)/", "--benchmark_out=" + out])
    print(p.stdout[-4000:], p.stderr[-1500:])
    if p.returncode != 0:
        fail("exit status %d" % p.returncode)
    rows, above = table_lines(p.stdout)
    # What the times and the ± are, said once above the one header; the rate column named GFLOP/s.
    said = " ".join(above)
    if "a re-run lands within it 19 times in 20, from 2 rounds in one process" not in said or \
            any(len(l) > WIDTH for l in above):
        fail("the table does not say what its ± is: %r" % above)
    headers = [l for l, _ in rows if l.startswith("row ")]
    if len(headers) != 1 or "GFLOP/s" not in headers[0] or " FLOP" in headers[0] or "±re-run" not in headers[0]:
        fail("one header naming GFLOP/s and ±re-run, got %r" % headers)
    if rows[0][0] != headers[0] or not re.fullmatch(r"-{80,%d}" % WIDTH, rows[1][0]):
        fail("the table starts with its header and a rule: %r" % rows[:2])
    doc = json.load(open(out))
    reps, aggs = sb.repetitions(doc), sb.aggregates(doc)
    parsed = []
    for line, more in rows[2:]:
        m = ROW_LINE.match(line)
        if not m:
            fail("a table line that is not a row: %r" % line)
        # About 100 characters: a long row name may take a line further, and the notes 20 more.
        if len(line) - max(0, len(m.group("name")) - 40) > WIDTH + 20 or any(len(c) > WIDTH for c in more):
            fail("a line too long (%d): %r %r" % (len(line), line, more))
        parsed.append((m, " ".join([line] + [c.strip() for c in more])))
    # A line a row, in the order the rows were declared, each its rounds' summary.
    if [m.group("name") + "/manual_time" for m, _ in parsed] != list(reps):
        fail("table rows %r are not the JSON's rows %r" % ([m.group("name") for m, _ in parsed], list(reps)))
    units = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
    for (m, whole), name in zip(parsed, reps):
        rounds, median = reps[name], aggs[name]["median"]
        t, unit = m.group("time").split()
        if abs(float(t) * units[unit] - median["real_time"]) > 0.006 * median["real_time"]:
            fail("%s: time %s, the JSON's median over the rounds %r ns" % (name, m.group("time"), median["real_time"]))
        if abs(float(m.group("noise")) - rounds[0]["noise_pct"]) > 0.006 * rounds[0]["noise_pct"] + 0.01:
            fail("%s: ±%s%%, the JSON's noise_pct %r" % (name, m.group("noise"), rounds[0]["noise_pct"]))
        if int(m.group("calls")) != sum(r["iterations"] for r in rounds):
            fail("%s: calls %r, the rounds' %r" % (name, m.group("calls"), [r["iterations"] for r in rounds]))
        if abs(float(m.group("rate")) - median["GFLOP/s"]) > 0.006 * median["GFLOP/s"] + 1e-12:
            fail("%s: the GFLOP/s column says %r, the JSON's median %r" % (name, m.group("rate"), median["GFLOP/s"]))
        worst = max(r["resid"] for r in rounds)
        resid = m.group("resid")
        if not re.fullmatch(r"\d+(\.\d+)?(e-?\d+)?", resid or "") or abs(float(resid) - worst) > 0.006 * worst + 1e-15:
            fail("%s: resid %r, not the rounds' worst %r in plain notation" % (name, resid, worst))
        if "worst_system" in rounds[0]:
            w = re.search(r"worst system (\S+?)(,|$)", whole)
            if not w or not re.fullmatch(r"\d+", w.group(1)):
                fail("%s: worst system is an index: %r" % (name, whole))
    # cv in the JSON: stddev over mean, a fraction, as Google Benchmark writes it.
    for name, a in aggs.items():
        if abs(a["cv"]["real_time"] - a["stddev"]["real_time"] / a["mean"]["real_time"]) > 1e-9:
            fail("%s: cv %r is not stddev/mean" % (name, a["cv"]["real_time"]))
    # The audit and the verdict in lines of at most 100 characters.
    tail = "audit: " + p.stdout.split("\naudit: ", 1)[1]
    long_lines = [l for l in tail.splitlines() if len(l) > WIDTH]
    if long_lines:
        fail("audit/verdict lines over %d characters: %s" % (WIDTH, long_lines))
    # Progress on stderr (not a terminal: a line per row-round), [k/N] over the rounds, an ETA.
    progress = [re.match(r"Pass: \[(\d+)/(\d+)\] (\S+), round (\d)/2: \S+ \S+.*, \d+:\d\d elapsed, ETA \d+:\d\d$", l)
                for l in p.stderr.splitlines() if l.startswith("Pass:")]
    if not all(progress) or [int(m.group(1)) for m in progress] != list(range(1, 2 * len(reps) + 1)) or \
            {int(m.group(2)) for m in progress} != {2 * len(reps)}:
        fail("progress lines Pass: [k/%d] with an ETA on stderr, got %r" % (2 * len(reps), p.stderr[-3000:]))
    if any(re.match(r"(Run|Pass):", l) for l in p.stdout.splitlines()):
        fail("progress belongs on stderr")
    # --progress=off: no progress, but an error is still said as it happens.
    q = run(exe, ["--sizes=40", "--kind=singular", "--precisions=d", "--benchmark_min_time=5x", "--progress=off",
                  "--benchmark_filter=^CPU/d(gesv|gemm)/n:40(/nrhs:1)?/manual_time$"])
    if q.returncode != 1 or re.search(r"^(Run|Pass):", q.stderr, re.M) or \
            not re.search(r"^Fail: \[\d+/\d+\] CPU/dgesv/n:40/nrhs:1, round 1/1 of process 1/3: .*singular", q.stderr,
                          re.M):
        fail("--progress=off: no Run/Pass lines, the failure said (exit %d):\n%s" % (q.returncode, q.stderr))

    # A usage error: one line, a pointer to --help (no usage text after it).
    usage_error(run(exe, ["--sizes=0"]), "--sizes: 0 must be at least 1")
    usage_error(run(exe, ["--progress=maybe"]), "--progress: 'maybe' is not one of auto, lines, off")
    h = run(exe, ["--help"])
    if "--benchmark_list_tests" not in h.stdout or not re.search(r"--benchmark_filter=-\S+", h.stdout):
        fail("--help lists --benchmark_list_tests and a negative filter example:\n" + h.stdout)
    if [l for l in h.stdout.splitlines() if len(l) > WIDTH]:
        fail("--help lines over %d characters: %s" % (WIDTH, [l for l in h.stdout.splitlines() if len(l) > WIDTH]))
    # Every row failed: nothing to check, never "clean ... on 0 rows"; the errors stay in ~100 columns.
    s = run(exe, ["--sizes=40", "--kind=singular", "--precisions=d", "--benchmark_min_time=5x",
                  "--benchmark_filter=^CPU/d(gesv|getrf)/n:40(/nrhs:1)?/manual_time$"])
    if s.returncode != 1 or "\naudit: nothing to check" not in s.stdout or re.search(r"clean.*on 0 rows", s.stdout):
        fail("every row failed: expected 'audit: nothing to check', exit 1 (got %d):\n%s" % (s.returncode, s.stdout))
    for line, more in table_lines(s.stdout)[0][2:]:
        name = line.split()[0]
        if "ERROR" not in line or len(line) - max(0, len(name) - 40) > WIDTH or any(len(c) > WIDTH for c in more):
            fail("an error row over %d characters: %r %r" % (WIDTH, line, more))
    print("ok: what ± means above one header, a line a row (median, ±, calls, rate, worst resid of its rounds), "
          "cv in the JSON, ~100-column lines, Pass: [k/N] progress with ETA, --progress=off keeps errors, "
          "one-line usage errors, --help, 'nothing to check'")


def case_memory(exe, work):
    require_gpu(exe)
    p = run(exe, ["--sizes=64,300", "--batch_n=4,40", "--batch_count=9,100", "--mixed_kinds=diagdom",
                  "--benchmark_min_time=5x", "--benchmark_repetitions=2",
                  "--benchmark_enable_random_interleaving=true", "--benchmark_filter=^GPU"])
    print(p.stderr[-3000:])
    if p.returncode != 0 or "device memory leak" in p.stderr:
        fail("GPU rows must give back their device memory (exit %d)" % p.returncode)
    print("ok: every GPU row built twice returned all device memory")


if __name__ == "__main__":
    sb.main(__doc__, {"run": case_run, "singular": case_singular, "usage": case_usage, "badinput": case_badinput,
                      "checks": case_checks, "aggregates": case_aggregates, "console": case_console, "rounds": case_rounds,
                      "history": case_history, "memory": case_memory})
