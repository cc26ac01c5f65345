#!/usr/bin/env python3
"""tools/regress on synthetic results: what fails the gate, what passes, what it prints."""
import os
import subprocess
import sys
import tempfile
import unittest

import synth

TOOLS = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
REGRESS = os.path.join(TOOLS, "regress")
GESV = "CPU/dgesv/n:256/nrhs:1/manual_time"
GEMM = "CPU/dgemm/n:256/manual_time"


def gesv(median_ms, **kw):
    """The runs of CPU/dgesv/n:256/nrhs:1: 10 repetitions within 1% of median_ms."""
    return synth.solve_row("CPU", "dgesv", 256, median_ms, **kw)


def gemm(median_ms, **kw):
    return synth.solve_row("CPU", "dgemm", 256, median_ms, nrhs=0, **kw)


class RegressTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, name, all_runs, jsonl=False):
        path = os.path.join(self.dir, name)
        return (synth.write_jsonl if jsonl else synth.write_json)(path, all_runs)

    def regress(self, base_runs, new_runs, *options, jsonl=False):
        base = self.write("base.json", base_runs)
        new = self.write("new.rows.jsonl" if jsonl else "new.json", new_runs, jsonl)
        p = subprocess.run([sys.executable, REGRESS, base, new] + list(options),
                           capture_output=True, text=True, timeout=120)
        return p.returncode, p.stdout + p.stderr

    def line_of(self, output, name):
        lines = [ln for ln in output.splitlines() if name in ln]
        self.assertEqual(len(lines), 1, output)
        return lines[0]

    # -- time ------------------------------------------------------------------------------

    def test_clear_regression_fails(self):
        rc, out = self.regress(gesv(10.0) + gemm(5.0),
                               gesv(13.0) + gemm(5.0))
        self.assertEqual(rc, 1, out)
        self.assertTrue(self.line_of(out, GESV).startswith("SLOWER"), out)
        self.assertIn("+30.0%", self.line_of(out, GESV))
        self.assertTrue(self.line_of(out, GEMM).startswith("same"), out)
        self.assertIn("FAILED: 1 of 2 rows", out)

    def test_improvement_passes(self):
        rc, out = self.regress(gesv(10.0), gesv(7.0))
        self.assertEqual(rc, 0, out)
        self.assertTrue(self.line_of(out, GESV).startswith("faster"), out)

    def test_noise_within_threshold_passes(self):
        # 3% slower with 1% spread: significant, but below the 5% threshold
        rc, out = self.regress(gesv(10.0), gesv(10.3))
        self.assertEqual(rc, 0, out)
        self.assertTrue(self.line_of(out, GESV).startswith("same"), out)

    def test_slower_median_without_significance_passes(self):
        # medians 8% apart, but the repetitions overlap so widely that U cannot tell them apart
        base = synth.runs(GESV, [5.0, 9.0, 10.0, 11.0, 15.0, 6.0, 14.0, 7.0, 13.0])
        new = synth.runs(GESV, [5.5, 9.5, 10.8, 12.0, 15.5, 6.2, 14.5, 7.1, 13.5])
        rc, out = self.regress(base, new)
        self.assertEqual(rc, 0, out)
        self.assertTrue(self.line_of(out, GESV).startswith("noise"), out)
        self.assertIn("not significant", out)

    def test_pvalue_is_scipys_two_sided_mann_whitney_u(self):
        from scipy.stats import mannwhitneyu
        base_times = synth.spread(10.0, 10, 0.05)
        new_times = [t * 1.07 for t in synth.spread(10.0, 10, 0.05)]
        rc, out = self.regress(synth.runs(GESV, base_times), synth.runs(GESV, new_times))
        expected = mannwhitneyu(base_times, new_times, alternative="two-sided").pvalue
        self.assertIn(" %.3g " % expected, self.line_of(out, GESV))

    def test_threshold_option(self):
        rc, out = self.regress(gesv(10.0), gesv(13.0),
                               "--threshold", "40")
        self.assertEqual(rc, 0, out)
        self.assertIn("threshold 40%", out)

    def test_time_units_are_converted(self):
        base = synth.runs(GESV, synth.spread(10.0, 10), time_unit="ms")
        new = synth.runs(GESV, synth.spread(10.0, 10), time_unit="us")
        rc, out = self.regress(base, new)
        self.assertEqual(rc, 0, out)
        self.assertIn("+0.0%", self.line_of(out, GESV))

    # -- repetitions -----------------------------------------------------------------------

    def test_too_few_repetitions_uses_threshold_alone(self):
        # 3 vs 3 repetitions: the smallest two-sided U p-value is 0.1, so the test cannot decide
        rc, out = self.regress(gesv(10.0, reps=3),
                               gesv(13.0, reps=3))
        self.assertEqual(rc, 1, out)
        self.assertTrue(self.line_of(out, GESV).startswith("SLOWER"), out)
        self.assertIn("too few repetitions", out)
        rc, out = self.regress(gesv(10.0, reps=3),
                               gesv(10.2, reps=3))
        self.assertEqual(rc, 0, out)

    def test_four_repetitions_are_enough_for_the_u_test(self):
        rc, out = self.regress(gesv(10.0, reps=4),
                               gesv(13.0, reps=4))
        self.assertEqual(rc, 1, out)
        self.assertIn("0.0286", self.line_of(out, GESV))  # 2 / C(8, 4)
        self.assertNotIn("too few repetitions", out)

    def test_single_runs_without_repetitions(self):
        rc, out = self.regress(gesv(10.0, reps=1),
                               gesv(12.0, reps=1))
        self.assertEqual(rc, 1, out)
        self.assertIn("too few repetitions", out)

    def test_aggregates_only_input(self):
        # --benchmark_report_aggregates_only=true: only mean/median/stddev rows, no repetitions
        base = [r for r in gesv(10.0) if r["run_type"] == "aggregate"]
        new = [r for r in gesv(11.0) if r["run_type"] == "aggregate"]
        rc, out = self.regress(base, new)
        self.assertEqual(rc, 1, out)
        self.assertIn("+10.0%", self.line_of(out, GESV))  # the medians, not the means or stddevs

    # -- failures other than time ----------------------------------------------------------

    def test_missing_row_fails(self):
        rc, out = self.regress(gesv(10.0) + gemm(5.0),
                               gesv(10.0))
        self.assertEqual(rc, 1, out)
        self.assertTrue(self.line_of(out, GEMM).startswith("MISSING"), out)

    def test_error_row_fails(self):
        message = "LAPACKE_dgesv: singular matrix: U(21,21) is exactly zero (LU pivot 21)"
        rc, out = self.regress(gesv(10.0),
                               gesv(10.0, error=message))
        self.assertEqual(rc, 1, out)
        self.assertTrue(self.line_of(out, GESV).startswith("ERROR"), out)
        self.assertIn("pivot 21", out)

    def test_skipped_row_of_benchmark_1_8_fails(self):
        rc, out = self.regress(gesv(10.0),
                               gesv(10.0, skipped="out of device memory"))
        self.assertEqual(rc, 1, out)
        self.assertIn("skipped: out of device memory", self.line_of(out, GESV))

    def test_resid_of_16_fails(self):
        rc, out = self.regress(gesv(10.0),
                               gesv(10.0, resid=16.0))
        self.assertEqual(rc, 1, out)
        self.assertTrue(self.line_of(out, GESV).startswith("RESID"), out)
        rc, out = self.regress(gesv(10.0),
                               gesv(10.0, resid=float("nan")))
        self.assertEqual(rc, 1, out)
        rc, out = self.regress(gesv(10.0),
                               gesv(10.0, resid=15.9))
        self.assertEqual(rc, 0, out)

    def test_new_failing_row_fails_and_new_good_row_passes(self):
        base = gesv(10.0)
        rc, out = self.regress(base, base + gemm(5.0))
        self.assertEqual(rc, 0, out)
        self.assertTrue(self.line_of(out, GEMM).startswith("new"), out)
        rc, out = self.regress(base, base + gemm(5.0, resid=99.0))
        self.assertEqual(rc, 1, out)

    def test_baseline_failure_alone_does_not_fail(self):
        # a change that fixes a broken row must pass the gate
        rc, out = self.regress(gesv(10.0, error="singular matrix"),
                               gesv(10.0))
        self.assertEqual(rc, 0, out)
        self.assertTrue(self.line_of(out, GESV).startswith("base-failed"), out)

    # -- inputs and outputs ----------------------------------------------------------------

    def test_jsonl_rows_log_input(self):
        base = gesv(10.0)
        rc, out = self.regress(base, gesv(13.0), jsonl=True)
        self.assertEqual(rc, 1, out)
        self.assertTrue(self.line_of(out, GESV).startswith("SLOWER"), out)
        rc, out = self.regress(base, gesv(10.0), jsonl=True)
        self.assertEqual(rc, 0, out)

    def test_log_of_a_killed_sweep_with_a_cut_last_line(self):
        base = gesv(10.0) + gemm(5.0)
        self.write("base.json", base)
        log = self.write("new.rows.jsonl", gesv(10.0), jsonl=True)
        with open(log, "a") as f:
            f.write('{"benchmarks": [{"name": "CPU/dgemm/n:256/man')
        p = subprocess.run([sys.executable, REGRESS, os.path.join(self.dir, "base.json"), log],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)  # dgemm never finished: missing
        self.assertIn("unfinished last line", p.stderr)
        self.assertTrue(self.line_of(p.stdout, GEMM).startswith("MISSING"), p.stdout)

    def test_filter_option(self):
        rc, out = self.regress(gesv(10.0) + gemm(5.0),
                               gesv(10.0) + gemm(9.0),
                               "--filter", "gesv")
        self.assertEqual(rc, 0, out)
        self.assertNotIn(GEMM, out)

    def test_markdown_summary(self):
        md = os.path.join(self.dir, "summary.md")
        rc, out = self.regress(gesv(10.0) + gemm(5.0),
                               gesv(13.0) + gemm(5.0),
                               "--markdown", md)
        self.assertEqual(rc, 1, out)
        with open(md) as f:
            text = f.read()
        self.assertIn("## solve_bench regression gate: FAILED", text)
        failing = text.split("### Failing rows")[1].split("<details>")[0]
        self.assertIn("| SLOWER | %s |" % GESV, failing)
        self.assertNotIn(GEMM, failing)
        self.assertIn("| same | %s |" % GEMM, text.split("<details>")[1])

    def test_unusable_inputs_exit_2(self):
        rc, out = self.regress(gesv(10.0), gesv(10.0),
                               "--filter", "^GPU/")
        self.assertEqual(rc, 2, out)
        self.assertIn("no rows", out)
        broken = os.path.join(self.dir, "broken.json")
        with open(broken, "w") as f:
            f.write('{"context": {}, "benchmarks": [{"name": "CPU/dgesv')
        p = subprocess.run([sys.executable, REGRESS, broken, broken], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn(".rows.jsonl", p.stderr)  # points at the log a killed run leaves


    # -- the audit -------------------------------------------------------------------------

    def regress_audited(self, base_findings, new_findings, *options, base_audit=True, new_audit=True):
        """Equal timings on both sides; only the audits (X.audit.json beside each) differ."""
        base = self.write("base.json", gesv(10.0) + gemm(5.0))
        new = self.write("new.json", gesv(10.0) + gemm(5.0))
        if base_audit:
            synth.write_audit(base, base_findings)
        if new_audit:
            synth.write_audit(new, new_findings)
        p = subprocess.run([sys.executable, REGRESS, base, new] + list(options),
                           capture_output=True, text=True, timeout=120)
        return p.returncode, p.stdout + p.stderr

    BUG = synth.finding("gemm_ceiling", "timing-bug", ["CPU/dgesv/n:256/nrhs:1"],
                        "CPU/dgesv at n=256 is faster than CPU/dgemm")

    def test_audit_findings_of_both_runs_are_printed(self):
        md = os.path.join(self.dir, "summary.md")
        rc, out = self.regress_audited(
            [synth.finding("driver_vs_halves", "warning", ["CPU-driver/dgesv/n:256/nrhs:1"], "driver 8x slower")],
            [synth.finding("blas_threads", "note", [], "OPENBLAS_NUM_THREADS=1 is set")], "--markdown", md)
        self.assertEqual(rc, 0, out)  # a warning and a note only inform
        self.assertIn("audit of the baseline (base.audit.json): 1 finding(s); 3 rules over 10 rows", out)
        self.assertIn("  warning driver_vs_halves: driver 8x slower; rows: CPU-driver/dgesv/n:256/nrhs:1", out)
        self.assertIn("audit of the contender (new.audit.json): 1 finding(s)", out)
        self.assertIn("  NEW note blas_threads: OPENBLAS_NUM_THREADS=1 is set; the whole run", out)
        with open(md) as f:
            text = f.read()
        audit = text.split("### Audit")[1].split("<details>")[0]
        self.assertIn("**warning** `driver_vs_halves`: `CPU-driver/dgesv/n:256/nrhs:1`. driver 8x slower", audit)
        self.assertIn("NEW **note** `blas_threads`: the whole run. OPENBLAS_NUM_THREADS=1 is set", audit)
        self.assertIn("regression gate: passed", text)

    def test_clean_and_absent_audits_are_said(self):
        rc, out = self.regress_audited([], [], new_audit=False)
        self.assertEqual(rc, 0, out)
        self.assertIn("audit of the baseline (base.audit.json): clean; 3 rules over 10 rows", out)
        self.assertIn("audit of the contender: none (no new.audit.json)", out)

    def test_new_timing_bug_fails_the_gate(self):
        md = os.path.join(self.dir, "summary.md")
        rc, out = self.regress_audited([], [self.BUG], "--markdown", md)
        self.assertEqual(rc, 1, out)
        self.assertIn("NEW timing-bug gemm_ceiling: CPU/dgesv at n=256 is faster than CPU/dgemm; "
                      "rows: CPU/dgesv/n:256/nrhs:1 (fails the gate)", out)
        self.assertIn("regress: FAILED: 1 new timing-bug finding(s) in the contender's audit", out)
        for line in out.splitlines()[1:3]:  # the rows themselves are fine
            self.assertTrue(line.startswith("same"), out)
        with open(md) as f:
            text = f.read()
        self.assertIn("## solve_bench regression gate: FAILED", text)
        self.assertIn("**fails the gate**", text)
        # with no baseline audit (a base from before the audit) the timing bug is new too
        rc, out = self.regress_audited([], [self.BUG], base_audit=False)
        self.assertEqual(rc, 1, out)

    def test_timing_bug_the_baseline_had_does_not_fail(self):
        old = dict(self.BUG, message="CPU/dgesv at n=256 is 1.2x faster than CPU/dgemm")  # numbers move
        rc, out = self.regress_audited([old], [self.BUG])
        self.assertEqual(rc, 0, out)
        self.assertIn("  timing-bug gemm_ceiling: CPU/dgesv at n=256 is faster", out)
        self.assertNotIn("NEW timing-bug", out)

    def test_new_note_or_warning_does_not_fail(self):
        for severity in ("note", "warning"):
            rc, out = self.regress_audited([], [dict(self.BUG, severity=severity)])
            self.assertEqual(rc, 0, out)
            self.assertIn("NEW %s gemm_ceiling" % severity, out)
            self.assertIn("regress: passed", out)

    def test_filter_leaves_out_findings_about_other_rows(self):
        gpu_bug = synth.finding("transfer_vs_resident", "timing-bug", ["GPU-pinned/dgesv/n:256/nrhs:1"], "x")
        rc, out = self.regress_audited([], [gpu_bug], "--filter", "^CPU/")
        self.assertEqual(rc, 0, out)
        self.assertNotIn("transfer_vs_resident", out)
        rc, out = self.regress_audited([], [gpu_bug])
        self.assertEqual(rc, 1, out)

    def test_malformed_audit_exits_2(self):
        rc, out = self.regress_audited([], [synth.finding("r", "timing_bug", [])])
        self.assertEqual(rc, 2, out)
        self.assertIn("new.audit.json: malformed audit", out)


if __name__ == "__main__":
    unittest.main()
