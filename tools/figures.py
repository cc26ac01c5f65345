"""tools/report's figures: GFLOP/s and time per call against n, and the verdict's speedups.

A panel per operation family (dense solves, factorizations, triangular solves, GEMM, batched
solves, mixed precision), split only by the axes that change the problem (nrhs, batch, the
matrix). In a panel, colour is the backend, line style the precision, the marker the
operation; one legend for the figure says so. Where a row's value comes from is not decided
here: speedups and crossovers are the verdict's (solve_bench_checks), values of rows are the
runs' own medians.
"""
import math
import os
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

import sbjson

BACKEND_COLORS = {"CPU": "tab:blue", "CPU-driver": "tab:cyan", "GPU": "tab:green", "GPU-pinned": "tab:orange",
                  "GPU-pageable": "tab:red", "GPU-loop": "tab:olive", "MGPU": "tab:purple", "MPI": "tab:brown"}
SPARE_COLORS = ["tab:purple", "tab:pink", "tab:brown", "tab:gray", "black", "navy", "teal", "tab:olive"]
PRECISIONS = {"d": ("-", "fp64 (d)"), "s": ("--", "fp32 (s)"), "z": (":", "complex fp64 (z)"),
              "c": ("-.", "complex fp32 (c)")}
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
# The id fields a line is drawn along or named by; every other field is an axis of the row.
CORE_FIELDS = ("backend", "role", "device", "placement", "path", "library", "op", "precision", "factor", "n")
# Axes that change the problem solved: rows that differ in them are drawn in separate panels.
PROBLEM_AXES = ("nrhs", "batch", "kind", "cond")
MATRIX_AXES = ("kind", "cond")
# Panels that show the GEMM ceiling: the operations built on GEMM (not batched ones: small n).
CEILING_FAMILIES = ("dense solves", "factorizations", "mixed precision")
FAMILIES = ["dense solves", "factorizations", "triangular solves", "GEMM", "batched solves", "mixed precision"]


@dataclass
class Item:
    """A row as the figures and tables see it: the run's row, its id, and the checks' table of
    operations (the sidecars' "operations": what each op factors, solves or multiplies)."""
    row: sbjson.Row
    id: dict
    operations: Dict[str, dict] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return self.id["n"]

    @property
    def family(self) -> str:
        if self.id.get("path") in ("batched", "loop"):
            return "batched solves"
        if self.id.get("factor") or any(k in self.id for k in MATRIX_AXES):
            return "mixed precision"  # and the dgesv rows on the same matrices, its reference
        op = self.operations.get(self.id["op"]) or {}
        if op.get("multiplies"):
            return "GEMM"
        if op.get("factors"):
            return "dense solves" if op.get("solves") else "factorizations"
        return "triangular solves" if op.get("solves") else self.id["op"]  # an op the table lacks: its own

    @property
    def op_label(self) -> str:
        """gesv (the precision is the line style), or dhgesv for a mixed-precision solve."""
        factor = self.id.get("factor") or ""
        return (self.id["precision"] if factor or self.family == "mixed precision" else "") + factor + self.id["op"]

    def axes(self, which) -> Tuple[Tuple[str, str], ...]:
        return tuple((k, str(v)) for k, v in self.id.items() if k not in CORE_FIELDS and which(k))

    @property
    def panel(self) -> Tuple[str, Tuple[Tuple[str, str], ...]]:
        return self.family, self.axes(lambda k: k in PROBLEM_AXES)

    @property
    def line_backend(self) -> str:
        """The backend and the axes of its method (refine:gmres, gpus:2, ranks:4, ...)."""
        method = self.axes(lambda k: k not in PROBLEM_AXES)
        return " ".join([self.id["backend"]] + ["%s:%s" % kv for kv in method])


def panel_title(panel) -> str:
    family, axes = panel
    return family + (" (%s)" % ", ".join("%s %s" % kv for kv in axes) if axes else "")


