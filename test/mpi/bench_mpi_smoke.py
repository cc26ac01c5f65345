#!/usr/bin/env python3
"""Smoke runs of solve_bench_mpi under mpiexec, whose output is checked, not just the exit code.

usage: bench_mpi_smoke.py CASE SOLVE_BENCH_MPI WORKDIR MPIEXEC [MPIEXEC FLAGS...]
  run       2 ranks, tiny sweep: exit 0, every expected row once, counters, resid < 16,
            context, only rank 0 prints, names pair with the CPU rows once the layout is cut
  one_rank  1 rank: a 1x1 grid, rows named ranks:1
  singular  a singular matrix: every row names its error, summary printed once, exit 1
  usage     bad flags: one message naming the problem, exit 2 (and no hang)
  lockstep  ranks given different Google Benchmark flags fall out of step: exit 3 with a
            message instead of a hang
  out_rank0 only rank 0 opens --benchmark_out: rank 1 is given a path it cannot write
  The MPI side of "lose nothing" (issue 21):
  min_time_1x BENCHMARK_MIN_TIME=1x (it crashed, exit 139): exactly one timed call a row, exit 0
  nothing   a filter that matches nothing over an earlier result: exit 4, that result untouched
  nan       NaN in A is named by its place (it was "residual inf"), exit 1
"""
import json
import os
import re
import subprocess
import sys

THRESHOLD = 16.0
CONTEXT_KEYS = ["mpi_ranks", "mpi_grid", "mpi_hosts", "mpi_library", "mpi_standard", "scalapack_library",
                "scalapack_version", "blas_config", "blas_threads", "blas_library", "seed", "matrix_kind_lu",
                "matrix_kind_cholesky", "mpi_nb", "timing", "solve_bench_version"]


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(mpiexec, ranks, exe, args, env=None, timeout=300):
    full_env = dict(os.environ)
    full_env.update(env or {})
    cmd = mpiexec + ["-n", str(ranks), exe] + args if exe else mpiexec + args
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", env=full_env, timeout=timeout)
    except subprocess.TimeoutExpired:
        fail("hung: %s did not finish in %d s" % (" ".join(cmd), timeout))
    print("$", " ".join(cmd), "->", p.returncode)
    return p


def plain(text):
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def usage_error(p, needle):
    """Exit 2, and rank 0's one line naming the problem with a pointer to --help."""
    ours = [l for l in p.stderr.splitlines() if l.startswith("solve_bench_mpi")]
    if p.returncode != 2 or len(ours) != 1 or needle not in ours[0] or \
            not ours[0].endswith("(see solve_bench_mpi --help)"):
        fail("expected exit 2 and one line naming %r, got %d:\n%s" % (needle, p.returncode, p.stderr))


def load_rows_log(path):
    """The context (line 1) and the run objects (one a line: a round of a row) of a rows log."""
    with open(path) as f:
        docs = [json.loads(line) for line in f]
    if not docs or "context" not in docs[0] or any("name" not in d for d in docs[1:]):
        fail("%s is not a context line and one run object a line" % path)
    return docs[0]["context"], docs[1:]


def repetitions(doc):
    """{row name: its repetitions (one a round)}."""
    out = {}
    for b in doc["benchmarks"]:
        if b.get("run_type", "iteration") == "iteration":
            out.setdefault(b["name"], []).append(b)
    return out


def expected_rows(sizes, nbs, ranks):
    return ["MPI/%s%s/n:%d/nrhs:1/ranks:%d/nb:%d/manual_time" % (p, op, n, ranks, nb)
            for p in "ds" for op in ("gesv", "posv") for n in sizes for nb in nbs]


def check_rows(doc, expected, ranks):
    reps = repetitions(doc)
    names = {name: r[-1] for name, r in reps.items()}
    missing = [e for e in expected if e not in names]
    if missing:
        fail("missing rows: %s (have %s)" % (missing, sorted(names)))
    if len(names) != len(expected) or any(len(r) != 5 for r in reps.values()):
        fail("%d rows in the JSON (rounds %s), expected %d of 5 rounds"
             % (len(names), sorted({len(r) for r in reps.values()}), len(expected)))
    for name in expected:
        b = names[name]
        if b.get("error_occurred"):
            fail("%s: %s" % (name, b.get("error_message")))
        for key in ("GFLOP/s", "resid", "n", "nrhs", "ranks", "nb"):
            if key not in b:
                fail("%s has no counter %s" % (name, key))
        if not (0 <= b["resid"] < THRESHOLD):
            fail("%s: resid %r" % (name, b["resid"]))
        if not b["GFLOP/s"] > 0:
            fail("%s: GFLOP/s %r" % (name, b["GFLOP/s"]))
        fields = dict(f.split(":") for f in name.split("/")[2:-1])
        for key in ("n", "nrhs", "ranks", "nb"):
            if b[key] != int(fields[key]):
                fail("%s: counter %s = %r" % (name, key, b[key]))
        if b["ranks"] != ranks:
            fail("%s: ranks %r, ran on %d" % (name, b["ranks"], ranks))


