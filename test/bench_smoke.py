#!/usr/bin/env python3
"""Smoke runs of the solve_bench binary whose output is checked, not just the exit code.

usage: bench_smoke.py CASE SOLVE_BENCH WORKDIR
  run       tiny CPU sweep: exit 0, every expected row, counters, resid < 16, context, rows log
  singular  a singular matrix: named error per row, other rows still run, exit 1
  usage     bad flags and environment values: message naming the problem, exit 2
  badinput  NaN in A names its place; a size larger than host memory is skipped with needed vs
            available bytes; the other rows still run and pass
  kill      a sweep killed part-way (SIGKILL) keeps every finished row in its rows log
  checks    a run ends with its audit and verdict and writes them beside the JSON; with
            OPENBLAS_NUM_THREADS=1 the audit names it, without it stays silent on it; tools/verdict.py
            on the same JSON gives the verdict the binary gave
  memory    (GPU) every GPU row built twice gives back all its device memory the second time
  sticky    (fault-injection build, GPU) a sticky CUDA error fails its row by name, later GPU
            rows do not run, CPU rows do, exit 1; skipped (exit 77) without a GPU
"""
import json
import os
import subprocess
import sys

THRESHOLD = 16.0
# Google Benchmark 1.8 wants a unit suffix ("0.001s"), 1.7 refuses one; CMake knows which.
MIN_TIME = os.environ.get("SB_MIN_TIME", "0.001")
OPS_RHS = ["gesv", "posv", "getrs", "potrs"]
OPS_NO_RHS = ["getrf", "potrf", "gemm"]
# The vendor this build was configured for (BLA_VENDOR, via CMake); "" where it named none.
BLAS_VENDOR = os.environ.get("SB_BLAS_VENDOR", "")
CONTEXT_KEYS = ["blas_vendor", "blas_version", "blas_config", "blas_core", "blas_threads", "blas_library",
                "lapack_version", "lapack_library", "solve_bench_build_type",
                "seed", "matrix_kind_lu", "matrix_kind_cholesky", "gpu_rows", "library_build_type"]


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(exe, args, env=None):
    full_env = dict(os.environ)
    full_env.update(env or {})
    p = subprocess.run([exe] + args, capture_output=True, text=True, env=full_env, timeout=600)
    print("$", exe, " ".join(args), "->", p.returncode)
    return p


def load_rows_log(path):
    rows, context = [], None
    with open(path) as f:
        for line in f:
            doc = json.loads(line)
            context = context or doc.get("context")
            rows.extend(doc["benchmarks"])
    return context, rows


def case_run(exe, work):
    out = os.path.join(work, "run.json")
    sizes = [16, 33]
    p = run(exe, ["--sizes=16,33", "--nrhs=1,2", "--benchmark_min_time=" + MIN_TIME, "--batch_n=4,9",
                  "--batch_count=3,20", "--mixed_kinds=diagdom,uniform", "--refine=classical,gmres",
                  "--benchmark_out=" + out, "--benchmark_out_format=json"])
    print(p.stderr[-2000:])
    if p.returncode != 0:
        fail("exit status %d" % p.returncode)
    doc = json.load(open(out))
    names = {b["name"]: b for b in doc["benchmarks"]}
    expected = []
    for prec in "ds":
        for op in OPS_RHS:
            expected += ["CPU/%s%s/n:%d/nrhs:%d/manual_time" % (prec, op, n, k) for n in sizes for k in (1, 2)]
        for op in OPS_NO_RHS:
            expected += ["CPU/%s%s/n:%d/manual_time" % (prec, op, n) for n in sizes]
    missing = [e for e in expected if e not in names]
    if missing:
        fail("missing rows: %s" % missing)
    for name in expected:
        b = names[name]
        if b.get("error_occurred"):
            fail("%s: %s" % (name, b.get("error_message")))
        for key in ("GFLOP/s", "resid", "n"):
            if key not in b:
                fail("%s has no counter %s" % (name, key))
        if not (0 <= b["resid"] < THRESHOLD):
            fail("%s: resid %r" % (name, b["resid"]))
        if not b["GFLOP/s"] > 0:
            fail("%s: GFLOP/s %r" % (name, b["GFLOP/s"]))
        if b["n"] != int(name.split("/n:")[1].split("/")[0]):
            fail("%s: counter n = %r" % (name, b["n"]))
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
    ctx, logged = load_rows_log(os.path.join(work, "run.rows.jsonl"))
    if ctx is None or "blas_config" not in ctx:
        fail("rows log has no context line")
    logged_names = {b["name"] for b in logged}
    if not set(expected) <= logged_names:
        fail("rows log lacks %s" % sorted(set(expected) - logged_names))
    print("ok: %d rows, all resid < 16" % len(expected))


