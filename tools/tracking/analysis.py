"""A store's series: each row's median times on each testbed in run order, their change
points (tracking.edivisive on log times) with their causes, and creep against a baseline.

Nothing here judges by a number of its own: the thresholds are the checks' (tracking.thresholds),
and what a row's spread from run to run allows is `solve_bench_checks history`'s (judged_rows)."""
import json
import os
import statistics
import subprocess
import tempfile
import zlib
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import numpy as np

from tracking import edivisive, store

CODE_KEY = "solve_bench_commit"  # a cause of its own (commits), not part of the environment


@dataclass
class Series:
    """One row on one testbed: its runs with a time (positions in the testbed's run list)."""
    key: str
    name: str
    row_id: Optional[dict]
    positions: List[int] = field(default_factory=list)
    ms: List[float] = field(default_factory=list)
    noise: List[Optional[float]] = field(default_factory=list)
    busy: List[Optional[float]] = field(default_factory=list)   # other processes' cores (cpu_other_busy)
    errors: Dict[int, str] = field(default_factory=dict)   # position: error
    change_points: List[dict] = field(default_factory=list)

    @property
    def op(self) -> str:
        if self.row_id and self.row_id.get("op"):
            return str(self.row_id["op"])
        parts = self.name.split("/")
        return parts[1] if len(parts) > 1 else parts[0]


def series_of(records) -> Dict[str, Series]:
    rows = {}
    for pos, record in enumerate(records):
        for row in record["rows"]:
            s = rows.setdefault(row["key"], Series(row["key"], row["name"], row.get("id")))
            if (s.positions and s.positions[-1] == pos) or pos in s.errors:
                continue  # two rows of one run with the same id: the first is its time
            s.name = row["name"]  # the latest name of an id
            if row.get("median_ms") is None or not row["median_ms"] > 0:
                s.errors[pos] = row.get("error") or "no time"
                continue
            s.positions.append(pos)
            s.ms.append(float(row["median_ms"]))
            s.noise.append(row.get("noise_pct"))
            s.busy.append(row.get("cpu_other_busy"))
    return rows


def judged_rows(store_path: str, checks, runs_after) -> Dict[tuple, dict]:
    """{(testbed, row key): {runs_after: detectable step in %, "run_spread_pct": ...}}: what
    `solve_bench_checks history` says each row's record can detect `runs_after` runs after a
    step (one value each); empty without the judge (the gate's floor then stands alone)."""
    out: Dict[tuple, dict] = {}
    if not checks:
        return out
    with tempfile.TemporaryDirectory() as tmp:
        for after in runs_after:
            path = os.path.join(tmp, "history.json")
            p = subprocess.run([checks, "history", "--store=" + store_path, "--runs=%d" % after, "--json=" + path],
                               capture_output=True, text=True)
            if p.returncode != 0:
                raise store.InputError("solve_bench_checks history: %s" % p.stderr.strip())
            with open(path) as f:
                beds = json.load(f)["history"]["testbeds"]
            for bed, h in beds.items():
                for r in h["rows"]:  # by its id, and by its name for stored rows that have none
                    for key in {store.row_key(r["row"], r.get("id")), store.row_key(r["row"], None)}:
                        slot = out.setdefault((bed, key), {})
                        slot[after] = r.get("detectable_step_pct")
                        slot["run_spread_pct"] = r.get("run_spread_pct")
    return out


def min_change_pct(noise, limits: dict, step=None, override=None) -> float:
    """The smallest change worth reporting: the gate's floor, the rows' own noise (the median of
    their noise_pct, the checks' re-run interval) and the step their record can detect
    (solve_bench_checks history), whichever is largest."""
    if override is not None:
        return override
    values = [v for v in noise if isinstance(v, (int, float))] + ([step] if step is not None else [])
    return max([limits["gate_floor_pct"]] + ([statistics.median(values)] if values else []))


def _sides(ms, cps):
    bounds = [0] + cps + [len(ms)]
    return [(bounds[i], bounds[i + 1], bounds[i + 2]) for i in range(len(cps))]


def drop_small(s: Series, cps: List[int], limits: dict, step=None, override=None) -> List[int]:
    """Remove, smallest first, change points whose size is below the rows' noise (the
    neighbours' sides then merge, so their sizes are measured again)."""
    cps = sorted(cps)
    while cps:
        small = []
        for (a, c, b), cp in zip(_sides(s.ms, cps), cps):
            change = abs(statistics.median(s.ms[c:b]) / statistics.median(s.ms[a:c]) - 1) * 100
            if change < min_change_pct(s.noise[a:b], limits, step, override):
                small.append((change, cp))
        if not small:
            break
        cps.remove(min(small)[1])
    return cps


