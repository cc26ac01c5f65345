"""Synthetic solve_bench histories for the tests of tools/track: runs in Google Benchmark's
format (with the new id objects and noise_pct counters on some rows), added to a store."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

TOOLS = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
TRACK = os.path.join(TOOLS, "track")
sys.path.insert(0, TOOLS)
import tracking  # noqa: E402
from tracking import analysis  # noqa: E402

COMMIT_A, COMMIT_B = "a" * 40, "b" * 40
BASE_CONTEXT = {"host_name": "bench1", "solve_bench_version": "0.1.0", "solve_bench_commit": COMMIT_A,
                "blas_vendor": "OpenBLAS", "blas_version": "0.3.26", "blas_core": "Haswell",
                "blas_threads": "2", "cpu_model": "Synthetic CPU", "num_cpus": 2}
ROW_IDS = {  # rows of the new format (an id object); the others are identified by name
    "CPU/dgesv/n:1024/nrhs:1": {"backend": "CPU", "device": "cpu", "placement": "resident", "path": "halves",
                                "library": "lapack", "op": "gesv", "precision": "d", "n": 1024, "nrhs": 1},
    "GPU/dgesv/n:1024/nrhs:1": {"backend": "GPU", "device": "gpu", "placement": "resident", "path": "halves",
                                "library": "cusolver", "op": "gesv", "precision": "d", "n": 1024, "nrhs": 1},
}


def entries(name, times_ms, noise_pct=None, reps=3, unit="ms"):
    """Google Benchmark's entries for one row: `reps` repetitions around times_ms."""
    per_ms = {"ns": 1e6, "us": 1e3, "ms": 1.0}[unit]
    full = name + "/manual_time"
    out = []
    for i in range(reps):
        t = times_ms * (1 + 0.002 * (i - (reps - 1) / 2))
        e = {"name": full, "run_name": full, "run_type": "iteration", "repetitions": reps,
             "repetition_index": i, "iterations": 10, "real_time": t * per_ms, "cpu_time": t * per_ms,
             "time_unit": unit}
        if name in ROW_IDS:
            e["id"] = ROW_IDS[name]
        if noise_pct is not None:
            e["noise_pct"], e["samples"] = noise_pct, 10
        out.append(e)
    return out


