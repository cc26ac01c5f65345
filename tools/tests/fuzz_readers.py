#!/usr/bin/env python3
"""The tools' readers under hypothesis: random bytes, random JSON and valid runs and sidecars
with one part replaced by random JSON go into sbjson's loaders (and what tools/report renders
from an accepted sidecar); each must give a result or an InputError, never another exception.

usage: fuzz_readers.py [--examples N]   (default 150 a property: a few seconds)
"""
import json
import os
import sys
import tempfile
import unittest

# hypothesis keeps a folder of its own where it runs: not in the source tree
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", os.path.join(tempfile.gettempdir(), "solve_bench-hypothesis"))
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import synth  # noqa: E402

TOOLS = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
sys.path.insert(0, TOOLS)
import condmap  # noqa: E402
import figures  # noqa: E402
import sbjson  # noqa: E402
import tables  # noqa: E402

EXAMPLES = 150
if "--examples" in sys.argv:  # read before the properties are decorated with it
    _at = sys.argv.index("--examples")
    EXAMPLES = int(sys.argv[_at + 1])
    del sys.argv[_at:_at + 2]
SCALARS = st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70) | st.floats() | st.text(max_size=12)
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                        max_size=4), max_leaves=20)
KEYS = st.sampled_from(["name", "run_name", "run_type", "real_time", "time_unit", "id", "error_occurred",
                        "skipped", "aggregate_name", "aggregate_unit", "samples_ms", "context", "benchmarks",
                        "backend", "n", "op", "precision", "resid"]) | st.text(max_size=6)


def valid_runs():
    return (synth.solve_row("CPU", "gesv", 64, 2.0, reps=3) + synth.solve_row("GPU", "gesv", 64, 0.5, reps=3)
            + synth.solve_row("CPU", "gesv", 8, 1.0, reps=2, axes={"batch": 100})
            + synth.cond_row("GPU", "gesv", 64, "1e4", 1.0, 1e-14, refine="gmres", niters=3, factor="h"))


VERDICT = {"verdict": {
    "has_gpu_rows": True, "thresholds": synth.THRESHOLDS, "lines": ["a"], "caveats": [],
    "solves": [{"op": "dgesv", "nrhs": 1, "cpu_best": [{"n": 64, "ms": 2.0, "path": "CPU"}],
                "forms": [{"backend": "GPU", "placement": "resident",
                           "points": [{"n": 64, "cpu_ms": 2.0, "gpu_ms": 0.5, "speedup": 4.0, "noise_pct": 1.0}],
                           "crossover": {"kind": "crossing", "n": 50, "interpolated": True, "between": [32, 64]}}],
                "caveats": [{"rule": "r", "severity": "warning", "message": "m", "rows": ["CPU/dgesv/n:64/nrhs:1"]}]}],
    "batched": [{"op": "dgesv_batched", "batch": 100, "points": [{"n": 8, "cpu_ms": 1, "gpu_ms": 0.1, "speedup": 10}]}],
    "mixed_map": [{"backend": "GPU", "matrix": "cond:1e4", "nrhs": 1, "n": 64, "reference": "GPU/dgesv/n:64/nrhs:1",
                   "dgesv_ms": 1.0, "reference_error": "", "winner": 0, "speedup": 1.5,
                   "methods": [{"row": "GPU/dhgesv/n:64/nrhs:1/cond:1e4/refine:gmres", "op": "dhgesv",
                                "refine": "gmres", "ms": 0.66, "speedup": 1.5, "accurate": True, "why_not": "",
                                "niters": 3, "outer_iters": 1, "fell_back": 0}]}]}}
AUDIT = {"audit": {"clean": False, "rules_checked": ["r"], "rows_checked": 3, "thresholds": synth.THRESHOLDS,
                   "findings": [synth.finding("r", "warning", ["CPU/dgesv/n:64/nrhs:1"])]}}


def paths_in(value, prefix=()):
    """Every place in a JSON structure: the tuple of keys and indices that reach it."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths_in(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths_in(v, prefix + (i,))


def replaced(value, path, new):
    if not path:
        return new
    copy = list(value) if isinstance(value, list) else dict(value)
    copy[path[0]] = replaced(value[path[0]], path[1:], new)
    return copy


def mutate(data, doc):
    """doc with one place replaced by random JSON, or one key added to an object."""
    path = data.draw(st.sampled_from(list(paths_in(doc))))
    if data.draw(st.booleans()):
        return replaced(doc, path, data.draw(JSON))
    target = doc
    for step in path:
        target = target[step]
    if isinstance(target, dict):
        return replaced(doc, path, dict(target, **{data.draw(KEYS): data.draw(JSON)}))
    return replaced(doc, path, data.draw(JSON))


class Readers(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def load(self, data: bytes, name="run.json"):
        """load and summarize: a result or InputError, and the rows as the report sees them."""
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(data)
        try:
            results = sbjson.load(path)
        except sbjson.InputError as e:
            self.assertTrue(str(e).startswith(path), str(e))
            return
        for row in sbjson.summarize(results.rows).values():
            row.median_ms, row.counter("GFLOP/s"), row.ok
            if row.id is not None:
                item = figures.Item(row, row.id)
                item.panel, item.op_label, item.line_backend, item.family

    def sidecar(self, doc, kind):
        path = os.path.join(self.dir, "run.%s.json" % kind)
        with open(path, "w") as f:
            f.write(doc if isinstance(doc, str) else json.dumps(doc))
        try:
            body = sbjson.load_sidecar(path, kind)
        except sbjson.InputError:
            return
        marks = lambda *names: ""  # noqa: E731
        if kind == "verdict":  # what the report renders from an accepted verdict must not fail
            tables.verdict_markdown(body, marks)
            maps = condmap.build_maps(body.get("mixed_map") or [])
            condmap.markdown(maps, ["run.json"], body.get("thresholds") or {}, marks)
            for m in maps:
                for cell in m.cells.values():
                    condmap.cell_text(cell, marks)
                    condmap._heat_text(cell, marks)
        else:
            sbjson.parse_audit(path, body)

    @settings(max_examples=EXAMPLES, deadline=None, database=None)
    @given(st.binary(max_size=300))
    def test_bytes(self, data):
        self.load(data)
        self.load(data, "run.rows.jsonl")

    @settings(max_examples=EXAMPLES, deadline=None, database=None)
    @given(JSON)
    def test_any_json(self, value):
        self.load(json.dumps(value).encode())
        self.sidecar(value, "audit")
        self.sidecar({"verdict": value}, "verdict")

    @settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.data())
    def test_a_run_with_one_part_replaced(self, data):
        self.load(json.dumps(mutate(data, synth.document(valid_runs()))).encode())

    @settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.data())
    def test_a_rows_log_with_one_line_replaced(self, data):
        lines = [{"context": synth.CONTEXT}] + valid_runs()
        index = data.draw(st.integers(0, len(lines) - 1))
        lines[index] = mutate(data, lines[index])
        text = "\n".join(json.dumps(line) for line in lines)
        cut = data.draw(st.integers(0, len(text)))  # and sometimes torn, as a killed run leaves it
        self.load((text if data.draw(st.booleans()) else text[:cut]).encode(), "run.rows.jsonl")

    @settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.data())
    def test_sidecars_with_one_part_replaced(self, data):
        self.sidecar(mutate(data, VERDICT), "verdict")
        self.sidecar(mutate(data, AUDIT), "audit")


if __name__ == "__main__":
    unittest.main()
