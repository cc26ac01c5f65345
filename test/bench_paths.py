#!/usr/bin/env python3
"""Documented paths of solve_bench that must work on any machine (issue 31), checked by their output.

usage: bench_paths.py CASE SOLVE_BENCH WORKDIR [SOLVE_BENCH_CHECKS]
  sizes_max   --sizes=max --benchmark_list_tests, alone and with --precisions=d, =z, --nrhs=4 and a
              filter (it aborted: n = 2147483647 too large to address, exit 134): exit 0, every
              row at the n its "--sizes=max:" line names, that n fits the memory the line says;
              and docs/usage.md's example (--sizes=max --precisions=d
              --benchmark_filter='^GPU/d(gesv|posv)/') listed: GPU rows where there is a GPU, none
              where there is not, exit 0
  scan        --sizes=scan:LO..HI on a smooth row (docs/cliffs.md): exit 0, the 9 sizes of the coarse grid
              and any the bisection added in the JSON, the scan in the context, "scan pass" said, the
              cliffs rule checked; --nrhs=scan lists its coarse grid; bad ranges, two scanned axes: exit 2
"""
import json
import os
import re

import smoke_lib as sb
from smoke_lib import fail, run

NOTE = re.compile(r"^solve_bench: --sizes=max: (?P<what>\S+) at n = (?P<n>\d+): (?P<need>[\d.]+) GiB of the "
                  r"(?P<usable>[\d.]+) GiB usable$")
ROW_N = re.compile(r"/n:(\d+)/")
MIXED = re.compile(r"^solve_bench: --sizes=max: (CPU|GPU) mixed precision .* at n = (\d+)", re.M)


def usage_example():
    """The --sizes=max command of docs/usage.md, as the doc writes it."""
    doc = open(os.path.join(sb.SOURCE_ROOT, "docs", "usage.md")).read()
    m = re.search(r"`(?:solve_bench )?--sizes=max --precisions=d --benchmark_filter='([^']+)'`", doc)
    if not m:
        fail("docs/usage.md no longer has the --sizes=max example this test runs")
    return ["--sizes=max", "--precisions=d", "--benchmark_filter=" + m.group(1)]


def listed(exe, args):
    p = run(exe, args + ["--benchmark_list_tests"], timeout=120)
    if p.returncode != 0 or "terminate called" in p.stderr:
        fail("%s: exit %d\n%s" % (" ".join(args), p.returncode, p.stderr[-2000:]))
    notes = {}
    for line in p.stderr.splitlines():
        m = NOTE.match(line)
        if m:
            notes[m.group("what")] = m
            if float(m.group("need")) > float(m.group("usable")):
                fail("%s: more than the usable memory: %s" % (" ".join(args), line))
    rows = [l for l in p.stdout.splitlines() if l.strip()]
    return p, rows, notes


def case_sizes_max(exe, work):
    variants = [[], ["--precisions=d"], ["--precisions=z"], ["--nrhs=4"], ["--benchmark_filter=dgesv"]]
    for extra in variants:
        p, rows, notes = listed(exe, ["--sizes=max"] + extra)
        cpu = [r for r in rows if r.startswith("CPU")]
        if not cpu:
            fail("--sizes=max %s listed no CPU row:\n%s" % (" ".join(extra), p.stdout))
        for row in rows:
            if "_batched/" in row:
                continue  # --sizes does not bound the batched rows
            m = ROW_N.search(row)
            plain = row.split("/n:")[0]  # CPU/dgesv, GPU-pinned/dposv
            if "/kind:" in row or "/cond:" in row:  # mixed precision: one n for the family, said once
                said = {g[0]: g[1] for g in MIXED.findall(p.stderr)}.get(row.split("/")[0].split("-")[0])
                if said != m.group(1):
                    fail("%s: a mixed-precision row at n = %s; --sizes=max said %s" % (row, m.group(1), said))
                continue
            note = notes.get(plain)
            if not note or note.group("n") != m.group(1):
                fail("%s: at n = %s, but --sizes=max said %s" % (row, m.group(1), note and note.group(0)))
        dense = [r for r in rows if "/nrhs:" in r and "/kind:" not in r and "/cond:" not in r]
        if extra == ["--nrhs=4"] and not all("/nrhs:4/" in r for r in dense):
            fail("--nrhs=4 rows: %s" % rows)
        if extra == ["--precisions=z"] and not any(r.startswith("CPU/zgesv/") for r in rows):
            fail("--precisions=z lists no CPU/zgesv row: %s" % rows)
    print("ok: --sizes=max lists and exits 0 in %d forms; every row at the n it announced" % len(variants))

    args = usage_example()
    p, rows, notes = listed(exe, args)
    gpu = "GPU rows not registered" not in p.stderr
    want = re.compile(args[-1].split("=", 1)[1])
    if any(not want.search(r) for r in rows):
        fail("docs/usage.md's example lists rows its filter excludes: %s" % rows)
    if gpu and not any(r.startswith("GPU/dgesv/") for r in rows):
        fail("docs/usage.md's example lists no GPU/dgesv row on a machine with a GPU:\n%s" % p.stderr)
    if not gpu and rows:
        fail("no GPU here, yet docs/usage.md's example lists %s" % rows)
    print("ok: docs/usage.md's example %s: %d rows (%s)" % (" ".join(args), len(rows), "GPU" if gpu else "no GPU here"))


