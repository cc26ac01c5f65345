"""The map of where mixed precision pays with an fp64-accurate answer, drawn from the verdict.

solve_bench_checks (and every run) computes the map: the verdict JSON's "mixed_map" holds a
cell per backend, matrix (kind:diagdom, cond:1e4, ...), nrhs and n, with every mixed-precision
method held against dgesv on the same matrix (its speedup, whether it is fp64-accurate and
why not), the winner (the index of the fastest fp64-accurate method that beats dgesv; null:
dgesv itself) and the cell's speedup. tools/report writes map.md and map.png/.svg from it;
nothing is judged here.
"""
import math
import os
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

Marks = Callable[..., str]  # marks(row name, ...) -> " †1" for rows the audit flagged, "" otherwise


def _no_marks(*_names) -> str:
    return ""


@dataclass
class CondMap:
    backend: str
    nrhs: Optional[int]
    ns: List[int]
    matrices: List[str]                 # cond:1e1 ... by condition number, then the other kinds
    cells: Dict[Tuple[int, str], dict]  # (n, matrix) -> the verdict's cell

    @property
    def title(self) -> str:
        return self.backend + (" (nrhs %d)" % self.nrhs if self.nrhs is not None else "")


def _matrix_order(matrix: str):
    key, _, value = matrix.partition(":")
    try:
        number = float(value)
    except ValueError:
        number = math.inf
    return (key != "cond", number, matrix)


def build_maps(cells: List[dict]) -> List[CondMap]:
    """One map per backend and nrhs, GPU first (the order the verdict gives)."""
    groups: Dict[Tuple[str, Optional[int]], Dict[Tuple[int, str], dict]] = {}
    for cell in cells:
        groups.setdefault((cell["backend"], cell.get("nrhs")), {})[(cell["n"], cell["matrix"])] = cell
    maps = []
    for (backend, nrhs), by_key in sorted(groups.items(), key=lambda g: (not g[0][0].startswith("GPU"), g[0][0],
                                                                        g[0][1] or 0)):
        maps.append(CondMap(backend, nrhs, sorted({n for n, _ in by_key}),
                            sorted({m for _, m in by_key}, key=_matrix_order), by_key))
    return maps


def winner(cell: dict) -> Optional[dict]:
    index = cell.get("winner")
    return cell["methods"][index] if index is not None else None


def _method_name(m: dict) -> str:
    return m["op"] + (" " + m["refine"] if m.get("refine") else "")


def _count(x) -> Optional[int]:
    return int(x) if x is not None and math.isfinite(x) else None


def _speedup(x: Optional[float]) -> str:
    return "–" if x is None else "%.2f×" % x


def _iterations(m: dict) -> str:
    parts = []
    niters, outer = _count(m.get("niters")), _count(m.get("outer_iters"))
    if niters is not None:
        parts.append("did not converge" if niters < 0 else "%d it" % niters)
    if outer and outer != niters:  # GMRES: outer and inner iterations differ
        parts.append("%d outer" % outer)
    if m.get("fell_back"):
        parts.append("fell back")
    return ", ".join(parts)


def cell_text(cell: Optional[dict], marks: Marks = _no_marks) -> str:
    """A cell of map.md's grid: the winner with its speedup, or why there is none."""
    if cell is None:
        return "–"
    if not cell.get("reference"):
        return "no dgesv"
    if cell.get("reference_error"):
        return "dgesv failed%s" % marks(cell["reference"])
    best = winner(cell)
    if best is None:
        return "dgesv 1.00×%s" % marks(cell["reference"])
    iterations = _iterations(best)
    return "%s %s%s%s" % (_method_name(best), _speedup(cell.get("speedup")), ", " + iterations if iterations else "",
                             marks(best["row"], cell["reference"]))


def _fmt(x: Optional[float], pattern: str = "%.3g") -> str:
    return "–" if x is None else pattern % x


def markdown(maps: List[CondMap], sources: List[str], thresholds: dict, marks: Marks = _no_marks) -> str:
    resid, slack, floor = (thresholds.get(k) for k in ("resid", "fwd_err_slack", "fwd_err_floor"))
    rule = "as the verdict's mixed_map says"
    if None not in (resid, slack, floor):
        rule = ("the row passed its fp64 residual check (resid < %g), was refined, and its forward error "
                "‖x̂ − x‖∞/‖x‖∞ is at most %g× dgesv's on the same matrix (dgesv's floored at %.3g)"
                % (resid, slack, floor))
    out = ["# Where mixed precision pays: the fp64-accurate map", "",
           "Per matrix and n, the fastest **fp64-accurate** mixed-precision method and its speedup over the "
           "same backend's `dgesv` on the same matrix (dgesv's median time / the method's), from the verdict "
           "of solve_bench_checks. fp64-accurate: %s. `dgesv 1.00×`: no such method beats dgesv there. "
           "From %s." % (rule, ", ".join("`%s`" % os.path.basename(s) for s in sources)), ""]
    for m in maps:
        out += ["## %s" % m.title, "", "| n \\ matrix | " + " | ".join(m.matrices) + " |",
                "| ---: |" + " --- |" * len(m.matrices)]
        for n in m.ns:
            out.append("| %d | " % n + " | ".join(cell_text(m.cells.get((n, x)), marks) for x in m.matrices) + " |")
        out += ["", "### %s: every method" % m.title, "",
                "| matrix | n | method | ms | speedup | fp64-accurate | iterations |",
                "| --- | ---: | --- | ---: | ---: | --- | --- |"]
        for x in m.matrices:
            for n in m.ns:
                cell = m.cells.get((n, x))
                for method in (cell or {}).get("methods", []):
                    accurate = "yes" if method["accurate"] else "no: " + (method.get("why_not") or "?")
                    out.append("| %s | %d | %s | %s | %s | %s | %s |" % (
                        x, n, _method_name(method) + marks(method["row"]), _fmt(method.get("ms")),
                        _speedup(method.get("speedup")), accurate, _iterations(method) or "–"))
        out.append("")
    return "\n".join(out)