def panel_order(panel):
    family, axes = panel
    rank = FAMILIES.index(family) if family in FAMILIES else len(FAMILIES)
    return rank, family, [(k, sbjson.natural_key(v)) for k, v in axes]


class Styles:
    """Colours per backend (and method), line styles per precision, markers per operation
    within a family: fixed for a figure, each named once in its legend."""

    def __init__(self):
        self.colors: Dict[str, str] = {}
        self.markers: Dict[Tuple[str, str], str] = {}   # (family, op label) -> marker
        self.precisions: List[str] = []

    def color(self, backend: str) -> str:
        if backend not in self.colors:
            base = backend.split(" ")[0]
            used = set(self.colors.values())
            if BACKEND_COLORS.get(base) and BACKEND_COLORS[base] not in used:
                self.colors[backend] = BACKEND_COLORS[base]
            else:
                self.colors[backend] = next((c for c in SPARE_COLORS if c not in used), "black")
        return self.colors[backend]

    def marker(self, family: str, op: str) -> str:
        key = (family, op)
        if key not in self.markers:
            taken = sum(1 for f, _ in self.markers if f == family)
            self.markers[key] = MARKERS[taken % len(MARKERS)]
        return self.markers[key]

    def linestyle(self, precision: str) -> str:
        if precision not in self.precisions:
            self.precisions.append(precision)
        return PRECISIONS.get(precision, ("-", precision))[0]

    def legend(self) -> List[Dict[str, object]]:
        """Three groups, a legend row each: the backends, the precisions, the operations."""
        from matplotlib.lines import Line2D
        backends = {b: Line2D([], [], color=c, linewidth=2.5)
                    for b, c in sorted(self.colors.items(), key=lambda kv: backend_order(kv[0]))}
        precisions = {}
        for p in sorted(self.precisions, key=lambda p: list(PRECISIONS).index(p) if p in PRECISIONS else 9):
            style, label = PRECISIONS.get(p, ("-", p))
            precisions[label] = Line2D([], [], color="black", linestyle=style)
        by_marker: Dict[str, List[str]] = {}
        for (_, op), marker in self.markers.items():
            if op not in by_marker.setdefault(marker, []):
                by_marker[marker].append(op)
        ops = {", ".join(names): Line2D([], [], color="black", marker=marker, linestyle="none")
               for marker, names in by_marker.items()}
        return [backends, dict(precisions, **ops)]


def backend_order(backend: str):
    base = backend.split(" ")[0]
    known = list(BACKEND_COLORS)
    return (known.index(base) if base in known else len(known), sbjson.natural_key(backend))


# ---------------------------------------------------------------------------------- drawing

def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams.update({
        "svg.fonttype": "none",        # keep text as text: smaller, searchable SVG
        "svg.hashsalt": "solve_bench",  # stable element ids, so committed SVGs diff cleanly
        "axes.grid": True, "grid.alpha": 0.3, "axes.titlesize": "medium"})
    import matplotlib.pyplot as plt
    return plt


def _panels(plt, count: int, title: str, legend_rows: int):
    rows = math.ceil(count / 4)
    cols = math.ceil(count / rows)
    fig, axes = plt.subplots(rows, cols, figsize=(4.8 * cols, 3.9 * rows + 0.35 * legend_rows + 0.6),
                             squeeze=False)
    for ax in axes.flat[count:]:
        ax.set_visible(False)
    fig.suptitle(title)
    return fig, list(axes.flat[:count])


def _loglog(ax, title: str, ylabel: str, ns: List[int]):
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ticks = sorted(set(ns))
    if len(ticks) > 8:  # keep every other label readable
        ticks = ticks[::math.ceil(len(ticks) / 8)]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    plain = FuncFormatter(lambda x, _: "%g" % x)  # 1024 and 100, not 2^10 and 10^2
    ax.xaxis.set_major_formatter(plain)
    lo, hi = ax.get_ylim()
    decades = math.log10(hi / lo) if lo > 0 and hi > lo else 1
    # labels at 1, 2, 5 within a decade or two; at the powers of ten beyond
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0) if decades <= 2 else (1.0,),
                                          numticks=12))
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xlim(min(ns) / 1.25, max(ns) * 1.25)
    ax.set_title(title)
    ax.set_xlabel("matrix order n")
    ax.set_ylabel(ylabel)


