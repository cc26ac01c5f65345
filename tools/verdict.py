#!/usr/bin/env python3
"""verdict: the answer a run gives, not just its rows: GPU or CPU, from which n, how much faster.

usage: tools/verdict.py [--json PATH] [--md PATH] FILE...

FILEs are Google Benchmark JSON files or solve_bench .rows.jsonl logs. The audit's findings
come from the sidecar X.audit.json beside X.json or X.rows.jsonl, where there is one. Prints
the console form; --json and --md write the machine-readable and the Markdown verdict.

This is the same verdict solve_bench prints at the end of a run (benchmarks/core/verdict.cpp);
the two implement one specification and a test holds them to the same numbers:

Rows count only when they passed (no error or skip, resid < 16, a positive median time).
Solves (dgesv, sgesv, dposv, sposv), from the rows whose only axes are n and nrhs, at the
  smallest nrhs that both a CPU-side (CPU, CPU-driver) and a GPU-side (GPU, GPU-pinned,
  GPU-pageable) row of the op has:
  - the CPU's best at each n is the faster of CPU and CPU-driver (CPU on a tie);
  - per GPU form, speedup s(n) = CPU best ms / GPU ms at the n both have, and the crossover:
    gpu_always (s >= 1 everywhere; n = the smallest), cpu_always (s < 1 everywhere; n = the
    largest), crossing (the last rise through 1, s_i < 1 <= s_i+1, beyond which s stays >= 1,
    interpolated on log n against log s and rounded half up) or mixed (the GPU wins somewhere
    but not at the largest n; n = its largest win, gpu_wins_at = every win);
  - at the largest n that the CPU best and the device-resident GPU both have: both times,
    the speedup, the CPU path; energy there from the J/solve counters of the two rows used
    (ratio = CPU J / GPU J), else null and the sides that lack it.
fp64:fp32: GPU/dgemm over GPU/sgemm GFLOP/s at the largest n both have (rows with the n axis
  only); "fp64-first-class" from 1/8 up, else "fp64-reduced" with mixed-precision advice that
  cites GPU/dsgesv's speed over GPU/dgesv (min and max over the matrices at the largest n).
Mixed: per matrix (the axes other than n, nrhs, refine) and nrhs, at the largest n with a
  GPU/d{s,x,h,b}gesv row: the fastest fp64-accurate row among GPU/dgesv and those (passed;
  fwd_err at most 10x GPU/dgesv's where both have one), its speedup over GPU/dgesv.
Batched: per *_batched op with CPU and GPU rows (axes n and batch): at the largest batch both
  have, the n with the largest and with the smallest GPU speedup.
Caveats: a finding is attached to every entry that used one of its rows (all the passed rows
  an entry considered); findings without rows concern the whole run and go to "caveats".
Standard library only, so it imports wherever Python 3 does.
"""
import argparse
import json
import math
import os
import sys
from typing import Dict, List, Optional

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import sbjson  # noqa: E402

SOLVE_OPS = ["dgesv", "sgesv", "dposv", "sposv"]
CPU_SIDE = ["CPU", "CPU-driver"]
GPU_FORMS = ["GPU", "GPU-pinned", "GPU-pageable"]
MIXED_OPS = ["dsgesv", "dxgesv", "dhgesv", "dbgesv"]
FIRST_CLASS_RATIO = 1.0 / 8.0  # H100/H200/A100 run fp64 at 1/2 to 1/1 of fp32; consumer cards at 1/32-1/64
FWD_ERR_SLACK = 10.0           # a mixed row may lose one digit of forward error against dgesv, no more
ENERGY_KEY, GFLOP_PER_J_KEY = "J/solve", "GFLOP/J"
FIRST_CLASS_ADVICE = "fp64 solves run at full speed on this GPU"
FORM_WORDS = {"GPU": "GPU", "GPU-pinned": "GPU with pinned transfers",
              "GPU-pageable": "GPU with pageable transfers"}
MACHINE_KEYS = ["gpu_name", "host_name", "blas_vendor", "blas_version", "gpu_rows"]


