#!/usr/bin/env python3
"""tools/verdict.py on synthetic runs (test/data/verdict_cases.txt written as Google Benchmark
JSON with X.audit.json sidecars), and its agreement with the C++ verdict on the same runs.

usage: test_verdict.py [--cxx-dump EXE] [--report] [unittest args]
  --cxx-dump EXE  test/verdict_dump: the C++ verdict of every case, compared with this one
  --report        also run tools/report's verdict hook (needs matplotlib)
"""
import importlib.machinery
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

import synth

TOOLS = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
ROOT = os.path.dirname(TOOLS)
FIXTURE = os.path.join(ROOT, "test", "data", "verdict_cases.txt")
VERDICT_PY = os.path.join(TOOLS, "verdict.py")
REPORT = os.path.join(TOOLS, "report")
sys.path.insert(0, TOOLS)
import verdict  # noqa: E402

CXX_DUMP = None
WITH_REPORT = False


# ---------------------------------------------------------------------------------- the fixture

def read_cases(path=FIXTURE):
    """The fixture's cases: {name: {"context": {}, "rows": [(name, times, counters, error)], "findings": []}}."""
    cases, case = {}, None
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            word, _, rest = line.partition(" ")
            if word == "case":
                case = cases.setdefault(rest, {"context": {}, "rows": [], "findings": []})
            elif word == "end":
                case = None
            elif word == "context":
                key, _, value = rest.partition(" ")
                case["context"][key] = value
            elif word == "row":
                before, _, error = rest.partition(" error=")
                fields = before.split()
                times = [] if fields[1] == "-" else [float(t) for t in fields[1].split(",")]
                counters = {k: float(v) for k, v in (field.split("=", 1) for field in fields[2:])}
                case["rows"].append((fields[0], times, counters, error or None))
            elif word == "finding":
                head, _, message = rest.partition(" | ")
                rule, severity, rows = head.split()
                case["findings"].append({"rule": rule, "severity": severity,
                                         "rows": [] if rows == "-" else rows.split(","), "message": message})
            else:
                raise ValueError("%s:%d: unknown line %r" % (path, number, line))
    return cases


CASES = read_cases()


def case_runs(case):
    """The case's rows as Google Benchmark 1.7 writes them (repetitions, then aggregates)."""
    runs = []
    for name, times, counters, error in case["rows"]:
        runs += synth.runs(name + "/manual_time", times or [0.0], counters, error=error)
    return runs


def write_case(name, directory, jsonl=False):
    """X.json (or X.rows.jsonl) and, where the case has findings, X.audit.json; returns the run file."""
    case = CASES[name]
    stem = os.path.join(directory, name)
    if jsonl:
        path = synth.write_jsonl(stem + ".rows.jsonl", case_runs(case), case["context"])
    else:
        path = synth.write_json(stem + ".json", case_runs(case), case["context"])
    if case["findings"]:
        with open(stem + ".audit.json", "w") as f:
            json.dump({"audit": {"findings": case["findings"], "clean": False,  # solve_bench's whole form
                                 "rules_checked": sorted({x["rule"] for x in case["findings"]}),
                                 "rows_checked": 1}}, f)
    return path


class CaseTest(unittest.TestCase):
    """Each case computed from its JSON files, as tools/report would."""
    _cache = {}

    @classmethod
    def verdict_of(cls, name, jsonl=False):
        key = (name, jsonl)
        if key not in cls._cache:
            with tempfile.TemporaryDirectory() as d:
                cls._cache[key] = verdict.from_files([write_case(name, d, jsonl)])
        return cls._cache[key]["verdict"]

    @staticmethod
    def solve(v, op):
        return next(e for e in v["solves"] if e["op"] == op)

    @staticmethod
    def form(entry, backend):
        return next(f for f in entry["forms"] if f["backend"] == backend)


# ---------------------------------------------------------------------------------- rules

