#!/usr/bin/env python3
"""tools/condmap.py draws the verdict's mixed_map and judges nothing: the winner, the speedup
and "fp64-accurate" are the verdict's. Also through tools/report on synthetic cond rows judged
by the real solve_bench_checks.

usage: test_map.py --checks PATH/solve_bench_checks [unittest args]
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

import synth

TOOLS = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
sys.path.insert(0, TOOLS)
import condmap  # noqa: E402
import figures  # noqa: E402

CHECKS = None


def method(op, refine, ms, speedup, accurate=True, why_not="", niters=3):
    return {"row": "GPU/%s/n:4096/nrhs:1/cond:1e4/refine:%s" % (op, refine), "op": op, "refine": refine, "ms": ms,
            "speedup": speedup, "accurate": accurate, "why_not": why_not, "niters": niters, "outer_iters": niters,
            "fell_back": 0}


def cell(n, matrix, methods, winner, speedup, reference="GPU/dgesv/n:%d/nrhs:1/%s", error=""):
    return {"backend": "GPU", "matrix": matrix, "nrhs": 1, "n": n,
            "reference": reference % (n, matrix) if reference else "", "dgesv_ms": 10.0, "reference_error": error,
            "methods": methods, "winner": winner, "speedup": speedup}


MAP = [
    # the verdict's winner is the slower accurate method: the map shows it, not the faster inaccurate one
    cell(4096, "cond:1e4", [method("dhgesv", "classical", 2.0, 5.0, False, "fwd_err 1e-10 > 10× dgesv's"),
                            method("dsgesv", "gmres", 5.0, 2.0)], 1, 2.0),
    cell(4096, "cond:1e1", [method("dsgesv", "classical", 12.0, 0.83)], None, 1.0),
    cell(16384, "cond:1e4", [], None, None, reference=""),
    cell(16384, "cond:1e1", [method("dsgesv", "classical", 5.0, 2.0)], None, None, error="singular"),
    dict(cell(4096, "kind:diagdom", [method("dhgesv", "gmres", 2.0, 3.0, niters=-1)], 0, 3.0), backend="CPU"),
]


class RendersTheVerdict(unittest.TestCase):
    def test_grid_and_every_method(self):
        maps = condmap.build_maps(MAP)
        self.assertEqual([m.title for m in maps], ["GPU (nrhs 1)", "CPU (nrhs 1)"])
        gpu = maps[0]
        self.assertEqual(gpu.matrices, ["cond:1e1", "cond:1e4"])  # by condition number
        self.assertEqual(gpu.ns, [4096, 16384])
        marks = lambda *names: " †1" if "GPU/dgesv/n:4096/nrhs:1/cond:1e1" in names else ""  # noqa: E731
        md = condmap.markdown(maps, ["cond.json"], synth.THRESHOLDS, marks)
        self.assertIn("| 4096 | dgesv 1.00× †1 | dsgesv gmres 2.00×, 3 it |", md)
        self.assertIn("| 16384 | dgesv failed | no dgesv |", md)
        self.assertIn("| cond:1e4 | 4096 | dhgesv classical | 2 | 5.00× | no: fwd_err 1e-10 > 10× dgesv's | 3 it |", md)
        self.assertIn("resid < 16", md)  # the limits are the verdict's thresholds
        self.assertIn("at most 10× dgesv's", md)
        self.assertIn("dhgesv gmres 3.00×, did not converge", md)
        with open(os.path.join(TOOLS, "condmap.py"), encoding="utf-8") as f:
            self.assertNotIn("FWD_ERR", f.read())

    def test_heat_map_files(self):
        with tempfile.TemporaryDirectory() as out:
            written = condmap.plot(figures.pyplot(), condmap.build_maps(MAP), out, "map", ["png", "svg"],
                                   synth.THRESHOLDS)
            self.assertEqual([os.path.basename(p) for p in written], ["map.png", "map.svg"])
            with open(os.path.join(out, "map.svg"), encoding="utf-8") as f:
                svg = f.read()
            for text in ("dsgesv", "2.00×", "no dgesv", "GPU (nrhs 1): fastest fp64-accurate method against dgesv",
                         "resid &lt; 16"):
                self.assertIn(text, svg)


class ThroughTheReport(unittest.TestCase):
    def test_cond_rows_judged_by_the_checks(self):
        runs = []
        for cond, fwd in (("1e2", 1e-15), ("1e8", 1e-9)):
            runs += synth.cond_row("GPU", "gesv", 4096, cond, 100.0, fwd)
            # fp16 LU: 4x faster, but 1000x dgesv's forward error: not fp64-accurate
            runs += synth.cond_row("GPU", "gesv", 4096, cond, 25.0, fwd * 1000, refine="gmres", niters=4, factor="h")
            runs += synth.cond_row("GPU", "gesv", 4096, cond, 50.0, fwd * 2, refine="classical", niters=2, factor="s")
        with tempfile.TemporaryDirectory() as work:
            run = synth.write_json(os.path.join(work, "cond.json"), runs)
            out = os.path.join(work, "report")
            p = subprocess.run([sys.executable, os.path.join(TOOLS, "report"), "--checks", CHECKS, "--out", out, run],
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            with open(os.path.join(out, "checks.verdict.json")) as f:
                cells = json.load(f)["verdict"]["mixed_map"]
            with open(os.path.join(out, "map.md"), encoding="utf-8") as f:
                md = f.read()
            self.assertEqual(len(cells), 2)
            for c in cells:
                chosen = c["methods"][c["winner"]]
                self.assertEqual(chosen["op"], "dsgesv")  # the verdict passed over the inaccurate fp16 one
                self.assertIn("dsgesv classical %.2f×" % c["speedup"], md)
            self.assertIn("| cond:1e2 | 4096 | dhgesv gmres |", md)
            self.assertTrue(os.path.exists(os.path.join(out, "map.png")))
            # a run without mixed rows: no map, and the old map files are removed
            plain = synth.write_json(os.path.join(work, "plain.json"), synth.solve_row("CPU", "gesv", 64, 1.0))
            p = subprocess.run([sys.executable, os.path.join(TOOLS, "report"), "--checks", CHECKS, "--out", out, plain],
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn("no map", p.stdout)
            self.assertFalse(any(os.path.exists(os.path.join(out, "map." + e)) for e in ("md", "png", "svg")))


if __name__ == "__main__":
    CHECKS = synth.checks_argument("test_map.py")
    unittest.main()
