"""Synthetic solve_bench results, in the formats solve_bench writes, for the tools' tests.

Rows carry an id as solve_bench writes them (and the name derived from it); legacy() turns
runs into those of results from before ids (no id, times in ms)."""
import functools
import json
import os
import statistics
import subprocess
import sys

CONTEXT = {"host_name": "synthetic", "num_cpus": 2, "blas_core": "Haswell", "solve_bench_version": "0.1.0"}
PER_MS = {"ns": 1e6, "us": 1e3, "ms": 1.0, "s": 1e-3}


def make_id(backend, op, n, precision="d", nrhs=None, factor=None, **axes):
    """The id solve_bench gives a row (the same fields; test data, not a rule)."""
    family = backend.split("-")[0]
    batched = "batch" in axes
    row_id = {"backend": backend, "device": "gpu" if family in ("GPU", "MGPU") else "cpu",
              "placement": {"GPU-pinned": "pinned", "GPU-pageable": "pageable"}.get(backend, "resident"),
              "path": "call" if op == "gemm" else ("loop" if backend == "GPU-loop" else "batched") if batched
              else "driver" if backend == "CPU-driver" or factor or family == "MPI" else "halves",
              "library": ("cublas" if op == "gemm" else "cusolver") if family == "GPU" else
              "cusolverMg" if family == "MGPU" else "scalapack" if family == "MPI" else
              "blas" if op == "gemm" else "lapack",
              "op": op, "precision": precision}
    if factor:
        row_id["factor"] = factor
    row_id["n"] = n
    if nrhs is not None:
        row_id["nrhs"] = nrhs
    row_id.update(axes)
    return row_id


def name_of(row_id):
    """The row's name, as solve_bench derives it from the id."""
    op = row_id["precision"] + row_id.get("factor", "") + row_id["op"] + (
        "_batched" if row_id["path"] in ("batched", "loop") else "")
    rest = "".join("/%s:%s" % (k, v) for k, v in row_id.items()
                   if k not in ("backend", "device", "placement", "path", "library", "op", "precision", "factor",
                                "n", "nrhs"))
    return "%s/%s/n:%d%s%s/manual_time" % (row_id["backend"], op, row_id["n"],
                                           "/nrhs:%d" % row_id["nrhs"] if "nrhs" in row_id else "", rest)


def spread(median_ms, reps, rel=0.01):
    """reps deterministic times around median_ms, +-rel, with exactly that median."""
    if reps == 1:
        return [median_ms]
    return [median_ms * (1 + (2 * i / (reps - 1) - 1) * rel) for i in range(reps)]


def runs(row_id, times_ms, counters=None, error=None, aggregates=True, time_unit="ns"):
    """The run objects solve_bench writes for one row: one per repetition, then aggregates.
    row_id: an id (make_id), or a bare name (another program's rows, or results before ids)."""
    name = name_of(row_id) if isinstance(row_id, dict) else row_id
    per_ms = PER_MS[time_unit]
    counters = counters or {}
    base = {"name": name, "run_name": name, "family_index": 0, "per_family_instance_index": 0,
            "repetitions": len(times_ms), "threads": 1, "time_unit": time_unit}
    if isinstance(row_id, dict):
        base["id"] = row_id
    out = []
    for i, t in enumerate(times_ms):
        run = dict(base, run_type="iteration", repetition_index=i)
        if error:
            run.update(error_occurred=True, error_message=error, iterations=0, real_time=0.0, cpu_time=0.0)
        else:
            run.update(iterations=10, real_time=t * per_ms, cpu_time=t * per_ms,
                       **{k: (v(t) if callable(v) else v) for k, v in counters.items()})
        out.append(run)
    if aggregates and not error and len(times_ms) > 1:
        for which, value in (("mean", statistics.mean(times_ms)), ("median", statistics.median(times_ms)),
                             ("stddev", statistics.stdev(times_ms))):
            out.append(dict(base, name=name + "_" + which, run_type="aggregate", aggregate_name=which,
                            aggregate_unit="time", iterations=len(times_ms), real_time=value * per_ms,
                            cpu_time=value * per_ms,
                            **{k: (v(value) if callable(v) else v) for k, v in counters.items()}))
    return out


def solve_row(backend, op, n, median_ms, reps=10, rel=0.01, precision="d", nrhs=1, resid=0.01, flops=None,
              factor=None, axes=None, **kw):
    """A row with its GFLOP/s, resid and n counters, as solve_bench writes them."""
    nrhs = None if op in ("gemm", "getrf", "potrf") or (axes and "batch" in axes) else nrhs
    row_id = make_id(backend, op, n, precision, nrhs, factor, **(axes or {}))
    flops = flops if flops is not None else 2.0 / 3.0 * n ** 3
    counters = {"GFLOP/s": lambda t: flops / (t * 1e-3) / 1e9, "resid": resid, "n": float(n)}
    return runs(row_id, spread(median_ms, reps, rel), counters, **kw)