class CrossoverTest(unittest.TestCase):
    def points(self, pairs):
        return [{"n": n, "speedup": s} for n, s in pairs]

    def test_interpolated_in_log_log(self):
        # log s from log 0.5 to log 2 between 512 and 1024: halfway in log n, sqrt(512 * 1024)
        c = verdict.crossover(self.points([(256, 0.25), (512, 0.5), (1024, 2.0), (4096, 8.0)]))
        self.assertEqual(c, {"kind": "crossing", "n": 724, "interpolated": True, "between": [512, 1024]})

    def test_exactly_one_at_a_measured_n(self):
        self.assertEqual(verdict.crossover(self.points([(100, 0.5), (200, 1.0), (400, 3.0)]))["n"], 200)

    def test_the_last_rise_counts(self):
        c = verdict.crossover(self.points([(64, 2.0), (128, 0.5), (256, 0.5), (1024, 2.0), (2048, 4.0)]))
        self.assertEqual((c["kind"], c["n"], c["between"]), ("crossing", 512, [256, 1024]))

    def test_always_and_never(self):
        self.assertEqual(verdict.crossover(self.points([(64, 1.0), (128, 3.0)])),
                         {"kind": "gpu_always", "n": 64, "interpolated": False, "between": None})
        self.assertEqual(verdict.crossover(self.points([(64, 0.1), (128, 0.9)])),
                         {"kind": "cpu_always", "n": 128, "interpolated": False, "between": None})
        self.assertIsNone(verdict.crossover([]))

    def test_a_dip_below_one_at_larger_n_is_mixed(self):
        c = verdict.crossover(self.points([(64, 0.1), (128, 2.0), (256, 1.5), (512, 0.9)]))
        self.assertEqual(c, {"kind": "mixed", "n": 256, "interpolated": False, "between": None,
                             "gpu_wins_at": [128, 256]})

    def test_three_significant_digits_and_halves_up(self):
        self.assertEqual([verdict.fmt_sig(x) for x in (7330.4, 115.2, 1.804, 0.012345, 0, None)],
                         ["7330", "115", "1.80", "0.0123", "0", "–"])
        self.assertEqual([verdict.round_half_up(x) for x in (723.5, 724.49, 2.5)], [724, 724, 3])