def save(fig, out_dir: str, stem: str, formats: List[str], groups: List[Dict[str, object]]) -> List[str]:
    """The figure with its legend below, a row per group, written in each format."""
    groups = [g for g in groups if g]
    height = fig.get_figheight()
    row_height = 0.3 / height  # of one legend row, as a fraction of the figure
    for i, group in enumerate(groups):
        fig.legend(list(group.values()), list(group.keys()), loc="lower center", ncol=len(group), frameon=False,
                   fontsize="small", bbox_to_anchor=(0.5, (len(groups) - 1 - i) * row_height), borderaxespad=0.2)
    fig.tight_layout(rect=(0, row_height * len(groups) + 0.1 / height, 1, 1 - 0.45 / height))
    written = []
    for fmt in formats:
        path = os.path.join(out_dir, "%s.%s" % (stem, fmt))
        # tight: a long title or legend grows the figure rather than being cut off
        fig.savefig(path, dpi=110, bbox_inches="tight", metadata={"Date": None} if fmt == "svg" else None)
        written.append(path)
    return written


def group_panels(items: List[Item]) -> Dict[tuple, List[Item]]:
    panels: Dict[tuple, List[Item]] = {}
    for item in items:
        panels.setdefault(item.panel, []).append(item)
    return {p: panels[p] for p in sorted(panels, key=panel_order)}


def _lines(items: List[Item], value: Callable[[Item], Optional[float]]):
    """(backend, op label, precision) -> [(n, value)] of the rows that passed, by n."""
    lines: Dict[Tuple[str, str, str], List[Tuple[int, float]]] = {}
    for item in items:
        y = value(item) if item.row.ok else None
        if y is not None and y > 0 and math.isfinite(y):
            lines.setdefault((item.line_backend, item.op_label, item.id["precision"]), []).append((item.n, y))
    return {k: sorted(v) for k, v in sorted(lines.items(), key=lambda kv: (backend_order(kv[0][0]), kv[0][1:]))}


def _ceiling(gemm: List[Item], backend: str, precision: str, lo: int, hi: int) -> List[Tuple[int, float]]:
    """The GFLOP/s of the backend's GEMM of the precision, at the n the panel's line covers."""
    points = sorted((g.n, g.row.counter("GFLOP/s")) for g in gemm
                    if g.id["backend"] == backend and g.id["precision"] == precision and g.row.ok
                    and g.row.counter("GFLOP/s") and lo <= g.n <= hi)
    return points


def plot_rows(plt, items: List[Item], metric: str, out_dir: str, title: str, formats: List[str]) -> List[str]:
    """gflops (with the GEMM ceilings, except in the batched and GEMM panels) or time."""
    if metric == "gflops":
        def value(i):
            return i.row.counter("GFLOP/s")
    else:
        def value(i):
            return i.row.median_ms
    panels = {p: _lines(rows, value) for p, rows in group_panels(items).items()}
    panels = {p: lines for p, lines in panels.items() if lines}
    if not panels:
        return []
    gemm = [i for i in items if i.family == "GEMM" and not i.id.get("factor")]
    styles = Styles()
    for lines in panels.values():  # colours in backend order, whichever panel comes first
        for backend, _, _ in lines:
            styles.color(backend)
    fig, axes = _panels(plt, len(panels), title, 2)
    ceiling_drawn = False
    for ax, ((family, axes_), lines) in zip(axes, panels.items()):
        ns = []
        for (backend, op, precision), points in lines.items():
            color, style = styles.color(backend), styles.linestyle(precision)
            ax.plot(*zip(*points), color=color, linestyle=style, marker=styles.marker(family, op), markersize=5)
            ns += [n for n, _ in points]
            if metric == "gflops" and family in CEILING_FAMILIES and " " not in backend:
                ceiling = _ceiling(gemm, backend, precision, points[0][0], points[-1][0])
                if len(ceiling) >= 2:
                    ax.plot(*zip(*ceiling), color=color, linestyle=style, linewidth=6, alpha=0.18,
                            solid_capstyle="butt")
                    ceiling_drawn = True
        _loglog(ax, panel_title((family, axes_)), "GFLOP/s" if metric == "gflops" else "median time per call (ms)", ns)
    groups = styles.legend()
    if ceiling_drawn:
        from matplotlib.lines import Line2D
        groups.append({"broad pale line: the same backend's GEMM in that precision, the ceiling of a solver "
                       "built on it": Line2D([], [], color="gray", linewidth=6, alpha=0.3)})
    written = save(fig, out_dir, metric, formats, groups)
    plt.close(fig)
    return written