def case_scan(exe, work):
    stem = os.path.join(work, "scan")
    base = ["--precisions=d", "--benchmark_min_time=3x", "--rounds=3", "--benchmark_filter=^CPU/dgetrf/"]
    p = run(exe, base + ["--sizes=scan:16..64", "--benchmark_out=" + stem + ".json"])
    if p.returncode != 0:
        fail("--sizes=scan:16..64: exit %d\n%s" % (p.returncode, p.stderr[-2000:]))
    doc = json.load(open(stem + ".json"))
    sizes = sorted({int(ROW_N.search(b["name"] + "/").group(1)) for b in doc["benchmarks"]})
    if not {16, 19, 23, 27, 32, 38, 45, 54, 64} <= set(sizes) or len(sizes) > 9 + 40:
        fail("the coarse grid of 16..64 and at most 40 more: %s" % sizes)
    if doc["context"].get("scan") != "n:16..64" or "scan pass 1: " not in p.stderr:
        fail("the scan in the context and on stderr:\n%s" % p.stderr[-2000:])
    audit = json.load(open(stem + ".audit.json"))
    if "cliffs" not in audit["audit"]["rules_checked"]:
        fail("the cliffs rule did not run on a scan: %s" % json.dumps(audit)[:2000])
    # Without --rounds a scan is one process of 5 rounds: its passes are judged from the rounds it has.
    p = run(exe, ["--precisions=d", "--benchmark_min_time=3x", "--benchmark_filter=^CPU/dgetrf/", "--sizes=scan:16..24",
                  "--benchmark_out=" + stem + "-default.json"])
    doc = json.load(open(stem + "-default.json"))
    design = {(b["processes"], b["rounds"]) for b in doc["benchmarks"] if b.get("run_type") == "iteration"}
    if p.returncode != 0 or design != {(1, 5)} or "process 2 of" in p.stderr:
        fail("a scan with the default design: exit %d, (processes, rounds) %r\n%s" % (p.returncode, design, p.stderr))
    p, rows, _ = listed(exe, ["--precisions=d", "--sizes=64", "--nrhs=scan:1..256", "--benchmark_filter=^CPU-driver/dgesv/"])
    if sorted(int(r.split("nrhs:")[1].split("/")[0]) for r in rows) != [1, 2, 4, 8, 16, 32, 64, 128, 256]:
        fail("--nrhs=scan:1..256 lists the coarse grid: %s" % rows)
    for args, needle in ((["--sizes=scan:64..16"], "not scan:LO..HI"), (["--sizes=scan:0..9"], "not scan:LO..HI"),
                         (["--sizes=scan:16..64", "--nrhs=scan:1..8"], "scan one axis at a time"),
                         (["--sizes=scan:16..64", "--scan_extra=-1"], "--scan_extra")):
        sb.usage_error(run(exe, args + ["--benchmark_filter=none"]), needle)
    print("ok: --sizes=scan:16..64 ran %d sizes (%d added), no error; --nrhs=scan lists its grid; bad scans exit 2"
          % (len(sizes), len(sizes) - 9))


if __name__ == "__main__":
    sb.main(__doc__, {"sizes_max": case_sizes_max, "scan": case_scan})
