#!/usr/bin/env python3
"""The per-process figures behind tools/aa-coverage, for issue 30 item 2 (h200.sh spread).

usage: spread_table.py A-NAME:RUN.json,RUN.json... B-NAME:RUN.json,...

For each row and each side: the processes' medians in run order, their spread ((max-min)/min),
the SM clock each process held during the row (sm_clock_mean_MHz, else the start/end clocks)
and the correlation of time with 1/clock over the processes: near 1 when the clock explains
the spread, near 0 when something else does (the host's submission, a cuBLAS choice, placement).
"""
import json
import statistics
import sys


def rows(path):
    out = {}
    with open(path) as f:
        doc = json.load(f)
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
    for b in doc.get("benchmarks", []):
        if b.get("run_type") == "aggregate" or b.get("error_occurred") or b.get("skipped"):
            continue
        clock = b.get("sm_clock_mean_MHz")
        if clock is None and b.get("sm_clock_start_MHz") and b.get("sm_clock_end_MHz"):
            clock = (b["sm_clock_start_MHz"] + b["sm_clock_end_MHz"]) / 2
        out[b["name"].replace("/manual_time", "")] = (b["real_time"] * scale[b.get("time_unit", "ns")], clock)
    return out


def correlation(xs, ys):
    if len(xs) < 3 or statistics.pstdev(xs) == 0 or statistics.pstdev(ys) == 0:
        return float("nan")
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    cov = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / len(xs)
    return cov / (statistics.pstdev(xs) * statistics.pstdev(ys))


def main():
    sides = []
    for arg in sys.argv[1:]:
        name, _, files = arg.partition(":")
        runs = [rows(p) for p in files.split(",") if p]
        if runs:
            sides.append((name, runs))
    if not sides:
        sys.exit(__doc__)
    names = [n for n in sides[0][1][0] if all(n in r for _, runs in sides for r in runs)]
    for n in names:
        print(n)
        for side, runs in sides:
            t = [r[n][0] for r in runs]
            c = [r[n][1] for r in runs]
            known = [x for x in c if x]
            corr = correlation(t, [1 / x for x in c]) if len(known) == len(c) else float("nan")
            print("  %-8s spread %5.2f%%  median %.5g ms  clock %s MHz  corr(time, 1/clock) %s" % (
                side, 100 * (max(t) / min(t) - 1), statistics.median(t),
                "%.0f-%.0f" % (min(known), max(known)) if known else "?",
                "n/a" if corr != corr else "%+.2f" % corr))
            print("           medians " + " ".join("%.5g" % x for x in t))


main()
