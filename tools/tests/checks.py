#!/usr/bin/env python3
"""The tools on JSON that solve_bench itself writes, with their output checked.

usage: checks.py CASE SOLVE_BENCH WORKDIR [--compare-py PATH] [--results DIR]
  compare  Google Benchmark's compare.py (PATH) on two runs, on CPU/d vs CPU/s in one run, and
           on CPU vs GPU in every committed results JSON under DIR (e.g. results/h200)
  rerun    the acceptance of tools/regress: a re-run of the same build passes, a copy of it
           made 1.5x slower fails
  report   tools/report on a real run (figures, a table with every row, a speedup plot only
           with GPU rows) and on the committed results under DIR
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
    """compare.py's printed table, and the rows that paired (from its --dump_to_json report,
    less the aggregates and the overall geomean)."""
    dump = os.path.join(work, "compare-%s.json" % tag)
    p = run([sys.executable, tool, "--no-color", "-d", dump] + mode_args, expect=0)
    with open(dump) as f:
        paired = {entry["name"] for entry in json.load(f)
                  if entry.get("run_type") != "aggregate" and entry["name"] != "OVERALL_GEOMEAN"}
    return p.stdout, paired


def committed_results(results_dir):
    """The committed Google Benchmark runs (not their .audit.json / .verdict.json sidecars, nor
    other measurements such as vs_numpy-*.json)."""
    if not results_dir:
        return []
    return sorted(p for p in glob.glob(os.path.join(results_dir, "*.json"))
                  if isinstance(load_json(p).get("benchmarks"), list))


def case_compare(exe, work, tool, results_dir):
    if not tool or not os.path.exists(tool):
        fail("compare.py not found at %r" % tool)
    flags = ["--sizes=16,32", "--benchmark_min_time=0.001", "--benchmark_repetitions=3"]
    a = solve_bench(exe, os.path.join(work, "a.json"), *flags)
    solve_bench(exe, os.path.join(work, "b.json"), *flags)

    # Two runs: every row pairs with itself, with its aggregates and a U test line.
    out, paired = compare_py(tool, ["benchmarks", os.path.join(work, "a.json"), os.path.join(work, "b.json")], work, "runs")
    for name in base_names(a):
        for shown in (name, name + "_median", name + "_pvalue"):
            if not re.search(r"^%s\s" % re.escape(shown), out, re.M):
                fail("compare.py benchmarks: no line for %s" % shown)
        if name not in paired:
            fail("compare.py benchmarks: %s did not pair" % name)
    print("ok: compare.py benchmarks a.json b.json lists all %d rows" % len(base_names(a)))

    # CPU vs CPU in one run: fp64 against fp32, the same operation and n.
    out, paired = compare_py(tool, ["filters", os.path.join(work, "a.json"), "CPU/d", "CPU/s"], work, "filters")
    names_a = set(base_names(a))  # fp64-only rows (mixed precision) have no fp32 twin
    expected = {"[CPU/d vs. CPU/s]" + n[len("CPU/d"):] for n in names_a
                if n.startswith("CPU/d") and "CPU/s" + n[len("CPU/d"):] in names_a}
    if not expected or expected != paired:
        fail("compare.py filters CPU/d CPU/s paired %s, expected %s" % (sorted(paired), sorted(expected)))
    for name in expected:
        if name + "_median" not in out:
            fail("compare.py filters: no line for %s_median" % name)
    print("ok: compare.py filters a.json CPU/d CPU/s pairs all %d rows" % len(expected))

    # CPU vs GPU, exactly as the README says, on each committed results file that has both,
    # and on a synthetic one so that this check runs before any results are committed.
    committed = committed_results(results_dir)
    checked = 0
    # (the fresh run too: it has GPU rows on a CUDA build)
    for path in committed + [os.path.join(work, "a.json"), synthetic_cpu_gpu(work)]:
        names = set(base_names(load_json(path)))
        expected = {"[CPU vs. GPU]" + n[len("CPU"):] for n in names
                    if n.startswith("CPU/") and "GPU" + n[len("CPU"):] in names}
        if not expected:
            print("note: %s has no CPU and GPU rows of the same name" % path)
            continue
        out, paired = compare_py(tool, ["filters", path, "CPU", "GPU"], work, "h200-%d" % checked)
        if not expected <= paired:
            fail("compare.py filters %s CPU GPU did not pair %s" % (path, sorted(expected - paired)))
        if sum(1 for name in expected if name in out) != len(expected):
            fail("compare.py filters %s CPU GPU: rows missing from its table" % path)
        print("ok: compare.py filters %s CPU GPU pairs %d rows" % (path, len(expected)))
        checked += path in committed
    if not checked:
        print("note: no committed results with CPU and GPU rows under %s yet; CPU vs GPU not checked"
              % results_dir)


def synthetic_cpu_gpu(work):
    import synth
    runs = []
    for n, cpu_ms, gpu_ms in ((256, 1.0, 2.0), (1024, 40.0, 4.0)):
        for backend, ms in (("CPU", cpu_ms), ("GPU", gpu_ms), ("GPU-pinned", gpu_ms * 2), ("MGPU", gpu_ms)):
            runs += synth.solve_row(backend, "dgesv", n, ms)
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

def case_report(exe, work, _tool, results_dir):
    # CPU rows, CPU-driver rows beside them, on a CUDA build GPU rows too: a speedup plot of
    # whatever is held against CPU; with CPU rows alone none, and the report says why.
    run_json = os.path.join(work, "run.json")
    doc = solve_bench(exe, run_json, "--sizes=32,64", "--benchmark_min_time=0.001", "--benchmark_repetitions=3")
    has_other = any(not name.startswith("CPU/") for name in base_names(doc))
    out = os.path.join(work, "report")
    p = run([sys.executable, os.path.join(TOOLS, "report"), "--out", out, run_json], expect=0)
    if not has_other and "no speedup plot" not in p.stdout:
        fail("a run of CPU rows alone should say why there is no speedup plot")
    figures = ["gflops", "time"] + (["speedup"] if has_other else [])
    for name in [f + ext for f in figures for ext in (".png", ".svg")] + ["table.md"]:
        path = os.path.join(out, name)
        if not os.path.exists(path) or os.path.getsize(path) < 200:
            fail("%s missing or empty" % path)
    with open(os.path.join(out, "table.md"), encoding="utf-8") as f:
        table = f.read()
    # every row of the run is in the table, in its operation's section, with a time and a resid
    sections = {s.split("\n", 1)[0].split(" ")[0]: s for s in table.split("\n## ")[1:]}
    for name in base_names(doc):
        op, n = name.split("/")[1], re.search(r"/n:(\d+)", name).group(1)
        # (a time the run's audit flagged carries its mark: "0.042 †1")
        if op not in sections or not re.search(r"^\| %s \| [0-9.]+( †[0-9,]+)? (\|.* )?\| [0-9.e-]+ \|$" % n,
                                               sections[op], re.M):
            fail("table.md has no line for %s" % name)
    with open(os.path.join(out, "gflops.svg"), encoding="utf-8") as f:
        svg = f.read()
    # dposv has one variant, so its panel is titled with its axes (dgesv also has kind rows)
    for text in ("dposv (nrhs:1)", "matrix order n", "CPU GEMM, same precision (ceiling)"):
        if text not in svg:
            fail("gflops.svg lacks %r" % text)
    print("ok: report on a real run: %s and a table with all %d rows" % (", ".join(figures), len(base_names(doc))))

    committed = committed_results(results_dir)
    if not committed:
        print("note: no committed results under %s yet; report on them not checked" % results_dir)
        return
    out = os.path.join(work, "committed")
    p = run([sys.executable, os.path.join(TOOLS, "report"), "--out", out] + committed, expect=0)
    has_gpu = any(n.startswith("GPU") for path in committed for n in base_names(load_json(path)))
    expected = ["gflops.svg", "time.svg", "table.md"] + (["speedup.svg"] if has_gpu else [])
    missing = [name for name in expected if not os.path.exists(os.path.join(out, name))]
    if missing:
        fail("report on %s wrote no %s" % (" ".join(committed), missing))
    print("ok: report on the committed results wrote %s" % ", ".join(expected))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("case", choices=["compare", "rerun", "report"])
    parser.add_argument("solve_bench")
    parser.add_argument("workdir")
    parser.add_argument("--compare-py", help="Google Benchmark's compare.py")
    parser.add_argument("--results", help="committed results folder, e.g. results/h200")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    case = {"compare": case_compare, "rerun": case_rerun, "report": case_report}[args.case]
    case(args.solve_bench, args.workdir, args.compare_py, args.results)


if __name__ == "__main__":
    main()