def fmt_sig(x: Optional[float], digits: int = 3) -> str:
    """Three significant digits without exponents (1235, 12.3, 0.0123); the C++ twin prints alike."""
    if x is None or not math.isfinite(x):
        return "–"
    if x == 0:
        return "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(x))))
    return "%.*f" % (decimals, x)


def round_half_up(x: float) -> int:
    return int(math.floor(x + 0.5))


def plain_name(name: str) -> str:
    """CPU/dgesv/n:64/nrhs:1/manual_time -> CPU/dgesv/n:64/nrhs:1: how findings and rows meet."""
    parsed = sbjson.parse_name(name)
    parts = [parsed.backend] + ([parsed.op] if parsed.op else [])
    parts += [k + (":" + v if v else "") for k, v in parsed.axes]
    return "/".join(parts)


class _Row:
    """What the verdict needs of a passed row."""

    def __init__(self, row: sbjson.Row):
        self.row = row
        self.name = plain_name(row.name)
        self.backend, self.op = row.parsed.backend, row.parsed.op
        self.axes = list(row.parsed.axes)
        self.ms = row.median_ms

    def int_axis(self, key: str) -> Optional[int]:
        for k, v in self.axes:
            if k == key:
                return int(v) if v.isdigit() else None
        return None

    def has_exactly(self, keys) -> bool:
        """Axes are exactly `keys`, each once, each an integer."""
        names = [k for k, _ in self.axes]
        return sorted(names) == sorted(keys) and all(self.int_axis(k) is not None for k in keys)

    def counter(self, key: str) -> Optional[float]:
        value = self.row.counter(key)
        return value if value is not None and math.isfinite(value) else None


def passed_rows(rows: Dict[str, sbjson.Row]) -> List[_Row]:
    return [_Row(r) for r in rows.values() if _ran(r) and r.ok]


class _Findings:
    def __init__(self, findings: List[dict]):
        self.findings = [dict(f, rows=[plain_name(r) for r in f.get("rows") or []]) for f in findings]

    def attached(self, used: set) -> List[dict]:
        out = []
        for f in self.findings:
            caveat = {"rule": f.get("rule", ""), "severity": f.get("severity", ""), "message": f.get("message", "")}
            if any(r in used for r in f["rows"]) and caveat not in out:
                out.append(caveat)
        return out

    def run_wide(self) -> List[dict]:
        out = []
        for f in self.findings:
            caveat = {"rule": f.get("rule", ""), "severity": f.get("severity", ""), "message": f.get("message", "")}
            if not f["rows"] and caveat not in out:
                out.append(caveat)
        return out


# ---------------------------------------------------------------------------------- crossover

def crossover(points: List[dict]) -> Optional[dict]:
    """points: {"n", "speedup"} sorted by n. Where the GPU starts to win (see the module doc)."""
    if not points:
        return None
    s = [p["speedup"] for p in points]
    ns = [p["n"] for p in points]
    if all(v >= 1 for v in s):
        return {"kind": "gpu_always", "n": ns[0], "interpolated": False, "between": None}
    if all(v < 1 for v in s):
        return {"kind": "cpu_always", "n": ns[-1], "interpolated": False, "between": None}
    if s[-1] < 1:
        wins = [n for n, v in zip(ns, s) if v >= 1]
        return {"kind": "mixed", "n": wins[-1], "interpolated": False, "between": None, "gpu_wins_at": wins}
    i = max(j for j, v in enumerate(s) if v < 1)
    t = -math.log(s[i]) / (math.log(s[i + 1]) - math.log(s[i]))
    log_n = math.log(ns[i]) + (math.log(ns[i + 1]) - math.log(ns[i])) * t
    return {"kind": "crossing", "n": round_half_up(math.exp(log_n)), "interpolated": True,
            "between": [ns[i], ns[i + 1]]}


# ---------------------------------------------------------------------------------- the parts

