#!/usr/bin/env python3
"""tools/report: it renders what solve_bench_checks decides (speedups against the CPU's best
path, crossovers, the audit's marks), finds or is told where the checks are, reads results
with and without ids, and draws a panel per operation family with legends that name backends.

usage: test_report.py --checks PATH/solve_bench_checks [unittest args]
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

import synth

TOOLS = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
REPORT = os.path.join(TOOLS, "report")
sys.path.insert(0, TOOLS)
import figures  # noqa: E402
import sbjson  # noqa: E402

CHECKS = None


def cpu_gpu_runs():
    """dgesv: GPU 2x slower than the CPU's best at n = 100, 4x faster at 1000; CPU-driver the
    faster CPU path at 100 only; GEMMs for the ceilings; batched rows; a factorization."""
    runs = []
    for n, cpu, driver, gpu in ((100, 10.0, 8.0, 16.0), (1000, 400.0, 800.0, 100.0)):
        runs += synth.solve_row("CPU", "gesv", n, cpu) + synth.solve_row("CPU-driver", "gesv", n, driver)
        runs += synth.solve_row("GPU", "gesv", n, gpu) + synth.solve_row("GPU-pinned", "gesv", n, gpu * 1.5)
        runs += synth.solve_row("CPU", "getrf", n, cpu * 0.9) + synth.solve_row("GPU", "getrf", n, gpu * 0.9)
    for backend, rate in (("CPU", 50e9), ("GPU", 5e12)):
        for n in (64, 100, 1000, 4096):
            runs += synth.solve_row(backend, "gemm", n, 2 * n ** 3 / rate * 1e3, flops=2 * n ** 3)
    for n, cpu, gpu in ((4, 1.0, 0.01), (8, 2.0, 0.05)):
        runs += synth.solve_row("CPU", "gesv", n, cpu, axes={"batch": 100})
        runs += synth.solve_row("GPU", "gesv", n, gpu, axes={"batch": 100})
    return runs


class ReportCase(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name
        self.out = os.path.join(self.dir, "report")

    def tearDown(self):
        self._tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def report(self, *args, checks=True, env=None, expect=0):
        full_env = dict(os.environ)
        full_env.pop("SOLVE_BENCH_CHECKS", None)
        full_env.update(env or {})
        cmd = [sys.executable, REPORT, "--out", self.out] + (["--checks", CHECKS] if checks else []) + list(args)
        p = subprocess.run(cmd, capture_output=True, text=True, env=full_env, timeout=300)
        self.assertEqual(p.returncode, expect, p.stdout + p.stderr)
        return p

    def read(self, name):
        with open(os.path.join(self.out, name), encoding="utf-8") as f:
            return f.read()


class RendersTheChecks(ReportCase):
    def test_speedups_and_crossover_are_the_verdicts(self):
        run = synth.write_json(self.path("run.json"), cpu_gpu_runs())
        self.report(run)
        with open(os.path.join(self.out, "checks.verdict.json")) as f:
            verdict = json.load(f)["verdict"]
        solve, = verdict["solves"]
        gpu = solve["forms"][0]
        self.assertEqual(gpu["backend"], "GPU")
        table = self.read("table.md")
        # n = 100: the CPU's best is CPU-driver (8 ms), so the GPU's speedup is 8/16, not 10/16
        self.assertRegex(table, r"\| 100 \| 8\.00 \(CPU-driver\) \| 16\.0 \| 0\.500× \|")
        self.assertRegex(table, r"\| 1000 \| 400 \(CPU\) \| 100 \| 4\.00× \|")
        self.assertIn("GPU faster from n ≈ %d (between 100 and 1000)" % gpu["crossover"]["n"], table)
        self.assertIn("### dgesv_batched (batch 100)", table)
        for name in ("gflops", "time", "speedup"):
            for ext in ("png", "svg"):
                self.assertGreater(os.path.getsize(os.path.join(self.out, "%s.%s" % (name, ext))), 1000)
        svg = self.read("speedup.svg")
        for text in ("dense solves (nrhs 1) against the CPU", "batched solves (batch 100)", "GPU-pinned",
                     "the crossover, where the GPU starts to win"):
            self.assertIn(text, svg)

    def test_uses_current_sidecars_as_they_are(self):
        """One input with current sidecars: drawn from them, no checks run, no number recomputed."""
        run = synth.write_json(self.path("run.json"), cpu_gpu_runs())
        row = "%s/dgesv/n:%d/nrhs:1"  # the verdict names the rows each point holds against each other
        points = [{"n": n, "cpu_ms": c, "gpu_ms": g, "speedup": x, "cpu_row": row % ("CPU", n), "gpu_row": row % ("GPU", n)}
                  for n, c, g, x in ((100, 9.0, 3.0, 3.0), (1000, 400.0, 51.5, 7.77))]
        synth.write_verdict(run, solves=[{"op": "dgesv", "nrhs": 1, "cpu_best": [
            {"n": 100, "ms": 9.0, "path": "CPU", "row": row % ("CPU", 100)},
            {"n": 1000, "ms": 400.0, "path": "CPU", "row": row % ("CPU", 1000)}],
            "forms": [{"backend": "GPU", "placement": "resident", "points": points,
                       "crossover": {"kind": "crossing", "n": 316, "interpolated": True, "between": [100, 1000]}}]}],
            lines=["the verdict's own sentence"])
        synth.write_audit(run, [synth.finding("noisy_row", "warning", ["CPU/dgesv/n:1000/nrhs:1"], "cv 9%")])
        p = self.report(run, "--checks", self.path("no-such-checks"), checks=False)
        table = self.read("table.md")
        self.assertIn("| 1000 | 400 (CPU) †1 | 51.5 | 7.77× †1 |", table)
        self.assertIn("GPU faster from n ≈ 316 (between 100 and 1000)", table)
        self.assertIn("- †1 **warning** `noisy_row` (`CPU/dgesv/n:1000/nrhs:1`): cv 9%", table)
        self.assertIn("the verdict's own sentence", p.stdout)
        self.assertIn("hollow: uses a row the audit flagged", self.read("speedup.svg"))
        self.assertFalse(os.path.exists(os.path.join(self.out, "checks.verdict.json")))

    def test_results_without_ids(self):
        """Results from before ids: solve_bench_checks names their fields; the report draws them."""
        run = synth.write_json(self.path("old.json"), synth.legacy(cpu_gpu_runs()))
        self.report(run)
        table = self.read("table.md")
        self.assertIn("### dgesv — dense solves (nrhs 1)", table)
        self.assertIn("### dgetrf — factorizations", table)
        self.assertRegex(table, r"\| 1000 \| 400 \| 800 \| 100 \| 150 \| 0\.01 \|")
        self.assertIn("4.00×", table)
        self.assertFalse(os.path.exists(os.path.join(self.out, "checks.ids.json")))

    def test_pooled_inputs_and_filter_are_judged_by_the_checks(self):
        runs = cpu_gpu_runs()
        a = synth.write_json(self.path("a.json"), runs[: len(runs) // 2])
        b = synth.write_rows_log(self.path("b.rows.jsonl"), runs[len(runs) // 2:])
        self.report(a, b)
        self.assertIn("### dgesv (nrhs 1)", self.read("table.md"))
        p = self.report(a, b, "--filter", "^CPU")
        self.assertIn("no speedup plot", p.stdout)
        self.assertFalse(os.path.exists(os.path.join(self.out, "speedup.png")))  # the stale one is gone
        self.assertNotIn("GPU ms", self.read("table.md"))

    def test_audit_marks_in_the_rows_tables(self):
        run = synth.write_json(self.path("run.json"), cpu_gpu_runs())
        os.makedirs(self.out)
        self.report(run)
        # the audit of this run (the C++ checks') numbers its findings; every row it names is marked
        audit = sbjson.load_audit(os.path.join(self.out, "checks.json"))
        table = self.read("table.md")
        for number, finding in enumerate(audit.findings, 1):
            self.assertIn("- †%d **%s** `%s`" % (number, finding.severity, finding.rule), table)


class FindsTheChecks(ReportCase):
    def test_told_where_and_not_found(self):
        run = synth.write_json(self.path("run.json"), cpu_gpu_runs())
        p = self.report(run, "--checks", self.path("absent"), checks=False, expect=2)
        self.assertIn("solve_bench_checks: %s is not an executable file" % self.path("absent"), p.stderr)
        p = self.report(run, checks=False, env={"SOLVE_BENCH_CHECKS": self.path("absent")}, expect=2)
        self.assertIn("is not an executable file", p.stderr)
        self.report(run, checks=False, env={"SOLVE_BENCH_CHECKS": CHECKS})

    def test_bad_input_exits_2_naming_it(self):
        bad = self.path("bad.rows.jsonl")
        with open(bad, "w") as f:
            f.write(json.dumps({"context": synth.CONTEXT}) + "\n{\n" + json.dumps(cpu_gpu_runs()[0]) + "\n")
        p = self.report(bad, expect=2)
        self.assertIn("report: %s:2: not JSON" % bad, p.stderr)
        self.assertNotIn("Traceback", p.stderr)


class Panels(unittest.TestCase):
    def items(self, runs):
        return [figures.Item(row, row.id, synth.operations()) for row in sbjson.summarize(runs).values()]

    def test_a_panel_per_family_split_by_the_problem(self):
        runs = (synth.solve_row("CPU", "gesv", 64, 1.0) + synth.solve_row("GPU", "posv", 64, 1.0, precision="s")
                + synth.solve_row("CPU", "getrf", 64, 1.0) + synth.solve_row("CPU", "potrs", 64, 1.0)
                + synth.solve_row("CPU", "gemm", 64, 1.0) + synth.solve_row("CPU", "gesv", 8, 1.0, axes={"batch": 10})
                + synth.solve_row("GPU-loop", "gesv", 8, 1.0, axes={"batch": 10})
                + synth.solve_row("CPU", "gesv", 8, 1.0, axes={"batch": 1000})
                + synth.cond_row("GPU", "gesv", 64, "1e4", 1.0, 1e-14)
                + synth.cond_row("GPU", "gesv", 64, "1e4", 1.0, 1e-14, refine="gmres", factor="h"))
        panels = figures.group_panels(self.items(runs))
        self.assertEqual([figures.panel_title(p) for p in panels], [
            "dense solves (nrhs 1)", "factorizations", "triangular solves (nrhs 1)", "GEMM",
            "batched solves (batch 10)", "batched solves (batch 1000)", "mixed precision (nrhs 1, cond 1e4)"])
        mixed = panels[("mixed precision", (("nrhs", "1"), ("cond", "1e4")))]
        self.assertEqual(sorted((i.line_backend, i.op_label) for i in mixed),
                         [("GPU", "dgesv"), ("GPU refine:gmres", "dhgesv")])

    def test_legend_names_each_backend_once(self):
        styles = figures.Styles()
        for backend in ("GPU", "CPU", "CPU", "GPU-pinned", "CPU-driver", "GPU"):
            styles.color(backend)
        styles.linestyle("d"), styles.linestyle("s")
        styles.marker("dense solves", "gesv"), styles.marker("dense solves", "posv"), styles.marker("GEMM", "gemm")
        backends, rest = styles.legend()
        self.assertEqual(list(backends), ["CPU", "CPU-driver", "GPU", "GPU-pinned"])
        self.assertEqual(list(rest), ["fp64 (d)", "fp32 (s)", "gesv, gemm", "posv"])

    def test_the_gemm_ceiling_stays_within_the_datas_n(self):
        gemm = self.items(sum((synth.solve_row("GPU", "gemm", n, 1.0) for n in (64, 256, 1024, 4096)), []))
        self.assertEqual([n for n, _ in figures._ceiling(gemm, "GPU", "d", 256, 1024)], [256, 1024])
        self.assertEqual(figures._ceiling(gemm, "CPU", "d", 64, 4096), [])
        self.assertNotIn("batched solves", figures.CEILING_FAMILIES)

    def test_no_ceiling_in_batched_panels(self):
        runs = sum((synth.solve_row("GPU", "gemm", n, 1.0) for n in (4, 8, 16)), [])
        runs += sum((synth.solve_row("GPU", "gesv", n, 1.0, axes={"batch": 10}) for n in (4, 8, 16)), [])
        with tempfile.TemporaryDirectory() as out:
            plt = figures.pyplot()
            figures.plot_rows(plt, self.items(runs), "gflops", out, "t", ["svg"])
            with open(os.path.join(out, "gflops.svg")) as f:
                self.assertNotIn("ceiling", f.read())
            figures.plot_rows(plt, self.items(runs + synth.solve_row("GPU", "gesv", 8, 1.0)
                                              + synth.solve_row("GPU", "gesv", 16, 1.0)), "gflops", out, "t", ["svg"])
            with open(os.path.join(out, "gflops.svg")) as f:
                self.assertIn("ceiling", f.read())


if __name__ == "__main__":
    CHECKS = synth.checks_argument("test_report.py")
    unittest.main()