class Causes:
    """What changed between two runs of a testbed: fingerprint keys, and commits."""

    def __init__(self, records, repo=None):
        self.records, self.repo, self._log = records, repo, {}

    def environment(self, before: int, after: int) -> dict:
        a, b = self.records[before]["fingerprint"], self.records[after]["fingerprint"]
        return {k: [a.get(k), b.get(k)] for k in sorted(set(a) | set(b))
                if k != CODE_KEY and a.get(k) != b.get(k)}

    def commits(self, before: int, after: int) -> list:
        a = self.records[before]["fingerprint"].get(CODE_KEY)
        b = self.records[after]["fingerprint"].get(CODE_KEY)
        if a == b:
            return []
        if self.repo and a and b:
            if (a, b) not in self._log:
                p = subprocess.run(["git", "-C", self.repo, "log", "--format=%h", "%s..%s" % (a, b)],
                                   capture_output=True, text=True)
                self._log[(a, b)] = p.stdout.split() if p.returncode == 0 else None
            if self._log[(a, b)] is not None:
                return self._log[(a, b)]
        return [c for c in (a, b) if c]

    def load_limit(self, run: int) -> Optional[float]:
        """The checks' bar for a loaded host (thresholds.hpp's other_busy_cores, from the run's audit)."""
        audit = self.records[run].get("audit") or {}
        return (audit.get("thresholds") or {}).get("other_busy_cores", audit.get("other_busy_cores"))

    def of(self, before: int, after: int, load=None) -> dict:
        out = {"environment": self.environment(before, after), "commits": self.commits(before, after)}
        if load:
            out["load"] = load
        return out


def load_change(s: Series, causes: Causes, a: int, c: int, b: int) -> Optional[list]:
    """[before, after]: the median cores other processes kept busy during the row on each side
    of a change point, when they differ by at least the checks' bar for a loaded host."""
    before = [v for v in s.busy[a:c] if isinstance(v, (int, float))]
    after = [v for v in s.busy[c:b] if isinstance(v, (int, float))]
    limit = causes.load_limit(s.positions[c])
    if not before or not after or limit is None:
        return None
    pair = [statistics.median(before), statistics.median(after)]
    return pair if abs(pair[1] - pair[0]) >= limit else None


def snap(s: Series, cps: List[int], causes: Causes) -> Dict[int, int]:
    """{new index: old index} for change points moved by one run onto a neighbouring boundary
    where the environment or the code changed when none did at theirs: E-divisive may place
    a change one run off, and a recorded change next to it is the better explanation."""
    def explained(k):  # something recorded changed between the points k - 1 and k
        cause = causes.of(s.positions[k - 1], s.positions[k])
        return bool(cause["environment"] or cause["commits"])

    moved = {}
    for i, cp in enumerate(cps):
        lo = cps[i - 1] if i else 0
        hi = cps[i + 1] if i + 1 < len(cps) else len(s.ms)
        if explained(cp):
            continue
        options = [k for k in (cp - 1, cp + 1) if lo + 2 <= k <= hi - 2 and explained(k)]
        if len(options) == 1:
            cps[i] = options[0]
            moved[options[0]] = cp
    return moved


def detect(s: Series, causes: Causes, testbed: str, records, limits: dict, alpha, min_runs, step=None,
           override=None) -> List[dict]:
    if len(s.ms) < 2 * min_runs:
        return []
    rng = np.random.default_rng(zlib.crc32(s.key.encode()))
    found = dict(edivisive.change_points(np.log(s.ms), alpha=alpha, min_size=min_runs, rng=rng))
    cps = drop_small(s, list(found), limits, step, override)
    moved = snap(s, cps, causes)
    out = []
    for (a, c, b), cp in zip(_sides(s.ms, cps), cps):
        before, after = statistics.median(s.ms[a:c]), statistics.median(s.ms[c:b])
        point = {"row": s.name, "testbed": testbed, "run_index": s.positions[cp],
                 "date": records[s.positions[cp]]["date"], "before_ms": before, "after_ms": after,
                 "change_pct": (after / before - 1) * 100, "p": found[moved.get(cp, cp)],
                 "min_change_pct": min_change_pct(s.noise[a:b], limits, step, override),
                 "cause": causes.of(s.positions[cp - 1], s.positions[cp], load_change(s, causes, a, c, b)),
                 "runs": {side: {"index": i, "file": os.path.basename(records[i].get("path", "")),
                                 "commit": records[i]["fingerprint"].get(CODE_KEY)}
                          for side, i in (("before", s.positions[cp - 1]), ("after", s.positions[cp]))}}
        if s.row_id is not None:
            point["id"] = s.row_id
        if cp in moved:
            point["moved_from"] = s.positions[moved[cp]]
        out.append(point)
    return out


