#!/usr/bin/env python3
"""tools/sbjson.py: runs in every format (with and without ids), rows gathered, the sidecars,
and every bad input named (file, line, problem) rather than crashing; the tools' conventions."""
import glob
import json
import os
import stat
import subprocess
import sys
import tempfile
import unittest

import synth

TOOLS = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
ROOT = os.path.dirname(TOOLS)
sys.path.insert(0, TOOLS)
import sbjson  # noqa: E402

CPU = synth.make_id("CPU", "gesv", 64, nrhs=1)


class Dir(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self, name, data):
        with open(self.path(name), "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode("utf-8"))
        return self.path(name)


class LoadTest(Dir):
    def runs(self):
        return (synth.solve_row("CPU", "gesv", 64, 2.0, reps=5) + synth.solve_row("CPU", "posv", 64, 1.0, reps=5)
                + synth.solve_row("GPU", "gesv", 8, 0.5, reps=3, axes={"batch": 100}))

    def test_every_format_gives_the_same_rows(self):
        runs = self.runs()
        loaded = [sbjson.load_rows([write(self.path(name), runs)])
                  for name, write in (("a.json", synth.write_json), ("a.rows.jsonl", synth.write_rows_log),
                                      ("old.rows.jsonl", synth.write_old_rows_log))]
        first, contexts = loaded[0]
        self.assertEqual(contexts[0]["host_name"], "synthetic")
        self.assertEqual([r.name for r in first.values()],
                         ["CPU/dgesv/n:64/nrhs:1", "CPU/dposv/n:64/nrhs:1", "GPU/dgesv_batched/n:8/batch:100"])
        for rows, _ in loaded[1:]:
            self.assertEqual(list(rows), list(first))
            for key, row in rows.items():
                self.assertEqual(row.samples_ms, first[key].samples_ms)
                self.assertEqual(row.id, first[key].id)

    def test_keyed_by_id_else_by_name(self):
        rows = sbjson.summarize(synth.runs(CPU, [1.0, 2.0]))
        (key, row), = rows.items()
        self.assertEqual(json.loads(key), CPU)
        self.assertEqual(row.id["backend"], "CPU")
        old = sbjson.summarize(synth.legacy(synth.runs(CPU, [1.0, 2.0])))
        self.assertEqual(list(old), ["CPU/dgesv/n:64/nrhs:1"])
        self.assertIsNone(old["CPU/dgesv/n:64/nrhs:1"].id)
        self.assertEqual(old["CPU/dgesv/n:64/nrhs:1"].samples_ms, [1.0, 2.0])  # ms there, ns here: the same

    def test_medians_and_aggregates(self):
        rows = sbjson.summarize(synth.runs(CPU, [3.0, 1.0, 2.0, 10.0, 2.5], {"GFLOP/s": lambda t: 1.0 / t}))
        row, = rows.values()
        self.assertEqual((row.repetitions, row.median_ms), (5, 2.5))
        self.assertAlmostEqual(row.counter("GFLOP/s"), 1.0 / 2.5)
        self.assertTrue(row.ok)
        only = [r for r in synth.runs(CPU, [3.0, 1.0, 2.0]) if r["run_type"] == "aggregate"]
        row, = sbjson.summarize(only).values()  # --benchmark_report_aggregates_only: the median stands in
        self.assertEqual((row.repetitions, row.median_ms), (0, 2.0))

    def test_time_units(self):
        for unit in ("ns", "us", "ms", "s"):
            row, = sbjson.summarize(synth.runs(CPU, [2.0], time_unit=unit)).values()
            self.assertAlmostEqual(row.median_ms, 2.0)

    def test_a_row_passes_when_its_run_says_so(self):
        rows = sbjson.summarize(synth.solve_row("CPU", "gesv", 64, 1.0, error="resid 20 >= 16")
                                + synth.solve_row("CPU", "posv", 64, 1.0, resid=20.0))
        failed, other = rows.values()
        self.assertEqual((failed.error, failed.ok), ("resid 20 >= 16", False))
        self.assertTrue(other.ok)  # no limit here: the run's check decides, and it said nothing
        self.assertFalse(hasattr(sbjson, "RESID_LIMIT"))

    def test_files_pool_and_filter(self):
        a = synth.write_json(self.path("a.json"), synth.runs(CPU, [1.0, 2.0]))
        gpu = synth.make_id("GPU", "gesv", 64, nrhs=1)
        b = synth.write_rows_log(self.path("b.rows.jsonl"), synth.runs(CPU, [3.0, 4.0]) + synth.runs(gpu, [0.5]))
        rows, _ = sbjson.load_rows([a, b])
        self.assertEqual([r.samples_ms for r in rows.values()], [[1.0, 2.0, 3.0, 4.0], [0.5]])
        rows, _ = sbjson.load_rows([a, b], name_filter="^GPU/")
        self.assertEqual([r.name for r in rows.values()], ["GPU/dgesv/n:64/nrhs:1"])
        rows, _ = sbjson.load_rows([a, b], name_filter="nrhs:1/manual_time$")  # filters written for Google Benchmark names
        self.assertEqual(len(rows), 2)
        with self.assertRaises(sbjson.InputError):
            sbjson.load_rows([a], name_filter="(")

    def test_a_killed_runs_last_line(self):
        with open(synth.write_rows_log(self.path("k.rows.jsonl"), synth.runs(CPU, [1.0, 2.0], aggregates=False))) as f:
            text = f.read()
        path = self.write("k.rows.jsonl", text + text.splitlines()[1][:30])
        results = sbjson.load(path)
        self.assertEqual(len(results.rows), 2)
        self.assertEqual(results.notes, ["%s:4: ignoring the unfinished last line" % path])

    def test_committed_results_load(self):
        """Results written before ids (and before the flat rows log) keep working."""
        paths = [p for p in glob.glob(os.path.join(ROOT, "results", "*", "*.json*"))
                 if not p.endswith((".audit.json", ".verdict.json")) and "vs_numpy" not in p
                 and "reference.jsonl" not in p
                 and os.path.dirname(p) != os.path.join(ROOT, "results", "history")]  # track's own files
        self.assertTrue(paths)
        for path in paths:
            with self.subTest(os.path.relpath(path, ROOT)):
                results = sbjson.load(path)
                self.assertIn("solve_bench_version", results.context)
                sbjson.summarize(results.rows)
        for path in glob.glob(os.path.join(ROOT, "results", "*", "*.audit.json")):
            self.assertIsNotNone(sbjson.load_sidecar(path, "audit"), path)
        for path in glob.glob(os.path.join(ROOT, "results", "*", "*.verdict.json")):
            self.assertIsNotNone(sbjson.load_sidecar(path, "verdict"), path)


ROW = synth.runs(CPU, [0.01])[0]


def jsonl(*lines):
    return "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)


class BadInputTest(Dir):
    """Each bad input gives an InputError that names the file (and the line) and the problem."""
    CASES = {
        "empty.json": (b"", "empty.json: empty file"),
        "blank.rows.jsonl": (b"\n  \n", "blank.rows.jsonl: empty file"),
        "utf16.json": (json.dumps(synth.document([ROW])).encode("utf-16"), "utf16.json: UTF-16 text"),
        "utf16be.json": (json.dumps(synth.document([ROW])).encode("utf-16-be"), "utf16be.json: UTF-16 text"),
        "latin1.rows.jsonl": (jsonl({"context": synth.CONTEXT}).encode() + '{"name": "é"}\n'.encode("latin-1"),
                              "latin1.rows.jsonl:2: not UTF-8 text (byte 0xe9)"),
        "not_objects.json": (json.dumps(synth.document([1, 2])), "benchmarks[0]: a row that is not an object (a number)"),
        "string_time.json": (json.dumps(synth.document([dict(ROW, real_time="10")])), "real_time is text, not a number"),
        "numeric_name.json": (json.dumps(synth.document([dict(ROW, name=12, run_name=12)])),
                              '"name" is not text (a number)'),
        "deep.json": (b"[" * 100000 + b"]" * 100000, "deep.json: nested deeper than 32 levels"),
        "deep_line.rows.jsonl": (jsonl({"context": synth.CONTEXT}, "[" * 5000 + "]" * 5000),
                                 "deep_line.rows.jsonl:2: nested deeper"),
        "string_context.json": (json.dumps({"context": "x", "benchmarks": []}), '"context" is not an object (text)'),
        "string_context.rows.jsonl": (jsonl({"context": []}, ROW), 'string_context.rows.jsonl:1: "context" is not an object'),
        "middle.rows.jsonl": (jsonl({"context": synth.CONTEXT}, ROW, "{bad", ROW), "middle.rows.jsonl:3: not JSON"),
        "middle_row.rows.jsonl": (jsonl({"context": synth.CONTEXT}, ROW, [ROW], ROW),
                                  "middle_row.rows.jsonl:3: not a JSON object (a list)"),
        "foreign.json": (json.dumps({"context": {"host_name": "h", "executable": "./bench"},
                                     "benchmarks": [{"name": "BM_foo/8", "run_name": "BM_foo/8", "real_time": 5,
                                                     "cpu_time": 5, "time_unit": "ns"}]}),
                         "not a solve_bench run (no solve_bench_version in its context, no row id, rows like 'BM_foo/8')"),
        "no_time.json": (json.dumps(synth.document([{k: v for k, v in ROW.items() if k != "real_time"}])),
                         "no real_time (and no error)"),
        "negative.json": (json.dumps(synth.document([dict(ROW, real_time=-1)])), "real_time -1 is not a time"),
        "nan.json": (json.dumps(synth.document([dict(ROW, real_time=float("nan"))])), "real_time nan is not a time"),
        "unit.json": (json.dumps(synth.document([dict(ROW, time_unit="fortnight")])), "unknown time_unit 'fortnight'"),
        "no_benchmarks.json": (json.dumps({"rows": []}), "neither a run"),
        "benchmarks_text.json": (json.dumps({"context": synth.CONTEXT, "benchmarks": "x"}), '"benchmarks" is not a list'),
        "id_text.json": (json.dumps(synth.document([dict(ROW, id="CPU")])), '"id" is not an object (text)'),
        "id_no_n.json": (json.dumps(synth.document([dict(ROW, id={k: v for k, v in CPU.items() if k != "n"})])),
                         'its id has no "n" count'),
        "long_int.json": ('{"context": {}, "benchmarks": [{"name": "x", "real_time": 1%s}]}' % ("0" * 5000),
                          "not JSON: Exceeds the limit"),
        "samples.json": (json.dumps(synth.document([dict(ROW, samples_ms=["a"])])), '"samples_ms" is not a list of times'),
        "run_type.json": (json.dumps(synth.document([dict(ROW, run_type="warmup")])), "run_type 'warmup'"),
    }

    def test_each_is_named(self):
        for name, (data, expected) in self.CASES.items():
            with self.subTest(name):
                path = self.write(name, data)
                with self.assertRaises(sbjson.InputError) as raised:
                    sbjson.summarize(sbjson.load(path).rows)
                message = str(raised.exception)
                self.assertTrue(message.startswith(path), message)
                self.assertIn(expected, message)

    def test_absent_and_unreadable(self):
        with self.assertRaises(sbjson.InputError) as raised:
            sbjson.load(self.path("absent.json"))
        self.assertIn("absent.json: No such file", str(raised.exception))
        with self.assertRaises(sbjson.InputError):
            sbjson.load(self.dir)  # a folder

    def test_failed_rows_need_no_time(self):
        failed = dict(ROW, error_occurred=True, error_message="singular")
        del failed["real_time"]
        row, = sbjson.summarize(sbjson.load(self.write("f.json", json.dumps(synth.document([failed])))).rows).values()
        self.assertEqual(row.error, "singular")


class SidecarTest(Dir):
    def setUp(self):
        super().setUp()
        self.results = synth.write_json(self.path("run.json"), synth.runs(CPU, [1.0]))

    def test_audit(self):
        self.assertIsNone(sbjson.load_audit(self.results))
        synth.write_audit(self.results, [synth.finding("driver_vs_halves", "warning",
                                                       ["CPU-driver/dgesv/n:64/nrhs:1/manual_time", "CPU/dgetrf/n:64"])])
        audit = sbjson.load_audit(self.path("run.rows.jsonl"))  # the log's sidecar is the same file
        self.assertEqual(audit.path, self.path("run.audit.json"))
        self.assertFalse(audit.clean)
        self.assertEqual(audit.findings[0].rows, ("CPU-driver/dgesv/n:64/nrhs:1", "CPU/dgetrf/n:64"))
        self.assertEqual(audit.thresholds["resid"], 16.0)
        self.assertEqual(sbjson.sidecar_path("a/x.rows.jsonl.partial", "verdict"), "a/x.verdict.json")

    def test_malformed(self):
        good = {"clean": False, "rules_checked": ["r"], "rows_checked": 1,
                "findings": [synth.finding("r", "warning", ["CPU/dgesv/n:64/nrhs:1"])]}
        point = {"n": 64, "cpu_ms": 1.0, "gpu_ms": 0.5, "speedup": 2.0}
        cell = {"backend": "GPU", "matrix": "cond:1e4", "n": 64, "methods": [], "winner": 0}
        cases = {
            ("audit", "not JSON"): "{\"audit\": {",
            ("audit", 'no "audit" object'): json.dumps({"findings": []}),
            ("audit", "audit.clean is text, not true/false"): json.dumps({"audit": dict(good, clean="no")}),
            ("audit", "audit.rows_checked is text, not an integer"): json.dumps({"audit": dict(good, rows_checked="x")}),
            ("audit", "audit.findings[0] has no \"message\""): json.dumps(
                {"audit": dict(good, findings=[{"rule": "r", "severity": "note"}])}),
            ("audit", "audit.thresholds.resid is text"): json.dumps({"audit": dict(good, thresholds={"resid": "16"})}),
            ("verdict", "verdict has no \"solves\""): json.dumps({"verdict": {}}),
            ("verdict", "verdict.solves[0].forms[0].points[0].speedup is text"): json.dumps({"verdict": {"solves": [
                {"op": "dgesv", "forms": [{"backend": "GPU", "points": [dict(point, speedup="2")]}]}]}}),
            ("verdict", "verdict.mixed_map[0].winner is not the index of a method"): json.dumps(
                {"verdict": {"solves": [], "mixed_map": [cell]}}),
            ("verdict", "UTF-16"): json.dumps({"verdict": {"solves": []}}).encode("utf-16"),
        }
        for (kind, problem), text in cases.items():
            with self.subTest(problem):
                path = self.write("run.%s.json" % kind, text)
                with self.assertRaises(sbjson.InputError) as raised:
                    sbjson.load_sidecar(path, kind)
                self.assertIn("run.%s.json" % kind, str(raised.exception))
                self.assertIn(problem, str(raised.exception))


class ConventionsTest(unittest.TestCase):
    TOOLS = ["report", "regress", "track", "vs_numpy.py", "mpi_scaling.py"]

    def test_tools_are_executable_python3_scripts(self):
        for name in self.TOOLS:
            path = os.path.join(TOOLS, name)
            with self.subTest(name):
                self.assertTrue(os.stat(path).st_mode & stat.S_IXUSR, "%s is not executable" % name)
                with open(path) as f:
                    self.assertEqual(f.readline().rstrip("\n"), "#!/usr/bin/env python3")

    def test_a_missing_module_is_named_with_what_to_do(self):
        p = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, %r); import needs; "
                            "needs.modules('sometool', ['json', 'no_such_module'])" % TOOLS],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("sometool: needs no_such_module, which %s lacks" % sys.executable, p.stderr)
        self.assertIn("apt install python3-no_such_module", p.stderr)

    def test_report_under_a_python_without_matplotlib(self):
        """With a pyenv python3 first on PATH (as on the project's dev machine): named, exit 2."""
        import shutil
        bare = shutil.which("python3")
        if not bare or subprocess.run([bare, "-c", "import matplotlib"], capture_output=True).returncode == 0:
            self.skipTest("the python3 on PATH has matplotlib: nothing to show (SKIPPED: visible on purpose)")
        p = subprocess.run([bare, os.path.join(TOOLS, "report"), "x.json"], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("apt install python3-", p.stderr)
        if os.path.exists("/usr/bin/python3"):
            self.assertIn("/usr/bin/python3 has them: /usr/bin/python3 ", p.stderr)


if __name__ == "__main__":
    unittest.main()