def write_run(path, day, rows, context=None, audit=None, verdict=None):
    """A run dated `day` days after 2026-01-01 with rows {name: median ms or (ms, noise_pct)}."""
    ctx = dict(BASE_CONTEXT, **(context or {}))
    ctx["date"] = "2026-%02d-%02dT03:00:00+00:00" % (1 + day // 28, 1 + day % 28)
    benchmarks = []
    for name, value in rows.items():
        ms, noise = value if isinstance(value, tuple) else (value, None)
        benchmarks += entries(name, ms, noise, unit="us" if name.startswith("GPU") else "ms")
    with open(path, "w") as f:
        json.dump({"context": ctx, "benchmarks": benchmarks}, f)
    if audit is not None:  # what the readers require of an audit (sbjson.AUDIT), unless given
        with open(path[:-5] + ".audit.json", "w") as f:
            json.dump({"audit": dict({"rules_checked": [], "rows_checked": len(rows)}, **audit)}, f)
    if verdict is not None:
        with open(path[:-5] + ".verdict.md", "w") as f:
            f.write(verdict)
    return path


def changes(values, key="row"):
    """analysis.detect's change points of one series, without a store."""
    s = analysis.Series(key, key, None, list(range(len(values))), list(values), [None] * len(values))
    records = [{"fingerprint": {}, "date": "d"}] * len(values)
    limits = tracking.thresholds()  # the checks' (solve_bench_checks thresholds)
    return analysis.detect(s, analysis.Causes(records), "t", records, limits, limits["change_point_alpha"],
                           int(limits["step_runs"]))


def noisy(rng, ms, pct):
    return float(ms * rng.lognormal(0, pct / 100))


class TrackCase(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name
        self.store = os.path.join(self.dir, "store")

    def tearDown(self):
        self._tmp.cleanup()

    def track(self, *args, expect=0):
        p = subprocess.run([sys.executable, TRACK] + [str(a) for a in args], capture_output=True,
                           text=True, timeout=300)
        self.assertEqual(p.returncode, expect, p.stdout + p.stderr)
        return p.stdout + p.stderr

    def history(self, runs, rows_of_run, context_of_run=lambda k: {}, **kw):
        """Write and add `runs` runs: rows_of_run(k) and context_of_run(k) for run k."""
        paths = [write_run(os.path.join(self.dir, "run%03d.json" % k), k, rows_of_run(k), context_of_run(k), **kw)
                 for k in range(runs)]
        self.track("add", "--store", self.store, *paths)
        return paths

    def analyze(self, *options):
        out = os.path.join(self.dir, "analysis.json")
        text = self.track("analyze", "--store", self.store, "--json", out, *options)
        with open(out) as f:
            return json.load(f), text


VERDICT_MD = """# Verdict

GPU: **none** · host: bench1

- dgesv: GPU faster from n = 256
- **blas_threads** (warning): one BLAS thread †1

## Caveats from the audit

| rule | severity |
| --- | --- |
| `blas_threads` | warning |

<script>alert(1)</script> <img src="http://127.0.0.1:9/v.png"> ![x](http://127.0.0.1:9/i.png) [a](javascript:alert(1))
"""


def dashboard_history(case):
    """A store with an environment change at run 12 on two CPU rows (confirmed: blas_core) and a
    commit change at run 16 on a third (its culprit bisected), the answers kept, and its dashboard."""
    rng = np.random.default_rng(21)
    audit = {"clean": False, "findings": [{"rule": "gpu_throttled", "severity": "note",
                                           "rows": ["GPU/dgesv/n:1024/nrhs:1"], "message": "power-capped"}]}
    case.history(24, lambda k: {"CPU/dgesv/n:1024/nrhs:1": noisy(rng, 5 * (3 if k >= 12 else 1), 3),
                                "CPU/dgetrf/n:256": noisy(rng, 1 * (3 if k >= 12 else 1), 3),
                                "CPU/dgetrs/n:256/nrhs:1": noisy(rng, 0.05 * (2 if k >= 16 else 1), 3),
                                "GPU/dgesv/n:1024/nrhs:1": noisy(rng, 2, 3)},
                 lambda k: {"blas_core": "Prescott" if k >= 12 else "Haswell",
                            "solve_bench_commit": COMMIT_B if k >= 16 else COMMIT_A},
                 audit=audit, verdict=VERDICT_MD)
    from tracking import store
    files = sorted(os.listdir(os.path.join(case.store, "bench1")))
    evidence = [{"row": "CPU/dgetrs/n:256/nrhs:1", "status": "slower", "outcome": "moved", "change_pct": 98.0,
                 "noise_pct": 4.0, "pairs": 16}]
    store.write_answer(case.store, "bench1", "bisect-test", {
        "kind": "bisect", "outcome": "culprit", "message": "", "rows": ["CPU/dgetrs/n:256/nrhs:1"],
        "runs": {"before": {"commit": COMMIT_A}, "after": {"commit": COMMIT_B}}, "seconds": 360.0,
        "steps": [{"commit": COMMIT_B}] * 4, "skipped": [],
        "culprit": {"commit": COMMIT_B, "short": "bbbbbbb", "subject": "lapack: let LAPACKE <check> its inputs",
                    "rows": evidence, "merge": None}})
    store.write_answer(case.store, "bench1", "confirm-test", {
        "kind": "confirm", "rows": ["CPU/dgesv/n:1024/nrhs:1", "CPU/dgetrf/n:256"],
        "runs": {"before": {"file": files[11]}, "after": {"file": files[12]}}, "unconfirmable": {},
        "levers": [{"lever": "coretype", "keys": {"blas_core": ["Haswell", "Prescott"]}, "outcome": "moved",
                    "how": "OPENBLAS_CORETYPE=Haswell -> OPENBLAS_CORETYPE=Prescott", "seconds": 60.0,
                    "rows": [{"row": "CPU/dgesv/n:1024/nrhs:1", "outcome": "moved", "change_pct": 201.0,
                              "noise_pct": 5.0, "pairs": 12}]}]})
    site = os.path.join(case.dir, "site")
    case.track("dashboard", "--store", case.store, "--out", site, "--baseline", "0")
    return site
