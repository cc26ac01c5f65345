#!/usr/bin/env python3
"""tools/sbjson.py: row names, JSON and JSON-lines input, repetitions reduced to one row, audits."""
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

import synth

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
import sbjson  # noqa: E402

SBJSON = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "sbjson.py")


class NameTest(unittest.TestCase):
    def test_cpu_row(self):
        name = sbjson.parse_name("CPU/dgesv/n:4096/nrhs:1/manual_time")
        self.assertEqual((name.backend, name.op, name.n), ("CPU", "dgesv", 4096))
        self.assertEqual(name.variant(), "nrhs:1")

    def test_future_rows(self):
        mpi = sbjson.parse_name("MPI/dgesv/n:8192/ranks:4/nb:128/manual_time")
        self.assertEqual((mpi.backend, mpi.op, mpi.n, mpi.variant()), ("MPI", "dgesv", 8192, "ranks:4/nb:128"))
        mixed = sbjson.parse_name("GPU/dhgesv/n:1024/nrhs:1/kind:diagdom/manual_time")
        self.assertEqual((mixed.op, mixed.variant()), ("dhgesv", "nrhs:1/kind:diagdom"))
        batched = sbjson.parse_name("GPU-loop/dgesv_batched/n:32/batch:10000/manual_time")
        self.assertEqual((batched.backend, batched.op, batched.n, batched.variant()),
                         ("GPU-loop", "dgesv_batched", 32, "batch:10000"))
        self.assertEqual(sbjson.parse_name("GPU-pinned/sposv/n:64/nrhs:2").variant(without=("n", "nrhs")), "")

    def test_natural_order(self):
        names = ["CPU/dgesv/n:1024", "CPU/dgesv/n:128", "CPU/dgesv/n:64"]
        self.assertEqual(sorted(names, key=sbjson.natural_key), names[::-1])


class LoadTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def test_json_and_jsonl_give_the_same_rows(self):
        all_runs = synth.solve_row("CPU", "dgesv", 64, 2.0, reps=5) + synth.solve_row("CPU", "dposv", 64, 1.0, reps=5)
        from_json, _ = sbjson.load_rows([synth.write_json(os.path.join(self.dir, "a.json"), all_runs)])
        from_log, contexts = sbjson.load_rows([synth.write_jsonl(os.path.join(self.dir, "a.rows.jsonl"), all_runs)])
        self.assertEqual(list(from_json), list(from_log))
        self.assertEqual(contexts[0]["host_name"], "synthetic")
        for name, row in from_json.items():
            self.assertEqual(row.times_ms, from_log[name].times_ms)

    def test_repetitions_reduce_to_medians_and_aggregates_are_not_samples(self):
        times = [3.0, 1.0, 2.0, 10.0, 2.5]
        rows = sbjson.summarize(synth.runs("CPU/dgesv/n:64/nrhs:1/manual_time", times,
                                           {"GFLOP/s": lambda t: 1.0 / t, "resid": 0.5}))
        row = rows["CPU/dgesv/n:64/nrhs:1/manual_time"]
        self.assertEqual(list(rows), ["CPU/dgesv/n:64/nrhs:1/manual_time"])
        self.assertEqual(row.repetitions, 5)
        self.assertEqual(row.median_ms, 2.5)
        self.assertAlmostEqual(row.counter("GFLOP/s"), 1.0 / 2.5)
        self.assertEqual(row.resid, 0.5)
        self.assertTrue(row.ok)

    def test_time_units(self):
        row = sbjson.summarize(synth.runs("x/y/n:1", [2.0], time_unit="us"))["x/y/n:1"]
        self.assertAlmostEqual(row.median_ms, 2.0)

    def test_failures(self):
        rows = sbjson.summarize(
            synth.solve_row("CPU", "dgesv", 64, 1.0, error="singular matrix")
            + synth.solve_row("GPU", "dgesv", 64, 1.0, skipped="no device")
            + synth.solve_row("CPU", "dposv", 64, 1.0, resid=float("nan")))
        gesv, gpu, posv = rows.values()
        self.assertEqual(gesv.error, "singular matrix")
        self.assertEqual(gpu.skipped, "no device")
        self.assertTrue(math.isnan(posv.resid) and posv.resid_failed)
        self.assertFalse(any(r.ok for r in rows.values()))

    def test_files_pool_repetitions(self):
        a = synth.write_json(os.path.join(self.dir, "a.json"), synth.runs("CPU/dgesv/n:8", [1.0, 2.0]))
        b = synth.write_json(os.path.join(self.dir, "b.json"), synth.runs("CPU/dgesv/n:8", [3.0, 4.0])
                             + synth.runs("GPU/dgesv/n:8", [0.5]))
        rows, _ = sbjson.load_rows([a, b])
        self.assertEqual(rows["CPU/dgesv/n:8"].times_ms, [1.0, 2.0, 3.0, 4.0])
        rows, _ = sbjson.load_rows([a, b], name_filter="^GPU/")
        self.assertEqual(list(rows), ["GPU/dgesv/n:8"])

    def test_not_benchmark_output(self):
        path = os.path.join(self.dir, "x.json")
        with open(path, "w") as f:
            f.write('{"rows": []}')
        with self.assertRaises(sbjson.InputError):
            sbjson.load(path)
        with self.assertRaises(sbjson.InputError):
            sbjson.load(os.path.join(self.dir, "absent.json"))


