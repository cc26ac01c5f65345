#!/usr/bin/env python3
"""The tools on JSON that solve_bench itself writes, with their output checked.

usage: checks.py CASE SOLVE_BENCH WORKDIR [--compare-py PATH] [--results DIR] [--checks PATH]
  compare  Google Benchmark's compare.py (PATH) on two runs (times in ns keep their digits),
           with anchored filters in one run (what it pairs, what OVERALL_GEOMEAN averages), on
           CPU vs GPU in every committed results JSON under DIR (e.g. results/h200); pandas on
           the rows log
  rerun    .ci/bench-pr on this build as base and head: passes; the head's dgesv n=256 made 2x
           slower (SOLVE_BENCH_TEST_SLOWDOWN) fails on that row alone; nothing measured fails
  report   tools/report (with --checks PATH) on a real run (figures, a table with every row, a
           speedup plot only with GPU solves) and on DIR/sweep.json
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

TOOLS = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(cmd, env=None, expect=None):
    full_env = dict(os.environ)
    full_env.update(env or {})
    p = subprocess.run(cmd, capture_output=True, text=True, env=full_env, timeout=600)
    print("$", " ".join(cmd), "->", p.returncode)
    if expect is not None and p.returncode != expect:
        print(p.stdout[-4000:], p.stderr[-4000:])
        fail("expected exit %d, got %d" % (expect, p.returncode))
    return p


def solve_bench(exe, out, *flags):
    # One BLAS thread: on a small shared machine OpenBLAS threads that wait for a busy core
    # make timings jump by orders of magnitude, which says nothing about the code.
    # The mixed-precision and batched families default to sizes meant for real runs; keep
    # them tiny here (a flag given by the caller comes later and wins).
    small = ["--batch_n=4,8", "--batch_count=5", "--mixed_kinds=diagdom", "--refine=classical"]
    run([exe, "--benchmark_out=" + out, "--benchmark_out_format=json"] + small + list(flags),
        env={"OPENBLAS_NUM_THREADS": "1"}, expect=0)
    return load_json(out)


def load_json(path):
    with open(path) as f:
        return json.load(f)


def base_names(doc):
    return sorted({b.get("run_name", b["name"]) for b in doc["benchmarks"]})


# ---------------------------------------------------------------------------------- compare

def compare_py(tool, mode_args, work, tag):
    """compare.py's printed table, and its --dump_to_json report by name."""
    dump = os.path.join(work, "compare-%s.json" % tag)
    p = run([sys.executable, tool, "--no-color", "-d", dump] + mode_args, expect=0)
    with open(dump) as f:
        report = {entry["name"]: entry for entry in json.load(f)}
    return p.stdout, report


def paired_rows(report):
    return {name for name, e in report.items() if e.get("run_type") != "aggregate" and name != "OVERALL_GEOMEAN"}


def committed_results(results_dir):
    """The committed Google Benchmark runs (not their .audit.json / .verdict.json sidecars, nor
    other measurements such as vs_numpy-*.json)."""
    if not results_dir:
        return []
    return sorted(p for p in glob.glob(os.path.join(results_dir, "*.json"))
                  if isinstance(load_json(p).get("benchmarks"), list))


def time_columns(out, name):
    """compare.py's Time Old and Time New for a row: the 3rd and 4th numbers of its line."""
    m = re.search(r"^%s\s+([-+.\d]+)\s+([-+.\d]+)\s+(\d+)\s+(\d+)\s" % re.escape(name), out, re.M)
    return (int(m.group(3)), int(m.group(4))) if m else None


def geomean(values):
    import math
    return math.exp(sum(math.log(v) for v in values) / len(values))


