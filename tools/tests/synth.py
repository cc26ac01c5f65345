"""Synthetic solve_bench results in Google Benchmark's run format, for the tools' tests."""
import json
import statistics

CONTEXT = {"host_name": "synthetic", "num_cpus": 2, "blas_core": "Haswell"}


def spread(median_ms, reps, rel=0.01):
    """reps deterministic times around median_ms, +-rel, with exactly that median."""
    if reps == 1:
        return [median_ms]
    steps = [(2 * i / (reps - 1) - 1) * rel for i in range(reps)]
    return [median_ms * (1 + s) for s in steps]


def runs(name, times_ms, counters=None, error=None, skipped=None, aggregates=True, time_unit="ms"):
    """The runs Google Benchmark 1.7 writes for one row: one per repetition, then aggregates."""
    per_ms = {"ns": 1e6, "us": 1e3, "ms": 1.0, "s": 1e-3}[time_unit]
    counters = counters or {}
    base = {"name": name, "run_name": name, "family_index": 0, "per_family_instance_index": 0,
            "repetitions": len(times_ms), "threads": 1, "time_unit": time_unit}
    out = []
    for i, t in enumerate(times_ms):
        run = dict(base, run_type="iteration", repetition_index=i)
        if error:
            run.update(error_occurred=True, error_message=error, iterations=0, real_time=0.0, cpu_time=0.0)
        elif skipped:  # Google Benchmark 1.8's SkipWithMessage
            run.update(skipped=True, skip_message=skipped, iterations=0, real_time=0.0, cpu_time=0.0)
        else:
            run.update(iterations=10, real_time=t * per_ms, cpu_time=t * per_ms,
                       **{k: (v(t) if callable(v) else v) for k, v in counters.items()})
        out.append(run)
    if aggregates and not error and not skipped and len(times_ms) > 1:
        median = statistics.median(times_ms)
        for which, value in (("mean", statistics.mean(times_ms)), ("median", median),
                             ("stddev", statistics.stdev(times_ms))):
            out.append(dict(base, name=name + "_" + which, run_type="aggregate", aggregate_name=which,
                            aggregate_unit="time", iterations=len(times_ms), real_time=value * per_ms,
                            cpu_time=value * per_ms,
                            **{k: (v(value) if callable(v) else v) for k, v in counters.items()}))
    return out


def solve_row(backend, op, n, median_ms, reps=10, rel=0.01, nrhs=1, resid=0.01, flops=None, **kw):
    """A row named like solve_bench's, with its GFLOP/s, resid, n (and nrhs) counters."""
    name = "%s/%s/n:%d%s/manual_time" % (backend, op, n, "/nrhs:%d" % nrhs if nrhs else "")
    flops = flops if flops is not None else 2.0 / 3.0 * n ** 3
    counters = {"GFLOP/s": lambda t: flops / (t * 1e-3) / 1e9, "resid": resid, "n": float(n)}
    if nrhs:
        counters["nrhs"] = float(nrhs)
    return runs(name, spread(median_ms, reps, rel), counters, **kw)


def document(all_runs, context=None):
    return {"context": dict(CONTEXT if context is None else context), "benchmarks": all_runs}


def write_json(path, all_runs, context=None):
    with open(path, "w") as f:
        json.dump(document(all_runs, context), f, indent=1)
    return path


def write_jsonl(path, all_runs, context=None):
    """solve_bench's rows log: a context line, then one {"benchmarks": [...]} line per row."""
    with open(path, "w") as f:
        f.write(json.dumps({"context": dict(CONTEXT if context is None else context), "benchmarks": []}) + "\n")
        for run in all_runs:
            f.write(json.dumps({"benchmarks": [run]}) + "\n")
    return path


def cond_row(backend, op, n, cond, median_ms, fwd_err, refine=None, niters=None, outer_iters=None,
             fell_back=None, resid=0.01, reps=5, **kw):
    """A row of the condition-number map: <backend>/<op>/n:N/nrhs:1/cond:C[/refine:R], with
    resid, fwd_err (and, for mixed precision, niters, outer_iters, fell_back) counters."""
    name = "%s/%s/n:%d/nrhs:1/cond:%s%s/manual_time" % (backend, op, n, cond, "/refine:" + refine if refine else "")
    counters = {"GFLOP/s": lambda t: 2.0 / 3.0 * n ** 3 / (t * 1e-3) / 1e9, "resid": resid,
                "fwd_err": fwd_err, "n": float(n), "nrhs": 1.0}
    for key, value in (("niters", niters), ("outer_iters", outer_iters), ("fell_back", fell_back)):
        if value is not None:
            counters[key] = float(value)
    return runs(name, spread(median_ms, reps), counters, **kw)


def finding(rule, severity, rows, message="synthetic finding"):
    return {"rule": rule, "severity": severity, "rows": list(rows), "message": message}


def write_audit(results_path, findings=(), clean=None, rules=("driver_vs_halves", "ceilings", "noise"),
                rows_checked=10):
    """The audit sidecar solve_bench writes beside results_path (X.json, X.rows.jsonl -> X.audit.json)."""
    for suffix in (".rows.jsonl", ".jsonl", ".json"):
        if results_path.endswith(suffix):
            path = results_path[:-len(suffix)] + ".audit.json"
            break
    else:
        path = results_path + ".audit.json"
    findings = list(findings)
    doc = {"audit": {"clean": not findings if clean is None else clean, "rules_checked": list(rules),
                     "rows_checked": rows_checked, "findings": findings}}
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
    return path
