#!/usr/bin/env python3
"""tools/sbjson.py: row names, JSON and JSON-lines input, repetitions reduced to one row."""
import math
import os
import sys
import tempfile
import unittest

import synth

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
import sbjson  # noqa: E402


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


if __name__ == "__main__":
    unittest.main()
