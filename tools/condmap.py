"""The condition-number map: where a mixed-precision solve pays and still gives fp64 accuracy.

tools/report writes it (map.md, map.png/.svg) from rows with a cond axis, e.g.
  GPU/dgesv/n:16384/nrhs:1/cond:1e4                       the fp64 reference on that matrix
  GPU/dhgesv/n:16384/nrhs:1/cond:1e4/refine:gmres         fp16 LU, GMRES refinement
  CPU/dgesv/n:4096/nrhs:1/cond:1e4, CPU/dsgesv/n:4096/nrhs:1/cond:1e4/refine:classical
and their counters resid, fwd_err (||x^ - x||inf / ||x||inf for the known x), niters (< 0:
did not converge), outer_iters, fell_back (1: cuSOLVER fell back to an fp64 factorization).

A method is fp64-accurate on a matrix when its row passed (no error, resid < 16) and its
forward error is at most FWD_ERR_FACTOR times that of the backend's dgesv on the same n
and cond: the residual says the solve was backward stable, the forward error how many digits
the user got. Each cell of the map is the fastest fp64-accurate method, or dgesv itself when
none beats it.
"""
import math
import os
import re
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

import sbjson

REFERENCE_OP = "dgesv"
MIXED_OP = re.compile(r"^d([sxhb])gesv$")   # fp64 answer from an fp32/tf32/fp16/bf16 LU
FACTORIZATION = {"s": "fp32", "x": "tf32", "h": "fp16", "b": "bf16"}
REFINE_CODE = {"classical": "C", "gmres": "G", "classical_gmres": "CG", "gmres_gmres": "GG", "none": "N"}
GMRES_FAMILY = ("gmres", "classical_gmres", "gmres_gmres")
FWD_ERR_FACTOR = 10.0
# dgesv's own forward error can come out 0 on an easy matrix; hold the others to 10 ulp then.
FWD_ERR_FLOOR = 2.220446049250313e-16
BACKEND_ORDER = ["GPU", "CPU"]

Marks = Callable[..., str]  # marks(row, ...) -> " †1" for rows the audit flagged, "" otherwise


def _no_marks(*_rows) -> str:
    return ""


def _worst(row: sbjson.Row, key: str) -> Optional[float]:
    """The largest value of a counter over the repetitions (NaN counts as largest)."""
    values = row.counters.get(key) or row.aggregate_counters.get("median", {}).get(key)
    if not values:
        return None
    return math.nan if any(math.isnan(v) for v in values) else max(values)


@dataclass
class Method:
    """One mixed-precision row of a cell, held against the cell's dgesv."""
    row: sbjson.Row
    op: str                 # dhgesv
    refine: str             # classical, gmres, ... ("" when the row has no refine axis)
    speedup: Optional[float]
    accurate: bool
    why_not: str            # why it is not fp64-accurate ("" when it is)

    @property
    def name(self) -> str:
        return self.op + (" " + self.refine if self.refine else "")

    @property
    def letters(self) -> str:
        """h/G: the factorization's precision letter and the refinement's code."""
        return MIXED_OP.match(self.op).group(1) + ("/" + REFINE_CODE.get(self.refine, self.refine)
                                                   if self.refine else "")

    @property
    def niters(self) -> Optional[int]:
        value = self.row.counter("niters")
        return None if value is None or math.isnan(value) else int(round(value))

    @property
    def outer_iters(self) -> Optional[int]:
        value = self.row.counter("outer_iters")
        return None if value is None or math.isnan(value) else int(round(value))

    @property
    def fell_back(self) -> bool:
        return bool(_worst(self.row, "fell_back"))

    def iterations_text(self) -> str:
        parts = []
        if self.niters is not None:
            parts.append("did not converge" if self.niters < 0 else "%d it" % self.niters)
        if self.refine in GMRES_FAMILY and self.outer_iters:
            parts.append("%d outer" % self.outer_iters)
        if self.fell_back:
            parts.append("fell back")
        return ", ".join(parts)


@dataclass
class Cell:
    n: int
    cond: str
    ref: Optional[sbjson.Row]      # the backend's dgesv on this matrix
    methods: List[Method]

    @property
    def ref_ok(self) -> bool:
        return self.ref is not None and self.ref.ok and bool(self.ref.median_ms)

    def best(self, refines=None) -> Optional[Method]:
        """The fastest fp64-accurate method (of these refinements), whether or not it beats dgesv."""
        pool = [m for m in self.methods if m.accurate and m.speedup and (refines is None or m.refine in refines)]
        return max(pool, key=lambda m: m.speedup) if pool else None

    def winner(self) -> Optional[Method]:
        """The fastest fp64-accurate method that beats dgesv; None: dgesv itself."""
        best = self.best()
        return best if best is not None and best.speedup > 1 else None

    @property
    def speedup(self) -> Optional[float]:
        if not self.ref_ok:
            return None
        winner = self.winner()
        return winner.speedup if winner else 1.0