def _solve_entry(op: str, rows: List[_Row], findings: _Findings) -> Optional[dict]:
    mine = [r for r in rows if r.op == op and r.has_exactly(("n", "nrhs"))]
    cpu = [r for r in mine if r.backend in CPU_SIDE]
    gpu = [r for r in mine if r.backend in GPU_FORMS]
    common = {r.int_axis("nrhs") for r in cpu} & {r.int_axis("nrhs") for r in gpu}
    if not common:
        return None
    nrhs = min(common)
    by = {}  # (backend, n) -> row; the first row of a name wins
    for r in mine:
        if r.int_axis("nrhs") == nrhs:
            by.setdefault((r.backend, r.int_axis("n")), r)
    used = {r.name for r in by.values()}
    best = {}  # n -> the CPU row used
    for n in sorted({n for b, n in by if b in CPU_SIDE}):
        plain, driver = by.get(("CPU", n)), by.get(("CPU-driver", n))
        best[n] = driver if plain is None or (driver is not None and driver.ms < plain.ms) else plain
    forms = []
    for backend in GPU_FORMS:
        points = [{"n": n, "cpu_ms": best[n].ms, "gpu_ms": by[(backend, n)].ms,
                   "speedup": best[n].ms / by[(backend, n)].ms}
                  for n in sorted(n for b, n in by if b == backend) if n in best]
        if points:
            forms.append({"backend": backend, "points": points, "crossover": crossover(points)})
    largest, energy, missing = None, None, []
    resident = [f for f in forms if f["backend"] == "GPU"]
    if resident:
        last = resident[0]["points"][-1]
        n = last["n"]
        cpu_row, gpu_row = best[n], by[("GPU", n)]
        largest = {"n": n, "cpu_ms": last["cpu_ms"], "cpu_path": cpu_row.backend, "gpu_ms": last["gpu_ms"],
                   "speedup": last["speedup"]}
        cpu_j, gpu_j = cpu_row.counter(ENERGY_KEY), gpu_row.counter(ENERGY_KEY)
        missing = [side for side, j in (("CPU", cpu_j), ("GPU", gpu_j)) if j is None or j <= 0]
        if not missing:
            energy = {"n": n, "cpu_J": cpu_j, "gpu_J": gpu_j, "ratio": cpu_j / gpu_j,
                      "cpu_GFLOP_per_J": cpu_row.counter(GFLOP_PER_J_KEY),
                      "gpu_GFLOP_per_J": gpu_row.counter(GFLOP_PER_J_KEY)}
    return {"op": op, "nrhs": nrhs,
            "cpu_best": [{"n": n, "ms": r.ms, "path": r.backend} for n, r in sorted(best.items())],
            "forms": forms, "largest": largest, "energy": energy, "energy_missing": missing,
            "caveats": findings.attached(used)}


def _matrix(r: _Row) -> str:
    return "/".join(k + (":" + v if v else "") for k, v in r.axes if k not in METHOD_AXES)


# Axes that name how a mixed-precision row solves (n and nrhs aside), not which matrix it solves.
METHOD_AXES = ("n", "nrhs", "refine", "api", "tol")


def _refine(r: _Row) -> Optional[str]:
    return dict(r.axes).get("refine")


def _mixed_key(r: _Row):
    return (_matrix(r), r.int_axis("nrhs"), r.int_axis("n"))


def _ran(row: sbjson.Row) -> bool:
    """Timed to the end; its answer may still have failed the accuracy check."""
    return row.error is None and row.skipped is None and row.median_ms is not None and row.median_ms > 0


def _passed(r: _Row) -> bool:
    return _ran(r.row) and r.row.ok


def _gpu_mixed(all_rows: Dict[str, sbjson.Row]):
    """GPU mixed rows that ran (accurate or not) and the passed GPU/dgesv baselines by (matrix, nrhs, n)."""
    mixed, baseline = [], {}
    for row in all_rows.values():
        r = _Row(row)
        if r.backend != "GPU" or r.int_axis("n") is None or r.int_axis("nrhs") is None or not _ran(row):
            continue
        if r.op in MIXED_OPS:
            mixed.append(r)
        elif r.op == "dgesv" and _refine(r) is None and _passed(r):
            baseline.setdefault(_mixed_key(r), r)
    return mixed, baseline


