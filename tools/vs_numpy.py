#!/usr/bin/env python3
"""CPU/dgesv against numpy.linalg.solve on the same matrix, the same OpenBLAS, in one run.

usage: vs_numpy.py SOLVE_BENCH [--n 2048] [--repetitions 7] [--out result.json]

Builds the very matrix solve_bench builds (splitmix64 uniform [0,1), same seed, see
lib/include/solvebench/generate.hpp) with numpy, and times with a steady clock (median of
the repetitions, one warm-up call first):
  numpy C   np.linalg.solve(A, b) on a C-ordered A, what users write (np.random.rand);
            numpy first copies A into LAPACK's column-major layout, a transposing copy
  numpy F   the same on a Fortran-ordered A: the copy is contiguous
  dgesv     scipy.linalg.lapack.dgesv on a Fortran-ordered copy, overwrite on, copy untimed:
            the bare LAPACK call the other two make (needs scipy)
then runs solve_bench's CPU/dgesv/n:N/nrhs:1 (dgetrf + dgetrs) and CPU-driver/dgesv/n:N/nrhs:1
(the one-call LAPACKE_dgesv) with the same repetitions and prints the medians and ratios. numpy must use the system OpenBLAS (Debian/Ubuntu python3-numpy does).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import needs  # noqa: E402
import sbjson  # noqa: E402

needs.modules("vs_numpy.py", ["numpy"])
import numpy as np  # noqa: E402

DEFAULT_SEED = 20261130
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def mix64(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def uniform01(key, index):
    with np.errstate(over="ignore"):
        z = mix64(np.uint64(key) + (index + np.uint64(1)) * GOLDEN)
    return (z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53


def keys(seed):
    with np.errstate(over="ignore"):
        return (int(mix64(np.uint64(seed ^ 0x4D415452495841))), int(mix64(np.uint64(seed ^ 0x5248534252485342))))


def solve_bench_problem(n, seed=DEFAULT_SEED):
    """A (uniform kind) and b exactly as solve_bench generates them, as float64 arrays."""
    matrix_key, rhs_key = keys(seed)
    idx = np.arange(n * n, dtype=np.uint64)  # column-major linear index j*n + i
    a = uniform01(matrix_key, idx).reshape(n, n).T.copy()  # C-ordered, like np.random.rand
    b = uniform01(rhs_key, np.arange(n, dtype=np.uint64)).reshape(n, 1)
    return a, b


def hpl_resid(a, x, b):
    n = a.shape[0]
    return float(np.abs(b - a @ x).max() / (2.0 ** -53 * (np.abs(a).sum(axis=1).max() * np.abs(x).max()
                                                          + np.abs(b).max()) * n))


def median_seconds(call, reps):
    """call() -> (seconds, x); one warm-up call, then the median of reps."""
    call()
    runs = [call() for _ in range(reps)]
    return statistics.median(t for t, _ in runs), runs[-1][1]


def timed(f):
    def call():
        t0 = time.perf_counter()
        x = f()
        return time.perf_counter() - t0, x
    return call


def time_python_side(n, reps):
    a, b = solve_bench_problem(n)
    af = np.asfortranarray(a)
    out = {}
    for label, arr in (("numpy C", a), ("numpy F", af)):
        t, x = median_seconds(timed(lambda arr=arr: np.linalg.solve(arr, b)), reps)
        out[label] = (t, hpl_resid(a, x, b))
    try:
        from scipy.linalg import lapack as sl
    except ImportError:
        return out

    def bare():
        a_work, b_work = af.copy(order="F"), b.copy(order="F")
        t0 = time.perf_counter()
        _, _, x, info = sl.dgesv(a_work, b_work, overwrite_a=1, overwrite_b=1)
        t = time.perf_counter() - t0
        assert info == 0
        return t, x
    t, x = median_seconds(bare, reps)
    out["dgesv"] = (t, hpl_resid(a, x, b))
    return out


def time_solve_bench(exe, n, reps):
    """{backend: (median seconds, worst resid)} for CPU and CPU-driver, and the run's context."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run.json")
        subprocess.run([exe, "--sizes=%d" % n, "--precisions=d",
                        "--benchmark_filter=^CPU(-driver)?/dgesv/n:%d/nrhs:1/" % n,
                        "--benchmark_repetitions=%d" % reps, "--benchmark_out=" + out,
                        "--benchmark_out_format=json"], check=True, stdout=subprocess.DEVNULL)
        results = sbjson.load(out)
    rows = sbjson.summarize(results.rows)
    found = {}
    for backend in ("CPU", "CPU-driver"):
        row = next((r for r in rows.values() if r.id and r.id["backend"] == backend and r.ok), None)
        if row is None:
            raise SystemExit("vs_numpy.py: no %s row with an id in %s's run" % (backend, exe))
        found[backend] = (row.median_ms / 1e3, max(row.counters.get("resid", [float("nan")])))
    return found, results.context


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("solve_bench")
    p.add_argument("--n", type=int, default=2048)
    p.add_argument("--repetitions", type=int, default=7)
    p.add_argument("--out", help="write the comparison as JSON here")
    args = p.parse_args()

    py = time_python_side(args.n, args.repetitions)
    sb, ctx = time_solve_bench(args.solve_bench, args.n, args.repetitions)
    sb_med, sb_resid = sb["CPU"]
    result = {
        "n": args.n, "repetitions": args.repetitions,
        "solve_bench_median_ms": sb_med * 1e3, "solve_bench_resid": sb_resid,
        "solve_bench_driver_median_ms": sb["CPU-driver"][0] * 1e3, "solve_bench_driver_resid": sb["CPU-driver"][1],
        "python": {k: {"median_ms": t * 1e3, "resid": r, "solve_bench_over_this": sb_med / t}
                   for k, (t, r) in py.items()},
        "numpy_version": np.__version__, "solve_bench_blas": ctx.get("blas_config"),
        "solve_bench_lapack": ctx.get("lapack_library"),
    }
    try:
        import contextlib
        import io
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            np.show_config()
        result["numpy_blas"] = " ".join(l.strip() for l in buf.getvalue().splitlines() if "openblas" in l.lower())[:300]
    except Exception as e:  # pragma: no cover
        result["numpy_blas"] = "unknown (%s)" % e
    print("n=%d, %d repetitions, medians (ratio = solve_bench time / this time):" % (args.n, args.repetitions))
    print("  %-22s %9.2f ms  resid %.3g" % ("solve_bench CPU/dgesv", sb_med * 1e3, sb_resid))
    print("  %-22s %9.2f ms  resid %.3g  (LAPACKE_dgesv in one call)" % ("solve_bench CPU-driver", sb["CPU-driver"][0] * 1e3,
                                                                          sb["CPU-driver"][1]))
    for k, v in result["python"].items():
        print("  %-22s %9.2f ms  resid %.3g  ratio %.3f" % (k, v["median_ms"], v["resid"], v["solve_bench_over_this"]))
    print("  numpy BLAS: %s" % result["numpy_blas"])
    print("  solve_bench BLAS: %s via %s" % (result["solve_bench_blas"], result["solve_bench_lapack"]))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