def cond_row(backend, op, n, cond, median_ms, fwd_err, refine=None, niters=None, factor=None, resid=0.01, reps=5):
    """A row of the condition-number map: <backend>/<op>/n:N/nrhs:1/cond:C[/refine:R]."""
    axes = {"cond": cond}
    if refine:
        axes["refine"] = refine
    row_id = make_id(backend, op, n, "d", 1, factor, **axes)
    counters = {"GFLOP/s": lambda t: 2.0 / 3.0 * n ** 3 / (t * 1e-3) / 1e9, "resid": resid, "fwd_err": fwd_err,
                "n": float(n), "nrhs": 1.0}
    if niters is not None:
        counters.update(niters=float(niters), outer_iters=float(niters), fell_back=0.0)
    return runs(row_id, spread(median_ms, reps), counters)


def legacy(all_runs):
    """The same runs as results from before ids: no id, times in ms."""
    out = []
    for run in all_runs:
        run = {k: v for k, v in run.items() if k != "id"}
        if run.get("time_unit") and "real_time" in run:
            scale = PER_MS["ms"] / PER_MS[run["time_unit"]]
            run.update(real_time=run["real_time"] * scale, cpu_time=run["cpu_time"] * scale, time_unit="ms")
        out.append(run)
    return out


def document(all_runs, context=None):
    return {"context": dict(CONTEXT if context is None else context), "benchmarks": all_runs}


def write_json(path, all_runs, context=None):
    with open(path, "w") as f:
        json.dump(document(all_runs, context), f, indent=1)
    return path


def write_rows_log(path, all_runs, context=None):
    """solve_bench's rows log: a context line, then one run object a line."""
    with open(path, "w") as f:
        f.write(json.dumps({"context": dict(CONTEXT if context is None else context)}) + "\n")
        for run in all_runs:
            f.write(json.dumps(run) + "\n")
    return path


def write_old_rows_log(path, all_runs, context=None):
    """The rows log of earlier versions: a context line, then one {"benchmarks": [run]} a line."""
    with open(path, "w") as f:
        f.write(json.dumps({"context": dict(CONTEXT if context is None else context), "benchmarks": []}) + "\n")
        for run in all_runs:
            f.write(json.dumps({"benchmarks": [run]}) + "\n")
    return path


def finding(rule, severity, rows, message="synthetic finding"):
    return {"rule": rule, "severity": severity, "rows": list(rows), "message": message}


def sidecar(results_path, kind):
    for suffix in (".rows.jsonl", ".jsonl", ".json"):
        if results_path.endswith(suffix):
            return results_path[:-len(suffix)] + ".%s.json" % kind
    return results_path + ".%s.json" % kind


THRESHOLDS = {"resid": 16.0, "fwd_err_slack": 10.0, "fwd_err_floor": 1.1102230246251565e-16}


def write_audit(results_path, findings=(), clean=None, rules=("driver_vs_halves", "noisy_row"), rows_checked=10):
    """The audit sidecar solve_bench writes beside results_path."""
    findings = list(findings)
    doc = {"audit": {"clean": not findings if clean is None else clean, "rules_checked": list(rules),
                     "rules_skipped": [], "rows_checked": rows_checked, "rows_failed": 0, "findings": findings,
                     "thresholds": THRESHOLDS}}
    path = sidecar(results_path, "audit")
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
    return path


@functools.lru_cache(maxsize=None)
def operations() -> dict:
    """The checks' table of operations, as the sidecars carry it (solve_bench_checks thresholds)."""
    from checksbin import find_checks
    p = subprocess.run([find_checks(), "thresholds"], capture_output=True, text=True, check=True)
    return json.loads(p.stdout)["operations"]


def write_verdict(results_path, **fields):
    """A verdict sidecar with the given entries (solves, batched, mixed_map, ...)."""
    verdict = {"machine": {}, "has_gpu_rows": True, "rows_passed": 0, "rows_failed": 0, "solves": [],
               "fp64_fp32": None, "mixed": [], "mixed_map": [], "batched": [], "caveats": [], "lines": [],
               "thresholds": THRESHOLDS, "operations": operations()}
    verdict.update(fields)
    path = sidecar(results_path, "verdict")
    with open(path, "w") as f:
        json.dump({"verdict": verdict}, f, indent=1)
    return path


def checks_argument(script):
    """Take `--checks PATH` (the solve_bench_checks the test judges with) out of sys.argv, for
    unittest.main; exit naming the script when it is missing or not executable."""
    path = None
    if "--checks" in sys.argv:
        i = sys.argv.index("--checks")
        path = sys.argv[i + 1]
        del sys.argv[i:i + 2]
    if not path or not os.access(path, os.X_OK):
        sys.exit("%s: give --checks PATH/solve_bench_checks" % script)
    return path
