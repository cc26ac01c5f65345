#!/usr/bin/env python3
"""The tools on JSON that solve_bench itself writes, with their output checked.

usage: checks.py CASE SOLVE_BENCH WORKDIR [--compare-py PATH] [--results DIR]
  compare  Google Benchmark's compare.py (PATH) on two runs, on CPU/d vs CPU/s in one run, and
           on CPU vs GPU in every committed results JSON under DIR (e.g. results/h200)
  rerun    .ci/bench-pr on this build as base and head: passes; the head's dgesv n=256 made 2x
           slower (SOLVE_BENCH_TEST_SLOWDOWN) fails on that row alone; nothing measured fails
  report   tools/report on a real run (figures, a table with every row, a speedup plot only
           with GPU rows) and on the committed results under DIR
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
    if rc != 0:
        fail("a re-run of the same build failed the gate (exit %d)" % rc)
    first = compare_of(aa, "gate")
    if len(first["rows"]) != 6 or any(r["base_repetitions"] != 9 or r["new_repetitions"] != 9 for r in first["rows"]):
        fail("expected 6 rows of 3 rounds x 3 repetitions a side, got %s" %
             [(r["row"], r["base_repetitions"], r["new_repetitions"]) for r in first["rows"]])
    print("ok: the same build passes (%d suspect(s) in the first rounds, none confirmed)" % len(first["suspects"]))

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