def baseline_of(specs, stored: dict) -> dict:
    """{testbed: baseline run} for the --baseline values: a run index (every testbed's run at
    that index), a stored run file or a solve_bench run (its own testbed); later ones win."""
    bases = {}
    for spec in specs or ():
        try:
            index = int(spec)
        except ValueError:
            index = None
        if index is not None:
            bases.update({tb: runs[index] for tb, runs in stored.items() if -len(runs) <= index < len(runs)})
            continue
        try:
            record = store.load_stored(spec)
        except store.InputError:
            record = store.record_of(spec)  # a run not stored (raises InputError when neither)
        if record["testbed"] not in stored:
            raise store.InputError("%s: its testbed %r is not in the store (%s)"
                                   % (spec, record["testbed"], ", ".join(sorted(stored))))
        bases[record["testbed"]] = record
    return bases


def creep(testbed: str, base: dict, latest: dict, judged: Dict[tuple, dict], limits: dict,
          override=None) -> List[dict]:
    """Each row of the latest run against the baseline run: flagged beyond the step one run can
    show against the row's record (solve_bench_checks history --runs=1), at least the gate's
    floor; undecided (flagged None) where the record is too short to say."""
    old = {r["key"]: r for r in base["rows"] if r.get("median_ms")}
    out = []
    for row in latest["rows"]:
        b = old.get(row["key"])
        if not b or not row.get("median_ms"):
            continue
        change = (row["median_ms"] / b["median_ms"] - 1) * 100
        one = judged.get((testbed, row["key"]), {}).get(1)
        limit = override if override is not None else None if one is None else max(limits["gate_floor_pct"], one)
        out.append({"row": row["name"], "testbed": testbed, "baseline_date": base["date"],
                    "latest_date": latest["date"], "baseline_ms": b["median_ms"],
                    "latest_ms": row["median_ms"], "change_pct": change, "noise_pct": limit,
                    "flagged": None if limit is None else abs(change) > limit})
    return out


def row_state(s: Series, testbed: str, runs: int, recent: int, judged: Dict[tuple, dict], min_runs: int) -> dict:
    """How noisy a row is and whether it moved in the last `recent` runs (for a PR comment)."""
    noise = [v for v in s.noise if isinstance(v, (int, float))]
    last = s.change_points[-1] if s.change_points else None
    return {"row": s.name, "testbed": testbed, "runs": len(s.ms),
            "noise_pct": statistics.median(noise) if noise else None,
            "run_to_run_pct": judged.get((testbed, s.key), {}).get("run_spread_pct"),
            "detectable_step_pct": judged.get((testbed, s.key), {}).get(min_runs),
            "moved_recently": bool(last and last["run_index"] >= runs - recent),
            "last_change": last and {k: last[k] for k in ("run_index", "date", "change_pct", "p", "cause")}}


def analyze(stored: dict, limits: dict, judged=None, alpha=None, min_runs=None, min_change=None, repo=None,
            baseline=None, recent=None):
    """(the analysis as JSON, {testbed: {row key: Series}}). limits: the checks' thresholds
    (tracking.thresholds); judged: judged_rows' answer; alpha, min_runs, recent: None for the
    checks' change_point_alpha, step_runs and recent_runs."""
    judged = judged or {}
    alpha = limits["change_point_alpha"] if alpha is None else alpha
    min_runs = int(limits["step_runs"]) if min_runs is None else min_runs
    recent = int(limits["recent_runs"]) if recent is None else recent
    result = {"settings": {"alpha": alpha, "min_runs": min_runs, "min_change_pct": min_change,
                           "gate_floor_pct": limits["gate_floor_pct"], "recent": recent},
              "testbeds": {}, "change_points": [], "creep": [], "rows": []}
    all_series = {}
    bases = baseline_of(baseline, stored)
    for testbed, records in stored.items():
        causes = Causes(records, repo)
        rows = series_of(records)
        for s in rows.values():
            step = judged.get((testbed, s.key), {}).get(min_runs)
            s.change_points = detect(s, causes, testbed, records, limits, alpha, min_runs, step, min_change)
            result["change_points"].extend(s.change_points)
            result["rows"].append(row_state(s, testbed, len(records), recent, judged, min_runs))
        all_series[testbed] = rows
        result["testbeds"][testbed] = {"runs": len(records), "rows": len(rows),
                                       "first": records[0]["date"], "last": records[-1]["date"],
                                       "files": [os.path.basename(r["path"]) for r in records]}
        if testbed in bases:
            result["creep"].extend(creep(testbed, bases[testbed], records[-1], judged, limits, min_change))
            result["testbeds"][testbed]["baseline"] = bases[testbed]["date"]
    return result, all_series


