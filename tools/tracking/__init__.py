"""tools/track's modules: the run store (store), change points (edivisive), the analysis of a
store's series (analysis) and the static dashboard (dashboard). Only store is standard library.

Every number the tracker judges by is the checks' (benchmarks/checks/thresholds.hpp), read from
the newest stored run whose audit sidecar carried them all, else from `solve_bench_checks
thresholds`: the significance of a change point (change_point_alpha), the runs a side needs
(step_runs), the smallest change (gate_floor_pct), the "moved recently" window (recent_runs), a
step's "moved" share (moved_share_log), the bar for a loaded host (other_busy_cores)."""
import functools
import json
import subprocess

NEEDED = ("change_point_alpha", "step_runs", "gate_floor_pct", "recent_runs", "moved_share_log", "gate_confidence")


class NoThresholds(Exception):
    """Neither a stored run nor solve_bench_checks gave the checks' thresholds."""


def thresholds(stored=None, checks=None) -> dict:
    """The checks' thresholds: of the newest stored run that has them all, else the judge's."""
    for records in (stored or {}).values():
        for record in reversed(records):
            found = ((record.get("audit") or {}).get("thresholds")) or {}
            if all(k in found for k in NEEDED):
                return found
    if checks is None:
        from checksbin import find_checks
        checks = find_checks()
    try:
        p = subprocess.run([checks, "thresholds"], capture_output=True, text=True) if checks else None
        found = json.loads(p.stdout)["thresholds"] if p and p.returncode == 0 else {}
    except (OSError, ValueError, KeyError, TypeError):
        found = {}
    if not all(k in found for k in NEEDED):
        raise NoThresholds("no stored run carries the checks' thresholds and solve_bench_checks (%s) gave none: "
                           "build it, or set SOLVE_BENCH_CHECKS" % (checks or "not found"))
    return found


@functools.lru_cache(maxsize=None)
def limit(key: str) -> float:
    """One of the checks' thresholds, from solve_bench_checks (for the steps of bisect and confirm)."""
    return thresholds()[key]
