#!/usr/bin/env python3
"""Judge A/A (or planted) comparisons with tools/regress; print one line per comparison and a summary."""
import json, os, subprocess, sys, collections
REGRESS = "/work/wt/judge/tools/regress"
CHECKS = "/work/wt/judge/build/dev/benchmarks/checks/solve_bench_checks"

def judge(base, new, extra=()):
    out = "/tmp/judge/an/c.json"
    if os.path.exists(out): os.remove(out)
    p = subprocess.run([sys.executable, REGRESS, "--checks", CHECKS, "--json", out] + list(extra) + base + ["--"] + new,
                       capture_output=True, text=True)
    c = json.load(open(out))["compare"] if os.path.exists(out) else None
    return p.returncode, c, p.stdout + p.stderr

def summary(label, comps, watch=None):
    rcs = collections.Counter(); statuses = collections.Counter(); det = []; watched = []
    for base, new, extra in comps:
        rc, c, text = judge(base, new, extra)
        rcs[rc] += 1
        for r in c["rows"]:
            statuses[r["status"]] += 1
            if r["status"] == "undecided" and r["detectable_pct"] is not None: det.append(r["detectable_pct"])
            if watch and r["row"] == watch: watched.append((r["status"], r["change_pct"], r["detectable_pct"]))
        fails = [r["row"] + " " + r["status"] for r in c["rows"] if r["fails"]] + ["bug " + b["rule"] for b in c["new_timing_bugs"]]
        print("  %s vs %s: exit %d %s %s" % (" ".join(map(os.path.basename, base)), " ".join(map(os.path.basename, new)),
              rc, dict(collections.Counter(r["status"] for r in c["rows"])), "; ".join(fails)))
    det.sort()
    print("%s: %d comparisons, exits %s, rows %s; undecided rows naming what they can detect: %d%s" % (
        label, len(comps), dict(rcs), dict(statuses), len(det),
        (", can detect median %.1f%% (min %.1f%%, max %.1f%%)" % (det[len(det)//2], det[0], det[-1])) if det else ""))
    if watch:
        print("  %s: %s" % (watch, watched))