def _dsgesv_speedup(mixed: List[_Row], baseline: Dict, used: set) -> Optional[dict]:
    pairs = [(r, baseline[_mixed_key(r)]) for r in mixed
             if r.op == "dsgesv" and _passed(r) and _mixed_key(r) in baseline]
    if not pairs:
        return None
    n = max(r.int_axis("n") for r, _ in pairs)
    speedups = []
    for r, base in pairs:
        if r.int_axis("n") == n:
            speedups.append(base.ms / r.ms)
            used.update((r.name, base.name))
    return {"n": n, "min": min(speedups), "max": max(speedups), "count": len(speedups)}


def _fp64_entry(rows: List[_Row], all_rows, findings: _Findings) -> Optional[dict]:
    gemm = {"dgemm": {}, "sgemm": {}}
    for r in rows:
        if r.backend == "GPU" and r.op in gemm and r.has_exactly(("n",)):
            rate = r.counter("GFLOP/s")
            if rate is not None and rate > 0:
                gemm[r.op].setdefault(r.int_axis("n"), r)
    common = set(gemm["dgemm"]) & set(gemm["sgemm"])
    if not common:
        return None
    n = max(common)
    d, s = gemm["dgemm"][n], gemm["sgemm"][n]
    ratio = d.counter("GFLOP/s") / s.counter("GFLOP/s")
    one_in = round_half_up(1.0 / ratio)
    used = {d.name, s.name}
    mixed, baseline = _gpu_mixed(all_rows)
    dsgesv = _dsgesv_speedup(mixed, baseline, used)
    first_class = ratio >= FIRST_CLASS_RATIO
    if first_class:
        advice = FIRST_CLASS_ADVICE
    else:
        advice = ("fp64 runs at 1/%d of fp32 on this GPU: put fp64 solves on the CPU or use mixed precision "
                  "(dsgesv: fp32 factorization refined to fp64 accuracy)" % one_in)
        if dsgesv:
            advice += "; here GPU/dsgesv ran at %s the speed of GPU/dgesv at n = %d" % (
                _range_times(dsgesv["min"], dsgesv["max"]), dsgesv["n"])
    return {"n": n, "dgemm_GFLOPs": d.counter("GFLOP/s"), "sgemm_GFLOPs": s.counter("GFLOP/s"), "ratio": ratio,
            "one_in": one_in, "class": "fp64-first-class" if first_class else "fp64-reduced", "advice": advice,
            "dsgesv": dsgesv, "caveats": findings.attached(used)}


def _range_times(lo: float, hi: float) -> str:
    return "%s×" % fmt_sig(lo) if fmt_sig(lo) == fmt_sig(hi) else "%s–%s×" % (fmt_sig(lo), fmt_sig(hi))


def _mixed_entries(all_rows, findings: _Findings) -> List[dict]:
    mixed, baseline = _gpu_mixed(all_rows)
    keys = sorted({(_matrix(r), r.int_axis("nrhs")) for r in mixed})
    out = []
    for matrix, nrhs in keys:
        n = max(r.int_axis("n") for r in mixed if (_matrix(r), r.int_axis("nrhs")) == (matrix, nrhs))
        here = [r for r in mixed if _mixed_key(r) == (matrix, nrhs, n)]
        base = baseline.get((matrix, nrhs, n))
        base_fwd = base.counter("fwd_err") if base else None
        candidates = [base] if base else []
        rejected = []
        for r in here:
            fwd = r.counter("fwd_err")
            accurate = _passed(r) and _refine(r) != "none" and \
                not (base_fwd is not None and fwd is not None and fwd > FWD_ERR_SLACK * base_fwd)
            (candidates if accurate else rejected).append(r)
        used = {r.name for r in here} | ({base.name} if base else set())
        best = None
        for r in candidates:
            if best is None or r.ms < best.ms:
                best = r
        entry = {"matrix": matrix, "nrhs": nrhs, "n": n, "best": best.name if best else None,
                 "op": best.op if best else None, "refine": _refine(best) if best else None,
                 "ms": best.ms if best else None, "dgesv_ms": base.ms if base else None,
                 "speedup": base.ms / best.ms if base and best else None,
                 "niters": best.counter("niters") if best else None,
                 "fell_back": best.counter("fell_back") if best else None,
                 "rejected": [r.name for r in rejected], "caveats": findings.attached(used)}
        out.append(entry)
    return out


