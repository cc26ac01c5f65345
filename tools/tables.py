"""tools/report's table.md: the verdict's speedups and crossovers, then every row's time.

Numbers come from the verdict (solve_bench_checks) and the runs' own medians; the audit's
findings mark the numbers that use a row they name. Nothing is judged here.
"""
import math
import os
from typing import Callable, Dict, List, Optional

import figures
import sbjson

Marks = Callable[..., str]


def sig(x: Optional[float], digits: int = 3) -> str:
    """Three significant digits without exponents: 1235, 12.3, 0.0123 (as the checks print)."""
    if x is None:
        return "–"
    if x == 0 or not math.isfinite(x):
        return str(x)
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(x))))
    return "%.*f" % (decimals, x)


def crossover_text(cross: Optional[dict]) -> str:
    """The verdict's crossover in words (kind: gpu_always, cpu_always, crossing, mixed)."""
    if not cross:
        return "–"
    kind, n = cross.get("kind"), cross.get("n")
    if kind == "gpu_always":
        return "faster at every n measured (from n = %s)" % n
    if kind == "cpu_always":
        return "slower at every n measured (up to n = %s)" % n
    if kind == "crossing":
        between = cross.get("between")
        return "faster from n ≈ %s%s" % (n, " (between %d and %d)" % tuple(between) if between and len(between) == 2
                                          else "")
    if kind == "mixed":
        wins = cross.get("gpu_wins_at") or []
        return "faster at n = %s only; slower beyond n = %s" % (", ".join(map(str, wins)) or "?", n)
    return "%s at n = %s" % (kind, n)


def verdict_markdown(verdict: dict, marks: Marks) -> List[str]:
    out = []
    solves, batched = verdict.get("solves") or [], verdict.get("batched") or []
    if not solves and not batched:
        return ["## GPU against the CPU", "", "The verdict has no GPU rows to hold against CPU rows.", ""]
    out += ["## GPU against the CPU (the verdict)", "",
            "Median ms per call; × = the CPU's best ms / the GPU's (the faster of CPU, ?getrf + ?getrs, and "
            "CPU-driver, the one-call LAPACKE driver; its path is named). GPU: A and b already on the device; "
            "GPU-pinned, GPU-pageable: the transfers from and to host memory included.", ""]
    for s in solves:
        forms = s["forms"]
        nrhs = s.get("nrhs")
        best = {p["n"]: p for p in s.get("cpu_best") or []}
        header = ["n", "CPU best ms"] + [c for f in forms for c in ("%s ms" % f["backend"], "%s ×" % f["backend"])]
        out += ["### %s (nrhs %s)" % (s["op"], nrhs), "", "| " + " | ".join(header) + " |",
                "|" + " ---: |" * len(header)]
        by_form = [{p["n"]: p for p in f["points"]} for f in forms]
        for n in sorted(set(best) | {n for pts in by_form for n in pts}):
            cpu = best.get(n)
            cpu_row = cpu.get("row") if cpu else None  # row names as the verdict gives them
            several = cpu and cpu.get("runner_up_library")  # the run timed several CPU libraries
            path = cpu and (cpu["path"] + (", " + (cpu.get("library_name") or cpu["library"]) if several else ""))
            cells = [str(n), "%s (%s)%s" % (sig(cpu.get("ms")), path, marks(cpu_row)) if cpu else "–"]
            for f, pts in zip(forms, by_form):
                p = pts.get(n)
                gpu_row = p.get("gpu_row") if p else None
                cells += ["–", "–"] if not p else [
                    sig(p.get("gpu_ms")) + marks(gpu_row), "%s×%s" % (sig(p.get("speedup")), marks(gpu_row, cpu_row))]
            out.append("| " + " | ".join(cells) + " |")
        out += ["", "Crossover: " + "; ".join("%s %s" % (f["backend"], crossover_text(f.get("crossover")))
                                          for f in forms) + ".", ""]
    for b in batched:
        out += ["### %s (batch %d)" % (b["op"], b["batch"]), "", "| n | CPU ms | GPU ms | GPU × |",
                "| ---: | ---: | ---: | ---: |"]
        for p in b["points"]:
            cpu_row, gpu_row = p.get("cpu_row"), p.get("gpu_row")
            out.append("| %d | %s%s | %s%s | %s×%s |" % (p["n"], sig(p.get("cpu_ms")), marks(cpu_row),
                                                      sig(p.get("gpu_ms")), marks(gpu_row),
                                                      sig(p.get("speedup")), marks(gpu_row, cpu_row)))
        out.append("")
    return out


def _cell(item: Optional[figures.Item], marks: Marks) -> str:
    if item is None:
        return "–"
    row = item.row
    if row.error is not None or row.skipped is not None:
        return ("error" if row.error is not None else "skipped") + marks(row.name)
    return sig(row.median_ms) + marks(row.name)


def rows_markdown(items: List[figures.Item], marks: Marks) -> List[str]:
    """Every row: per panel and operation, a line per n, a column per backend."""
    out = ["## Every row", "",
           "Median ms per call over the repetitions (`error`: the row failed, a failed check included; "
           "`skipped`: refused before it ran); resid: the largest HPL scaled residual of the line's rows.", ""]
    for panel, panel_items in figures.group_panels(items).items():
        by_op: Dict[str, List[figures.Item]] = {}
        for item in panel_items:
            label = item.id["precision"] + (item.id.get("factor") or "") + item.id["op"]
            by_op.setdefault(label, []).append(item)
        for label in sorted(by_op, key=sbjson.natural_key):
            op_items = by_op[label]
            backends = sorted({i.line_backend for i in op_items}, key=figures.backend_order)
            cells = {(i.line_backend, i.n): i for i in op_items}
            header = ["n"] + ["%s ms" % b for b in backends] + ["resid"]
            out += ["### %s — %s" % (label, figures.panel_title(panel)), "", "| " + " | ".join(header) + " |",
                    "|" + " ---: |" * len(header)]
            for n in sorted({i.n for i in op_items}):
                line = [str(n)] + [_cell(cells.get((b, n)), marks) for b in backends]
                resids = [cells[(b, n)].row.counter("resid") for b in backends if (b, n) in cells]
                resids = [r for r in resids if r is not None]
                line.append("%.2g" % max(resids) if resids else "–")
                out.append("| " + " | ".join(line) + " |")
            out.append("")
    return out


def table_markdown(items: List[figures.Item], verdict: dict, audit_lines: List[str], marks: Marks,
                   sources: List[str], sidecars: List[str]) -> str:
    resid = (verdict.get("thresholds") or {}).get("resid")
    out = ["# solve_bench results", "",
           "From %s; audit and verdict: %s (solve_bench_checks)%s." % (
               ", ".join("`%s`" % os.path.basename(s) for s in sources),
               ", ".join("`%s`" % os.path.basename(s) for s in sidecars),
               "; a row's check passes below resid %g" % resid if resid is not None else ""), ""]
    return "\n".join(out + audit_lines + verdict_markdown(verdict, marks) + rows_markdown(items, marks))