def case_run(mpiexec, exe, work):
    out = os.path.join(work, "run.json")
    sizes, nbs = [48, 100], [16, 32]
    p = run(mpiexec, 2, exe, ["--sizes=48,100", "--nb=16,32", "--benchmark_min_time=5x",
                              "--benchmark_out=" + out, "--benchmark_out_format=json"])
    print(p.stderr[-3000:])
    if p.returncode != 0:
        fail("exit status %d" % p.returncode)
    doc = json.load(open(out))
    expected = expected_rows(sizes, nbs, 2)
    check_rows(doc, expected, 2)
    ctx = doc["context"]
    for key in CONTEXT_KEYS:
        if key not in ctx:
            fail("context lacks %s" % key)
    if ctx["mpi_ranks"] != "2" or ctx["mpi_grid"] != "1x2":
        fail("grid: ranks %r grid %r" % (ctx["mpi_ranks"], ctx["mpi_grid"]))
    if not re.fullmatch(r"[^:,]+:2", ctx["mpi_hosts"]):
        fail("mpi_hosts should be one host with 2 ranks: %r" % ctx["mpi_hosts"])
    if ctx["blas_threads"] != "1":
        fail("OpenBLAS should run 1 thread per rank by default, got %r" % ctx["blas_threads"])
    if "scalapack" not in ctx["scalapack_library"]:
        fail("scalapack_library: %r" % ctx["scalapack_library"])
    # Only rank 0 prints: each row appears once in the console output.
    stdout = plain(p.stdout)
    for name in expected:
        shown = [l for l in stdout.splitlines() if l.startswith(name.replace("/manual_time", " "))]
        if len(shown) != 1:
            fail("%s printed %d times in the table" % (name, len(shown)))
    if stdout.count("\naudit: ") != 1 or p.stderr.count("results in ") != 1:
        fail("the audit and the results line once (rank 0)")
    # Cutting the layout (/ranks:P/nb:NB) and the backend leaves the CPU row's name.
    for name in expected:
        cpu = re.sub(r"/ranks:\d+/nb:\d+", "", name).replace("MPI/", "CPU/", 1)
        if not re.fullmatch(r"CPU/[ds](gesv|posv)/n:\d+/nrhs:1/manual_time", cpu):
            fail("%s does not map to a CPU row name (%s)" % (name, cpu))
    _, rows = load_rows_log(os.path.join(work, "run.rows.jsonl"))
    logged = {b["name"] for b in rows}
    if logged != set(expected) or len(rows) != 5 * len(expected):
        fail("rows log differs from the JSON: %s" % sorted(logged ^ set(expected)))
    print("ok: %d rows on 2 ranks, all resid < 16, printed once" % len(expected))


def case_one_rank(mpiexec, exe, work):
    out = os.path.join(work, "one.json")
    p = run(mpiexec, 1, exe, ["--sizes=64", "--nb=8", "--benchmark_min_time=5x", "--benchmark_out=" + out])
    if p.returncode != 0:
        fail("exit status %d\n%s" % (p.returncode, p.stderr[-2000:]))
    doc = json.load(open(out))
    check_rows(doc, expected_rows([64], [8], 1), 1)
    if doc["context"]["mpi_grid"] != "1x1":
        fail("grid %r" % doc["context"]["mpi_grid"])
    print("ok: 1 rank, 1x1 grid")


def case_singular(mpiexec, exe, work):
    out = os.path.join(work, "singular.json")
    p = run(mpiexec, 2, exe, ["--sizes=40", "--nb=4", "--kind=singular", "--benchmark_min_time=5x",
                              "--benchmark_out=" + out])
    print(p.stderr[-2000:])
    if p.returncode != 1:
        fail("expected exit 1, got %d" % p.returncode)
    rows = {b["name"]: b for b in json.load(open(out))["benchmarks"]}
    for prec in "ds":
        gesv = rows.get("MPI/%sgesv/n:40/nrhs:1/ranks:2/nb:4/manual_time" % prec)
        if not gesv or not gesv.get("error_occurred"):
            fail("%sgesv should have failed" % prec)
        if "p%sgesv: singular matrix" % prec not in gesv["error_message"] or "pivot 21" not in gesv["error_message"]:
            fail("gesv error does not name the pivot: %r" % gesv["error_message"])
        posv = rows.get("MPI/%sposv/n:40/nrhs:1/ranks:2/nb:4/manual_time" % prec)
        if not posv or "not positive definite" not in posv.get("error_message", ""):
            fail("posv on a non-symmetric matrix should name the minor: %r" % posv)
    fails = [l for l in p.stderr.splitlines() if l.startswith("Fail: ")]  # each as it happens, then the summary
    if p.stderr.count("row(s) failed") != 1 or p.stderr.count("pivot 21") != 4 or len(fails) != 4:
        fail("each failure said once as it happened and the summary once (by rank 0):\n%s" % p.stderr)
    print("ok: every row named its error, exit 1")


