#!/usr/bin/env python3
"""Smoke run of --ceilings=on (issue 34, docs/ceilings.md): output checked, not just the exit code.

usage: bench_ceilings.py CASE SOLVE_BENCH WORKDIR [SOLVE_BENCH_CHECKS]
  ceilings     the default row list has no probe rows and --ceilings=on adds them (and nothing
               else); a tiny CPU run with them gives every factorization row of n >= 4 nb its
               headroom, dominating term and a serial sum no lower than the bound (a driver's with
               its getrs or potrs row), the rows below 4 nb none and the reason, the verdict says
               it, solve_bench_checks --rows-json writes the rows' pct_of_peak, pct_of_gemm and
               headroom, and without the flag the verdict says how to get a bound
"""

import json
import os

import smoke_lib as sb
from smoke_lib import fail, run

FLAGS = ["--sizes=512,1024", "--precisions=d", "--rounds=2", "--benchmark_min_time=3x", "--progress=off",
         "--benchmark_filter=-_batched|/kind:"]
PROBES = ("gemm_update/", "getrf_panel/", "trsm_panel/", "potrf_block/")


def listed(exe, args):
    p = run(exe, args + ["--benchmark_list_tests"])
    if p.returncode != 0:
        fail("--benchmark_list_tests exit %d: %s" % (p.returncode, p.stderr[-800:]))
    return [l for l in p.stdout.splitlines() if l.strip()]


def case_ceilings(exe, work):
    plain, probed = listed(exe, []), listed(exe, ["--ceilings=on"])
    if any(p in row for row in plain for p in PROBES):
        fail("the default row list has probe rows")
    added = [r for r in probed if r not in plain]
    if probed[:len(plain)] != plain and sorted(set(probed) - set(added)) != sorted(plain):
        fail("--ceilings=on changes the default rows")
    if not added or any(not any(p in r for p in PROBES) for r in added):
        fail("--ceilings=on adds rows that are not probes: %r" % added)
    if not any("dgemm_update/n:4096/nb:256" in r for r in added):
        fail("no probe at the default size 4096: %r" % added)

    out = os.path.join(work, "ceil.json")
    p = run(exe, FLAGS + ["--ceilings=on", "--benchmark_out=" + out])
    print(p.stdout[-3000:], p.stderr[-1500:])
    if p.returncode != 0:
        fail("exit status %d" % p.returncode)
    verdict = json.load(open(os.path.join(work, "ceil.verdict.json")))["verdict"]
    rows = {r["row"]: r for r in verdict["ceilings"]["rows"]}
    if not verdict["ceilings"]["probes"]:
        fail("the verdict saw no probes")
    for name in ("CPU/dgetrf/n:512", "CPU/dgesv/n:512/nrhs:1"):
        r = rows.get(name)
        if not r or r["headroom"] is not None or "512 < 4 nb" not in r.get("no_bound", ""):
            fail("%s: a bound below 4 nb: %r" % (name, r))
    for name in ("CPU/dgetrf/n:1024", "CPU/dgesv/n:1024/nrhs:1", "CPU/dpotrf/n:1024",
                 "CPU-driver/dposv/n:1024/nrhs:1"):
        r = rows.get(name)
        if not r or not r["headroom"] or not r["bound"] or r["bound"]["dominant"] not in ("update", "panel", "solve"):
            fail("%s: no headroom or dominating term: %r" % (name, r))
        b = r["bound"]
        if abs(b["ms"] - b["update_ms"] - b["panel_ms"] - b["transfer_ms"] - b["solve_ms"]) > 1e-9 * b["ms"] \
                or b["nb"] != 256:
            fail("%s: the bound is not the sum of its terms at nb 256: %r" % (name, b))
        if not b["serial_ms"] >= b["ms"] * (1 - 1e-9):
            fail("%s: the floor is above the serial sum: %r" % (name, b))
        if abs(r["headroom"] - r["ms"] / b["ms"]) > 1e-9 * r["headroom"]:
            fail("%s: headroom is not the time over the bound: %r" % (name, r))
        if not (0 < r["pct_of_peak"] < 100) or not r["pct_of_gemm"] or r["gemm_row"] != "CPU/dgemm/n:1024":
            fail("%s: pct_of_peak or pct_of_gemm missing: %r" % (name, r))
        half = {"gesv": "CPU/dgetrs/n:1024/nrhs:1", "posv": "CPU/dpotrs/n:1024/nrhs:1"}.get(r["id"]["op"])
        if b["solve_row"] != half or (half and not b["solve_ms"] > 0):
            fail("%s: the solve is not its run's %s: %r" % (name, half, b))
    if "bound_tolerance" not in verdict["thresholds"] or "bound_min_blocks" not in verdict["thresholds"]:
        fail("the thresholds do not carry bound_tolerance and bound_min_blocks")
    lines = [l for l in verdict["lines"] if l.startswith("Ceilings, dgesv")]
    if not lines or "CPU/dgesv at n = 1024 runs at" not in lines[0] or "its bound; the" not in lines[0]:
        fail("the verdict does not give dgesv's headroom: %r" % verdict["lines"])
    if "% of peak" not in p.stdout:
        fail("the table shows no share of peak")
    if sb.CHECKS:
        rows_json = os.path.join(work, "rows.json")
        c = run(sb.CHECKS, ["--no-files", "--rows-json=" + rows_json, out])
        if c.returncode not in (0, 1):
            fail("solve_bench_checks exit %d: %s" % (c.returncode, c.stderr[-800:]))
        back = {r["row"]: r for r in json.load(open(rows_json))["rows"]}
        if back["CPU/dgetrf/n:1024"].get("headroom") != rows["CPU/dgetrf/n:1024"]["headroom"]:
            fail("--rows-json does not carry the row's headroom: %r" % back["CPU/dgetrf/n:1024"])

    p = run(exe, FLAGS + ["--benchmark_filter=^CPU/dgesv/n:512/", "--benchmark_out=" + os.path.join(work, "plain.json")])
    if p.returncode != 0 or "--ceilings=on" not in p.stdout:
        fail("without probes the verdict does not say how to get a bound: %s" % p.stdout[-1500:])
    print("ok")


if __name__ == "__main__":
    sb.main(__doc__, {"ceilings": case_ceilings})
