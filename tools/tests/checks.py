#!/usr/bin/env python3
"""The tools on JSON that solve_bench itself writes, with their output checked.

usage: checks.py CASE SOLVE_BENCH WORKDIR [--compare-py PATH] [--results DIR] [--checks PATH]
  compare  Google Benchmark's compare.py (PATH) on two runs (times in ns keep their digits),
           with anchored filters in one run (what it pairs, what OVERALL_GEOMEAN averages), on
           CPU vs GPU in every committed results JSON under DIR (e.g. results/h200); pandas on
           the rows log
  rerun    the acceptance of tools/regress: a re-run of the same build passes, a copy of it
           made 1.5x slower fails
  report   tools/report (with --checks PATH) on a real run (figures, a table with every row, a
           speedup plot only with GPU solves) and on DIR/sweep.json
"""
import argparse
import copy
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
    for column in ("real_time", "GFLOP/s", "resid", "noise_pct", "n"):
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

def doctored(doc, factor):
    """The same run with every time multiplied by factor (and rates divided by it)."""
    slow = copy.deepcopy(doc)
    for b in slow["benchmarks"]:
        if b.get("aggregate_name") in ("cv",):
            continue  # a ratio, unchanged by scaling
        for key in ("real_time", "cpu_time"):
            b[key] *= factor
        if "GFLOP/s" in b:
            b["GFLOP/s"] /= factor
    return slow


def regress(*args):
    return run([sys.executable, os.path.join(TOOLS, "regress")] + list(args))


def pooled_log(paths, out):
    """Concatenated rows logs: one run whose repetitions are those of all the rounds."""
    with open(out, "w") as pooled:
        for path in paths:
            with open(path) as f:
                pooled.write(f.read())
    return out


def rerun_rounds(exe, work, flags, attempt):
    """Two runs of the same build, each pooled from rounds that alternate between them (as the
    CI workflow does); returns the two pooled logs and the number of rows."""
    logs = {"run1": [], "run2": []}
    for round_index in range(5):
        # ABBA order, so neither run is always the first after a pause
        for run_name in (["run1", "run2"] if round_index % 2 == 0 else ["run2", "run1"]):
            out = os.path.join(work, "%s-attempt%d-round%d.json" % (run_name, attempt, round_index))
            doc = solve_bench(exe, out, *flags)
            logs[run_name].append(out[:-len(".json")] + ".rows.jsonl")
    rows = len(base_names(doc))
    if rows != 6:
        fail("expected 6 rows, got %s" % base_names(doc))
    first = pooled_log(logs["run1"], os.path.join(work, "run1-attempt%d.rows.jsonl" % attempt))
    second = pooled_log(logs["run2"], os.path.join(work, "run2-attempt%d.rows.jsonl" % attempt))
    return first, second, rows


def case_rerun(exe, work, _tool, _results_dir):
    # Rows that time steadily (one BLAS thread, interleaved repetitions, enough iterations
    # each). The 25% threshold is for this test only: far above the drift between runs on a
    # quiet 2-core machine (<5%), far below the 50% doctoring. Rows of tens of microseconds at
    # least: at n = 64 a dposv of 7 us moved by 36% between two runs of one build on the CI
    # machine.
    # A shared CI machine has bursts of load from its neighbours that last seconds: in one CI
    # run every row of run2 came out 6-32% slower than run1 (dgesv n=128 +32%, p 0.017) while
    # run1 matched a quiet machine, i.e. the burst fell on run2's processes. No gate on two
    # runs can tell that from a regression, so a failed re-run gets one fresh attempt, as a CI
    # gate that saw a regression would re-run before believing it; a gate that flags a re-run
    # of the same build fails both.
    flags = ["--sizes=128,256", "--precisions=d", "--benchmark_filter=^CPU/d(gemm|gesv|posv)/n:[0-9]+(/nrhs:1)?/manual_time$",
             "--benchmark_min_time=0.05", "--benchmark_repetitions=2",
             "--benchmark_enable_random_interleaving=true"]
    for attempt in (1, 2):
        first, second, rows = rerun_rounds(exe, work, flags, attempt)
        p = regress("--threshold", "25", first, second)
        print(p.stdout)
        if p.returncode == 0:
            break
        if attempt == 2:
            fail("a re-run of the same build failed the gate twice:\n" + p.stderr)
        print("a re-run of the same build failed the gate; a second attempt on fresh rounds")
    if len(re.findall(r"\b10/10\b", p.stdout)) != rows:
        fail("the pooled rounds should give 10 repetitions a side")
    print("ok: a re-run passes (attempt %d)" % attempt)

    with open(second) as f:
        doc = {"context": {}, "benchmarks": [b for line in f for b in json.loads(line)["benchmarks"]]}
    slow = os.path.join(work, "run2-doctored.json")
    with open(slow, "w") as f:
        json.dump(doctored(doc, 1.5), f)
    for threshold in ("25", "5"):
        md = os.path.join(work, "doctored-%s.md" % threshold)
        p = regress("--threshold", threshold, "--markdown", md, first, slow)
        print(p.stdout)
        if p.returncode != 1:
            fail("the doctored run passed the gate at threshold %s%%" % threshold)
        # Every row is 1.5x its re-run; a row whose re-run came out more than 17% faster than
        # its first run (a loaded machine) may stay under 25%, so not every row need fail.
        failing = [ln.split()[0] for ln in p.stdout.splitlines()[1:] if ln[:1].isupper()]
        if "SLOWER" not in failing or set(failing) != {"SLOWER"}:
            fail("expected SLOWER rows and no other failures, got %s" % failing)
        with open(md) as f:
            if "regression gate: FAILED" not in f.read():
                fail("the Markdown summary does not say FAILED")
    print("ok: the doctored run (times x1.5) fails, on SLOWER rows")


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
