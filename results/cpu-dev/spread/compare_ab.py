#!/usr/bin/env python3
"""compare_ab.py DIR: per row, the A and B processes' medians (real_time of each JSON), their
spread ((max-min)/min), the ratio of the medians of medians B/A, and a Mann-Whitney p."""
import glob, json, os, re, statistics as st, sys
from scipy.stats import mannwhitneyu

def rows(path):
    d = json.load(open(path))
    out = {}
    for b in d["benchmarks"]:
        if b.get("run_type") == "aggregate" or b.get("error_occurred"):
            continue
        name = b["name"].replace("/manual_time", "")
        t = b["real_time"] * {"ns": 1e-6, "us": 1e-3, "ms": 1, "s": 1e3}[b.get("time_unit", "ns")]
        out[name] = (t, b.get("noise_pct"), b.get("cpu_other_busy") or b.get("other_busy_cores"))
    return out

d = sys.argv[1]
sides = {}
for f in sorted([f for f in glob.glob(os.path.join(d, "[AB]-*.json")) if re.search(r"/[AB]-\d+\.json$", f)], key=lambda f: int(re.findall(r"-(\d+)\.json", f)[0])):
    sides.setdefault(os.path.basename(f)[0], []).append(rows(f))
names = [n for n in sides["A"][0] if all(n in r for s in sides.values() for r in s)]
print("%-30s %6s %6s %7s %7s %8s %7s" % ("row", "A sprd", "B sprd", "A ±max", "B ±max", "B/A", "p"))
for n in names:
    a = [r[n][0] for r in sides["A"]]
    b = [r[n][0] for r in sides["B"]]
    sa = 100 * (max(a) / min(a) - 1)
    sb = 100 * (max(b) / min(b) - 1)
    na = max(r[n][1] or 0 for r in sides["A"])
    nb = max(r[n][1] or 0 for r in sides["B"])
    p = mannwhitneyu(a, b).pvalue
    print("%-30s %5.1f%% %5.1f%% %6.2f%% %6.2f%% %+7.1f%% %7.3f" % (n, sa, sb, na, nb, 100 * (st.median(b) / st.median(a) - 1), p))