def case_singular(exe, work):
    out = os.path.join(work, "singular.json")
    p = run(exe, ["--sizes=40", "--kind=singular", "--precisions=d", "--benchmark_min_time=" + MIN_TIME,
                  "--benchmark_filter=CPU/d(gesv|getrf|gemm)/n", "--benchmark_out=" + out])
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
        if "singular matrix" not in p.stderr:
            fail("stderr summary does not name the error")
    gemm = rows.get("CPU/dgemm/n:40/manual_time")
    if not gemm or gemm.get("error_occurred") or not gemm["resid"] < THRESHOLD:
        fail("the other rows must still run and pass: %r" % gemm)
    print("ok: singular rows named their pivot, gemm still ran, exit 1")


def case_usage(exe, work):
    cases = [
        (["--sizes=0"], {}, "must be at least 1"),
        (["--sizes=12x"], {}, "'12x' is not an integer"),
        (["--sizes=99999999999"], {}, "too large"),
        (["--nrhs=-2"], {}, "must be at least 1"),
        (["--kind=hilbert"], {}, "unknown matrix kind 'hilbert'"),
        (["--precisions=q"], {}, "'q' is not a precision"),
        (["--frobnicate"], {}, "unknown argument '--frobnicate'"),
        ([], {"SOLVE_BENCH_SIZES": "abc"}, "SOLVE_BENCH_SIZES: 'abc' is not an integer"),
        ([], {"SOLVE_BENCH_KIND": "x"}, "SOLVE_BENCH_KIND"),
    ]
    for args, env, needle in cases:
        p = run(exe, args + ["--benchmark_filter=none"], env)
        if p.returncode != 2:
            fail("%s %s: expected exit 2, got %d" % (args, env, p.returncode))
        if needle not in p.stderr or "usage: solve_bench" not in p.stderr:
            fail("%s %s: stderr lacks %r:\n%s" % (args, env, needle, p.stderr))
    p = run(exe, ["--help"])
    if p.returncode != 0 or "--sizes" not in p.stdout:
        fail("--help")
    # --benchmark_min_time in either spelling, whichever Google Benchmark (1.7: "0.01", 1.8: "0.01s")
    # is linked; the environment variable too.
    for args, env in ((["--benchmark_min_time=0.01"], {}), (["--benchmark_min_time=0.01s"], {}),
                      ([], {"BENCHMARK_MIN_TIME": "0.01s"}), ([], {"BENCHMARK_MIN_TIME": "0.01"})):
        p = run(exe, args + ["--sizes=16", "--precisions=d", "--benchmark_filter=^CPU/dgesv/n:16/nrhs:1/manual_time"],
                env)
        if p.returncode != 0 or "CPU/dgesv/n:16" not in p.stdout:
            fail("%s %s: min_time spelling refused (exit %d):\n%s" % (args, env, p.returncode, p.stderr))
    print("ok: %d bad inputs rejected with exit 2; both min_time spellings accepted" % len(cases))


