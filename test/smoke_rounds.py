"""solve_bench's rounds, processes and span (issue 30): bench_smoke.py's `rounds` case."""

import json
import os
import re
import subprocess
import sys
import time

import smoke_lib as sb
from smoke_lib import fail, load_rows_log, run, usage_error


def case_rounds(exe, work):
    """Issue 30: rounds shuffled per round, reproducibly; --benchmark_repetitions is --rounds;
    --processes runs them in K processes into one log; compare.py reads the result."""
    filt = "--benchmark_filter=^CPU/d(gesv|getrf|getrs|potrf|potrs|gemm)/n:(24|40)(/nrhs:1)?/manual_time$"
    base = ["--sizes=24,40", "--precisions=d", "--benchmark_min_time=3x", filt]

    def ran(name, *extra):
        stem = os.path.join(work, name)
        p = run(exe, base + ["--benchmark_out=" + stem + ".json"] + list(extra))
        if p.returncode != 0:
            fail("%s: exit %d\n%s" % (" ".join(extra), p.returncode, p.stderr[-2000:]))
        _, logged = load_rows_log(stem + ".rows.jsonl")
        return p, json.load(open(stem + ".json")), logged

    p, doc, logged = ran("three", "--rounds=3")
    reps = sb.repetitions(doc)
    if len(reps) != 12 or any([r["round"] for r in v] != [0, 1, 2] for v in reps.values()):
        fail("--rounds=3: 12 rows of rounds 0, 1, 2: %r" % {k: len(v) for k, v in reps.items()})
    order = [[n for n, _, r in sb.slots(logged) if r == k] for k in range(3)]
    if len({tuple(o) for o in order}) != 3:
        fail("each round has an order of its own: %r" % order)
    _, again, logged_again = ran("again", "--benchmark_repetitions=3")  # the same setting, the same seed
    if [[n for n, _, r in sb.slots(logged_again) if r == k] for k in range(3)] != order or \
            len(sb.repetitions(again)) != 12:
        fail("the same seed gives the same orders, and --benchmark_repetitions=3 three rounds")
    _, _, other = ran("seeded", "--rounds=3", "--seed=5")
    if [[n for n, _, r in sb.slots(other) if r == k] for k in range(3)] == order:
        fail("another seed, the same orders")
    usage_error(run(exe, base + ["--rounds=2", "--benchmark_repetitions=3"]), "disagree")
    usage_error(run(exe, base + ["--rounds=0"]), "--rounds: 0 must be at least 1")
    # Google Benchmark's compare.py on two such runs: its U test runs on the rounds.
    compare = "/usr/share/benchmark/compare.py"
    python = next((py for py in (sys.executable, "/usr/bin/python3") if os.path.exists(py) and subprocess.run(
        [py, "-c", "import scipy"], capture_output=True).returncode == 0), None)
    if os.path.exists(compare) and python:
        c = subprocess.run([python, compare, "benchmarks", os.path.join(work, "three.json"),
                            os.path.join(work, "again.json")], capture_output=True, text=True, timeout=120)
        if c.returncode != 0 or "U Test, Repetitions: 3 vs 3" not in c.stdout or "_median" not in c.stdout:
            fail("compare.py on two runs of rounds: exit %d\n%s%s" % (c.returncode, c.stdout[-2000:], c.stderr))
    else:
        print("compare.py or scipy missing: its part skipped")
    # Two processes of two rounds: one log, the last process judges and writes.
    p, doc, logged = ran("procs", "--rounds=2", "--processes=2")
    reps = sb.repetitions(doc)
    want = sorted((n, proc, r) for n in reps for proc in (0, 1) for r in (0, 1))
    if sorted(sb.slots(logged)) != want or sb.context_lines(os.path.join(work, "procs.rows.jsonl")) != 2:
        fail("--processes=2 --rounds=2: each row's 4 rounds once, two context lines: %r" % sb.slots(logged))
    if any({b["rounds"] for b in v} != {4} or {b["processes"] for b in v} != {2} or
           sorted(b["process"] for b in v) != [0, 0, 1, 1] for v in reps.values()):
        fail("the JSON's rows: 4 rounds from 2 processes each")
    if "process 1 of 2 done; process 2 starts" not in p.stderr or p.stdout.count("\naudit: ") != 1 or \
            p.stdout.count("\nrow ") != 1 or "from 2 processes of 2 rounds each" not in p.stdout.replace("\n", " "):
        fail("one table saying its ± is from 2 processes, one audit, after the second process:\n" + p.stdout[-2000:])
    # --span: the second of two processes starts 3 s after the first at the earliest.
    t0 = time.monotonic()
    p, _, _ = ran("span", "--processes=2", "--span=3")
    if time.monotonic() - t0 < 3 or "process 2 waits" not in p.stderr or "started over 3 s" not in p.stdout:
        fail("--processes=2 --span=3: a wait before process 2, the header says so:\n" + p.stderr[-1000:])
    usage_error(run(exe, base + ["--rounds=3", "--span=60"]), "spreads the starts of the processes")
    # Without SOLVE_BENCH_SPAN (which CTest sets to 0), several processes spread over 120 s: the
    # second says it waits, and is stopped there; rounds alone (one process) wait nothing.
    plain = {k: v for k, v in os.environ.items() if k != "SOLVE_BENCH_SPAN"}
    waiting = subprocess.Popen([exe] + base + ["--processes=2", "--progress=lines",
                                               "--benchmark_out=" + os.path.join(work, "default_span.json")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=plain)
    said = ""
    try:
        for line in waiting.stderr:
            said += line
            if "waits" in line:
                break
    finally:
        waiting.kill()
        waiting.wait()
    if not re.search(r"process 2 waits (\d+) s \(--span=120\)", said):
        fail("--processes=2 without --span: process 2 waits for the default span of 120 s:\n" + said[-1000:])
    t0 = time.monotonic()
    alone = subprocess.run([exe] + base + ["--rounds=2", "--benchmark_out=" + os.path.join(work, "alone.json")],
                           capture_output=True, text=True, env=plain, timeout=120)
    if alone.returncode != 0 or "waits" in alone.stderr or time.monotonic() - t0 > 60:
        fail("--rounds=2 alone: one process, no span, no wait:\n" + alone.stderr[-1000:])
    listed = run(exe, base + ["--processes=3", "--benchmark_list_tests=true"])
    if listed.returncode != 0 or sorted(listed.stdout.split()) != sorted(reps):
        fail("--benchmark_list_tests with --processes lists each row once")
    print("ok: rounds shuffled per round (reproducibly from the seed), --benchmark_repetitions = --rounds, "
          "compare.py's U test on the rounds, --processes=2 into one log with one audit")