def _heat_text(cell: Optional[dict], marks: Marks) -> Tuple[str, Optional[float]]:
    """A cell's label (method, speedup) and the value its colour shows."""
    if cell is None:
        return "not run", None
    if not cell.get("reference"):
        return "no dgesv", None
    if cell.get("reference_error"):
        return "dgesv\nfailed" + marks(cell["reference"]), None
    best = winner(cell)
    if best is None:
        return "dgesv\n1.00×" + marks(cell["reference"]), 1.0
    speedup = cell.get("speedup")
    shown = speedup if speedup is not None and math.isfinite(speedup) and speedup > 0 else None
    return "%s\n%s\n%s%s" % (best["op"], best.get("refine") or "", _speedup(speedup),
                             marks(best["row"], cell["reference"])), shown


def plot(plt, maps: List[CondMap], out_dir: str, title: str, formats: List[str], thresholds: dict,
         marks: Marks = _no_marks) -> List[str]:
    """map.png/.svg: a heat map per map; columns the matrices, rows n, colour the speedup."""
    import numpy as np
    from matplotlib.colors import LogNorm
    from matplotlib.ticker import FuncFormatter

    if not maps:
        return []
    speeds = [c["speedup"] for m in maps for c in m.cells.values()
              if c.get("speedup") and math.isfinite(c["speedup"]) and c["speedup"] > 0]
    norm = LogNorm(vmin=1.0, vmax=max(speeds + [2.0]))
    cmap = plt.get_cmap("YlGn").copy()
    cmap.set_bad("lightgray")
    width = max(8.0, 1.35 * max(len(m.matrices) for m in maps) + 2.5)
    heights = [0.95 * len(m.ns) + 1.3 for m in maps]
    fig, axes = plt.subplots(len(maps), 1, figsize=(width, sum(heights) + 1.4), squeeze=False,
                             gridspec_kw={"height_ratios": heights}, layout="constrained")
    fig.suptitle(title)
    mesh = None
    for ax, m in zip(axes[:, 0], maps):
        ax.grid(False)
        values = np.full((len(m.ns), len(m.matrices)), np.nan)
        for i, n in enumerate(m.ns):
            for j, x in enumerate(m.matrices):
                text, value = _heat_text(m.cells.get((n, x)), marks)
                if value is not None:
                    values[i, j] = value
                dark = value is not None and norm(value) > 0.6
                ax.text(j + 0.5, i + 0.5, text, ha="center", va="center", fontsize="small",
                        color="white" if dark else "black")
        mesh = ax.pcolormesh(np.arange(len(m.matrices) + 1), np.arange(len(m.ns) + 1), np.ma.masked_invalid(values),
                             cmap=cmap, norm=norm, edgecolors="white", linewidth=1.5)
        ax.set_xticks([j + 0.5 for j in range(len(m.matrices))], m.matrices)
        ax.set_yticks([i + 0.5 for i in range(len(m.ns))], [str(n) for n in m.ns])
        ax.set_xlabel("matrix (cond: condition number of A = U Σ Vᵀ; kind: a generated matrix)")
        ax.set_ylabel("matrix order n")
        ax.set_title("%s: fastest fp64-accurate method against dgesv" % m.title)
    bar = fig.colorbar(mesh, ax=list(axes[:, 0]), label="speedup over dgesv (×)", shrink=0.9)
    times = FuncFormatter(lambda v, _: "%g×" % v)  # 1.5×, not 1.5×10^0
    bar.ax.yaxis.set_major_formatter(times)
    bar.ax.yaxis.set_minor_formatter(times)
    resid, slack = thresholds.get("resid"), thresholds.get("fwd_err_slack")
    if resid is not None and slack is not None:
        fig.supxlabel("fp64-accurate (the verdict): resid < %g at fp64, refined, forward error ≤ %g× dgesv's on the "
                      "same matrix.\ndgesv 1.00×: no such method beats dgesv; grey: no dgesv to compare with, "
                      "or not run."
                      % (resid, slack), fontsize="x-small")
    written = []
    for fmt in formats:
        path = os.path.join(out_dir, "map.%s" % fmt)
        fig.savefig(path, dpi=110, bbox_inches="tight", metadata={"Date": None} if fmt == "svg" else None)
        written.append(path)
    plt.close(fig)
    return written