def case_compare(exe, work, tool, results_dir):
    if not tool or not os.path.exists(tool):
        fail("compare.py not found at %r" % tool)
    flags = ["--sizes=16,32", "--benchmark_min_time=0.001", "--benchmark_repetitions=3"]
    a = solve_bench(exe, os.path.join(work, "a.json"), *flags)
    solve_bench(exe, os.path.join(work, "b.json"), *flags)

    # Two runs: every row pairs with itself, with its aggregates and a U test line; times in
    # ns keep their digits in Time Old/New (compare.py prints them without decimals).
    out, report = compare_py(tool, ["benchmarks", os.path.join(work, "a.json"), os.path.join(work, "b.json")],
                             work, "runs")
    sub_ms = 0
    for name in base_names(a):
        for shown in (name, name + "_median", name + "_pvalue"):
            if not re.search(r"^%s\s" % re.escape(shown), out, re.M):
                fail("compare.py benchmarks: no line for %s" % shown)
        if name not in paired_rows(report):
            fail("compare.py benchmarks: %s did not pair" % name)
        first = next(b for b in a["benchmarks"] if b["name"] == name)
        if first["time_unit"] != "ns":
            fail("%s: time_unit %s, not ns" % (name, first["time_unit"]))
        if first["real_time"] < 1e6:  # under a millisecond
            old, new = time_columns(out, name)
            if old < 100 or new < 100:
                fail("compare.py shows %s (%.0f ns) as %d -> %d: digits lost" % (name, first["real_time"], old, new))
            sub_ms += 1
    if not sub_ms:
        fail("no row under a millisecond to check compare.py's digits on")
    print("ok: compare.py benchmarks a.json b.json lists all %d rows; %d rows under 1 ms keep 3+ digits"
          % (len(base_names(a)), sub_ms))

    # The recipe of docs/tools.md: anchored filters pair exactly the rows of two backends. The
    # regular expressions are searched (re.search) in each name and the match replaced by
    # "[F1 vs. F2]"; OVERALL_GEOMEAN is the geomean of every row each filter keeps, paired or not.
    names = set(base_names(a))
    f1, f2 = "^CPU/dgesv/", "^CPU-driver/dgesv/"
    out, report = compare_py(tool, ["filters", os.path.join(work, "a.json"), f1, f2], work, "anchored")
    tag = "[%s vs. %s]" % (f1, f2)
    expected = {tag + n[len("CPU/dgesv/"):] for n in names
                if n.startswith("CPU/dgesv/") and "CPU-driver/dgesv/" + n[len("CPU/dgesv/"):] in names}
    unpaired = [n for n in names if n.startswith("CPU/dgesv/") and tag + n[len("CPU/dgesv/"):] not in expected]
    if not expected or paired_rows(report) != expected:
        fail("compare.py filters %s %s paired %s, expected %s" % (f1, f2, sorted(paired_rows(report)), sorted(expected)))
    times = {side: [b["real_time"] * 1e-9 for b in a["benchmarks"] if b["run_type"] == "iteration"
                    and re.search(f, b["name"])] for side, f in (("base", f1), ("new", f2))}
    change = report["OVERALL_GEOMEAN"]["measurements"][0]["time"]
    if abs(change - (geomean(times["new"]) / geomean(times["base"]) - 1)) > 1e-9:
        fail("OVERALL_GEOMEAN %.4f is not the geomean over every row each filter keeps" % change)
    print("ok: compare.py filters a.json '%s' '%s' pairs all %d rows; OVERALL_GEOMEAN %+.4f is over every row "
          "each filter keeps, %d of them without a partner" % (f1, f2, len(expected), change, len(unpaired)))

    # CPU vs GPU on each committed results file that has both, on the fresh run when it has GPU
    # rows, and on a synthetic one, so that this check runs everywhere.
    committed = committed_results(results_dir)
    checked = 0
    for path in committed + [os.path.join(work, "a.json"), synthetic_cpu_gpu(work)]:
        names = set(base_names(load_json(path)))
        expected = {"[^CPU/ vs. ^GPU/]" + n[len("CPU/"):] for n in names
                    if n.startswith("CPU/") and "GPU/" + n[len("CPU/"):] in names}
        if not expected:
            print("note: %s has no CPU and GPU rows of the same name" % path)
            continue
        out, report = compare_py(tool, ["filters", path, "^CPU/", "^GPU/"], work, "gpu-%d" % checked)
        if paired_rows(report) != expected:
            fail("compare.py filters %s ^CPU/ ^GPU/ paired %s, expected %s"
                 % (path, sorted(paired_rows(report) ^ expected), sorted(expected)))
        print("ok: compare.py filters %s '^CPU/' '^GPU/' pairs exactly its %d CPU/GPU rows" % (path, len(expected)))
        checked += path in committed
    if not checked:
        print("note: no committed results with CPU and GPU rows under %s; CPU vs GPU checked on synthetic rows"
              % results_dir)
    check_pandas(os.path.join(work, "a.rows.jsonl"))


def check_pandas(log):
    """The rows log reads flat: one row per run (after the context line), scalar counters."""
    try:
        import pandas
    except ImportError:
        print("SKIPPED (visible on purpose): pandas.read_json on the rows log: no pandas here "
              "(Debian/Ubuntu: apt install python3-pandas)")
        return
    with open(log) as f:
        lines = [json.loads(line) for line in f]
    df = pandas.read_json(log, lines=True)
    df = df[df["name"].notna()]  # the first line is the context
    if len(df) != len(lines) - 1:
        fail("pandas.read_json gives %d rows for the %d runs of %s" % (len(df), len(lines) - 1, log))
    for column in ("real_time", "GFLOP/s", "resid", "noise_within_pct", "n"):
        if df[column].dtype.kind != "f":
            fail("pandas: column %s is %s, not numbers" % (column, df[column].dtype))
    for column in ("backend", "op", "precision"):
        if not all(isinstance(v, str) for v in df[column]):
            fail("pandas: column %s holds something other than text" % column)
    print("ok: pandas.read_json(%s, lines=True): %d runs, counters and id fields as scalar columns"
          % (os.path.basename(log), len(df)))


