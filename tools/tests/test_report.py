#!/usr/bin/env python3
"""tools/report on synthetic CPU and GPU results: crossover, table, the figures' files, the audit's marks,
CPU-driver rows."""
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree

import synth

TOOLS = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
REPORT = os.path.join(TOOLS, "report")


def load_report_module():
    loader = importlib.machinery.SourceFileLoader("report", REPORT)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader("report", loader))
    loader.exec_module(module)
    return module


report = load_report_module()


class CrossoverTest(unittest.TestCase):
    def test_interpolated_on_log_n(self):
        # log speedup goes from log 0.5 to log 2 between n = 100 and 1000: halfway, sqrt(100 * 1000)
        cross = report.crossover([(100, 0.5), (1000, 2.0)])
        self.assertEqual(cross.kind, "at")
        self.assertAlmostEqual(cross.x, 316.2277, places=3)
        self.assertEqual(cross.text(), "n ≈ 316")

    def test_exactly_one_at_a_measured_n(self):
        self.assertAlmostEqual(report.crossover([(100, 0.5), (200, 1.0), (400, 3.0)]).x, 200.0)

    def test_last_rise_counts(self):
        # faster at 64, slower at 128 and 256, faster from 1024 on: the crossover is the last rise
        cross = report.crossover([(64, 2.0), (128, 0.5), (256, 0.5), (1024, 2.0), (2048, 4.0)])
        self.assertAlmostEqual(cross.x, 512.0)

    def test_faster_everywhere_and_never(self):
        below = report.crossover([(64, 1.5), (128, 3.0)])
        self.assertEqual((below.kind, below.x), ("below", 64))
        never = report.crossover([(64, 0.1), (128, 2.0), (256, 0.9)])
        self.assertEqual((never.kind, never.x), ("none", 256))
        self.assertEqual(never.text(), "slower up to n = 256")
        self.assertIsNone(report.crossover([]))

    def test_named_after_the_sweep_axis(self):
        self.assertEqual(report.crossover([(100, 0.5), (1000, 2.0)], "batch").text(), "batch ≈ 316")

    def test_three_significant_digits(self):
        self.assertEqual([report.fmt_sig(x) for x in (7330.4, 115.2, 1.804, 0.012345)],
                         ["7330", "115", "1.80", "0.0123"])


def synthetic_runs():
    """dgesv: GPU 2x slower than the CPU at n=100, 2x faster at 1000 (crossover sqrt(1e5));
    GPU-pinned slower at both; dposv on the CPU only; GEMMs for the ceilings."""
    runs = []
    # an outlier repetition: the median (10.0) and the mean differ
    runs += synth.runs("CPU/dgesv/n:100/nrhs:1/manual_time", [9.9, 10.0, 10.1, 10.0, 30.0],
                       {"GFLOP/s": 1.0, "resid": 0.004, "n": 100.0})
    runs += synth.solve_row("CPU", "dgesv", 1000, 400.0, resid=0.002)
    runs += synth.solve_row("GPU", "dgesv", 100, 20.0, resid=0.03)
    runs += synth.solve_row("GPU", "dgesv", 1000, 200.0, resid=0.001)
    runs += synth.solve_row("GPU-pinned", "dgesv", 100, 40.0, resid=0.001)
    runs += synth.solve_row("GPU-pinned", "dgesv", 1000, 500.0, resid=0.001)
    runs += synth.solve_row("GPU-pageable", "dgesv", 100, 50.0, error="cudaMemcpy failed")
    runs += synth.solve_row("CPU", "dposv", 100, 5.0)
    runs += synth.solve_row("CPU", "dposv", 1000, 200.0, resid=20.0)
    for backend, rate in (("CPU", 50e9), ("GPU", 5e12)):
        for n in (100, 1000):
            runs += synth.solve_row(backend, "dgemm", n, 2 * n ** 3 / rate * 1e3, nrhs=0, flops=2 * n ** 3)
    return runs