@dataclass
class CondMap:
    backend: str
    rest: str                          # the other axes, e.g. nrhs:1
    ns: List[int]
    conds: List[str]                   # in increasing order, as the rows spell them (1e4)
    cells: Dict[Tuple[int, str], Cell]

    @property
    def reference(self) -> str:
        return "%s/%s" % (self.backend, REFERENCE_OP)

    @property
    def has_gmres(self) -> bool:
        return any(m.refine in GMRES_FAMILY for c in self.cells.values() for m in c.methods)


def _cond_value(cond: str) -> float:
    try:
        return float(cond)
    except ValueError:
        return math.inf


def _judge(row: sbjson.Row, ref: Optional[sbjson.Row], reference: str) -> Tuple[Optional[float], bool, str]:
    """(speedup over the reference, fp64-accurate, why not)."""
    ref_ok = ref is not None and ref.ok and ref.median_ms
    speedup = ref.median_ms / row.median_ms if ref_ok and row.ok and row.median_ms else None
    if dict(row.parsed.axes).get("refine") == "none":  # checked at its own precision, never fp64's
        return speedup, False, "no refinement"
    if not row.ok:
        if row.error is not None or row.skipped is not None:
            return speedup, False, "failed"
        return speedup, False, "resid %.3g >= %g" % (row.resid, sbjson.RESID_LIMIT)
    if not ref_ok:
        return speedup, False, "no %s to compare with" % reference
    mine, theirs = _worst(row, "fwd_err"), _worst(ref, "fwd_err")
    if mine is None or theirs is None:
        return speedup, False, "no fwd_err counter" + (" on %s" % reference if theirs is None else "")
    limit = FWD_ERR_FACTOR * max(theirs, FWD_ERR_FLOOR)
    if not mine <= limit:  # NaN fails too
        return speedup, False, "fwd_err %.2g > %g× %s's %.2g" % (mine, FWD_ERR_FACTOR, reference, theirs)
    return speedup, True, ""


def build_maps(rows: Dict[str, sbjson.Row]) -> List[CondMap]:
    """One map per backend (and other axes) that has mixed-precision rows with a cond axis."""
    refs: Dict[Tuple[str, str, int, str], sbjson.Row] = {}
    mixed: Dict[Tuple[str, str, int, str], List[Tuple[sbjson.Row, str]]] = {}
    for row in rows.values():
        p = row.parsed
        axes = dict(p.axes)
        cond, n = axes.get("cond"), p.n
        if cond is None or n is None:
            continue
        key = (p.backend, p.variant(without=("n", "cond", "refine")), n, cond)
        if p.op == REFERENCE_OP:
            refs[key] = row
        elif MIXED_OP.match(p.op):
            mixed.setdefault(key, []).append((row, axes.get("refine", "")))
    maps = []
    groups = sorted({k[:2] for k in mixed},
                    key=lambda g: (BACKEND_ORDER.index(g[0]) if g[0] in BACKEND_ORDER else len(BACKEND_ORDER),
                                   g[0], sbjson.natural_key(g[1])))
    for backend, rest in groups:
        keys = [k for k in set(refs) | set(mixed) if k[:2] == (backend, rest)]
        ns = sorted({k[2] for k in keys})
        conds = sorted({k[3] for k in keys}, key=_cond_value)
        reference = "%s/%s" % (backend, REFERENCE_OP)
        cells = {}
        for key in keys:
            ref = refs.get(key)
            methods = []
            for row, refine in sorted(mixed.get(key, []), key=lambda rr: sbjson.natural_key(rr[0].name)):
                speedup, accurate, why = _judge(row, ref, reference)
                methods.append(Method(row, row.parsed.op, refine, speedup, accurate, why))
            cells[key[2:]] = Cell(key[2], key[3], ref, methods)
        maps.append(CondMap(backend, rest, ns, conds, cells))
    return maps


# ---------------------------------------------------------------------------------- markdown