def _batched_entries(rows: List[_Row], findings: _Findings) -> List[dict]:
    by = {}  # op -> (backend, batch, n) -> row
    for r in rows:
        if r.op.endswith("_batched") and r.backend in ("CPU", "GPU") and r.has_exactly(("n", "batch")):
            by.setdefault(r.op, {}).setdefault((r.backend, r.int_axis("batch"), r.int_axis("n")), r)
    out = []
    for op in sorted(by):
        table = by[op]
        both = [(b, n) for (side, b, n) in table if side == "CPU" and ("GPU", b, n) in table]
        if not both:
            continue
        batch = max(b for b, _ in both)
        points, used = [], set()
        for n in sorted(n for b, n in both if b == batch):
            cpu, gpu = table[("CPU", batch, n)], table[("GPU", batch, n)]
            points.append({"n": n, "cpu_ms": cpu.ms, "gpu_ms": gpu.ms, "speedup": cpu.ms / gpu.ms})
            used.update((cpu.name, gpu.name))
        best, worst = points[0], points[0]
        for p in points[1:]:
            best = p if p["speedup"] > best["speedup"] else best
            worst = p if p["speedup"] < worst["speedup"] else worst
        out.append({"op": op, "batch": batch, "points": points, "best": best, "worst": worst,
                    "caveats": findings.attached(used)})
    return out


# ---------------------------------------------------------------------------------- sentences

def _times(x: float) -> str:
    return "%s×" % fmt_sig(x)


def _crossover_phrase(backend: str, c: dict) -> str:
    who = FORM_WORDS.get(backend, backend)
    if c["kind"] == "gpu_always":
        return "%s faster at every n measured (from n = %d)" % (who, c["n"])
    if c["kind"] == "cpu_always":
        return "%s slower at every n measured (up to n = %d)" % (who, c["n"])
    if c["kind"] == "crossing":
        return "%s faster from n ≈ %d (interpolated between %d and %d)" % (who, c["n"], *c["between"])
    return "%s faster only at n = %s, slower above" % (who, ", ".join(str(n) for n in c["gpu_wins_at"]))


def _who_wins(speedup: float) -> str:
    return "the GPU is %s faster" % _times(speedup) if speedup >= 1 else "the CPU is %s faster" % _times(1 / speedup)


def _caveat_lines(label: str, caveats: List[dict]) -> List[str]:
    return ["%s caveat (%s): %s" % (label, c["rule"], c["message"]) for c in caveats]