class H200LikeTest(CaseTest):
    """(1) fp64 about fp32 on the GPU, the GPU winning above a crossover."""

    def test_crossover_interpolated_between_the_right_sizes(self):
        v = self.verdict_of("h200_like")
        gesv = self.solve(v, "dgesv")
        self.assertEqual(gesv["nrhs"], 1)  # the smallest nrhs both sides have (8 also ran)
        resident = self.form(gesv, "GPU")
        # s = 0.25, 0.5 | 2.0, 7.8, 23.9: between 512 and 1024, at sqrt(512 * 1024) = 724.08
        self.assertEqual(resident["crossover"], {"kind": "crossing", "n": 724, "interpolated": True,
                                                 "between": [512, 1024]})
        pinned = self.form(gesv, "GPU-pinned")["crossover"]
        t = -math.log(0.4) / (math.log(1.5) - math.log(0.4))
        self.assertEqual((pinned["n"], pinned["between"]), (round(512 * 2 ** t), [512, 1024]))
        self.assertEqual(pinned["n"], 828)
        pageable = self.form(gesv, "GPU-pageable")
        self.assertEqual(pageable["crossover"]["between"], [1024, 4096])
        self.assertEqual([p["n"] for p in pageable["points"]], [512, 1024, 4096, 10000])  # n=256 failed
        self.assertIn("GPU faster from n ≈ 724 (interpolated between 512 and 1024)", v["lines"][0])

    def test_the_cpu_side_is_its_best_path(self):
        gesv = self.solve(self.verdict_of("h200_like"), "dgesv")
        paths = {p["n"]: (p["path"], p["ms"]) for p in gesv["cpu_best"]}
        self.assertEqual(paths[256], ("CPU-driver", 0.30))
        self.assertEqual(paths[4096], ("CPU", 115.0))  # the driver's 936 ms is not what the GPU is held to
        self.assertEqual(paths[10000], ("CPU-driver", 1346.0))
        big = gesv["largest"]
        self.assertEqual((big["n"], big["cpu_path"], big["cpu_ms"], big["gpu_ms"]), (10000, "CPU-driver", 1346.0, 56.4))
        self.assertAlmostEqual(big["speedup"], 1346 / 56.4)
        self.assertAlmostEqual(self.form(gesv, "GPU")["points"][3]["speedup"], 115 / 14.7)

    def test_the_last_rise_and_always(self):
        v = self.verdict_of("h200_like")
        # sgesv: faster at 256, slower at 512 and 1024, faster from 2048 on
        self.assertEqual(self.form(self.solve(v, "sgesv"), "GPU")["crossover"]["between"], [1024, 2048])
        self.assertEqual(self.form(self.solve(v, "dposv"), "GPU")["crossover"],
                         {"kind": "gpu_always", "n": 1024, "interpolated": False, "between": None})
        self.assertEqual([e["op"] for e in v["solves"]], ["dgesv", "sgesv", "dposv"])

    def test_fp64_first_class(self):
        f = self.verdict_of("h200_like")["fp64_fp32"]
        self.assertEqual(f["n"], 8192)  # the largest n both GEMMs have
        self.assertAlmostEqual(f["ratio"], 52100 / 55000)
        self.assertEqual((f["class"], f["one_in"], f["advice"]), ("fp64-first-class", 1, verdict.FIRST_CLASS_ADVICE))
        self.assertEqual((f["dsgesv"]["n"], f["dsgesv"]["count"]), (32768, 1))
        self.assertAlmostEqual(f["dsgesv"]["min"], 900 / 520)

    def test_mixed_precision_best_fp64_accurate(self):
        mixed = {m["matrix"]: m for m in self.verdict_of("h200_like")["mixed"]}
        self.assertEqual(list(mixed), ["cond:1e4", "kind:diagdom"])
        diag = mixed["kind:diagdom"]
        # dbgesv is faster still but fails the residual check
        self.assertEqual((diag["n"], diag["best"], diag["op"], diag["refine"], diag["niters"], diag["fell_back"]),
                         (32768, "GPU/dhgesv/n:32768/nrhs:1/kind:diagdom/refine:gmres", "dhgesv", "gmres", 5.0, 0.0))
        self.assertAlmostEqual(diag["speedup"], 900 / 400)
        self.assertEqual(diag["rejected"], ["GPU/dbgesv/n:32768/nrhs:1/kind:diagdom/refine:gmres"])
        cond = mixed["cond:1e4"]
        # dhgesv is faster but its forward error is 1000x dgesv's; dbgesv failed to run: neither
        self.assertEqual((cond["op"], cond["dgesv_ms"], cond["ms"]), ("dsgesv", 50.0, 35.0))
        self.assertEqual(cond["rejected"], ["GPU/dhgesv/n:8192/nrhs:1/cond:1e4/refine:gmres"])

    def test_batched_at_the_largest_batch(self):
        b = self.verdict_of("h200_like")["batched"]
        self.assertEqual([x["op"] for x in b], ["dgesv_batched"])
        self.assertEqual(b[0]["batch"], 10000)
        self.assertEqual((b[0]["best"]["n"], b[0]["best"]["speedup"]), (32, 16.0))
        self.assertEqual((b[0]["worst"]["n"], b[0]["worst"]["cpu_ms"], b[0]["worst"]["gpu_ms"]), (256, 300.0, 400.0))


