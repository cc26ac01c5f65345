#!/usr/bin/env python3
"""tools/report's condition-number map (map.md, map.png/.svg) on synthetic rows with a cond axis:
the winner per cell, the fp64 accuracy rule, classical against GMRES, the CPU line, no map
without cond rows."""
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree

import synth

TOOLS = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
REPORT = os.path.join(TOOLS, "report")
sys.path.insert(0, TOOLS)
import condmap  # noqa: E402
import sbjson  # noqa: E402

REF_ERR = 1e-13  # GPU/dgesv's forward error on every synthetic matrix


def gpu_mixed(op, n, cond, ms, err_factor=1.0, refine="classical", niters=3, **kw):
    return synth.cond_row("GPU", op, n, cond, ms, REF_ERR * err_factor, refine=refine, niters=niters,
                          outer_iters=kw.pop("outer_iters", 0), fell_back=kw.pop("fell_back", 0), **kw)


def map_runs():
    """GPU/dgesv takes 10 ms on every matrix. Per cell, what should win:
      n=4096 cond=1e2   dhgesv gmres (4 ms, 2.50x): fastest of the accurate ones
      n=4096 cond=1e6   dxgesv gmres_gmres (5 ms, 2.00x): dhgesv classical is faster (2 ms) but
                        its forward error is 100x dgesv's, so it is not fp64-accurate
      n=4096 cond=1e10  dgesv: the only accurate method (dsgesv, which fell back) is slower
      n=16384 cond=1e2  dsgesv classical (8 ms): dhgesv is faster but its resid failed, dbgesv
                        faster still but it errs
      n=16384 cond=1e6  dhgesv classical_gmres (5 ms): 9x dgesv's forward error is still accurate
      n=16384 cond=1e10 no GPU/dgesv row: nothing to compare with
    """
    runs = []
    for n in (4096, 16384):
        for cond in ("1e2", "1e6", "1e10"):
            if (n, cond) != (16384, "1e10"):
                runs += synth.cond_row("GPU", "dgesv", n, cond, 10.0, REF_ERR)
    runs += gpu_mixed("dhgesv", 4096, "1e2", 4.0, 2.0, "gmres", niters=5, outer_iters=2)
    runs += gpu_mixed("dhgesv", 4096, "1e2", 4.5, 1.0, "classical", niters=4)
    runs += gpu_mixed("dsgesv", 4096, "1e2", 8.0, 1.0, "classical", niters=2)

    runs += gpu_mixed("dhgesv", 4096, "1e6", 2.0, 100.0, "classical", niters=30)
    runs += gpu_mixed("dxgesv", 4096, "1e6", 5.0, 3.0, "gmres_gmres", niters=7, outer_iters=3)
    runs += gpu_mixed("dsgesv", 4096, "1e6", 6.0, 1.0, "classical", niters=3)

    runs += gpu_mixed("dhgesv", 4096, "1e10", 3.0, 1e6, "gmres", niters=-50)
    runs += gpu_mixed("dsgesv", 4096, "1e10", 14.0, 1.0, "classical", niters=-50, fell_back=1)

    runs += gpu_mixed("dhgesv", 16384, "1e2", 4.0, 1.0, "classical", resid=40.0)
    runs += gpu_mixed("dbgesv", 16384, "1e2", 3.0, 1.0, "classical", error="cusolverDnDBgesv: info -3")
    runs += gpu_mixed("dsgesv", 16384, "1e2", 8.0, 1.0, "classical", niters=2)

    runs += gpu_mixed("dhgesv", 16384, "1e6", 5.0, 9.0, "classical_gmres", niters=6, outer_iters=2)
    runs += gpu_mixed("dhgesv", 16384, "1e6", 9.0, 1.0, "classical", niters=12)

    runs += gpu_mixed("dhgesv", 16384, "1e10", 4.0, 1.0, "gmres", niters=9)
    return runs


def cpu_runs():
    """CPU/dsgesv pays at cond 1e2 (1.60x) and not at 1e10 (it fell back: 0.80x)."""
    runs = []
    for cond, ms, niters, fell_back in (("1e2", 50.0, 2, 0), ("1e10", 100.0, -30, 1)):
        runs += synth.cond_row("CPU", "dgesv", 4096, cond, 80.0, REF_ERR)
        runs += synth.cond_row("CPU", "dsgesv", 4096, cond, ms, REF_ERR, refine="classical", niters=niters,
                               fell_back=fell_back)
    return runs


def grid(markdown, heading):
    """The cells of the first table after a heading: {(n, cond): text}."""
    lines = markdown.split(heading + "\n", 1)[1].splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("|"))
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    lines = lines[start:end]
    conds = [c.strip() for c in lines[0].strip("|").split("|")][1:]
    cells = {}
    for line in lines[2:]:
        values = [c.strip() for c in line.strip("|").split("|")]
        for cond, value in zip(conds, values[1:]):
            cells[(int(values[0]), cond)] = value
    return cells


class MapTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name
        self.out = os.path.join(self.dir, "report")

    def tearDown(self):
        self._tmp.cleanup()

    def run_report(self, runs, name="run.json"):
        results = synth.write_json(os.path.join(self.dir, name), runs)
        p = subprocess.run([sys.executable, REPORT, "--out", self.out, "--title", "synthetic", results],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        return p.stdout

    def read(self, name):
        with open(os.path.join(self.out, name), encoding="utf-8") as f:
            return f.read()

    def test_winner_per_cell_and_the_accuracy_rule(self):
        stdout = self.run_report(map_runs() + cpu_runs())
        for name in ("map.md", "map.png", "map.svg"):
            self.assertIn("report: wrote %s" % os.path.join(self.out, name), stdout)
        md = self.read("map.md")
        best = grid(md, "## GPU (nrhs:1)")
        self.assertEqual(best, {
            (4096, "1e2"): "dhgesv gmres 2.50×, 5 it, 2 outer",
            # the 5x faster dhgesv classical has 100x dgesv's forward error: not chosen
            (4096, "1e6"): "dxgesv gmres_gmres 2.00×, 7 it, 3 outer",
            (4096, "1e10"): "dgesv 1.00×",
            (16384, "1e2"): "dsgesv classical 1.25×, 2 it",
            (16384, "1e6"): "dhgesv classical_gmres 2.00×, 6 it, 2 outer",
            (16384, "1e10"): "no GPU/dgesv",
        })
        versus = grid(md, "### GPU: classical against GMRES refinement")
        self.assertEqual(versus[(4096, "1e2")], "classical: dhgesv classical 2.22×, 4 it; "
                                                "GMRES: dhgesv gmres 2.50×, 5 it, 2 outer")
        self.assertEqual(versus[(4096, "1e6")], "classical: dsgesv classical 1.67×, 3 it; "
                                                "GMRES: dxgesv gmres_gmres 2.00×, 7 it, 3 outer")
        self.assertEqual(versus[(4096, "1e10")], "classical: dsgesv classical 0.71×, did not converge, fell back; "
                                                 "GMRES: none fp64-accurate")
        self.assertEqual(versus[(16384, "1e2")], "classical: dsgesv classical 1.25×, 2 it; GMRES: –")
        # the CPU line: CPU/dsgesv against CPU/dgesv
        cpu = grid(md, "## CPU (nrhs:1)")
        self.assertEqual(cpu, {(4096, "1e2"): "dsgesv classical 1.60×, 2 it", (4096, "1e10"): "dgesv 1.00×"})
        self.assertNotIn("### CPU: classical against GMRES", md)  # the CPU has no GMRES rows

        with open(os.path.join(self.out, "map.png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        root = ElementTree.parse(os.path.join(self.out, "map.svg")).getroot()
        svg = " ".join(t.strip() for t in root.itertext() if t.strip())
        for text in ("h/G 2.50×", "x/GG 2.00×", "dgesv 1.00×", "s/C 1.25×", "h/CG 2.00×", "s/C 1.60×",
                     "condition number cond (log scale)", "matrix order n", "speedup over dgesv (×)",
                     "GPU (nrhs:1): fastest fp64-accurate method vs GPU/dgesv",
                     "CPU (nrhs:1): fastest fp64-accurate method vs CPU/dgesv"):
            self.assertIn(text, svg)
        self.assertNotIn("h/C 5.00×", svg)  # the inaccurate one

    def test_accuracy_rule_directly(self):
        rows = sbjson.summarize(map_runs())
        cell = {(m.backend, c.n, c.cond): c for m in condmap.build_maps(rows) for c in m.cells.values()}
        methods = {m.name: m for m in cell[("GPU", 4096, "1e6")].methods}
        self.assertFalse(methods["dhgesv classical"].accurate)
        self.assertIn("fwd_err 1e-11 > 10× GPU/dgesv's 1e-13", methods["dhgesv classical"].why_not)
        self.assertAlmostEqual(methods["dhgesv classical"].speedup, 5.0)
        self.assertTrue(methods["dxgesv gmres_gmres"].accurate)
        failed = {m.name: m for m in cell[("GPU", 16384, "1e2")].methods}
        self.assertEqual(failed["dbgesv classical"].why_not, "failed")
        self.assertEqual(failed["dhgesv classical"].why_not, "resid 40 >= 16")

    def test_audit_marks_reach_the_map(self):
        results = synth.write_json(os.path.join(self.dir, "run.json"), map_runs())
        synth.write_audit(results, [synth.finding("sm_clock", "warning", ["GPU/dgesv/n:4096/nrhs:1/cond:1e2"],
                                                  "the SM clock fell during the row.")])
        p = subprocess.run([sys.executable, REPORT, "--out", self.out, results], capture_output=True, text=True,
                           timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        best = grid(self.read("map.md"), "## GPU (nrhs:1)")
        self.assertEqual(best[(4096, "1e2")], "dhgesv gmres 2.50×, 5 it, 2 outer †1")
        self.assertEqual(best[(4096, "1e6")], "dxgesv gmres_gmres 2.00×, 7 it, 3 outer")

    def test_no_cond_rows_no_map(self):
        os.makedirs(self.out)
        for name in ("map.md", "map.png", "map.svg"):  # stale files of an earlier run
            open(os.path.join(self.out, name), "w").close()
        runs = synth.solve_row("CPU", "dgesv", 256, 4.0) + synth.solve_row("GPU", "dgesv", 256, 1.0)
        # mixed-precision rows without a cond axis (kind:diagdom) make no map either
        runs += synth.runs("GPU/dhgesv/n:256/nrhs:1/kind:diagdom/refine:classical/manual_time", [0.5],
                           {"resid": 0.1, "fwd_err": 1e-15})
        stdout = self.run_report(runs)
        self.assertIn("no mixed-precision rows with a cond axis: no map", stdout)
        for name in ("map.md", "map.png", "map.svg"):
            self.assertFalse(os.path.exists(os.path.join(self.out, name)), name)
        self.assertTrue(os.path.exists(os.path.join(self.out, "table.md")))


if __name__ == "__main__":
    unittest.main()
