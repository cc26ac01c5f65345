"""--history=STORE on solve_bench and solve_bench_checks (issue 30): bench_smoke.py's `history` case."""

import json
import os
import shutil
import subprocess
import sys

import smoke_lib as sb
from smoke_lib import fail, run, usage_error

TRACK = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools", "track")
MOVED = "CPU/dgemm/n:40"


def case_history(exe, work):
    """A store whose runs of MOVED alternate between two speeds: a run held to it says MOVED's
    ± is at least that spread, names the record, and a bad store or a lone --testbed is refused."""
    filt = "--benchmark_filter=^CPU/d(gesv|gemm)/n:(24|40)(/nrhs:1)?/manual_time$"
    base = ["--sizes=24,40", "--precisions=d", "--benchmark_min_time=3x", "--rounds=2", filt]

    def ran(name, extra=(), env=None):
        out = os.path.join(work, name + ".json")
        p = run(exe, base + ["--benchmark_out=" + out] + list(extra), env)
        if p.returncode != 0:
            fail("%s %s: exit %d\n%s" % (name, " ".join(extra), p.returncode, p.stderr[-2000:]))
        return p, out

    store = os.path.join(work, "store")
    shutil.rmtree(store, ignore_errors=True)  # a store of an earlier ctest run
    recorded = [ran("h%d" % k, env={"SOLVE_BENCH_TEST_SLOWDOWN": "^%s$=%g" % (MOVED, 0.5 * (k % 2))})[1]
                for k in range(6)]
    added = subprocess.run([sys.executable, TRACK, "add", "--store", store, "--testbed", "vm"] + recorded,
                           capture_output=True, text=True, timeout=120)
    if added.returncode != 0:
        fail("tools/track add: exit %d\n%s" % (added.returncode, added.stderr))

    # solve_bench: the store's only testbed is taken; the header and the context name the record.
    p, out = ran("held", ["--history=" + store])
    doc = json.load(open(out))
    said = doc["context"].get("noise_history", "")
    if "testbed vm: 6 runs" not in said or "one run of the row on record" not in p.stdout.replace("\n", " "):
        fail("--history: the context's noise_history and the header name the record: %r\n%s" % (said, p.stdout[:600]))
    held = {b["run_name"]: b.get("noise_pct") for b in doc["benchmarks"] if b.get("run_type") == "iteration"}
    moved = [v for k, v in held.items() if k.startswith(MOVED + "/")]
    if not moved or not all(v is not None and v > 10 for v in moved):
        fail("%s, 1.5x apart in alternate runs on record, is held to more than ±10%%: %r" % (MOVED, moved))

    # solve_bench_checks on a saved run: the same floor, each row at least its own ±.
    if sb.CHECKS:
        def rows(name, *extra):
            path = os.path.join(work, name + ".rows.json")
            q = subprocess.run([sb.CHECKS, "--no-files", "--rows-json=" + path] + list(extra) + [recorded[0]],
                               capture_output=True, text=True, timeout=120)
            if q.returncode not in (0, 1):
                fail("solve_bench_checks %s: exit %d\n%s" % (" ".join(extra), q.returncode, q.stderr))
            return {r["row"]: r.get("noise_pct") for r in json.load(open(path))["rows"]}
        own, floored = rows("own"), rows("floored", "--history=" + store, "--testbed=vm")
        if not (floored[MOVED] or 0) > 10 or any((floored[k] or 0) < (own[k] or 0) for k in own):
            fail("solve_bench_checks --history: %s above ±10%%, no row narrower: %r against %r" % (MOVED, floored, own))
        for args, needle in ((["--testbed=vm"], "--testbed needs --history"),
                             (["--history=" + os.path.join(work, "nowhere")], "nowhere")):
            q = subprocess.run([sb.CHECKS, "--no-files"] + args + [recorded[0]], capture_output=True, text=True,
                               timeout=120)
            if q.returncode != 2 or needle not in q.stderr:
                fail("solve_bench_checks %s: exit 2 naming %r, got %d: %s" % (args, needle, q.returncode, q.stderr))

    usage_error(run(exe, base + ["--history=" + os.path.join(work, "nowhere")]), "--history")
    usage_error(run(exe, base + ["--history=" + store, "--testbed=elsewhere"]), "elsewhere")
    usage_error(run(exe, base + ["--testbed=vm"]), "--testbed=vm")
    print("ok: --history holds %s to the record's spread (±%.0f%% and more), names it; bad stores refused"
          % (MOVED, min(moved)))