class ConsumerLikeTest(CaseTest):
    """(2) fp64 GEMM at 1/64 of fp32 and dgesv slower on the GPU: the advice changes."""

    def test_fp64_reduced_and_mixed_precision_advice(self):
        v = self.verdict_of("consumer_like")
        f = v["fp64_fp32"]
        self.assertEqual((f["class"], f["one_in"]), ("fp64-reduced", 64))
        self.assertAlmostEqual(f["ratio"], 200 / 12800)
        self.assertIn("fp64 runs at 1/64 of fp32 on this GPU: put fp64 solves on the CPU or use mixed precision "
                      "(dsgesv: fp32 factorization refined to fp64 accuracy)", f["advice"])
        self.assertIn("GPU/dsgesv ran at 10.0× the speed of GPU/dgesv at n = 8192", f["advice"])
        self.assertNotEqual(f["advice"], self.verdict_of("h200_like")["fp64_fp32"]["advice"])
        self.assertTrue(any("advice: fp64 runs at 1/64" in line for line in v["lines"]))

    def test_cpu_wins_fp64_and_the_gpu_only_sometimes(self):
        v = self.verdict_of("consumer_like")
        gesv = self.solve(v, "dgesv")
        self.assertEqual(self.form(gesv, "GPU")["crossover"]["kind"], "cpu_always")
        self.assertEqual(self.form(gesv, "GPU")["crossover"]["n"], 8192)
        self.assertLess(gesv["largest"]["speedup"], 1)
        self.assertIn("the CPU is 8.75× faster", v["lines"][0])
        sposv = self.form(self.solve(v, "sposv"), "GPU")["crossover"]
        self.assertEqual((sposv["kind"], sposv["gpu_wins_at"]), ("mixed", [2048]))
        m = v["mixed"][0]
        self.assertEqual((m["op"], m["speedup"]), ("dhgesv", 14.0))


class CpuOnlyTest(CaseTest):
    """(3) no GPU rows: said so, nothing else made up, no crash."""

    def test_says_there_are_no_gpu_rows(self):
        v = self.verdict_of("cpu_only")
        self.assertFalse(v["has_gpu_rows"])
        self.assertEqual((v["solves"], v["fp64_fp32"], v["mixed"], v["batched"]), ([], None, [], []))
        self.assertEqual(v["lines"][0], "No GPU rows in this run (gpu_rows: absent: no CUDA device "
                                        "(cudaErrorNoDevice)): nothing to compare the CPU with.")
        self.assertFalse(any("fp64:fp32" in line for line in v["lines"]))
        self.assertEqual(v["caveats"][0]["rule"], "blas_threads")  # run-wide: it touches every CPU number
        md = verdict.markdown({"verdict": v})
        self.assertIn("No GPU rows in this run", md)
        self.assertNotIn("## Solves", md)
        self.assertIn("**blas_threads** (warning) on the whole run", md)


class AuditTest(CaseTest):
    """(4) a finding on a row the verdict used is attached to that entry, and only there."""

    def test_throttled_row_attached_to_its_entry(self):
        v = self.verdict_of("audited")
        gesv = self.solve(v, "dgesv")
        self.assertEqual([c["rule"] for c in gesv["caveats"]], ["gpu_throttled"])
        self.assertIn("dgesv caveat (gpu_throttled): SM clock fell", "\n".join(v["lines"]))
        self.assertEqual(v["fp64_fp32"]["caveats"], [])  # the noisy CPU/sgemm row is not one it used
        self.assertEqual([c["rule"] for c in v["caveats"]], ["debug_benchmark_library"])
        self.assertNotIn("noise", json.dumps(v))
        self.assertIn("- **gpu_throttled** (warning) on dgesv: SM clock", verdict.markdown({"verdict": v}))

    def test_driver_finding_and_timing_suffix(self):
        v = self.verdict_of("h200_like")
        rules = [c["rule"] for c in self.solve(v, "dgesv")["caveats"]]
        # driver_vs_halves names CPU-driver/dgesv/n:4096 (a row compared, not chosen);
        # gpu_throttled names GPU/dgesv/n:10000/nrhs:1/manual_time
        self.assertEqual(rules, ["driver_vs_halves", "gpu_throttled"])
        self.assertEqual(self.solve(v, "sgesv")["caveats"], [])
        self.assertEqual(v["caveats"], [])

    def test_without_a_sidecar_there_are_no_caveats(self):
        with tempfile.TemporaryDirectory() as d:
            path = write_case("audited", d)
            os.remove(os.path.join(d, "audited.audit.json"))
            v = verdict.from_files([path])["verdict"]
        self.assertEqual(self.solve(v, "dgesv")["caveats"], [])

    def test_a_bad_sidecar_is_an_input_error(self):
        with tempfile.TemporaryDirectory() as d:
            path = write_case("audited", d)
            with open(os.path.join(d, "audited.audit.json"), "w") as f:
                f.write("{\"findings\": []}")
            with self.assertRaisesRegex(verdict.sbjson.InputError, "audited.audit.json: malformed audit"):
                verdict.from_files([path])


