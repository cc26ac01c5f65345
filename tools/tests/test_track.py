#!/usr/bin/env python3
"""tools/track on synthetic histories: change points and their causes, creep, the store.
  test_track.py              the tests
  test_track.py --measure    print the false-alarm rate and the detection delay (docs/regressions.md)
"""
import json
import os
import resource
import subprocess
import sys
import time
import unittest

import numpy as np

from trackhist import (BASE_CONTEXT, COMMIT_A, COMMIT_B, ROW_IDS, TrackCase, analysis, changes, entries,
                       noisy, write_run)
import sbjson  # noqa: E402 (trackhist puts tools/ on the path)
from tracking import edivisive, store  # noqa: E402


class ChangePointTest(TrackCase):
    def test_aa_false_alarm_rate(self):
        """Stationary lognormal noise of 3-10% over 30-60 runs: change points on at most 0.5%
        of the series (alpha 0.001, a 2% minimum change)."""
        alarms = total = 0
        for seed in range(240):
            rng = np.random.default_rng(seed)
            runs = (30, 45, 60)[seed % 3]
            alarms += bool(changes(10 * rng.lognormal(0, (0.03, 0.05, 0.10)[seed // 3 % 3], runs), "r%d" % seed))
            total += 1
        print("A/A: %d change points in %d stationary series (%.2f%%)" % (alarms, total, 100 * alarms / total))
        self.assertLessEqual(alarms / total, 0.005)

    def test_aa_store_has_no_change_point(self):
        rng = np.random.default_rng(7)
        names = ["CPU/d%s/n:%d" % (op, n) for op in ("getrf", "potrf", "gemm") for n in (256, 1024, 4096)]
        self.history(40, lambda k: {n: noisy(rng, 1.0 + i, 3 + i % 8) for i, n in enumerate(names)})
        result, text = self.analyze()
        self.assertEqual(result["change_points"], [], text)
        self.assertIn("0 change points", text)

    def steps(self, step, noise_pct, seeds=40, at=20, runs=40):
        """The share of `seeds` series with a step found within one run of it, with its sign
        and its size (within 4 standard errors of the two sides' medians)."""
        located = 0
        for seed in range(seeds):
            x = 10 * np.random.default_rng(100 + seed).lognormal(0, noise_pct / 100, runs)
            x[at:] *= 1 + step
            near = [c for c in changes(x) if abs(c["run_index"] - at) <= 1]
            located += bool(near)
            for c in near:
                self.assertAlmostEqual(c["change_pct"], 100 * step, delta=4 * 1.25 * noise_pct * (2 / 20) ** .5)
        return located / seeds

    def test_a_clear_step_in_few_runs_is_found_whatever_the_shuffles(self):
        """A 2x step in 16 quiet runs (8 a side, 3% noise; the serial OpenBLAS on 2 cores): found
        at run 8 for every seed of the shuffles. With 999 shuffles at alpha 0.001, one shuffle
        reaching the step by chance hid it for one seed in ten."""
        x = np.log(22 * np.random.default_rng(5).lognormal(0, 0.03, 16))
        x[8:] += np.log(2)
        for seed in range(30):
            self.assertEqual([i for i, _ in edivisive.change_points(x, rng=np.random.default_rng(seed))], [8], seed)

    def test_5pct_step_found_within_one_run(self):
        self.assertGreaterEqual(self.steps(0.05, 1.5), 0.95)

    def test_20pct_steps_found_within_one_run(self):
        self.assertGreaterEqual(self.steps(0.20, 5.0), 0.95)
        self.assertGreaterEqual(self.steps(-0.20, 5.0), 0.95)

    def test_a_slowdown_fixed_later_is_two_change_points(self):
        """A slowdown that a later commit undoes (runs 12-21 of 36 at 2x, 10% noise): both ends
        found within one run. A split whose second side ran to the end averaged the fast runs
        after the fix with the slow ones and found neither (results/history, dgetrs)."""
        located = 0
        for seed in range(40):
            x = 10 * np.random.default_rng(300 + seed).lognormal(0, 0.10, 36)
            x[12:22] *= 2
            found = [c["run_index"] for c in changes(x)]
            located += any(abs(i - 12) <= 1 for i in found) and any(abs(i - 22) <= 1 for i in found)
        self.assertGreaterEqual(located / 40, 0.95)

    def test_a_change_in_load_is_named_as_a_cause(self):
        """Other processes' cores during the row (cpu_other_busy), judged by the checks' own bar
        for a loaded host (the audit's other_busy_cores): named when it moved across the change."""
        rng = np.random.default_rng(8)
        paths = self.history(30, lambda k: {"CPU/dposv/n:256/nrhs:1": noisy(rng, 8 if k < 15 else 0.4, 3),
                                            "CPU/dgemm/n:256": noisy(rng, 1, 3)},
                             audit={"clean": True, "findings": [], "thresholds": {"other_busy_cores": 0.5}})
        for k, path in enumerate(paths):  # the runs before 15 shared the host with 1.9 busy cores
            with open(path) as f:
                doc = json.load(f)
            for e in doc["benchmarks"]:
                e["cpu_other_busy"] = 1.9 if k < 15 else 0.1 if "dposv" in e["name"] else 1.7 - 0.1 * (k % 2)
            with open(path, "w") as f:
                json.dump(doc, f)
        store_dir = os.path.join(self.dir, "store2")
        self.track("add", "--store", store_dir, *paths)
        self.store = store_dir
        result, text = self.analyze()
        self.assertEqual([c["row"] for c in result["change_points"]], ["CPU/dposv/n:256/nrhs:1"], text)
        self.assertEqual(result["change_points"][0]["cause"]["load"], [1.9, 0.1])
        self.assertIn("other processes' load 1.90 -> 0.10 cores", text)

    def test_step_in_store_with_sign_size_and_p(self):
        rng = np.random.default_rng(3)
        self.history(40, lambda k: {"CPU/dgetrf/n:1024": noisy(rng, 10 * (1.05 if k >= 25 else 1), 1.0),
                                    "CPU/dpotrf/n:1024": noisy(rng, 8 * (0.8 if k >= 12 else 1), 4.0)})
        result, _ = self.analyze()
        got = {c["row"]: c for c in result["change_points"]}
        self.assertEqual(sorted(got), ["CPU/dgetrf/n:1024", "CPU/dpotrf/n:1024"], result["change_points"])
        up, down = got["CPU/dgetrf/n:1024"], got["CPU/dpotrf/n:1024"]
        self.assertLessEqual(abs(up["run_index"] - 25), 1)
        self.assertLessEqual(abs(down["run_index"] - 12), 1)
        self.assertAlmostEqual(up["change_pct"], 5, delta=1.5)
        self.assertAlmostEqual(down["change_pct"], -20, delta=3)
        self.assertAlmostEqual(up["before_ms"], 10, delta=0.3)
        self.assertLessEqual(up["p"], 0.001)
        self.assertEqual(up["testbed"], "bench1")

    def test_environment_change_is_the_cause(self):
        rng = np.random.default_rng(11)
        cpu = ["CPU/dgesv/n:1024/nrhs:1", "CPU/dgetrf/n:256"]
        gpu = ["GPU/dgesv/n:1024/nrhs:1"]
        self.history(36, lambda k: dict({n: noisy(rng, 5 * (3 if k >= 18 else 1), 3) for n in cpu},
                                        **{n: noisy(rng, 2, 3) for n in gpu}),
                     lambda k: {"blas_core": "Prescott" if k >= 18 else "Haswell"})
        result, text = self.analyze()
        self.assertEqual(sorted(c["row"] for c in result["change_points"]), sorted(cpu), text)
        for c in result["change_points"]:
            self.assertEqual(c["run_index"], 18)
            self.assertEqual(c["cause"], {"environment": {"blas_core": ["Haswell", "Prescott"]}, "commits": []})
            self.assertAlmostEqual(c["change_pct"], 200, delta=15)
        by_row = {c["row"]: c for c in result["change_points"]}
        self.assertEqual(by_row["CPU/dgesv/n:1024/nrhs:1"]["id"], ROW_IDS["CPU/dgesv/n:1024/nrhs:1"])
        self.assertIn("blas_core Haswell -> Prescott", text)

    def test_commit_change_is_the_cause(self):
        rng = np.random.default_rng(5)
        self.history(30, lambda k: {"CPU/dgetrf/n:1024": noisy(rng, 10 * (1.1 if k >= 15 else 1), 2),
                                    "CPU/dgemm/n:1024": noisy(rng, 4, 2)},
                     lambda k: {"solve_bench_commit": COMMIT_B if k >= 15 else COMMIT_A})
        result, text = self.analyze()
        self.assertEqual([c["row"] for c in result["change_points"]], ["CPU/dgetrf/n:1024"], text)
        c = result["change_points"][0]
        self.assertEqual((c["run_index"], c["cause"]), (15, {"environment": {}, "commits": [COMMIT_A, COMMIT_B]}))
        rows = {r["row"]: r for r in result["rows"]}
        self.assertFalse(rows["CPU/dgetrf/n:1024"]["moved_recently"])  # run 15 of 30: not in the last 10
        self.assertEqual(rows["CPU/dgetrf/n:1024"]["last_change"]["run_index"], 15)
        self.assertIsNone(rows["CPU/dgemm/n:1024"]["last_change"])
        # The spread of one run about the row's level, as solve_bench_checks history judges it: 2% here.
        self.assertAlmostEqual(rows["CPU/dgemm/n:1024"]["run_to_run_pct"], 2, delta=1)
        comment = os.path.join(self.dir, "history.md")
        result, _ = self.analyze("--recent", "15", "--markdown", comment)
        self.assertTrue({r["row"]: r for r in result["rows"]}["CPU/dgetrf/n:1024"]["moved_recently"])
        with open(comment) as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[0], "### History on bench1: 30 runs, 1 of 2 rows moved in the last 15")
        self.assertTrue(lines[4].startswith("| `CPU/dgetrf/n:1024` | - |"), lines)
        self.assertIn("**moved recently**: run 15 of 30: +1", lines[4])
        self.assertIn("commits aaaaaaaaaaaa bbbbbbbbbbbb", lines[4])
        self.assertTrue(lines[5].endswith("| none |"), lines)

    def test_commits_listed_from_the_repository(self):
        repo = os.path.join(self.dir, "repo")
        git = lambda *a: subprocess.run(["git", "-C", repo] + list(a), check=True, capture_output=True,
                                        text=True, env=dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
                                                            GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")).stdout
        os.makedirs(repo)
        git("init", "-q")
        for i in range(4):
            git("commit", "-q", "--allow-empty", "-m", "c%d" % i)
        hashes = git("log", "--format=%H").split()[::-1]
        rng = np.random.default_rng(9)
        self.history(24, lambda k: {"CPU/dgetrf/n:1024": noisy(rng, 10 * (1.3 if k >= 12 else 1), 2)},
                     lambda k: {"solve_bench_commit": hashes[3] if k >= 12 else hashes[0]})
        result, _ = self.analyze("--repo", repo)
        self.assertEqual(result["change_points"][0]["cause"]["commits"],
                         git("log", "--format=%h", "%s..%s" % (hashes[0], hashes[3])).split())
        self.assertEqual(len(result["change_points"][0]["cause"]["commits"]), 3)

    def test_change_point_moved_onto_the_recorded_change(self):
        """One run off the boundary where blas_core changed, and nothing changed at its own:
        moved there, once, and only when one neighbour explains it."""
        records = [{"fingerprint": {"blas_core": "Prescott" if k >= 20 else "Haswell"}} for k in range(40)]
        s = analysis.Series("r", "r", None, list(range(40)), [1.0] * 40, [None] * 40)
        for found, expect in ((21, 20), (19, 20), (20, 20), (25, 25)):
            cps = [found]
            moved = analysis.snap(s, cps, analysis.Causes(records))
            self.assertEqual((cps, moved), ([expect], {expect: found} if expect != found else {}))
        records[22]["fingerprint"] = {"blas_core": "Prescott", "blas_threads": "2"}
        cps = [21]  # both neighbours explain it: left where it is
        self.assertEqual((analysis.snap(s, cps, analysis.Causes(records)), cps), ({}, [21]))

    def test_change_below_the_rows_noise_is_not_reported(self):
        rng = np.random.default_rng(2)
        self.history(40, lambda k: {"CPU/dgetrf/n:256": (noisy(rng, 10 * (1.04 if k >= 20 else 1), 0.5), 6.0),
                                    "CPU/dgetrf/n:1024": (noisy(rng, 10 * (1.04 if k >= 20 else 1), 0.5), 1.0)})
        result, _ = self.analyze()
        self.assertEqual([c["row"] for c in result["change_points"]], ["CPU/dgetrf/n:1024"])
        self.assertEqual(result["change_points"][0]["min_change_pct"], 3.0)  # the checks' gate_floor_pct
        result, _ = self.analyze("--min-change", "5")
        self.assertEqual(result["change_points"], [])

    def test_creep_against_a_pinned_baseline(self):
        rng = np.random.default_rng(4)
        paths = self.history(10, lambda k: {"CPU/dgetrf/n:1024": (10 * (1 + 0.005 * k), 1.0),
                                            "CPU/dgemm/n:1024": (noisy(rng, 5, 0.2), 1.0),
                                            # no noise_pct, 10% from run to run: +6% is noise
                                            "CPU/dpotrf/n:1024": 5.3 if k == 9 else 5 if k == 0 else noisy(rng, 5, 10)})
        result, text = self.analyze("--baseline", "0")
        creep = {c["row"]: c for c in result["creep"]}
        self.assertTrue(creep["CPU/dgetrf/n:1024"]["flagged"])
        self.assertAlmostEqual(creep["CPU/dgetrf/n:1024"]["change_pct"], 4.5, delta=0.01)
        self.assertFalse(creep["CPU/dgemm/n:1024"]["flagged"])
        self.assertAlmostEqual(creep["CPU/dpotrf/n:1024"]["change_pct"], 6, delta=0.01)
        self.assertGreater(creep["CPU/dpotrf/n:1024"]["noise_pct"], 10)
        self.assertFalse(creep["CPU/dpotrf/n:1024"]["flagged"])
        self.assertIn("1 of 3 rows beyond their noise", text)
        result, _ = self.analyze("--baseline", paths[8])  # a run file, not stored: -> its testbed
        self.assertAlmostEqual({c["row"]: c for c in result["creep"]}["CPU/dgetrf/n:1024"]["change_pct"],
                               100 * (1.045 / 1.04 - 1), delta=0.01)

    def test_fast_enough(self):
        """60 runs x 300 rows, some with a change: well under a minute of CPU time (the wall time
        is the machine's load: 36 s alone at load 12 on 2 cores, more beside other tests)."""
        rng = np.random.default_rng(1)
        names = ["CPU/d%s/n:%d" % (op, n) for op in ("getrf", "potrf", "gemm") for n in range(100)]
        self.history(60, lambda k: {n: noisy(rng, (1 + i % 7) * (1.2 if k >= 40 and i % 10 == 0 else 1), 4)
                                    for i, n in enumerate(names)})
        start, cpu = time.time(), resource.getrusage(resource.RUSAGE_CHILDREN)
        result, _ = self.analyze()
        took = time.time() - start
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu_s = used.ru_utime + used.ru_stime - cpu.ru_utime - cpu.ru_stime
        print("analyze of 60 runs x 300 rows: %.1f s of CPU, %.1f s wall, %d change points"
              % (cpu_s, took, len(result["change_points"])))
        self.assertLess(cpu_s, 45)
        self.assertGreaterEqual(len(result["change_points"]), 25)


class StoreTest(TrackCase):
    def files(self):
        return sorted(os.path.relpath(os.path.join(d, f), self.store)
                      for d, _, fs in os.walk(self.store) for f in fs) if os.path.isdir(self.store) else []

    def test_bad_input_refused_with_its_name(self):
        """Each file that is not a run is refused with its name and problem; the good run given
        with it is stored all the same (exit 2)."""
        good = write_run(os.path.join(self.dir, "good.json"), 0, {"CPU/dgetrf/n:64": 1.0})
        cases = {"empty.json": "", "text.json": "not json {", "other.json": json.dumps({"a": 1}),
                 "gbench.json": json.dumps({"context": {"date": "2026-01-01T00:00:00+00:00"},
                                            "benchmarks": entries("BM_x", 1.0)}),
                 "nodate.json": json.dumps({"context": {"solve_bench_version": "0.1.0"},
                                            "benchmarks": entries("CPU/x/n:1", 1.0)}),
                 "norows.json": json.dumps({"context": dict(BASE_CONTEXT, date="2026-01-01T00:00:00+00:00"),
                                            "benchmarks": []})}
        for name, text in cases.items():
            path = os.path.join(self.dir, name)
            with open(path, "w") as f:
                f.write(text)
            out = self.track("add", "--store", self.store, good, path, expect=2)
            self.assertIn("refused " + path, out)
            self.assertIn("1 file refused, %d run%s stored, %d already stored" % ((1, "", 0) if name == "empty.json"
                                                                                  else (0, "s", 1)), out)
            self.assertEqual(len(self.files()), 1, name)
        out = self.track("add", "--store", self.store, os.path.join(self.dir, "absent.json"), expect=2)
        self.assertIn("absent.json", out)

    def test_stored_run(self):
        audit = {"clean": False, "rules_checked": ["blas_threads"], "rows_checked": 3, "findings": [
            {"rule": "blas_threads", "severity": "warning", "rows": [], "message": "one BLAS thread"}]}
        path = write_run(os.path.join(self.dir, "r.json"), 3, {"CPU/dgesv/n:1024/nrhs:1": (2.0, 1.5),
                                                               "GPU/dgesv/n:1024/nrhs:1": 0.5,
                                                               "CPU/dgetrf/n:64": 1.0},
                         {"gpu_name": "H200", "not_kept": "x"}, audit=audit, verdict="# Verdict\n")
        with open(path) as f:
            doc = json.load(f)
        bad = dict(doc["benchmarks"][0], run_name="CPU/bad/n:1/manual_time", error_occurred=True,
                   error_message="no memory")
        del bad["id"]
        doc["benchmarks"] += [bad]
        with open(path, "w") as f:
            json.dump(doc, f)
        self.track("add", "--store", self.store, path)
        [stored] = self.files()
        self.assertRegex(stored, r"^bench1/20260104T030000Z-[0-9a-f]{10}\.json$")
        with open(os.path.join(self.store, stored)) as f:
            record = json.load(f)
        rows = {r["name"]: r for r in record["rows"]}
        self.assertEqual(rows["CPU/dgesv/n:1024/nrhs:1"]["id"], ROW_IDS["CPU/dgesv/n:1024/nrhs:1"])
        keys = {r["name"]: r["key"] for r in store.load_stored(os.path.join(self.store, stored))["rows"]}
        self.assertEqual(keys["CPU/dgesv/n:1024/nrhs:1"],
                         sbjson.row_key_of(ROW_IDS["CPU/dgesv/n:1024/nrhs:1"], "-"))  # the tools' one row key
        self.assertEqual(keys["CPU/dgetrf/n:64"], "CPU/dgetrf/n:64")
        self.assertNotIn("key", rows["CPU/dgetrf/n:64"])  # derived from the id or name, not stored
        self.assertAlmostEqual(rows["CPU/dgesv/n:1024/nrhs:1"]["median_ms"], 2.0)
        self.assertEqual((rows["CPU/dgesv/n:1024/nrhs:1"]["noise_pct"], rows["CPU/dgesv/n:1024/nrhs:1"]["samples"],
                          rows["CPU/dgesv/n:1024/nrhs:1"]["repetitions"]), (1.5, 10, 3))
        self.assertAlmostEqual(rows["GPU/dgesv/n:1024/nrhs:1"]["median_ms"], 0.5)  # from us
        self.assertEqual((rows["CPU/bad/n:1"]["error"], rows["CPU/bad/n:1"]["median_ms"]), ("no memory", None))
        self.assertEqual(record["fingerprint"]["gpu_name"], "H200")
        self.assertEqual(record["fingerprint"]["blas_core"], "Haswell")
        self.assertNotIn("not_kept", record["fingerprint"])
        self.assertNotIn("num_cpus", record["fingerprint"])
        self.assertEqual(record["audit"]["findings"][0]["rule"], "blas_threads")
        self.assertEqual(record["verdict_md"], "# Verdict\n")
        self.track("add", "--store", self.store, "--testbed", "ci runner/1", path)
        self.assertTrue(any(f.startswith("ci_runner_1/") for f in self.files()), self.files())

    def test_every_format_and_sidecars_in_a_glob(self):
        """`add dir/r.*`: r.json stored, its rows log the same run (stored once), the sidecars
        (audit, verdict JSON and Markdown, CSV) skipped and said; a killed run's .partial log
        stored without its torn last line; a sidecar alone: no run, exit 2."""
        audit = {"clean": True, "findings": []}
        path = write_run(os.path.join(self.dir, "r.json"), 0, {"CPU/dgetrf/n:64": 1.0, "CPU/dgemm/n:64": 2.0},
                         audit=audit, verdict="# Verdict\n")
        with open(path) as f:
            doc = json.load(f)
        with open(os.path.join(self.dir, "r.rows.jsonl"), "w") as f:  # as solve_bench writes it
            f.write(json.dumps({"context": doc["context"]}) + "\n")
            f.writelines(json.dumps(e) + "\n" for e in doc["benchmarks"])
        with open(os.path.join(self.dir, "r.verdict.json"), "w") as f:
            json.dump({"verdict": {}}, f)
        with open(os.path.join(self.dir, "r.csv"), "w") as f:
            f.write("name,iterations\n")
        glob = sorted(os.path.join(self.dir, n) for n in os.listdir(self.dir) if n.startswith("r."))
        self.assertEqual(len(glob), 6)
        out = self.track("add", "--store", self.store, *glob)
        [stored] = self.files()
        for sidecar in ("r.audit.json", "r.verdict.json", "r.verdict.md", "r.csv"):
            self.assertIn("skipped %s (a sidecar, not a run)" % os.path.join(self.dir, sidecar), out)
        self.assertIn("already stored %s (r.rows.jsonl, 2 rows)" % os.path.join(self.store, stored), out)
        with open(os.path.join(self.store, stored)) as f:
            record = json.load(f)
        self.assertEqual((record["source"]["file"], record["verdict_md"], record["audit"]["clean"]),
                         ("r.json", "# Verdict\n", True))
        out = self.track("add", "--store", self.store, "--testbed", "logs", os.path.join(self.dir, "r.rows.jsonl"))
        self.assertIn("stored", out)  # a rows log alone is a run too
        with open(os.path.join(self.dir, "k.rows.jsonl.partial"), "w") as f:  # a killed sweep's log
            f.write(json.dumps({"context": dict(doc["context"], date="2026-02-01T00:00:00+00:00")}) + "\n")
            f.write(json.dumps(doc["benchmarks"][0]) + "\n" + json.dumps(doc["benchmarks"][1])[:40])
        with open(os.path.join(self.dir, "k.audit.json"), "w") as f:
            json.dump({"audit": {"clean": False, "rules_checked": [], "rows_checked": 1, "findings": []}}, f)
        out = self.track("add", "--store", self.store, "--testbed", "killed", os.path.join(self.dir, "k.rows.jsonl.partial"))
        self.assertIn("ignoring the unfinished last line", out)
        [partial] = [f for f in self.files() if f.startswith("killed/")]
        with open(os.path.join(self.store, partial)) as f:
            record = json.load(f)
        self.assertEqual([r["name"] for r in record["rows"]], ["CPU/dgetrf/n:64"])
        self.assertFalse(record["audit"]["clean"])  # k.audit.json: the sidecar of the .partial log
        out = self.track("add", "--store", self.store, os.path.join(self.dir, "r.audit.json"), expect=2)
        self.assertIn("no run among the files given", out)

    def test_aggregates_only(self):
        rows = [dict(e, name="CPU/x/n:8/manual_time_" + a, run_type="aggregate", aggregate_name=a, real_time=t)
                for e in entries("CPU/x/n:8", 1.0, reps=1) for a, t in (("mean", 9.0), ("median", 4.0))]
        path = os.path.join(self.dir, "agg.json")
        with open(path, "w") as f:
            json.dump({"context": dict(BASE_CONTEXT, date="2026-01-01T00:00:00Z"), "benchmarks": rows}, f)
        self.track("add", "--store", self.store, path)
        [stored] = self.files()
        with open(os.path.join(self.store, stored)) as f:
            self.assertEqual(json.load(f)["rows"][0]["median_ms"], 4.0)

    def test_never_overwrites(self):
        path = write_run(os.path.join(self.dir, "r.json"), 0, {"CPU/dgetrf/n:64": 1.0})
        self.track("add", "--store", self.store, path)
        [stored] = self.files()
        full = os.path.join(self.store, stored)
        before = os.stat(full)
        self.assertIn("already stored", self.track("add", "--store", self.store, path))
        self.assertEqual((os.stat(full).st_ino, os.stat(full).st_mtime_ns), (before.st_ino, before.st_mtime_ns))
        with open(full, "w") as f:
            f.write("changed by hand")
        out = self.track("add", "--store", self.store, path, expect=2)
        self.assertIn("not overwritten", out)
        with open(full) as f:
            self.assertEqual(f.read(), "changed by hand")
        self.assertEqual(self.files(), [stored])  # no temporary file left
        out = self.track("analyze", "--store", self.store, expect=2)
        self.assertIn(stored, out)

    def test_prune_keeps_the_newest_per_testbed(self):
        for k in range(8):
            write_run(os.path.join(self.dir, "a%d.json" % k), k, {"CPU/x/n:1": 1.0 + k})
        for k in range(3):
            write_run(os.path.join(self.dir, "b%d.json" % k), k, {"CPU/x/n:1": 1.0 + k}, {"host_name": "other"})
        runs = sorted(os.path.join(self.dir, f) for f in os.listdir(self.dir) if f.endswith(".json"))
        self.track("add", "--store", self.store, *runs)
        out = self.track("prune", "--store", self.store, "--keep", 5)
        self.assertEqual(out.count("removed"), 3)
        files = self.files()
        self.assertEqual(len([f for f in files if f.startswith("bench1/")]), 5)
        self.assertEqual(len([f for f in files if f.startswith("other/")]), 3)
        self.assertEqual(min(f for f in files if f.startswith("bench1/"))[7:22], "20260104T030000")
        self.track("prune", "--store", self.store, "--keep", 0, expect=2)


def detected(values, at, runs_after):
    """Whether a change within one run of `at` is found in values[:at + runs_after]."""
    return any(abs(c["run_index"] - at) <= 1 for c in changes(values[:at + runs_after]))


def measure():
    print("false alarms: series with a change point, of 1000 stationary lognormal series")
    for noise in (3, 5, 10):
        for runs in (30, 60):
            alarms = 0
            for seed in range(1000):
                rng = np.random.default_rng([noise, runs, seed])  # other series for each noise
                alarms += bool(changes(10 * rng.lognormal(0, noise / 100, runs), str(seed)))
            print("  noise %2d%%, %d runs: %.2f%%" % (noise, runs, alarms / 10))
    print("steps after 30 stationary runs, 200 seeds: found within one run of the step with 10 runs "
          "after it; detection delay = runs after the step until it is first found (median, 90th pct)")
    for step in (5, 10, 20):
        for noise in (1, 2, 3, 5):
            found, delays = 0, []
            for seed in range(200):
                rng = np.random.default_rng(5000 + seed)
                x = 10 * rng.lognormal(0, noise / 100, 40)
                x[30:] *= 1 + step / 100
                found += detected(x, 30, 10)
                delays.append(next((k for k in range(3, 11) if detected(x, 30, k)), 99))
            delays.sort()
            print("  step %2d%%, noise %d%%: found %5.1f%%, delay %s, %s runs"
                  % (step, noise, found / 2, delays[100] if delays[100] < 99 else ">10",
                     delays[180] if delays[180] < 99 else ">10"))
    print("a step at run 20 of 40, 200 seeds: found within one run of it, and at it")
    for step, noise in ((5, 1), (5, 2), (5, 3), (20, 5)):
        near = exact = 0
        for seed in range(200):
            x = 10 * np.random.default_rng([step, noise, seed]).lognormal(0, noise / 100, 40)
            x[20:] *= 1 + step / 100
            found = [c["run_index"] for c in changes(x)]
            near += any(abs(i - 20) <= 1 for i in found)
            exact += 20 in found
        print("  step %2d%%, noise %d%%: %5.1f%%, %5.1f%%" % (step, noise, near / 2, exact / 2))


if __name__ == "__main__":
    if "--measure" in sys.argv:
        measure()
        sys.exit(0)
    unittest.main(verbosity=2)