def _lines(v: dict) -> List[str]:
    lines = []
    if not v["has_gpu_rows"]:
        why = v["machine"].get("gpu_rows")
        lines.append("No GPU rows in this run%s: nothing to compare the CPU with." % (" (gpu_rows: %s)" % why if why else ""))
    elif not v["solves"]:
        lines.append("No solve ran on both the CPU and the GPU: no crossover to give.")
    for e in v["solves"]:
        text = "%s (nrhs %d): %s." % (e["op"], e["nrhs"], "; ".join(
            _crossover_phrase(f["backend"], f["crossover"]) for f in e["forms"]))
        big = e["largest"]
        if big:
            text += " At n = %d: GPU %s ms, CPU %s ms (%s): %s." % (
                big["n"], fmt_sig(big["gpu_ms"]), fmt_sig(big["cpu_ms"]), big["cpu_path"], _who_wins(big["speedup"]))
        lines.append(text)
    with_largest = [e for e in v["solves"] if e["largest"]]
    no_energy = with_largest and all(len(e["energy_missing"]) == 2 for e in with_largest)
    if no_energy:
        lines.append("Energy was not measured on either side (no J/solve counters).")
    for e in v["solves"]:
        en = e["energy"]
        if en:
            ratio = en["ratio"]
            lines.append("%s energy at n = %d: CPU %s J, GPU %s J per solve: the %s uses %s less energy." % (
                e["op"], en["n"], fmt_sig(en["cpu_J"]), fmt_sig(en["gpu_J"]), "GPU" if ratio >= 1 else "CPU",
                _times(ratio if ratio >= 1 else 1 / ratio)))
        elif e["largest"] and not no_energy:
            side = "either" if len(e["energy_missing"]) == 2 else "the " + e["energy_missing"][0]
            lines.append("%s energy at n = %d: not measured on %s side." % (e["op"], e["largest"]["n"], side))
        lines += _caveat_lines(e["op"], e["caveats"])
    f = v["fp64_fp32"]
    if f:
        lines.append("fp64:fp32 GEMM ratio %s (1/%d) at n = %d, GPU/dgemm %s vs GPU/sgemm %s GFLOP/s: %s; advice: %s." % (
            fmt_sig(f["ratio"]), f["one_in"], f["n"], fmt_sig(f["dgemm_GFLOPs"]), fmt_sig(f["sgemm_GFLOPs"]),
            f["class"], f["advice"]))
        lines += _caveat_lines("fp64:fp32", f["caveats"])
    elif v["has_gpu_rows"]:
        lines.append("fp64:fp32 GEMM ratio not measured (no GPU/dgemm and GPU/sgemm rows at a common n).")
    for m in v["mixed"]:
        label = "Mixed precision, %s at n = %d" % (m["matrix"] or "default matrix", m["n"])
        rejected = len(m["rejected"])
        if m["best"] is None:
            text = "%s: no fp64-accurate row" % label
        elif m["op"] == "dgesv":
            text = "%s: GPU/dgesv itself is the fastest fp64-accurate solve (%s ms)" % (label, fmt_sig(m["ms"]))
        else:
            text = "%s: the fastest fp64-accurate solve is GPU/%s%s at %s ms" % (
                label, m["op"], " (refine %s)" % m["refine"] if m["refine"] else "", fmt_sig(m["ms"]))
            if m["speedup"] is not None:
                text += ", %s the speed of GPU/dgesv" % _times(m["speedup"])
            if m["niters"] is not None:
                text += ", %g iterations" % m["niters"]
            if m["fell_back"] is not None and m["fell_back"] >= 1:
                text += ", fell back to fp64"
        if rejected:
            text += "; %d row%s not fp64-accurate" % (rejected, "" if rejected == 1 else "s")
        lines.append(text + ".")
        lines += _caveat_lines("mixed " + (m["matrix"] or "default"), m["caveats"])
    for b in v["batched"]:
        best, worst = b["best"], b["worst"]
        text = "%s, batch %d: GPU speedup %s at n = %d (CPU %s ms, GPU %s ms)" % (
            b["op"], b["batch"], _times(best["speedup"]), best["n"], fmt_sig(best["cpu_ms"]), fmt_sig(best["gpu_ms"]))
        if worst["n"] != best["n"]:
            text += ", %s at n = %d (CPU %s ms, GPU %s ms)" % (
                _times(worst["speedup"]), worst["n"], fmt_sig(worst["cpu_ms"]), fmt_sig(worst["gpu_ms"]))
        lines.append(text + ".")
        lines += _caveat_lines(b["op"], b["caveats"])
    for c in v["caveats"]:
        lines.append("Caveat (%s, %s): %s" % (c["rule"], c["severity"], c["message"]))
    return lines


# ---------------------------------------------------------------------------------- the verdict