def case_usage(mpiexec, exe, work):
    cases = [
        (["--nb=0"], {}, "--nb: 0 must be at least 1"),
        (["--nb=12x"], {}, "'12x' is not an integer"),
        (["--blas_threads=0"], {}, "--blas_threads: 0 must be at least 1"),
        (["--sizes=0"], {}, "must be at least 1"),
        (["--kind=hilbert"], {}, "unknown matrix kind 'hilbert'"),
        (["--frobnicate"], {}, "unknown argument '--frobnicate'"),
        (["--benchmark_enable_random_interleaving=true"], {}, "not supported under MPI"),
        (["--processes=2"], {}, "--processes=2: solve_bench_mpi cannot start processes of its own"),
        (["--benchmark_out=" + os.path.join(work, "no", "such", "dir.json")], {}, "--benchmark_out: cannot create files in"),
        ([], {"SOLVE_BENCH_NB": "abc"}, "SOLVE_BENCH_NB: 'abc' is not an integer"),
        # solve_bench's GPU, mixed-precision and batched flags mean nothing here: refused, not ignored
        (["--cusolver_api=legacy32"], {}, "unknown argument '--cusolver_api=legacy32'"),
        (["--mixed_kinds=diagdom"], {}, "unknown argument '--mixed_kinds=diagdom'"),
        (["--batch_n=4"], {}, "unknown argument '--batch_n=4'"),
    ]
    for args, env, needle in cases:
        p = run(mpiexec, 2, exe, args + ["--benchmark_filter=none"], env, timeout=120)
        usage_error(p, needle)
        if p.stderr.count(needle) != 1 or "usage: mpirun" in p.stderr:
            fail("%s %s: stderr should say %r once, without the usage text:\n%s" % (args, env, needle, p.stderr))
    p = run(mpiexec, 2, exe, ["--help"])
    if p.returncode != 0 or p.stdout.count("--nb=NB") != 1:
        fail("--help should print the usage once")
    # The help shows the sizes the rows really use, and no flag it would refuse.
    sizes_line = p.stdout[p.stdout.index("--sizes="):].split("--nrhs=")[0]
    if "(default 256,1024,4096)" not in sizes_line or "--cusolver_api" in p.stdout or "--batch_n" in p.stdout:
        fail("--help should show the default sizes it runs and only its own flags:\n%s" % p.stdout)
    listed = run(mpiexec, 1, exe, ["--benchmark_list_tests=true", "--precisions=d"])
    sizes = sorted({int(line.split("/n:")[1].split("/")[0]) for line in listed.stdout.splitlines() if "/n:" in line})
    if sizes != [256, 1024, 4096]:
        fail("the rows run sizes %s, not the ones the help shows" % sizes)
    print("ok: %d bad inputs rejected with exit 2" % len(cases))


def case_lockstep(mpiexec, exe, work):
    # MPMD launch: the same binary, but rank 1 told to measure longer than rank 0, so their
    # Google Benchmark instances pick different iteration counts.
    common = ["--sizes=64", "--precisions=d", "--benchmark_filter=dgesv"]
    p = run(mpiexec, 0, None, ["-n", "1", exe] + common + ["--benchmark_min_time=5x", ":",
                                                            "-n", "1", exe] + common + ["--benchmark_min_time=0.5"],
            timeout=120)
    if p.returncode != 3:
        fail("expected exit 3, got %d\n%s" % (p.returncode, p.stderr[-2000:]))
    if "aborting instead of hanging" not in p.stderr:
        fail("no message naming the problem:\n%s" % p.stderr[-2000:])
    print("ok: ranks out of step abort with exit 3")