def synthetic_cpu_gpu(work):
    import synth
    runs = []
    for n, cpu_ms, gpu_ms in ((256, 1.0, 2.0), (1024, 40.0, 4.0)):
        for backend, ms in (("CPU", cpu_ms), ("GPU", gpu_ms), ("GPU-pinned", gpu_ms * 2), ("MGPU", gpu_ms)):
            runs += synth.solve_row(backend, "gesv", n, ms)
    return synth.write_json(os.path.join(work, "synthetic-cpu-gpu.json"), runs)


# ---------------------------------------------------------------------------------- rerun

def bench_pr(exe, work, name, flags, head_env=""):
    """.ci/bench-pr with this build as both sides (no build): (exit status, output, OUT dir)."""
    build = os.path.dirname(os.path.dirname(os.path.realpath(exe)))  # BUILD/benchmarks/solve_bench
    out = os.path.join(work, name)
    env = {"BENCH_BASE_BUILD": build, "BENCH_HEAD_BUILD": build, "BENCH_HEAD_ENV": head_env,
           "BENCH_CHUNK_ROWS": "3", "PYTHON": sys.executable, "OPENBLAS_NUM_THREADS": "1"}
    p = run([os.path.join(os.path.dirname(TOOLS), ".ci", "bench-pr"), os.path.dirname(TOOLS),
             os.path.dirname(TOOLS), out] + flags, env=env)
    return p.returncode, p.stdout + p.stderr, out


def compare_of(out, name):
    with open(os.path.join(out, name + ".json")) as f:
        return json.load(f)["compare"]


def case_rerun(exe, work, _tool, _results_dir):
    # The pull-request gate, end to end on one build: two "sides" that are the same binary
    # must pass (first rounds interleaved chunk by chunk, then a re-run of whatever came out
    # slower: a loaded machine's burst falls on both sides, or is not there again); a row made
    # twice as slow on the head alone (the test hook) must fail, and only that row; a filter
    # that matches nothing must fail. Rows of 0.1-1 ms, one BLAS thread.
    flags = ["--sizes=128,256", "--precisions=d", "--benchmark_filter=^CPU/d(gemm|gesv|posv)/n:[0-9]+(/nrhs:1)?/manual_time$",
             "--benchmark_min_time=0.05", "--benchmark_repetitions=3", "--benchmark_enable_random_interleaving=true"]
    rc, out, aa = bench_pr(exe, work, "aa", flags)
    print(out[-3000:])
    if rc not in (0, 3):  # 3: some row undecided after its re-runs (a loaded machine), none failed
        fail("a re-run of the same build failed the gate (exit %d)" % rc)
    first = compare_of(aa, "gate")
    if rc == 3:
        left = [r for r in compare_of(aa, "confirm")["rows"] if r["status"] == "undecided"]
        if not left or any(r["detectable_pct"] is None for r in left):
            fail("exit 3 without an undecided row that says what it could detect: %s" % left)
        with open(os.path.join(aa, "summary.md")) as f:
            if "regression gate: UNDECIDED" not in f.read():
                fail("the summary of an undecided gate does not say UNDECIDED")
    if len(first["rows"]) != 6 or any(r["base_repetitions"] != 9 or r["new_repetitions"] != 9 for r in first["rows"]):
        fail("expected 6 rows of 3 rounds x 3 repetitions a side, got %s" %
             [(r["row"], r["base_repetitions"], r["new_repetitions"]) for r in first["rows"]])
    print("ok: the same build %s (%d suspect(s) in the first rounds, none confirmed)"
          % ("passes" if rc == 0 else "fails no row, some undecided", len(first["suspects"])))

    planted = "CPU/dgesv/n:256/nrhs:1"
    rc, out, slow = bench_pr(exe, work, "planted", flags, "SOLVE_BENCH_TEST_SLOWDOWN=^%s$=1.0" % planted)
    print(out[-3000:])
    if rc != 1:
        fail("the head made 2x slower on %s passed the gate (exit %d)" % (planted, rc))
    confirmed = [r["row"] for r in compare_of(slow, "confirm")["rows"] if r["fails"]]
    if confirmed != [planted]:
        fail("expected %s alone to be confirmed slower, got %s" % (planted, confirmed))
    with open(os.path.join(slow, "summary.md")) as f:
        if "regression gate: FAILED" not in f.read():
            fail("the summary does not say FAILED")
    print("ok: the planted slowdown fails, on %s alone, confirmed by its re-run" % planted)

    rc, out, _ = bench_pr(exe, work, "nothing", flags[:2] + ["--benchmark_filter=^GPU/no-such-row"])
    if rc != 4 or "measured nothing" not in out or "^GPU/no-such-row" not in out:
        fail("a gate that measured nothing must exit 4 and say which side and flags (exit %d):\n%s" % (rc, out))
    print("ok: a gate that measured nothing fails (exit 4)")


