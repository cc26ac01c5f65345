#!/usr/bin/env python3
"""tools/regress on synthetic runs, judged by the real `solve_bench_checks compare`.

usage: test_regress.py [unittest args]; SOLVE_BENCH_CHECKS names the binary (CTest sets it;
otherwise tools/regress looks in the build folders of this tree).
"""
import json
import os
import random
import subprocess
import sys
import tempfile
import unittest

import synth

TOOLS = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
sys.path.insert(0, TOOLS)
REGRESS = os.path.join(TOOLS, "regress")
GESV = "CPU/dgesv/n:512/nrhs:1"
GEMM = "CPU/dgemm/n:512"


def noisy(median_ms, reps, rel, seed):
    """reps times around median_ms, each off by up to +-rel (uniform), as a loaded machine gives."""
    rng = random.Random(seed)
    return [median_ms * (1 + rng.uniform(-rel, rel)) for _ in range(reps)]


def rate(name):
    """GFLOP/s from a time in ms, with the flop count of the row's operation at n = 512."""
    flops = (2.0 if "gemm" in name else 2.0 / 3.0) * 512 ** 3
    return lambda t: flops / (t * 1e-3) / 1e9


def row(name, times_ms, processes=True, **kw):
    """One row's repetitions; each from a process of its own (solve_bench --processes=K numbers
    them), unless processes=False (all the rounds of one process)."""
    counters = {"resid": kw.pop("resid", 0.01), "GFLOP/s": kw.pop("gflops", rate(name))}
    if "noise_pct" in kw:
        counters["noise_pct"] = kw.pop("noise_pct")
    out = synth.runs(name + "/manual_time", times_ms, counters, **kw)
    if processes:
        for run in out:
            if run.get("run_type") == "iteration":
                run["process"] = run["repetition_index"]
    return out


class RegressTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, name, runs):
        path = os.path.join(self.dir, name)
        return (synth.write_rows_log if name.endswith(".jsonl") else synth.write_json)(path, runs)

    def regress(self, base, new, *options, base_name="base.json", new_name="new.json"):
        """regress on the two runs: (exit status, stdout + stderr, compare's JSON or None)."""
        paths = [self.write(base_name, base), self.write(new_name, new)]
        out = os.path.join(self.dir, "compare.json")
        if os.path.exists(out):
            os.remove(out)
        p = subprocess.run([sys.executable, REGRESS, "--json", out] + list(options) + paths,
                           capture_output=True, text=True, timeout=120)
        doc = None
        if os.path.exists(out):
            with open(out) as f:
                doc = json.load(f)["compare"]
        return p.returncode, p.stdout + p.stderr, doc

    def status_of(self, doc, name):
        return [r["status"] for r in doc["rows"] if r["row"] == name]

    def line_of(self, output, name):
        lines = [ln for ln in output.splitlines() if " %s " % name in ln]
        self.assertEqual(len(lines), 1, output)
        return lines[0]

    # -- time ------------------------------------------------------------------------------

    def test_noisy_runs_of_one_build_never_fail(self):
        # A/A: 12 repetitions a side, each up to 8% off (a loaded machine), 20 draws: never
        # slower; what the noise leaves undecided says what it could detect, and exits 3
        for seed in range(20):
            base = row(GESV, noisy(5.0, 12, 0.08, seed)) + row(GEMM, noisy(9.0, 12, 0.08, 100 + seed))
            new = row(GESV, noisy(5.0, 12, 0.08, 200 + seed)) + row(GEMM, noisy(9.0, 12, 0.08, 300 + seed))
            rc, out, doc = self.regress(base, new)
            self.assertIn(rc, (0, 3), out)
            self.assertNotIn("slower", [r["status"] for r in doc["rows"]], out)
            self.assertNotIn("FAILED", out)
            for r in doc["rows"]:
                if r["status"] == "undecided":
                    self.assertGreater(r["detectable_pct"], 3.0, out)
                    self.assertIn("≥ %.1f%%" % r["detectable_pct"], self.line_of(out, r["row"]))
            self.assertIn("regress: passed" if rc == 0 else "regress: UNDECIDED", out)

    def test_one_process_a_side_calls_nothing(self):
        # 12 rounds of one process a side, 10% apart, each side steady to 1%: the rounds alone
        # would call it, but what another process adds is unmeasured: undecided, "at best"
        rc, out, doc = self.regress(row(GESV, noisy(5.0, 12, 0.01, 1), processes=False),
                                    row(GESV, [1.1 * t for t in noisy(5.0, 12, 0.01, 2)], processes=False))
        self.assertEqual(rc, 3, out)
        self.assertEqual(self.status_of(doc, GESV), ["undecided"])
        self.assertIn("at best", out)
        self.assertLess(doc["rows"][0]["detectable_pct"], 5.0)

    def test_one_round_a_side_is_undecided_not_slower(self):
        # The newcomer's comparison: one repetition a side, +95%, each run's own noise 0.3%
        base = row(GESV, [0.01804], noise_pct=0.3)
        new = row(GESV, [0.03518], noise_pct=0.2)
        md = os.path.join(self.dir, "summary.md")
        rc, out, doc = self.regress(base, new, "--markdown", md)
        self.assertEqual(rc, 3, out)
        self.assertEqual(self.status_of(doc, GESV), ["undecided"])
        self.assertIsNone(doc["rows"][0]["detectable_pct"])
        self.assertIn("one round", out)
        self.assertIn("regress: UNDECIDED", out)
        self.assertNotIn("SLOWER", out)
        for advice in ("--processes", "--history", ".ci/bench-pr"):
            self.assertIn(advice, out)
        with open(md) as f:
            text = f.read()
        self.assertIn("## solve_bench regression gate: UNDECIDED", text)
        self.assertIn("### Undecided rows", text)

    def store_of(self, times_ms):
        """A tools/track store: testbed vm, one stored run per time of GESV."""
        folder = os.path.join(self.dir, "store", "vm")
        os.makedirs(folder, exist_ok=True)
        for i, t in enumerate(times_ms):
            with open(os.path.join(folder, "202612%02dT000000Z-%010x.json" % (1 + i, i)), "w") as f:
                json.dump({"format": "solve_bench-track/1", "testbed": "vm", "date": "2026-12-%02dT00:00:00+00:00"
                           % (1 + i), "rows": [{"name": GESV, "median_ms": t, "repetitions": 1}]}, f)
        return os.path.dirname(folder)

    @unittest.skipUnless(__import__("importlib").util.find_spec("numpy"), "tools/track analyze needs numpy")
    def test_track_analyze_prints_the_checks_detectable_step(self):
        # tools/track analyze shows each row's minimum detectable step within 3 runs, and it is
        # solve_bench_checks history's figure, not a Python noise model's
        rng = random.Random(8)
        store = self.store_of([5.0 * (1 + rng.uniform(-0.02, 0.02)) for _ in range(12)])
        checks = os.environ.get("SOLVE_BENCH_CHECKS") or __import__("checksbin").find_checks()
        hist = os.path.join(self.dir, "history.json")
        p = subprocess.run([checks, "history", "--store=" + store, "--json=" + hist], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(hist) as f:
            expected = json.load(f)["history"]["testbeds"]["vm"]["rows"][0]["detectable_step_pct"]
        self.assertGreater(expected, 0)
        out = os.path.join(self.dir, "analysis.json")
        p = subprocess.run([sys.executable, os.path.join(TOOLS, "track"), "analyze", "--store", store, "--json", out],
                           capture_output=True, text=True, timeout=120, env=dict(os.environ, SOLVE_BENCH_CHECKS=checks))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("detects >= %.1f%%" % expected, p.stdout)
        with open(out) as f:
            rows = json.load(f)["rows"]
        self.assertEqual([r["detectable_step_pct"] for r in rows if r["row"] == GESV], [expected])

    def test_several_files_a_side_are_processes(self):
        # one round per file, three files a side: the spread between processes decides
        # (distribution-free: 5 a side reach 99%, 3 a side cannot, however steady)
        for k, status in ((5, 1), (3, 3)):
            base = [self.write("b%d.json" % i, row(GESV, [5.0 + 0.01 * i])) for i in range(k)]
            new = [self.write("n%d.json" % i, row(GESV, [5.5 + 0.01 * i])) for i in range(k)]
            p = subprocess.run([sys.executable, REGRESS] + base + ["--"] + new, capture_output=True, text=True,
                               timeout=120)
            self.assertEqual(p.returncode, status, p.stdout + p.stderr)
            self.assertIn("%d/%d (%d/%d proc)" % (k, k, k, k), self.line_of(p.stdout, GESV))
            self.assertIn("5 against 5 processes" if k == 5 else
                          "3 against 3 processes bound no change distribution-free", p.stdout)

    def test_history_decides_one_round_a_side(self):
        rng = random.Random(4)
        store = self.store_of([5.0 * (1 + rng.uniform(-0.003, 0.003)) for _ in range(20)])
        rc, out, doc = self.regress(row(GESV, [5.0]), row(GESV, [5.6]), "--history", store)
        self.assertEqual(rc, 1, out)
        self.assertEqual(self.status_of(doc, GESV), ["slower"])
        self.assertIn("history", doc["rows"][0]["noise_from"])
        self.assertIn("regress: each side held to the record %s, testbed vm: 20 runs\n" % store, out)
        rc, out, doc = self.regress(row(GESV, [5.0]), row(GESV, [5.01]), "--history", store, "--testbed", "vm")
        self.assertEqual(rc, 0, out)
        rc, out, doc = self.regress(row(GESV, [5.0]), row(GESV, [5.01]), "--history", store, "--testbed", "no")
        self.assertEqual(rc, 2, out)
        self.assertIn("testbed 'no'", out)

    def test_ten_percent_beyond_the_noise_fails(self):
        base = row(GESV, noisy(5.0, 12, 0.01, 1)) + row(GEMM, noisy(9.0, 12, 0.01, 2))
        new = row(GESV, [t * 1.10 for t in noisy(5.0, 12, 0.01, 3)]) + row(GEMM, noisy(9.0, 12, 0.01, 4))
        md = os.path.join(self.dir, "summary.md")
        rc, out, doc = self.regress(base, new, "--markdown", md)
        self.assertEqual(rc, 1, out)
        self.assertEqual(doc["suspects"], [GESV])
        line = self.line_of(out, GESV)
        self.assertTrue(line.startswith("SLOWER"), out)
        self.assertRegex(line, r"\+(9\.\d|10\.\d)%")
        self.assertTrue(self.line_of(out, GEMM).startswith("same"), out)
        self.assertIn("regress: FAILED: 1 of 2 rows", out)
        with open(md) as f:
            text = f.read()
        self.assertIn("## solve_bench regression gate: FAILED", text)
        failing = text.split("### Failing rows")[1].split("<details>")[0]
        self.assertIn("| SLOWER | `%s` |" % GESV, failing)
        self.assertNotIn(GEMM, failing)
        self.assertIn("| same | `%s` |" % GEMM, text.split("<details>")[1])

    def test_the_same_shift_within_the_noise_passes(self):
        # 10% slower, but each side's repetitions spread over +-25%: not beyond the noise
        base = row(GESV, synth.spread(5.0, 12, 0.25))
        new = row(GESV, [t * 1.10 for t in synth.spread(5.0, 12, 0.25)])
        rc, out, doc = self.regress(base, new)
        self.assertEqual(rc, 3, out)
        self.assertEqual(self.status_of(doc, GESV), ["undecided"])
        self.assertGreater(doc["rows"][0]["detectable_pct"], 10, out)

    def test_faster_passes(self):
        rc, out, doc = self.regress(row(GESV, synth.spread(5.0, 12)), row(GESV, synth.spread(3.5, 12)))
        self.assertEqual(rc, 0, out)
        self.assertTrue(self.line_of(out, GESV).startswith("faster"), out)

    def test_the_table_shows_each_rows_noise_from_compare(self):
        rc, out, doc = self.regress(row(GESV, synth.spread(5.0, 12, 0.01)), row(GESV, synth.spread(5.0, 12, 0.02)))
        self.assertEqual(rc, 0, out)
        r = doc["rows"][0]
        self.assertIn("%.1f%% / %.1f%%" % (r["base_noise_pct"], r["new_noise_pct"]), self.line_of(out, GESV))
        self.assertIn("≥ %.1f%%" % r["detectable_pct"], self.line_of(out, GESV))
        self.assertIn("12/12", self.line_of(out, GESV))

    def test_an_undecided_row_exits_3_and_is_a_suspect(self):
        # 5% slower, within +-10% noise: not slower, not the same: a re-run should decide; dgemm's
        # rounds are steady enough to call its 2% the same
        rc, out, doc = self.regress(row(GESV, synth.spread(5.0, 12, 0.10)) + row(GEMM, synth.spread(9.0, 12, 0.005)),
                                    row(GESV, [t * 1.05 for t in synth.spread(5.0, 12, 0.10)]) +
                                    row(GEMM, [t * 1.02 for t in synth.spread(9.0, 12, 0.005)]))
        self.assertEqual(rc, 3, out)
        self.assertEqual(self.status_of(doc, GESV), ["undecided"])
        self.assertEqual(self.status_of(doc, GEMM), ["same"])
        self.assertEqual(doc["suspects"], [GESV])

    # -- pairs run back to back (.ci/bench-pr) ---------------------------------------------

    def paired(self, name, drifts, factor=1.0, reps=2, seed=0):
        """Runs of one row in pairs: pair k's repetitions scaled by 1 + drifts[k] (the machine's
        state while the pair ran), each repetition off by up to 1%, the contender's times by factor."""
        rng = random.Random(seed)
        base, new = [], []
        for k, drift in enumerate(drifts):
            for side, f in ((base, 1.0), (new, factor)):
                times = [5.0 * (1 + drift) * f * (1 + rng.uniform(-0.01, 0.01)) for _ in range(reps)]
                side += synth.runs(name + "/manual_time", times, {"pair": k, "resid": 0.01}, aggregates=False)
        return base, new

    DRIFTS = [0.0, 0.25, -0.1, 0.4, 0.05, 0.3, -0.05, 0.15, 0.2, 0.1, 0.35, -0.08]

    def test_pairs_cancel_what_falls_on_both_sides(self):
        # the machine's state moves the row by -10% .. +40% from pair to pair: unpaired, the
        # noise would hide a 10% regression; paired, A/A passes and the 10% fails
        base, new = self.paired(GESV, self.DRIFTS)
        rc, out, doc = self.regress(base, new)
        self.assertEqual(rc, 0, out)
        r = doc["rows"][0]
        self.assertEqual(r["pairs"], 12)
        self.assertLess(r["threshold_pct"], 5.0, out)
        self.assertIn("from 12 pairs run back to back", out)
        base, new = self.paired(GESV, self.DRIFTS, factor=1.10, seed=1)
        rc, out, doc = self.regress(base, new)
        self.assertEqual(rc, 1, out)
        self.assertEqual(self.status_of(doc, GESV), ["slower"])
        self.assertAlmostEqual(doc["rows"][0]["change_pct"], 10.0, delta=1.5)
        # the same repetitions without their pairs: judged unpaired, the drift is noise
        strip = [dict((k, v) for k, v in b.items() if k != "pair") for b in base]
        rc, out, doc = self.regress(strip, [dict((k, v) for k, v in b.items() if k != "pair") for b in new])
        self.assertEqual(rc, 3, out)
        self.assertEqual(doc["rows"][0]["pairs"], 0)
        self.assertGreater(doc["rows"][0]["detectable_pct"], 10.0)

    def test_a_pair_a_side_lacks_does_not_count(self):
        base, new = self.paired(GESV, self.DRIFTS[:4], factor=1.10)
        new = [b for b in new if b["pair"] != 3]
        rc, out, doc = self.regress(base, new)
        self.assertEqual(doc["rows"][0]["pairs"], 3, out)

    def test_pairs_disturbed_one_side_at_a_time_widen_the_threshold(self):
        # a pair whose contender alone was hit by a burst (+30%, then +25%): the interval of the
        # median ratio covers it rather than calling the row slower
        base, new = self.paired(GESV, [0.0] * 8)
        for b in new:
            if b["pair"] in (2, 5):
                b["real_time"] *= 1.30 if b["pair"] == 2 else 1.25
                b["cpu_time"] = b["real_time"]
        rc, out, doc = self.regress(base, new)
        self.assertEqual(rc, 3, out)
        self.assertEqual(self.status_of(doc, GESV), ["undecided"])
        self.assertGreater(doc["rows"][0]["detectable_pct"], 10.0, out)

    # -- failures other than time ----------------------------------------------------------

    def test_failed_row_fails(self):
        message = "LAPACKE_dgesv: singular matrix: U(21,21) is exactly zero (LU pivot 21)"
        rc, out, doc = self.regress(row(GESV, synth.spread(5.0, 12)), row(GESV, [5.0] * 3, error=message))
        self.assertEqual(rc, 1, out)
        self.assertTrue(self.line_of(out, GESV).startswith("ERROR"), out)
        self.assertIn("pivot 21", out)
        self.assertEqual(doc["suspects"], [])  # nothing for a re-run to confirm

    def test_failed_resid_check_fails(self):
        rc, out, _ = self.regress(row(GESV, synth.spread(5.0, 12)), row(GESV, synth.spread(5.0, 12), resid=99.0))
        self.assertEqual(rc, 1, out)
        self.assertTrue(self.line_of(out, GESV).startswith("RESID"), out)

    def test_missing_row_fails(self):
        rc, out, _ = self.regress(row(GESV, synth.spread(5.0, 12)) + row(GEMM, synth.spread(9.0, 12)),
                                  row(GESV, synth.spread(5.0, 12)))
        self.assertEqual(rc, 1, out)
        self.assertTrue(self.line_of(out, GEMM).startswith("MISSING"), out)

    def test_new_row_passes_and_baseline_failure_alone_passes(self):
        rc, out, _ = self.regress(row(GESV, synth.spread(5.0, 12)),
                                  row(GESV, synth.spread(5.0, 12)) + row(GEMM, synth.spread(9.0, 12)))
        self.assertEqual(rc, 0, out)
        self.assertTrue(self.line_of(out, GEMM).startswith("new"), out)
        rc, out, _ = self.regress(row(GESV, [5.0] * 3, error="singular"), row(GESV, synth.spread(5.0, 12)))
        self.assertEqual(rc, 0, out)  # a change that fixes a broken row must pass
        self.assertTrue(self.line_of(out, GESV).startswith("base-failed"), out)

    def test_new_timing_bug_fails(self):
        # dgesv reporting 100x the GFLOP/s of the dgemm it is built on: the audit's faster_than_gemm
        def run(gesv_gflops):
            return row(GESV, synth.spread(5.0, 12), gflops=gesv_gflops) + row(GEMM, synth.spread(9.0, 12))
        md = os.path.join(self.dir, "summary.md")
        honest = rate(GESV)
        rc, out, doc = self.regress(run(honest), run(lambda t: 100 * honest(t)), "--markdown", md)
        self.assertEqual(rc, 1, out)
        self.assertEqual([b["rule"] for b in doc["new_timing_bugs"]], ["faster_than_gemm"], out)
        self.assertIn("NEW timing bug faster_than_gemm", out)
        self.assertIn("1 new timing bug(s)", out)
        with open(md) as f:
            self.assertIn("### New timing bugs", f.read())
        # the baseline had it too: not new, not a failure
        rc, out, doc = self.regress(run(lambda t: 100 * honest(t)), run(lambda t: 100 * honest(t)))
        self.assertEqual(rc, 0, out)

    def test_empty_contender_fails(self):
        # a contender that ran no row (a rows log with its context line only)
        rc, out, doc = self.regress(row(GESV, synth.spread(5.0, 12)), [], new_name="new.rows.jsonl")
        self.assertEqual(rc, 1, out)
        self.assertIn("measured nothing", out)
        self.assertTrue(self.line_of(out, GESV).startswith("MISSING"), out)

    # -- inputs ----------------------------------------------------------------------------

    def test_pooled_inputs_after_a_double_dash(self):
        base = [self.write("b%d.rows.jsonl" % i, row(GESV, noisy(5.0, 4, 0.01, i))) for i in range(5)]
        new = [self.write("n%d.rows.jsonl" % i, row(GESV, noisy(5.5, 4, 0.01, 10 + i))) for i in range(5)]
        p = subprocess.run([sys.executable, REGRESS] + base + ["--"] + new, capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("20/20", self.line_of(p.stdout, GESV))

    def test_filter(self):
        rc, out, _ = self.regress(row(GESV, synth.spread(5.0, 12)) + row(GEMM, synth.spread(9.0, 12)),
                                  row(GESV, synth.spread(5.0, 12)) + row(GEMM, synth.spread(19.0, 12)),
                                  "--filter", "gesv")
        self.assertEqual(rc, 0, out)
        self.assertNotIn(GEMM, out)

    def test_bad_input_exits_2(self):
        rc, out, doc = self.regress(row(GESV, synth.spread(5.0, 12)), row(GESV, synth.spread(5.0, 12)),
                                    "--filter", "^GPU/")
        self.assertEqual(rc, 2, out)
        self.assertIn("no rows in the baseline", out)
        self.assertIsNone(doc)
        broken = os.path.join(self.dir, "broken.json")
        with open(broken, "w") as f:
            f.write('{"context": {}, "benchmarks": [{"name": "CPU/dgesv')
        p = subprocess.run([sys.executable, REGRESS, broken, broken], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("broken.json", p.stderr)
        p = subprocess.run([sys.executable, REGRESS, broken], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)

    def test_no_checks_binary_exits_2(self):
        base = self.write("base.json", row(GESV, synth.spread(5.0, 12)))
        env = dict(os.environ, SOLVE_BENCH_CHECKS=os.path.join(self.dir, "nowhere"))
        p = subprocess.run([sys.executable, REGRESS, base, base], capture_output=True, text=True, timeout=60, env=env)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("no solve_bench_checks", p.stderr)


if __name__ == "__main__":
    unittest.main()