def compute(rows: Dict[str, sbjson.Row], contexts: List[dict], findings: List[dict]) -> dict:
    """rows and contexts as sbjson.load_rows gives them; findings as the audit writes them."""
    machine = {}
    for key in MACHINE_KEYS:
        machine[key] = next((str(c[key]) for c in contexts if c.get(key) not in (None, "")), None)
    passed = passed_rows(rows)
    audit = _Findings(findings)
    v = {
        "machine": machine,
        "has_gpu_rows": any(r.parsed.backend.startswith("GPU") or r.parsed.backend == "MGPU" for r in rows.values()),
        "solves": [e for e in (_solve_entry(op, passed, audit) for op in SOLVE_OPS) if e],
        "fp64_fp32": _fp64_entry(passed, rows, audit),
        "mixed": _mixed_entries(rows, audit),
        "batched": _batched_entries(passed, audit),
        "caveats": audit.run_wide(),
    }
    v["lines"] = _lines(v)
    return {"verdict": v}


def sidecar_stem(path: str) -> str:
    """X for X.json or X.rows.jsonl: where X.audit.json and X.verdict.* live."""
    for suffix in (".rows.jsonl", ".json", ".jsonl"):
        if path.endswith(suffix):
            return path[: -len(suffix)]
    return path


def load_findings(paths: List[str]) -> List[dict]:
    """The findings of every X.audit.json beside the given files (none where there is none),
    read by sbjson.load_audits: the one reader of solve_bench's audit sidecars."""
    return [{"rule": f.rule, "severity": f.severity, "rows": list(f.rows), "message": f.message}
            for audit in sbjson.load_audits(paths) for f in audit.findings]


def from_files(paths: List[str]) -> dict:
    rows, contexts = sbjson.load_rows(paths)
    return compute(rows, contexts, load_findings(paths))


# ---------------------------------------------------------------------------------- renderings