def _ref_text(cell: Optional[Cell], reference: str, marks: Marks) -> Optional[str]:
    """The cell's text when there is nothing to compare: no dgesv row, or dgesv failed."""
    if cell is None:
        return "–"
    if cell.ref is None:
        return "no %s" % reference
    if not cell.ref_ok:
        return "%s failed%s" % (reference, marks(cell.ref))
    return None


def _method_text(m: Method, marks: Marks, ref: sbjson.Row) -> str:
    iterations = m.iterations_text()
    return "%s %.2f×%s%s" % (m.name, m.speedup, ", " + iterations if iterations else "", marks(m.row, ref))


def _best_cell(cell: Optional[Cell], reference: str, marks: Marks) -> str:
    empty = _ref_text(cell, reference, marks)
    if empty is not None:
        return empty
    winner = cell.winner()
    if winner is None:
        return "dgesv 1.00×%s" % marks(cell.ref)
    return _method_text(winner, marks, cell.ref)


def _family_cell(cell: Optional[Cell], reference: str, marks: Marks) -> str:
    empty = _ref_text(cell, reference, marks)
    if empty is not None:
        return empty
    parts = []
    for label, refines in (("classical", ("classical",)), ("GMRES", GMRES_FAMILY)):
        family = [m for m in cell.methods if m.refine in refines]
        best = cell.best(refines)
        if not family:
            text = "–"
        elif best is None:
            text = "none fp64-accurate"
        else:
            text = _method_text(best, marks, cell.ref)
        parts.append("%s: %s" % (label, text))
    return "; ".join(parts)


def _grid(m: CondMap, cell_text) -> List[str]:
    header = ["n \\ cond"] + m.conds
    lines = ["| " + " | ".join(header) + " |", "| ---: |" + " --- |" * len(m.conds)]
    for n in m.ns:
        lines.append("| %d | " % n + " | ".join(cell_text(m.cells.get((n, c))) for c in m.conds) + " |")
    return lines + [""]


def markdown(maps: List[CondMap], sources: List[str], marks: Marks = _no_marks) -> str:
    out = ["# Where mixed precision pays: the fp64-accurate map", "",
           "Per matrix (n, and the condition number cond of A = U Σ Vᵀ with σ geometric from √n down "
           "to √n/cond), the fastest **fp64-accurate** method and its speedup over the same backend's "
           "`dgesv` on the same matrix (its median time / the method's), with the refinement's "
           "iterations (`did not converge`: it stopped without reaching its tolerance) and `fell "
           "back` where cuSOLVER finished with an fp64 factorization. fp64-accurate: the row passed "
           "(resid < %g) and its forward error ‖x̂ − x‖∞/‖x‖∞ is at most %g× dgesv's on the same "
           "matrix. `dgesv 1.00×`: no such method beats dgesv there. Methods: `d?gesv` factorizes "
           "in fp32 (s), tf32 (x), fp16 (h) or bf16 (b) and refines to fp64, classically or with "
           "GMRES (gmres; classical_gmres and gmres_gmres nest the two). From %s." % (
               sbjson.RESID_LIMIT, FWD_ERR_FACTOR, ", ".join("`%s`" % os.path.basename(s) for s in sources)), ""]
    for m in maps:
        out += ["## %s%s" % (m.backend, " (%s)" % m.rest if m.rest else ""), "",
                "Fastest fp64-accurate method, speedup over `%s`:" % m.reference, ""]
        out += _grid(m, lambda cell: _best_cell(cell, m.reference, marks))
        if m.has_gmres:
            out += ["### %s: classical against GMRES refinement" % m.backend, "",
                    "The fastest fp64-accurate method of each kind of refinement (whether or not it "
                    "beats dgesv), speedup over `%s`:" % m.reference, ""]
            out += _grid(m, lambda cell: _family_cell(cell, m.reference, marks))
    return "\n".join(out)


# ---------------------------------------------------------------------------------- heat map

def _log_edges(values: List[float]) -> List[float]:
    """Cell edges on a log10 axis: halfway (in log) between neighbours, half a step outside."""
    logs = [math.log10(v) for v in values]
    if len(logs) == 1:
        return [logs[0] - 0.5, logs[0] + 0.5]
    mids = [(a + b) / 2 for a, b in zip(logs, logs[1:])]
    return [logs[0] - (mids[0] - logs[0])] + mids + [logs[-1] + (logs[-1] - mids[-1])]