# ---------------------------------------------------------------------------------- report

def report(args, out, checks):
    return run([sys.executable, os.path.join(TOOLS, "report"), "--checks", checks, "--out", out] + args, expect=0)


def case_report(exe, work, _tool, results_dir, checks=None):
    # A real run (GPU rows too on a CUDA build with a GPU): the figures, a table line for every
    # row, a speedup plot only when the verdict holds GPU rows against CPU rows.
    run_json = os.path.join(work, "run.json")
    doc = solve_bench(exe, run_json, "--sizes=32,64", "--benchmark_min_time=0.001", "--benchmark_repetitions=3")
    out = os.path.join(work, "report")
    p = report([run_json], out, checks)
    with open(os.path.join(os.path.dirname(run_json), "run.verdict.json")) as f:
        has_gpu = bool(json.load(f)["verdict"]["solves"])
    if not has_gpu and "no speedup plot" not in p.stdout:
        fail("a run without GPU solves should say why there is no speedup plot")
    figures = ["gflops", "time"] + (["speedup"] if has_gpu else [])
    for name in [f + ext for f in figures for ext in (".png", ".svg")] + ["table.md"]:
        path = os.path.join(out, name)
        if not os.path.exists(path) or os.path.getsize(path) < 200:
            fail("%s missing or empty" % path)
    with open(os.path.join(out, "table.md"), encoding="utf-8") as f:
        table = f.read()
    rows = table[table.index("## Every row"):]
    for name in base_names(doc):
        row = next(b for b in doc["benchmarks"] if b["name"] == name)
        label = row["id"]["precision"] + row["id"].get("factor", "") + row["id"]["op"]
        sections = re.finditer(r"^### %s — .*?(?=^### |\Z)" % re.escape(label), rows, re.M | re.S)
        if not any(re.search(r"^\| %d \| .*[0-9] " % row["id"]["n"], s.group(0), re.M) for s in sections):
            fail("table.md has no line for %s" % name)
    with open(os.path.join(out, "gflops.svg"), encoding="utf-8") as f:
        svg = f.read()
    for text in ("dense solves (nrhs 1)", "factorizations", "batched solves", "matrix order n", "fp64 (d)",
                 "the same backend's GEMM in that precision"):
        if text not in svg:
            fail("gflops.svg lacks %r" % text)
    print("ok: report on a real run: %s and a table with all %d rows" % (", ".join(figures), len(base_names(doc))))

    # The committed results, as results/h200/README.md makes the committed report.
    committed = os.path.join(results_dir or "", "sweep.json")
    if not os.path.exists(committed):
        print("note: no %s; report on committed results not checked" % committed)
        return
    out = os.path.join(work, "committed")
    report([committed], out, checks)
    missing = [n for n in ("gflops.svg", "time.svg", "speedup.svg", "table.md")
               if not os.path.exists(os.path.join(out, n))]
    if missing:
        fail("report on %s wrote no %s" % (committed, missing))
    # The verdict is the committed sidecar where it is current, else the one the checks write.
    if not (os.path.exists(os.path.join(out, "checks.verdict.json"))
            or os.path.exists(committed[: -len(".json")] + ".verdict.json")):
        fail("report on %s had no verdict: neither its sidecar nor checks.verdict.json" % committed)
    print("ok: report on %s wrote the figures, the speedup plot included" % committed)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("case", choices=["compare", "rerun", "report"])
    parser.add_argument("solve_bench")
    parser.add_argument("workdir")
    parser.add_argument("--compare-py", help="Google Benchmark's compare.py")
    parser.add_argument("--results", help="committed results folder, e.g. results/h200")
    parser.add_argument("--checks", help="solve_bench_checks (the report case)")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    if args.case == "report":
        case_report(args.solve_bench, args.workdir, args.compare_py, args.results, args.checks)
        return
    case = {"compare": case_compare, "rerun": case_rerun}[args.case]
    case(args.solve_bench, args.workdir, args.compare_py, args.results)


if __name__ == "__main__":
    main()