class AuditTest(unittest.TestCase):
    """load_audit: the X.audit.json sidecar that solve_bench writes beside X.json and X.rows.jsonl."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name
        self.results = synth.write_json(os.path.join(self.dir, "run.json"), synth.solve_row("CPU", "dgesv", 64, 1.0))

    def tearDown(self):
        self._tmp.cleanup()

    def write_sidecar(self, text):
        with open(os.path.join(self.dir, "run.audit.json"), "w") as f:
            f.write(text)

    def test_present(self):
        sidecar = synth.write_audit(self.results, [
            synth.finding("driver_vs_halves", "warning",
                          ["CPU-driver/dgesv/n:4096/nrhs:1", "CPU/dgetrf/n:4096/manual_time"], "8.1x slower"),
            synth.finding("blas_threads", "note", [], "OPENBLAS_NUM_THREADS=1")], rows_checked=42)
        self.assertEqual(sidecar, os.path.join(self.dir, "run.audit.json"))
        audit = sbjson.load_audit(self.results)
        self.assertEqual(audit.path, sidecar)
        self.assertFalse(audit.clean)
        self.assertEqual(audit.rules_checked, ["driver_vs_halves", "ceilings", "noise"])
        self.assertEqual(audit.rows_checked, 42)
        first, second = audit.findings
        self.assertEqual((first.rule, first.severity, first.message), ("driver_vs_halves", "warning", "8.1x slower"))
        # row names as the tools key rows: without the timing suffix
        self.assertEqual(first.rows, ("CPU-driver/dgesv/n:4096/nrhs:1", "CPU/dgetrf/n:4096"))
        self.assertEqual(second.rows, ())
        # the rows log of the same run has the same sidecar
        log = synth.write_jsonl(os.path.join(self.dir, "run.rows.jsonl"), synth.solve_row("CPU", "dgesv", 64, 1.0))
        self.assertEqual(sbjson.load_audit(log).findings, audit.findings)
        self.assertEqual(len(sbjson.load_audits([self.results, log])), 1)

    def test_clean(self):
        synth.write_audit(self.results, [])
        audit = sbjson.load_audit(self.results)
        self.assertTrue(audit.clean)
        self.assertEqual(audit.findings, [])

    def test_absent(self):
        self.assertIsNone(sbjson.load_audit(self.results))
        self.assertEqual(sbjson.load_audits([self.results]), [])

    def test_malformed(self):
        good = {"clean": False, "rules_checked": ["r"], "rows_checked": 1,
                "findings": [synth.finding("r", "warning", ["CPU/dgesv/n:64/nrhs:1"])]}
        cases = {
            "not JSON": "{\"audit\": {",
            "no \"audit\" object": json.dumps({"findings": []}),
            "\"clean\" is not true or false": json.dumps({"audit": dict(good, clean="no")}),
            "\"rows_checked\" is not a count": json.dumps({"audit": dict(good, rows_checked="many")}),
            "\"findings\" is not a list": json.dumps({"audit": dict(good, findings={})}),
            "has no \"message\" text": json.dumps({"audit": dict(good, findings=[{"rule": "r", "severity": "note"}])}),
            # a misspelt severity would otherwise slip past the gate
            "severity 'timing_bug'": json.dumps({"audit": dict(good, findings=[synth.finding("r", "timing_bug", [])])}),
            "\"rows\" is not a list": json.dumps({"audit": dict(good, findings=[dict(synth.finding("r", "note", []),
                                                                                     rows="CPU/dgesv")])}),
        }
        for problem, text in cases.items():
            with self.subTest(problem):
                self.write_sidecar(text)
                with self.assertRaises(sbjson.InputError) as raised:
                    sbjson.load_audit(self.results)
                self.assertIn("run.audit.json", str(raised.exception))
                self.assertIn(problem, str(raised.exception))
        self.write_sidecar(json.dumps({"audit": good}))
        self.assertEqual(len(sbjson.load_audit(self.results).findings), 1)

    def test_sidecar_names(self):
        self.assertEqual(sbjson.audit_path("a/x.json"), "a/x.audit.json")
        self.assertEqual(sbjson.audit_path("a/x.rows.jsonl"), "a/x.audit.json")
        self.assertEqual(sbjson.audit_path("a/base.jsonl"), "a/base.audit.json")

    def test_finding_scope_and_identity(self):
        gpu = sbjson.Finding("gemm_ceiling", "timing-bug", ("GPU/dgesv/n:64/nrhs:1",), "x")
        self.assertFalse(gpu.in_scope("^CPU/"))
        self.assertTrue(gpu.in_scope("manual_time$"))  # filters are written for names with the suffix
        self.assertTrue(sbjson.Finding("env", "warning", (), "x").in_scope("^CPU/"))
        self.assertEqual(gpu.key, sbjson.Finding("gemm_ceiling", "timing-bug", ("GPU/dgesv/n:64/nrhs:1",), "y").key)

    def test_merge_pooled_rounds(self):
        # .ci/bench-pr pools rounds into base.jsonl; their audits merge into base.audit.json
        rounds = []
        for k, findings in enumerate(([synth.finding("noise", "warning", ["CPU/dgesv/n:64/nrhs:1"], "cv 7%")],
                                      [synth.finding("noise", "warning", ["CPU/dgesv/n:64/nrhs:1"], "cv 9%"),
                                       synth.finding("gemm_ceiling", "timing-bug", ["CPU/dgesv/n:64/nrhs:1"])])):
            rounds.append(synth.write_json(os.path.join(self.dir, "base-round%d.json" % k), []))
            synth.write_audit(rounds[-1], findings)
        rounds.append(synth.write_json(os.path.join(self.dir, "base-round2.json"), []))  # no audit
        pooled = os.path.join(self.dir, "base.jsonl")
        p = subprocess.run([sys.executable, SBJSON, "merge-audits", pooled] + rounds,
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        merged = sbjson.load_audit(pooled)
        self.assertFalse(merged.clean)
        self.assertEqual([(f.rule, f.message) for f in merged.findings],
                         [("noise", "cv 7%"), ("gemm_ceiling", "synthetic finding")])
        # rounds with no audit (a base from before it): nothing written, so no audit to show
        os.remove(merged.path)
        p = subprocess.run([sys.executable, SBJSON, "merge-audits", pooled, rounds[-1]],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIsNone(sbjson.load_audit(pooled))


if __name__ == "__main__":
    unittest.main()