def case_out_rank0(mpiexec, exe, work):
    # Google Benchmark opens --benchmark_out on every process given it (and exits when it
    # cannot); rank 1 gets an unwritable path, so the run only succeeds if rank 1 ignores it.
    out = os.path.join(work, "rank0.json")
    common = ["--sizes=32", "--precisions=d", "--benchmark_filter=dgesv", "--benchmark_min_time=5x"]
    p = run(mpiexec, 0, None, ["-n", "1", exe] + common + ["--benchmark_out=" + out, ":",
                                                            "-n", "1", exe] + common +
            ["--benchmark_out=" + os.path.join(work, "no", "such", "dir.json")], timeout=120)
    if p.returncode != 0:
        fail("expected exit 0, got %d\n%s" % (p.returncode, p.stderr[-2000:]))
    rows = list(repetitions(json.load(open(out))))
    if rows != ["MPI/dgesv/n:32/nrhs:1/ranks:2/nb:64/manual_time"]:
        fail("rank 0's JSON: %s" % rows)
    print("ok: only rank 0 opened --benchmark_out")


def case_min_time_1x(mpiexec, exe, work):
    out = os.path.join(work, "once.json")
    p = run(mpiexec, 2, exe, ["--sizes=32", "--nb=8", "--benchmark_out=" + out], {"BENCHMARK_MIN_TIME": "1x"})
    if p.returncode != 0:
        fail("BENCHMARK_MIN_TIME=1x: exit %d (it was 139)\n%s" % (p.returncode, p.stderr[-2000:]))
    reps = repetitions(json.load(open(out)))
    rows = [b for r in reps.values() for b in r]
    if len(reps) != 4 or len(rows) != 20 or any(b.get("error_occurred") or b["iterations"] != 1 for b in rows):
        fail("expected 4 rows of 5 rounds of one timed call each: %r" % [(b["name"], b.get("iterations")) for b in rows])
    print("ok: BENCHMARK_MIN_TIME=1x, one call a round on 2 ranks")


def case_nothing(mpiexec, exe, work):
    stem = os.path.join(work, "keep")
    exts = (".json", ".rows.jsonl", ".audit.json", ".verdict.json", ".verdict.md")
    p = run(mpiexec, 2, exe, ["--sizes=32", "--nb=8", "--precisions=d", "--benchmark_filter=dgesv",
                              "--benchmark_min_time=5x", "--benchmark_out=" + stem + ".json"])
    if p.returncode != 0:
        fail("the earlier result: exit %d" % p.returncode)
    state = lambda: {e: (open(stem + e, "rb").read(), os.stat(stem + e).st_mtime_ns) if os.path.exists(stem + e)
                     else None for e in exts}
    before = state()
    if None in before.values():
        fail("the earlier result lacks a file: %s" % before.keys())
    for args in (["--benchmark_filter=^nomatch$"], ["--sizes=3000000", "--precisions=d", "--benchmark_filter=gesv"]):
        p = run(mpiexec, 2, exe, args + ["--benchmark_out=" + stem + ".json"])
        if p.returncode != 4 or p.stderr.count("nothing was measured") != 1:
            fail("%s: expected exit 4, said once, got %d:\n%s" % (args, p.returncode, p.stderr[-2000:]))
        if state() != before or os.path.exists(stem + ".rows.jsonl.partial"):
            fail("%s: the earlier result was touched" % args)
    print("ok: nothing measured under MPI: exit 4, the earlier result untouched")


def case_nan(mpiexec, exe, work):
    out = os.path.join(work, "nan.json")
    p = run(mpiexec, 2, exe, ["--sizes=40", "--nb=8", "--kind=nan", "--benchmark_min_time=5x",
                              "--benchmark_out=" + out])
    rows = json.load(open(out))["benchmarks"]
    if p.returncode != 1 or len(rows) != 4:
        fail("expected exit 1 and 4 failed rows, got %d:\n%s" % (p.returncode, p.stderr[-2000:]))
    for b in rows:
        if not b.get("error_occurred") or "input A holds NaN at (20,20)" not in b.get("error_message", ""):
            fail("%s: NaN input not named: %r" % (b["name"], b.get("error_message")))
    print("ok: NaN in A named by its place on every MPI row")


def main():
    if len(sys.argv) < 5:
        print(__doc__)
        sys.exit(2)
    case, exe, work = sys.argv[1:4]
    mpiexec = sys.argv[4:]
    os.makedirs(work, exist_ok=True)
    {"run": case_run, "one_rank": case_one_rank, "singular": case_singular, "usage": case_usage,
     "lockstep": case_lockstep, "out_rank0": case_out_rank0, "min_time_1x": case_min_time_1x,
     "nothing": case_nothing, "nan": case_nan}[case](mpiexec, exe, work)


if __name__ == "__main__":
    main()