def case_badinput(exe, work):
    out = os.path.join(work, "badinput.json")
    p = run(exe, ["--sizes=40", "--kind=nan", "--precisions=d", "--benchmark_min_time=" + MIN_TIME,
                  "--benchmark_filter=^CPU/d(gesv|posv)/n:[0-9]+/nrhs:1/manual_time", "--benchmark_out=" + out])
    print(p.stderr[-1500:])
    if p.returncode != 1:
        fail("NaN input: expected exit 1, got %d" % p.returncode)
    for b in json.load(open(out))["benchmarks"]:
        if not b.get("error_occurred") or "holds NaN at (20,20)" not in b["error_message"]:
            fail("NaN input: %s: %r" % (b["name"], b.get("error_message")))

    huge = 3000000  # 2 n^2 doubles: 144 TB
    p = run(exe, ["--sizes=%d,32" % huge, "--precisions=d", "--benchmark_min_time=" + MIN_TIME,
                  "--benchmark_filter=^CPU/dgesv/n:[0-9]+/nrhs:1/manual_time", "--benchmark_out=" + out])
    print(p.stderr[-1500:])
    rows = {b["name"]: b for b in json.load(open(out))["benchmarks"]}
    big = rows.get("CPU/dgesv/n:%d/nrhs:1/manual_time" % huge)
    msg = (big or {}).get("error_message", "")
    if not big or not big.get("error_occurred") or "not enough host memory: needed" not in msg or "available" not in msg:
        fail("oversized row: %r" % big)
    small = rows.get("CPU/dgesv/n:32/nrhs:1/manual_time")
    if not small or small.get("error_occurred") or not small["resid"] < THRESHOLD:
        fail("the other row must still run: %r" % small)
    if p.returncode != 0 or "skipped" not in p.stderr:
        fail("a skipped row is listed and does not fail the run (exit %d)" % p.returncode)
    print("ok: NaN named by position, oversized row skipped with needed vs available, the rest ran")