def cause_text(cause: dict) -> str:
    parts = ["%s %s -> %s" % (k, v[0], v[1]) for k, v in cause["environment"].items()]
    if cause.get("load"):
        parts.append("other processes' load %.2f -> %.2f cores" % tuple(cause["load"]))
    if cause["commits"]:
        parts.append("commits " + " ".join(str(c)[:12] for c in cause["commits"][:8])
                     + (" ..." if len(cause["commits"]) > 8 else ""))
    return "; ".join(parts) or "nothing recorded changed"


def summary(result: dict) -> str:
    lines = []
    for testbed, info in result["testbeds"].items():
        cps = [c for c in result["change_points"] if c["testbed"] == testbed]
        lines.append("testbed %s: %d runs (%s to %s), %d rows, %d change point%s"
                     % (testbed, info["runs"], info["first"], info["last"], info["rows"], len(cps),
                        "" if len(cps) == 1 else "s"))
        for c in sorted(cps, key=lambda c: (c["run_index"], c["row"])):
            lines.append("  %-44s run %d: %.4g -> %.4g ms (%+.1f%%, p %.3g)  cause: %s"
                         % (c["row"], c["run_index"], c["before_ms"], c["after_ms"], c["change_pct"],
                            c["p"], cause_text(c["cause"])))
            for answer in c.get("answers", []):
                lines.append("    %s: %s" % (answer["kind"], answer["line"]))
        creeps = [c for c in result["creep"] if c["testbed"] == testbed]
        if creeps:
            flagged = [c for c in creeps if c["flagged"]]
            undecided = sum(c["flagged"] is None for c in creeps)
            lines.append("  creep, latest run against the baseline of %s: %d of %d rows beyond their noise%s"
                         % (info["baseline"], len(flagged), len(creeps),
                            ", %d undecided (too few stored runs to say)" % undecided if undecided else ""))
            for c in sorted(flagged, key=lambda c: -abs(c["change_pct"])):
                lines.append("    %-42s %.4g -> %.4g ms (%+.1f%%, noise %.1f%%)"
                             % (c["row"], c["baseline_ms"], c["latest_ms"], c["change_pct"], c["noise_pct"]))
    return "\n".join(lines) if lines else "an empty store"


def markdown(result: dict, recent: int) -> str:
    """Per testbed and row: its noise and its last change point, the rows that moved in the
    last `recent` runs first (for a pull-request comment)."""
    def pct(value):
        return "-" if value is None else "%.1f%%" % value

    out = []
    for testbed, info in result["testbeds"].items():
        rows = sorted((r for r in result["rows"] if r["testbed"] == testbed),
                      key=lambda r: (not r["moved_recently"], r["row"]))
        out += ["### History on %s: %d runs, %d of %d rows moved in the last %d"
                % (testbed, info["runs"], sum(r["moved_recently"] for r in rows), len(rows), recent), "",
                "| row | noise_pct | run to run | last change point |", "| --- | --- | --- | --- |"]
        for r in rows:
            c, last = r["last_change"], "none"
            if c:
                last = "%srun %d of %d: %+.1f%% (%s)" % ("**moved recently**: " if r["moved_recently"] else "",
                                                        c["run_index"], info["runs"], c["change_pct"],
                                                        cause_text(c["cause"]))
            out.append("| `%s` | %s | %s | %s |" % (r["row"], pct(r["noise_pct"]), pct(r["run_to_run_pct"]), last))
        out.append("")
    return "\n".join(out) if out else "The history is empty.\n"
