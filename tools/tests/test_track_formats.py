#!/usr/bin/env python3
"""tools/track add on what this build's solve_bench writes: X.json with its rows log and
sidecars given as a glob (one run stored, the sidecars skipped), the rows log alone (the same
rows and times), and the .partial log of a sweep killed part-way (the rows it finished).

usage: test_track_formats.py --solve-bench PATH [unittest options]"""
import json
import os
import signal
import subprocess
import sys
import time
import unittest

from trackhist import TrackCase

SOLVE_BENCH = None
FILTER = "^CPU/dget(rf|rs)/n:64(/|$)"


def lines(path):
    if not os.path.exists(path):
        return 0
    with open(path) as f:
        return sum(1 for _ in f)


class FormatsTest(TrackCase):
    def stored(self, store):
        [(folder, _, [name])] = [(d, s, f) for d, s, f in os.walk(store) if f]
        with open(os.path.join(folder, name)) as f:
            return json.load(f)

    def test_what_solve_bench_writes(self):
        run = os.path.join(self.dir, "r.json")
        p = subprocess.run([SOLVE_BENCH, "--sizes=64", "--benchmark_filter=" + FILTER, "--benchmark_min_time=0.01",
                            "--benchmark_out=" + run], capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr[-3000:])
        written = sorted(n for n in os.listdir(self.dir) if n.startswith("r."))
        self.assertEqual(written, ["r.audit.json", "r.json", "r.rows.jsonl", "r.verdict.json", "r.verdict.md"])
        out = self.track("add", "--store", self.store, *[os.path.join(self.dir, n) for n in written])
        self.assertEqual(out.count("skipped"), 3, out)
        self.assertIn("already stored", out)  # r.rows.jsonl: the run r.json stored
        from_json = self.stored(self.store)
        self.assertEqual(from_json["source"]["file"], "r.json")
        self.assertTrue(from_json["verdict_md"].startswith("# Verdict"))
        self.assertIsNotNone(from_json["audit"])
        log_store = os.path.join(self.dir, "logs")
        self.track("add", "--store", log_store, os.path.join(self.dir, "r.rows.jsonl"))
        from_log = self.stored(log_store)
        self.assertEqual([(r["name"], r["median_ms"]) for r in from_log["rows"]],
                         [(r["name"], r["median_ms"]) for r in from_json["rows"]])
        self.assertEqual(len(from_log["rows"]), 2)
        self.assertEqual(from_log["fingerprint"]["blas_variant"], from_json["fingerprint"]["blas_variant"])

    def test_a_killed_sweep(self):
        run = os.path.join(self.dir, "k.json")
        partial = os.path.join(self.dir, "k.rows.jsonl.partial")
        p = subprocess.Popen([SOLVE_BENCH, "--sizes=64,128,256,512,1024", "--benchmark_filter=^CPU/d(getrf|getrs|gemm)/",
                              "--benchmark_out=" + run], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and p.poll() is None:
            if lines(partial) >= 3:  # the context and two rows
                p.send_signal(signal.SIGKILL)
                break
            time.sleep(0.05)
        p.wait()
        self.assertTrue(os.path.exists(partial), "no .partial log: the sweep ended before it was killed")
        self.assertFalse(os.path.exists(run))
        out = self.track("add", "--store", self.store, partial)
        self.assertIn("stored", out)
        rows = self.stored(self.store)["rows"]
        self.assertGreaterEqual(len(rows), 2)
        self.assertTrue(all(r["median_ms"] > 0 for r in rows), rows)


if __name__ == "__main__":
    if "--solve-bench" in sys.argv:
        i = sys.argv.index("--solve-bench")
        SOLVE_BENCH = os.path.abspath(sys.argv[i + 1])
        del sys.argv[i:i + 2]
    if not SOLVE_BENCH or not os.access(SOLVE_BENCH, os.X_OK):
        sys.exit("usage: test_track_formats.py --solve-bench PATH")
    unittest.main(verbosity=2)