def case_kill(exe, work):
    import signal
    import time
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
    import sbjson  # the tools' reader: what regress and report will make of the kept rows

    out = os.path.join(work, "killed.json")
    log = os.path.join(work, "killed.rows.jsonl")
    if os.path.exists(log):
        os.remove(log)
    # Many rows of well under a second each: the kill lands mid-sweep.
    proc = subprocess.Popen([exe, "--sizes=32,48,64,96,128,192,256,384", "--benchmark_min_time=0.05",
                             "--batch_n=4", "--batch_count=10", "--benchmark_out=" + out],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if os.path.exists(log) and sum(1 for _ in open(log)) >= 6:  # the context line + 5 rows
            break
        time.sleep(0.05)
    if proc.poll() is not None:
        fail("the sweep ended before it could be killed")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    lines = open(log).read().splitlines()
    docs = [json.loads(line) for line in lines]  # every kept line is complete JSON
    kept = [b for d in docs for b in d["benchmarks"]]
    if "context" not in docs[0] or len(kept) < 5:
        fail("kept %d rows and context %s" % (len(kept), "context" in docs[0]))
    for b in kept:
        if b.get("error_occurred") or not b["resid"] < THRESHOLD or not b["real_time"] > 0:
            fail("a kept row is not a finished, checked row: %r" % b)
    try:
        json.load(open(out))
        fail("the --benchmark_out file should be incomplete after a kill; the test did not kill mid-sweep")
    except ValueError:
        pass
    run_doc = sbjson.load(log)
    if len(run_doc.rows) != len(kept):
        fail("the tools' reader kept %d of %d rows" % (len(run_doc.rows), len(kept)))
    print("ok: killed after %d rows; all kept, complete, readable by the tools" % len(kept))


def case_checks(exe, work):
    import math
    out = os.path.join(work, "checks.json")
    for stale in ("checks.audit.json", "checks.verdict.json", "checks.verdict.md"):
        if os.path.exists(os.path.join(work, stale)):
            os.remove(os.path.join(work, stale))
    quiet = {k: v for k, v in os.environ.items() if not k.startswith(("OPENBLAS_", "OMP_", "GOTO_", "MKL_", "BLIS_"))}
    args = ["--sizes=64,200", "--precisions=d", "--benchmark_min_time=" + MIN_TIME,
            "--benchmark_filter=^CPU[^/]*/d(gesv|posv|getrf|getrs|potrf|potrs|gemm)/n:[0-9]+(/nrhs:1)?/manual_time",
            "--benchmark_out=" + out]
    p = subprocess.run([exe] + args, capture_output=True, text=True, env=dict(quiet, OPENBLAS_NUM_THREADS="1"),
                       timeout=600)
    print(p.stdout[-3000:], p.stderr[-1500:])
    if p.returncode != 0:
        fail("exit status %d" % p.returncode)
    # The run ends with the audit, then the verdict; the audit names the variable and its value.
    last_row = p.stdout.rindex("/manual_time ")  # the console's last row line
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
    # The same verdict from the JSON by the tools' own implementation.
    tools = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools")
    py = os.path.join(work, "checks.py-verdict.json")
    q = subprocess.run([sys.executable, os.path.join(tools, "verdict.py"), "--json", py, out], capture_output=True,
                       text=True, timeout=120)
    if q.returncode != 0:
        fail("tools/verdict.py: %s" % q.stderr)
    ours, theirs = json.load(open(os.path.join(work, "checks.verdict.json"))), json.load(open(py))

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
                fail("%s: %r (solve_bench) vs %r (tools/verdict.py)" % (where, a, b))
        elif a != b and where.split(".")[-1].split("[")[0] != "lines":
            fail("%s: %r vs %r" % (where, a, b))
    same(ours, theirs, "verdict")

    # Without the variable the audit says nothing about it.
    p = subprocess.run([exe] + args, capture_output=True, text=True, env=quiet, timeout=600)
    if p.returncode != 0 or "thread_env" in p.stdout:
        fail("a run without thread variables must not flag them (exit %d):\n%s" % (p.returncode, p.stdout[-2000:]))
    print("ok: audit and verdict at the end and beside the JSON; OPENBLAS_NUM_THREADS=1 named; verdicts agree")


def require_gpu(exe):
    probe = run(exe, ["--sizes=64", "--benchmark_filter=^GPU/dgesv/", "--benchmark_list_tests=true"])
    if "GPU rows not registered" in probe.stderr:
        print("SKIP: no GPU: " + probe.stderr.strip().splitlines()[0])
        sys.exit(77)


def case_memory(exe, work):
    require_gpu(exe)
    p = run(exe, ["--sizes=64,300", "--batch_n=4,40", "--batch_count=9,100", "--mixed_kinds=diagdom",
                  "--benchmark_min_time=" + MIN_TIME, "--benchmark_repetitions=2",
                  "--benchmark_enable_random_interleaving=true", "--benchmark_filter=^GPU"])
    print(p.stderr[-3000:])
    if p.returncode != 0 or "device memory leak" in p.stderr:
        fail("GPU rows must give back their device memory (exit %d)" % p.returncode)
    print("ok: every GPU row built twice returned all device memory")


def case_sticky(exe, work):
    out = os.path.join(work, "sticky.json")
    require_gpu(exe)
    env = {"SOLVE_BENCH_INJECT_FAULT": "GPU/dgesv/n:64/"}
    p = run(exe, ["--sizes=64,96", "--precisions=d", "--benchmark_min_time=" + MIN_TIME,
                  "--benchmark_filter=^(CPU|GPU)/d(gesv|posv)/n:[0-9]+/nrhs:1/manual_time", "--benchmark_out=" + out],
            env)
    print(p.stdout[-3000:], p.stderr[-3000:])
    if p.returncode != 1:
        fail("expected exit 1, got %d" % p.returncode)
    rows = {b["name"]: b for b in json.load(open(out))["benchmarks"]}
    hit = rows.get("GPU/dgesv/n:64/nrhs:1/manual_time")
    if not hit or "cudaErrorIllegalAddress" not in hit.get("error_message", ""):
        fail("the faulted row must name the CUDA error: %r" % hit)
    later = [r for n, r in rows.items() if n.startswith("GPU/") and n != "GPU/dgesv/n:64/nrhs:1/manual_time"]
    if not later or not all(r.get("error_occurred") and "not run" in r["error_message"] for r in later):
        fail("GPU rows after the fault must not run: %r" % later)
    cpu = [r for n, r in rows.items() if n.startswith("CPU/")]
    if len(cpu) != 4 or any(r.get("error_occurred") or not r["resid"] < THRESHOLD for r in cpu):
        fail("CPU rows must still run and pass: %r" % cpu)
    print("ok: sticky error named, %d later GPU rows not run, CPU rows fine, exit 1" % len(later))


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        sys.exit(2)
    case, exe, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    {"run": case_run, "singular": case_singular, "usage": case_usage, "badinput": case_badinput,
     "kill": case_kill, "checks": case_checks, "memory": case_memory, "sticky": case_sticky}[case](exe, work)


if __name__ == "__main__":
    main()