class EnergyTest(CaseTest):
    """(5) energy where both sides measured it; where not, which side did not."""

    def test_both_sides(self):
        v = self.verdict_of("h200_like")
        e = self.solve(v, "dgesv")["energy"]
        # the CPU's J/solve is the driver's (250), the path used at n=10000, not CPU's 260
        self.assertEqual((e["n"], e["cpu_J"], e["gpu_J"], e["ratio"]), (10000, 250.0, 20.0, 12.5))
        self.assertEqual((e["cpu_GFLOP_per_J"], e["gpu_GFLOP_per_J"]), (2.67, 33.3))
        self.assertIn("dgesv energy at n = 10000: CPU 250 J, GPU 20.0 J per solve: the GPU uses 12.5× less energy.",
                      v["lines"])

    def test_one_side_missing(self):
        v = self.verdict_of("h200_like")
        posv = self.solve(v, "dposv")
        self.assertEqual((posv["energy"], posv["energy_missing"]), (None, ["CPU"]))
        self.assertIn("dposv energy at n = 10000: not measured on the CPU side.", v["lines"])
        audited = self.solve(self.verdict_of("audited"), "dgesv")
        self.assertEqual(audited["energy_missing"], ["GPU"])

    def test_neither_side_said_once(self):
        v = self.verdict_of("consumer_like")
        self.assertTrue(all(e["energy"] is None and e["energy_missing"] == ["CPU", "GPU"] for e in v["solves"]))
        self.assertEqual(sum("nergy" in line for line in v["lines"]), 1)
        self.assertIn("Energy was not measured on either side (no J/solve counters).", v["lines"])