def to_json(verdict: dict) -> str:
    return json.dumps(verdict, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def console(verdict: dict) -> str:
    v = verdict["verdict"]
    return "verdict\n" + "".join("  %s\n" % line for line in v["lines"])


def _crossover_cell(c: Optional[dict]) -> str:
    if c is None:
        return "–"
    if c["kind"] == "gpu_always":
        return "≤ %d" % c["n"]
    if c["kind"] == "cpu_always":
        return "never (to %d)" % c["n"]
    if c["kind"] == "crossing":
        return "≈ %d" % c["n"]
    return "only %s" % ", ".join(str(n) for n in c["gpu_wins_at"])


def markdown(verdict: dict) -> str:
    v = verdict["verdict"]
    m = v["machine"]
    facts = [label + value for label, value in (
        ("GPU: ", m["gpu_name"]), ("host: ", m["host_name"]),
        ("BLAS: ", " ".join(x for x in (m["blas_vendor"], m["blas_version"]) if x) or None)) if value]
    out = ["# Verdict", ""]
    if facts:
        out += [" · ".join(facts), ""]
    out += ["- " + line for line in v["lines"]] + [""]
    if v["solves"]:
        out += ["## Solves: the GPU against the CPU's best path", "",
                "Speedup = the CPU's best ms (the faster of CPU and CPU-driver at each n) / GPU ms. "
                "GPU: A and b on the device; GPU-pinned, GPU-pageable: transfers included. "
                "\"GPU from\": the n above which the GPU is faster, interpolated in log-log between measured sizes.",
                "", "| op | nrhs | GPU from | GPU-pinned from | GPU-pageable from | largest n | CPU ms (path) "
                "| GPU ms | speedup | energy CPU / GPU (J/solve) |",
                "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for e in v["solves"]:
            forms = {f["backend"]: f["crossover"] for f in e["forms"]}
            big, en = e["largest"], e["energy"]
            cells = [e["op"], str(e["nrhs"])] + [_crossover_cell(forms.get(b)) for b in GPU_FORMS]
            if big:
                cells += [str(big["n"]), "%s (%s)" % (fmt_sig(big["cpu_ms"]), big["cpu_path"]), fmt_sig(big["gpu_ms"]),
                          _times(big["speedup"])]
            else:
                cells += ["–"] * 4
            if en:
                cells.append("%s / %s" % (fmt_sig(en["cpu_J"]), fmt_sig(en["gpu_J"])))
            elif big:
                cells.append("not measured (%s)" % ", ".join(e["energy_missing"]))
            else:
                cells.append("–")
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    f = v["fp64_fp32"]
    if f or v["has_gpu_rows"]:
        out += ["## fp64 : fp32 on this GPU", ""]
        if f:
            out += ["GPU/dgemm %s GFLOP/s, GPU/sgemm %s GFLOP/s at n = %d: ratio %s (1/%d), **%s**." % (
                fmt_sig(f["dgemm_GFLOPs"]), fmt_sig(f["sgemm_GFLOPs"]), f["n"], fmt_sig(f["ratio"]), f["one_in"],
                f["class"]), "", "Advice: %s." % f["advice"], ""]
        else:
            out += ["Not measured: no GPU/dgemm and GPU/sgemm rows at a common n.", ""]
    if v["mixed"]:
        out += ["## Mixed precision: the fastest fp64-accurate solve", "",
                "| matrix | n | fastest | ms | GPU/dgesv ms | speedup | niters | fell back | not fp64-accurate |",
                "| --- | ---: | --- | ---: | ---: | ---: | ---: | --- | ---: |"]
        for e in v["mixed"]:
            fastest = "–" if e["best"] is None else e["op"] + (" (%s)" % e["refine"] if e["refine"] else "")
            out.append("| %s | %d | %s | %s | %s | %s | %s | %s | %d |" % (
                e["matrix"] or "default", e["n"], fastest, fmt_sig(e["ms"]), fmt_sig(e["dgesv_ms"]),
                _times(e["speedup"]) if e["speedup"] is not None else "–",
                "%g" % e["niters"] if e["niters"] is not None else "–",
                "–" if e["fell_back"] is None else ("yes" if e["fell_back"] >= 1 else "no"), len(e["rejected"])))
        out.append("")
    if v["batched"]:
        out += ["## Batched: many small systems", "",
                "| op | batch | largest GPU speedup | smallest GPU speedup |", "| --- | ---: | --- | --- |"]
        for b in v["batched"]:
            cell = [("%s at n = %d (CPU %s ms, GPU %s ms)" % (_times(p["speedup"]), p["n"], fmt_sig(p["cpu_ms"]),
                                                              fmt_sig(p["gpu_ms"]))) for p in (b["best"], b["worst"])]
            out.append("| %s | %d | %s | %s |" % (b["op"], b["batch"], cell[0], cell[1]))
        out.append("")
    attached = [(e["op"], e["caveats"]) for e in v["solves"]]
    if f:
        attached.append(("fp64:fp32", f["caveats"]))
    attached += [("mixed " + (e["matrix"] or "default"), e["caveats"]) for e in v["mixed"]]
    attached += [(b["op"], b["caveats"]) for b in v["batched"]]
    attached.append(("the whole run", v["caveats"]))
    items = ["- **%s** (%s) on %s: %s" % (c["rule"], c["severity"], where, c["message"])
             for where, caveats in attached for c in caveats]
    out += ["## Caveats from the audit", ""] + (items or ["No audit finding touches these numbers."]) + [""]
    return "\n".join(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="verdict", description=__doc__.split("\n\n", 2)[1])
    parser.add_argument("files", nargs="+", metavar="FILE", help="JSON or .rows.jsonl results")
    parser.add_argument("--json", metavar="PATH", help="write the machine-readable verdict here")
    parser.add_argument("--md", metavar="PATH", help="write the Markdown verdict here")
    args = parser.parse_args(argv)
    try:
        verdict = from_files(args.files)
    except sbjson.InputError as e:
        print("verdict: %s" % e, file=sys.stderr)
        return 2
    for path, text in ((args.json, to_json(verdict)), (args.md, markdown(verdict))):
        if path:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    sys.stdout.write(console(verdict))
    return 0


if __name__ == "__main__":
    sys.exit(main())