class ReportCase(unittest.TestCase):
    """tools/report run in a fresh folder, and its outputs read back."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name
        self.out = os.path.join(self.dir, "report")

    def tearDown(self):
        self._tmp.cleanup()

    def run_report(self, *files):
        p = subprocess.run([sys.executable, REPORT, "--out", self.out, "--title", "synthetic"] + list(files),
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        return p.stdout

    def read(self, name):
        with open(os.path.join(self.out, name), encoding="utf-8") as f:
            return f.read()

    def svg_text(self, name):
        """All text of an SVG figure (report keeps text as text)."""
        root = ElementTree.parse(os.path.join(self.out, name)).getroot()
        return " ".join(t.strip() for t in root.itertext() if t.strip())


class ReportRunTest(ReportCase):
    def test_cpu_and_gpu(self):
        self.run_report(synth.write_json(os.path.join(self.dir, "run.json"), synthetic_runs()))
        for stem in ("gflops", "time", "speedup"):
            with open(os.path.join(self.out, stem + ".png"), "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        gflops = self.svg_text("gflops.svg")
        for text in ("GFLOP/s vs n", "dgesv (nrhs:1)", "matrix order n", "GFLOP/s", "GPU-pinned",
                     "CPU GEMM, same precision (ceiling)", "GPU GEMM, same precision (ceiling)"):
            self.assertIn(text, gflops)
        self.assertNotIn("dgemm", gflops)  # GEMMs are the ceilings, not panels of their own
        self.assertIn("median time per call (ms)", self.svg_text("time.svg"))
        speedup = self.svg_text("speedup.svg")
        self.assertIn("speedup over CPU (×)", speedup)
        self.assertIn("GPU: n ≈ 316", speedup)
        self.assertIn("GPU-pinned: slower up to n = 1000", speedup)

        table = self.read("table.md")
        self.assertLess(table.index("## dgesv (nrhs:1)"), table.index("## dposv (nrhs:1)"))
        self.assertLess(table.index("## dposv (nrhs:1)"), table.index("## dgemm"))
        gesv = table.split("## dgesv (nrhs:1)")[1].split("##")[0]
        self.assertIn("| n | CPU ms | GPU ms | GPU speedup | GPU-pinned ms | GPU-pinned speedup "
                      "| GPU-pageable ms | GPU-pageable speedup | resid |", gesv)
        self.assertIn("| 100 | 10.0 | 20.0 | 0.500× | 40.0 | 0.250× | error | – | 0.03 |", gesv)
        self.assertIn("| 1000 | 400 | 200 | 2.00× | 500 | 0.800× | – | – | 0.002 |", gesv)
        self.assertIn("Crossover (faster than the CPU from): GPU: n ≈ 316; GPU-pinned: slower up to n = 1000.", gesv)
        posv = table.split("## dposv (nrhs:1)")[1].split("##")[0]
        self.assertIn("| n | CPU ms | resid |", posv)
        self.assertIn("| 1000 | 200 | 20 FAIL |", posv)

    def test_cpu_only_has_no_speedup_and_removes_a_stale_one(self):
        os.makedirs(self.out)
        stale = os.path.join(self.out, "speedup.png")
        open(stale, "w").close()
        cpu_only = [r for r in synthetic_runs() if r["name"].startswith("CPU/")]
        stdout = self.run_report(synth.write_jsonl(os.path.join(self.dir, "cpu.rows.jsonl"), cpu_only))
        self.assertIn("no speedup plot", stdout)
        self.assertFalse(os.path.exists(stale))
        self.assertTrue(os.path.exists(os.path.join(self.out, "gflops.svg")))
        self.assertIn("| n | CPU ms | resid |", self.read("table.md"))

    def test_batched_rows_sweep_the_batch_axis(self):
        # dgesv_batched/n:32/batch:B: one n, the batch size varies; the GPU loop is 2x slower
        # than the CPU at batch 100 and 2x faster at 1000
        runs = []
        for batch, cpu_ms, loop_ms, gpu_ms in ((100, 1.0, 2.0, 0.1), (1000, 10.0, 5.0, 0.2)):
            for backend, ms in (("CPU", cpu_ms), ("GPU-loop", loop_ms), ("GPU", gpu_ms)):
                runs += synth.runs("%s/dgesv_batched/n:32/batch:%d/manual_time" % (backend, batch),
                                   synth.spread(ms, 5), {"resid": 0.01})
        stdout = self.run_report(synth.write_json(os.path.join(self.dir, "batched.json"), runs))
        self.assertIn("no gflops plot", stdout)  # these rows have no GFLOP/s counter
        self.assertFalse(os.path.exists(os.path.join(self.out, "gflops.png")))
        table = self.read("table.md")
        self.assertIn("## dgesv_batched (n:32)", table)
        self.assertIn("| batch | CPU ms | GPU ms | GPU speedup | GPU-loop ms | GPU-loop speedup | resid |", table)
        self.assertIn("| 1000 | 10.0 | 0.200 | 50.0× | 5.00 | 2.00× | 0.01 |", table)
        self.assertIn("GPU-loop: batch ≈ 316", table)
        speedup = self.svg_text("speedup.svg")
        self.assertIn("dgesv_batched (n:32)", speedup)
        self.assertIn("GPU-loop: batch ≈ 316", speedup)
        self.assertNotIn("matrix order n", speedup)

    def test_cpu_and_gpu_from_separate_files(self):
        runs = synthetic_runs()
        cpu = synth.write_json(os.path.join(self.dir, "cpu.json"), [r for r in runs if r["name"].startswith("CPU/")])
        gpu = synth.write_json(os.path.join(self.dir, "gpu.json"), [r for r in runs if not r["name"].startswith("CPU/")])
        self.run_report(cpu, gpu)
        self.assertIn("| 1000 | 400 | 200 | 2.00× |", self.read("table.md"))


class AuditReportTest(ReportCase):
    """The audit beside the results (run.audit.json) in table.md and speedup.svg."""

    FLAGGED = synth.finding("noise", "warning", ["CPU/dgesv/n:1000/nrhs:1"], "cv 12% over 10 repetitions.")
    RUN_WIDE = synth.finding("blas_threads", "warning", [], "OpenBLAS runs 1 thread of 2.")

    def run_audited(self, findings, **kw):
        results = synth.write_json(os.path.join(self.dir, "run.json"), synthetic_runs())
        synth.write_audit(results, findings, **kw)
        return self.run_report(results)

    def test_flagged_cpu_row_is_marked_wherever_it_is_used(self):
        self.run_audited([self.FLAGGED, self.RUN_WIDE])
        table = self.read("table.md")
        audit = table.split("## Audit")[1].split("\n## ")[0]
        self.assertIn("`run.audit.json`: not clean; 3 rules (driver_vs_halves, ceilings, noise) over 10 rows.", audit)
        self.assertIn("- †1 **warning** `noise` (`CPU/dgesv/n:1000/nrhs:1`): cv 12% over 10 repetitions.", audit)
        self.assertIn("- **warning** `blas_threads` (the whole run): OpenBLAS runs 1 thread of 2.", audit)
        self.assertLess(table.index("## Audit"), table.index("## dgesv"))
        gesv = table.split("## dgesv (nrhs:1)")[1].split("##")[0]
        # the CPU time and every speedup held against it carry the mark; the GPU times do not
        self.assertIn("| 1000 | 400 †1 | 200 | 2.00× †1 | 500 | 0.800× †1 | – | – | 0.002 |", gesv)
        self.assertIn("| 100 | 10.0 | 20.0 | 0.500× | 40.0 | 0.250× | error | – | 0.03 |", gesv)
        speedup = self.svg_text("speedup.svg")
        self.assertEqual(speedup.count("†1"), 2)  # GPU and GPU-pinned at n = 1000
        self.assertIn("hollow, †N: audit finding N (table.md)", speedup)
        self.assertIn("audit, whole run: blas_threads (table.md)", speedup)
        with open(os.path.join(self.out, "speedup.png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_flagged_backend_row_marks_only_its_own_numbers(self):
        self.run_audited([synth.finding("gemm_ceiling", "timing-bug", ["GPU/dgesv/n:100/nrhs:1"], "faster than GEMM.")])
        gesv = self.read("table.md").split("## dgesv (nrhs:1)")[1].split("##")[0]
        self.assertIn("| 100 | 10.0 | 20.0 †1 | 0.500× †1 | 40.0 | 0.250× | error | – | 0.03 |", gesv)
        self.assertIn("| 1000 | 400 | 200 | 2.00× |", gesv)

    def test_clean_audit(self):
        self.run_audited([])
        table = self.read("table.md")
        self.assertIn("`run.audit.json`: clean;", table)
        self.assertIn("Clean: no findings.", table)
        self.assertNotIn("†", table)
        self.assertNotIn("audit finding", self.svg_text("speedup.svg"))

    def test_no_audit_is_said(self):
        self.run_report(synth.write_json(os.path.join(self.dir, "run.json"), synthetic_runs()))
        self.assertIn("No audit beside the inputs", self.read("table.md"))

    def test_malformed_audit_is_an_input_error(self):
        results = synth.write_json(os.path.join(self.dir, "run.json"), synthetic_runs())
        with open(os.path.join(self.dir, "run.audit.json"), "w") as f:
            f.write('{"audit": {"clean": true}}')
        p = subprocess.run([sys.executable, REPORT, "--out", self.out, results], capture_output=True, text=True,
                           timeout=300)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("run.audit.json: malformed audit", p.stderr)


class CpuDriverTest(ReportCase):
    """CPU-driver (LAPACKE_?gesv in one call) is a backend of its own; CPU stays the reference."""

    def test_cpu_is_the_reference_and_the_driver_its_own_line(self):
        runs = []
        for n, cpu, driver, gpu in ((1024, 8.4, 19.6, 2.5), (4096, 115.0, 936.0, 14.7)):
            runs += synth.solve_row("CPU", "dgesv", n, cpu)
            runs += synth.solve_row("CPU-driver", "dgesv", n, driver)
            runs += synth.solve_row("GPU", "dgesv", n, gpu)
        self.run_report(synth.write_json(os.path.join(self.dir, "run.json"), runs))
        table = self.read("table.md")
        self.assertIn("| n | CPU ms | CPU-driver ms | CPU-driver speedup | GPU ms | GPU speedup | resid |", table)
        # GPU against CPU (115 / 14.7 = 7.82), not against the driver (936 / 14.7 = 63.7)
        self.assertIn("| 4096 | 115 | 936 | 0.123× | 14.7 | 7.82× | 0.01 |", table)
        self.assertIn("CPU-driver is the one-call LAPACKE driver", table)
        speedup = self.svg_text("speedup.svg")
        self.assertIn("CPU-driver: slower up to n = 4096", speedup)
        self.assertIn("GPU: n ≤ 1024", speedup)
        color = report.BACKEND_COLORS["CPU-driver"]
        others = [c for b, c in report.BACKEND_COLORS.items() if b != "CPU-driver"] + report.EXTRA_COLORS
        self.assertNotIn(color, others)
        import matplotlib.colors
        with open(os.path.join(self.out, "speedup.svg"), encoding="utf-8") as f:
            self.assertIn("stroke: %s" % matplotlib.colors.to_hex(color), f.read())
        self.assertLess(report.backend_order("CPU-driver"), report.backend_order("GPU"))


if __name__ == "__main__":
    unittest.main()