class InputsTest(CaseTest):
    def test_rows_log_and_its_sidecar(self):
        self.assertEqual(self.verdict_of("h200_like", jsonl=True), self.verdict_of("h200_like"))

    def test_cpu_and_gpu_from_separate_files(self):
        case = CASES["audited"]
        with tempfile.TemporaryDirectory() as d:
            cpu = [r for r in case_runs(case) if r["name"].startswith("CPU")]
            gpu = [r for r in case_runs(case) if not r["name"].startswith("CPU")]
            paths = [synth.write_json(os.path.join(d, "cpu.json"), cpu, case["context"]),
                     synth.write_json(os.path.join(d, "gpu.json"), gpu, case["context"])]
            with open(os.path.join(d, "gpu.audit.json"), "w") as f:
                json.dump({"audit": {"findings": case["findings"], "clean": False, "rows_checked": 1,
                                     "rules_checked": sorted({x["rule"] for x in case["findings"]})}}, f)
            self.assertEqual(verdict.from_files(paths)["verdict"], self.verdict_of("audited"))

    def test_command_line(self):
        with tempfile.TemporaryDirectory() as d:
            path = write_case("consumer_like", d)
            out_json, out_md = os.path.join(d, "v.json"), os.path.join(d, "v.md")
            p = subprocess.run([sys.executable, VERDICT_PY, "--json", out_json, "--md", out_md, path],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertTrue(p.stdout.startswith("verdict\n  dgesv (nrhs 1): GPU slower at every n measured"))
            with open(out_json, encoding="utf-8") as f:
                self.assertEqual(json.load(f)["verdict"]["fp64_fp32"]["class"], "fp64-reduced")
            with open(out_md, encoding="utf-8") as f:
                self.assertIn("ratio 0.0156 (1/64), **fp64-reduced**", f.read())
            p = subprocess.run([sys.executable, VERDICT_PY, os.path.join(d, "absent.json")],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 2)
            self.assertIn("absent.json", p.stderr)


# ---------------------------------------------------------------------------------- agreement

def assert_same(test, ours, theirs, where="verdict"):
    """Equal JSON, floats to 1e-12 relative (C++ prints 17 digits; both use the same libm)."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        test.assertEqual(sorted(ours), sorted(theirs), where)
        for key in ours:
            assert_same(test, ours[key], theirs[key], "%s.%s" % (where, key))
    elif isinstance(ours, list) and isinstance(theirs, list):
        test.assertEqual(len(ours), len(theirs), where)
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_same(test, a, b, "%s[%d]" % (where, i))
    elif isinstance(ours, (int, float)) and isinstance(theirs, (int, float)) \
            and not isinstance(ours, bool) and not isinstance(theirs, bool):
        test.assertTrue(math.isclose(ours, theirs, rel_tol=1e-12), "%s: %r vs %r" % (where, ours, theirs))
    else:
        test.assertEqual(ours, theirs, where)


class AgreementTest(unittest.TestCase):
    """The C++ verdict (test/verdict_dump on the same fixture) gives the same JSON, Markdown and console."""

    def test_cpp_and_python_agree(self):
        if not CXX_DUMP:
            self.skipTest("no --cxx-dump EXE given (CTest passes test/verdict_dump)")
        with tempfile.TemporaryDirectory() as d:
            p = subprocess.run([CXX_DUMP, FIXTURE, d], capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            for name in CASES:
                with self.subTest(case=name):
                    ours = verdict.from_files([write_case(name, d)])
                    with open(os.path.join(d, name + ".cpp.verdict.json"), encoding="utf-8") as f:
                        theirs = json.load(f)
                    assert_same(self, ours, theirs, name)
                    for suffix, text in ((".cpp.verdict.md", verdict.markdown(ours)),
                                         (".cpp.console.txt", verdict.console(ours))):
                        with open(os.path.join(d, name + suffix), encoding="utf-8") as f:
                            self.assertEqual(text, f.read())


# ---------------------------------------------------------------------------------- tools/report

def load_report_module():
    loader = importlib.machinery.SourceFileLoader("report", REPORT)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader("report", loader))
    loader.exec_module(module)
    return module


class ReportHookTest(unittest.TestCase):
    """tools/report writes verdict.md and verdict.json for the files it is given, and prints the verdict."""

    def test_report_writes_the_verdict(self):
        if not WITH_REPORT:
            self.skipTest("run with --report (needs matplotlib)")
        with tempfile.TemporaryDirectory() as d:
            path = write_case("h200_like", d)
            out = os.path.join(d, "report")
            p = subprocess.run([sys.executable, REPORT, "--out", out, "--formats", "png", path],
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn("\nverdict\n  dgesv (nrhs 1): GPU faster from n ≈ 724", p.stdout)
            with open(os.path.join(out, "verdict.md"), encoding="utf-8") as f:
                md = f.read()
            self.assertEqual(md, verdict.markdown(verdict.from_files([path])))
            self.assertIn("**driver_vs_halves** (warning) on dgesv", md)
            with open(os.path.join(out, "verdict.json"), encoding="utf-8") as f:
                self.assertEqual(json.load(f)["verdict"]["fp64_fp32"]["class"], "fp64-first-class")


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--cxx-dump" in args:
        i = args.index("--cxx-dump")
        CXX_DUMP = args[i + 1]
        del args[i:i + 2]
    if "--report" in args:
        args.remove("--report")
        WITH_REPORT = True
    unittest.main(argv=[sys.argv[0]] + args)