def plot(plt, maps: List[CondMap], out_dir: str, title: str, formats: List[str],
         marks: Marks = _no_marks) -> List[str]:
    """map.png/.svg: x = cond (log), y = n, colour = the speedup of the best fp64-accurate
    method over dgesv; one panel per map (GPU, then CPU)."""
    import numpy as np
    from matplotlib.colors import LogNorm
    from matplotlib.ticker import FuncFormatter

    plotted = [m for m in maps if all(math.isfinite(_cond_value(c)) and _cond_value(c) > 0 for c in m.conds)]
    if not plotted:
        return []
    top = max([c.speedup for m in plotted for c in m.cells.values() if c.speedup] + [2.0])
    norm = LogNorm(vmin=1.0, vmax=top)
    cmap = plt.get_cmap("YlGn").copy()
    cmap.set_bad("lightgray")
    width = max(8.0, 1.25 * max(len(m.conds) for m in plotted) + 2.5)
    heights = [0.75 * len(m.ns) + 1.2 for m in plotted]
    fig, axes = plt.subplots(len(plotted), 1, figsize=(width, sum(heights) + 1.6), squeeze=False,
                             gridspec_kw={"height_ratios": heights}, layout="constrained")
    fig.suptitle(title)
    mesh = None
    for ax, m in zip(axes[:, 0], plotted):
        x_edges = _log_edges([_cond_value(c) for c in m.conds])
        values = np.full((len(m.ns), len(m.conds)), np.nan)
        for i, n in enumerate(m.ns):
            for j, cond in enumerate(m.conds):
                cell = m.cells.get((n, cond))
                if cell is not None and cell.speedup:
                    values[i, j] = cell.speedup
        mesh = ax.pcolormesh(x_edges, np.arange(len(m.ns) + 1), np.ma.masked_invalid(values),
                             cmap=cmap, norm=norm, edgecolors="white", linewidth=1.5)
        for i, n in enumerate(m.ns):
            for j, cond in enumerate(m.conds):
                text, dark = _heat_text(m.cells.get((n, cond)), marks, norm)
                ax.text((x_edges[j] + x_edges[j + 1]) / 2, i + 0.5, text, ha="center", va="center",
                        fontsize="small", color="white" if dark else "black")
        ax.set_xticks([math.log10(_cond_value(c)) for c in m.conds], m.conds)
        ax.set_yticks([i + 0.5 for i in range(len(m.ns))], [str(n) for n in m.ns])
        ax.set_xlim(x_edges[0], x_edges[-1])
        ax.grid(False)
        ax.set_xlabel("condition number cond (log scale)")
        ax.set_ylabel("matrix order n")
        ax.set_title("%s%s: fastest fp64-accurate method vs %s" % (
            m.backend, " (%s)" % m.rest if m.rest else "", m.reference))
    bar = fig.colorbar(mesh, ax=list(axes[:, 0]), label="speedup over dgesv (×)", shrink=0.9)
    times = FuncFormatter(lambda v, _: "%g×" % v)  # 1.5×, not 1.5×10^0
    bar.ax.yaxis.set_major_formatter(times)
    bar.ax.yaxis.set_minor_formatter(times)
    fig.supxlabel("Factorization: s fp32, x tf32, h fp16, b bf16. Refinement: C classical, G GMRES,\n"
                  "CG classical+GMRES, GG GMRES+GMRES; fb: fell back to fp64. fp64-accurate: resid < %g\n"
                  "and forward error ≤ %g× dgesv's on the same matrix. dgesv 1.00×: nothing beats it." % (
                 sbjson.RESID_LIMIT, FWD_ERR_FACTOR), fontsize="x-small")
    written = []
    for fmt in formats:
        path = os.path.join(out_dir, "map.%s" % fmt)
        fig.savefig(path, dpi=110, bbox_inches="tight", metadata={"Date": None} if fmt == "svg" else None)
        written.append(path)
    plt.close(fig)
    return written


def _heat_text(cell: Optional[Cell], marks: Marks, norm) -> Tuple[str, bool]:
    """A cell's label (method letters, speedup) and whether its colour is dark."""
    if cell is None:
        return "", False
    if cell.ref is None:
        return "no dgesv", False
    if not cell.ref_ok:
        return "dgesv\nfailed" + marks(cell.ref), False
    winner = cell.winner()
    if winner is None:
        return "dgesv\n1.00×" + marks(cell.ref), False
    return "%s%s\n%.2f×%s" % (winner.letters, " fb" if winner.fell_back else "", winner.speedup,
                              marks(winner.row, cell.ref)), norm(winner.speedup) > 0.6
