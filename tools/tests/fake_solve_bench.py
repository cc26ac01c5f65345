#!/usr/bin/env python3
"""A stand-in for solve_bench in the tests of tools/track bisect and confirm: the command line
.ci/bench-pr gives it (--benchmark_list_tests, --benchmark_filter, --benchmark_repetitions,
--benchmark_out), the files solve_bench writes (X.json and X.rows.jsonl with a context and
rows with ids), and times that a test sets: each row's base time, times FAKE_FACTOR (baked
in by the scratch repositories' builds, or from the environment), times 2 under
OPENBLAS_CORETYPE=Prescott and 1.5 with OPENBLAS_NUM_THREADS=1 (levers for confirm), with 2%
lognormal noise. The judge stays the real solve_bench_checks."""
import json
import os
import random
import re
import sys

ROWS = {  # name: (id, base ms)
    "CPU/dgetrs/n:1024/nrhs:1": ({"backend": "CPU", "device": "cpu", "placement": "resident", "path": "halves",
                                  "library": "lapack", "op": "getrs", "precision": "d", "n": 1024, "nrhs": 1}, 0.2),
    "CPU/dgemm/n:1024": ({"backend": "CPU", "device": "cpu", "placement": "resident", "path": "call",
                          "library": "blas", "op": "gemm", "precision": "d", "n": 1024}, 20.0),
}
FACTOR = "@FACTOR@"  # replaced by a scratch build; else FAKE_FACTOR from the environment


def factor(name: str) -> float:
    baked = FACTOR if not FACTOR.startswith("@") else os.environ.get("FAKE_FACTOR", "1")
    f = float(baked) if not os.environ.get("FAKE_ROWS") or re.search(os.environ["FAKE_ROWS"], name) else 1.0
    if os.environ.get("OPENBLAS_CORETYPE") == "Prescott":
        f *= 2
    if os.environ.get("OPENBLAS_NUM_THREADS") == "1":
        f *= 1.5
    return f


def main(argv) -> int:
    flags = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
    pattern = re.compile(flags.get("benchmark_filter", "."))
    rows = [n for n in ROWS if pattern.search(n + "/manual_time")]
    if "--benchmark_list_tests" in argv:
        print("\n".join(n + "/manual_time" for n in rows))
        return 0
    if not rows:
        print("fake solve_bench: no row matches", file=sys.stderr)
        return 4
    reps = int(flags.get("benchmark_repetitions", "1"))
    rng = random.Random()
    context = {"date": "2026-12-01T00:00:00+00:00", "host_name": "fake", "num_cpus": 2, "solve_bench_version": "0.1.0",
               "solve_bench_commit": "f" * 40, "blas_vendor": "OpenBLAS", "blas_core": "Haswell",
               "blas_threads": "2", "cores_available": "2", "thread_env": ""}
    entries = []
    for name in rows:
        row_id, ms = ROWS[name]
        for i in range(reps):
            t = ms * factor(name) * rng.lognormvariate(0, 0.02)
            entries.append({"name": name + "/manual_time", "run_name": name + "/manual_time", "run_type": "iteration",
                            "repetitions": reps, "repetition_index": i, "threads": 1, "iterations": 20, "id": row_id,
                            "real_time": t * 1e6, "cpu_time": t * 1e6, "time_unit": "ns", "resid": 0.01,
                            "noise_pct": 1.0, "samples": 20.0})
    out = flags.get("benchmark_out")
    if out:
        with open(out, "w") as f:
            json.dump({"context": context, "benchmarks": entries}, f)
        with open(out[:-5] + ".rows.jsonl" if out.endswith(".json") else out + ".rows.jsonl", "w") as f:
            f.write(json.dumps({"context": context}) + "\n")
            f.writelines(json.dumps(e) + "\n" for e in entries)
    for e in entries:
        print("%s %.4f ms" % (e["name"], e["real_time"] / 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
