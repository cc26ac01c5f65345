#!/usr/bin/env python3
"""warm.py ROWS.jsonl...: per row, the median over processes of median(first k samples) / median(rest) - 1."""
import json, statistics as st, sys
acc = {}
for f in sys.argv[1:]:
    for l in open(f):
        r = json.loads(l)
        s = r.get("samples_ms")
        if not s or len(s) < 12:
            continue
        k = max(3, len(s) // 10)
        acc.setdefault(r["name"].replace("/manual_time", ""), []).append(
            (100 * (st.median(s[:k]) / st.median(s[k:]) - 1), 100 * (s[0] / st.median(s[k:]) - 1), len(s)))
for n, v in acc.items():
    print("%-30s files %2d  first-tenth vs rest: median %+5.1f%% (range %+.1f..%+.1f)  first sample %+5.1f%%  samples %d" % (
        n, len(v), st.median(x[0] for x in v), min(x[0] for x in v), max(x[0] for x in v), st.median(x[1] for x in v), st.median(x[2] for x in v)))
