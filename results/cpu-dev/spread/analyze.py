#!/usr/bin/env python3
"""Per probe JSON line: each set's median and mode; between modes, the ratio of their pooled
medians with a permutation p (labels shuffled within each pass: load drift falls on every set
alike); within a mode, the spread of its sets' medians with its permutation p."""
import json, random, statistics as st, sys

def spread(meds):
    return 100 * (max(meds) / min(meds) - 1)

def perm_p(ms, stat, perms=300):
    K, P = len(ms), min(len(m) for m in ms)
    ms = [m[:P] for m in ms]
    obs = stat(ms)
    rng = random.Random(1)
    ge = 0
    for _ in range(perms):
        cols = [[] for _ in range(K)]
        for p in range(P):
            col = [ms[k][p] for k in range(K)]
            rng.shuffle(col)
            for k in range(K):
                cols[k].append(col[k])
        ge += abs(stat(cols)) >= abs(obs)
    return obs, (ge + 1) / (perms + 1)

def main():
    for line in sys.stdin:
        line = line.strip()
        if not line.startswith("{"):
            continue
        d = json.loads(line)
        sets = d["sets"]
        ms = [s["ms"] for s in sets]
        modes = sorted(set(s["mode"] for s in sets), key=[s["mode"] for s in sets].index)
        head = "%s n=%d [%s] huge_kb=%d:" % (d["op"], d["n"], d["mode"], d["huge_kb"])
        parts = []
        for m in modes:
            idx = [k for k, s in enumerate(sets) if s["mode"] == m]
            meds = [st.median(ms[k]) for k in idx]
            sub = [ms[k] for k in idx]
            if len(idx) > 1:
                obs, p = perm_p(sub, lambda c: spread([st.median(x) for x in c]))
                parts.append("%s med %.4g sets spread %.1f%% p=%.2f" % (m, st.median(sum(sub, [])), obs, p))
            else:
                parts.append("%s med %.4g" % (m, meds[0]))
        if len(modes) == 2:
            lab = [s["mode"] == modes[1] for s in sets]
            def ratio(c):
                a = st.median(sum([c[k] for k in range(len(c)) if not lab[k]], []))
                b = st.median(sum([c[k] for k in range(len(c)) if lab[k]], []))
                return 100 * (b / a - 1)
            obs, p = perm_p(ms, ratio)
            parts.append("%s vs %s: %+.1f%% p=%.3f" % (modes[1], modes[0], obs, p))
        print(head, "; ".join(parts))

main()