# ---------------------------------------------------------------------------------- speedups

@dataclass
class SpeedupLine:
    backend: str            # the GPU form: GPU, GPU-pinned, GPU-pageable
    op: str                 # the verdict's operation: dgesv, dposv_batched, ...
    precision: str
    points: List[dict]      # the verdict's points: n, cpu_ms, gpu_ms, speedup, noise_pct
    crossover: Optional[dict]
    flagged: Dict[int, str]  # n -> the audit marks of the rows behind the point


def plot_speedups(plt, panels: Dict[str, List[SpeedupLine]], out_dir: str, title: str, formats: List[str]) -> List[str]:
    """The verdict's speedups (CPU's best path / GPU), a panel per group of solves."""
    panels = {k: v for k, v in panels.items() if any(line.points for line in v)}
    if not panels:
        return []
    styles = Styles()
    for lines in panels.values():
        for line in lines:
            styles.color(line.backend)
    fig, axes = _panels(plt, len(panels), title, 3)
    hollow = crossed = False
    for ax, (panel, lines) in zip(axes, panels.items()):
        ns, lowest = [], math.inf
        ax.axhline(1, color="black", linewidth=0.8)
        for line in lines:
            points = [(p["n"], p["speedup"]) for p in line.points
                      if p.get("speedup") and math.isfinite(p["speedup"]) and p["speedup"] > 0 and p["n"] > 0]
            if not points:
                continue
            color, style = styles.color(line.backend), styles.linestyle(line.precision)
            marker = styles.marker(panel, line.op)
            ax.plot(*zip(*points), color=color, linestyle=style, marker=marker, markersize=5)
            flagged = [(n, s) for n, s in points if n in line.flagged]
            if flagged:
                ax.plot(*zip(*flagged), linestyle="none", marker=marker, markersize=8, markerfacecolor="white",
                        markeredgecolor=color, markeredgewidth=1.5, zorder=3)
                hollow = True
            cross = line.crossover or {}
            if cross.get("kind") == "crossing" and cross.get("n"):  # under the curves, on the n axis
                ax.plot([cross["n"]], [0.03], marker="^", markersize=7, color=color, linestyle="none",
                        transform=ax.get_xaxis_transform(), clip_on=False, zorder=4)
                crossed = True
            ns += [n for n, _ in points]
            lowest = min(lowest, min(s for _, s in points))
        _loglog(ax, panel, "speedup over the CPU's best (×)", ns)
        ax.set_ylim(bottom=min(lowest, 1.0) / 1.8)  # room under the curves for the crossover marks
    groups = styles.legend()
    from matplotlib.lines import Line2D
    notes = {}
    if crossed:
        notes["on the n axis: the crossover, where the GPU starts to win (the verdict's)"] = Line2D(
            [], [], color="black", marker="^", linestyle="none")
    if hollow:
        notes["hollow: uses a row the audit flagged (table.md)"] = Line2D(
            [], [], linestyle="none", marker="o", markerfacecolor="white", markeredgecolor="black")
    written = save(fig, out_dir, "speedup", formats, groups + [notes])
    plt.close(fig)
    return written
