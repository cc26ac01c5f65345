#!/usr/bin/env python3
"""tools/track bisect and confirm end to end, in seconds: a scratch repository whose commits
build (CMake, a worktree each) a stand-in solve_bench (fake_solve_bench.py) with a slowdown
baked into one commit and a commit that does not build; a history of runs of its two ends in a
store; then bisect from the store's change point (the culprit, the skipped commit, the bound
on steps, each step's time, the answer kept and shown by analyze and the dashboard), killed
and resumed, a range where nothing moves, and confirm on an environment change (the lever
that reproduces it, the one that does not, the unconfirmable keys). The timing is
.ci/bench-pr's and the judge the real solve_bench_checks (--checks PATH).

usage: test_track_culprit.py --checks PATH [unittest options]"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import unittest

import numpy as np

from trackhist import TRACK, TrackCase, noisy, write_run
from test_track_bisect import Repo  # noqa: E402

HERE = os.path.dirname(os.path.realpath(__file__))
FAKE = os.path.join(HERE, "fake_solve_bench.py")
CHECKS = None
ROW = "CPU/dgetrs/n:1024/nrhs:1"
CMAKE = """cmake_minimum_required(VERSION 3.20)
project(fake_solve_bench NONE)
file(READ "${CMAKE_SOURCE_DIR}/factor.txt" FACTOR)
string(STRIP "${FACTOR}" FACTOR)
configure_file(fake_solve_bench.py "${CMAKE_BINARY_DIR}/benchmarks/solve_bench" @ONLY
               FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE)
if(FACTOR STREQUAL "broken")
  add_custom_target(solve_bench COMMAND ${CMAKE_COMMAND} -E false)
else()
  add_custom_target(solve_bench)
endif()
"""


def scratch(path, factors):
    """A repository whose commit k builds a solve_bench slowed by factors[k] ("broken": fails)."""
    repo = Repo(path)
    shutil.copy(FAKE, os.path.join(path, "fake_solve_bench.py"))
    with open(os.path.join(path, "CMakeLists.txt"), "w") as f:
        f.write(CMAKE)
    with open(os.path.join(path, ".gitignore"), "w") as f:
        f.write("/build*/\n")
    hashes = []
    for k, factor in enumerate(factors):
        with open(os.path.join(path, "factor.txt"), "w") as f:
            f.write("%s\n" % factor)
        repo.git("add", "-A")
        repo.git("commit", "-q", "--allow-empty", "-m", "commit %d: factor %s" % (k, factor))
        hashes.append(repo.git("rev-parse", "HEAD"))
    return repo, hashes


def steps_in(state):
    with open(state) as f:
        return len(json.load(f)["steps"])


class CulpritCase(TrackCase):
    def track_timed(self, *args, expect=0, timeout=600):
        start = time.monotonic()
        p = subprocess.run([sys.executable, TRACK] + [str(a) for a in args], capture_output=True, text=True,
                           timeout=timeout)
        print("track %s: %.0f s" % (args[0], time.monotonic() - start))
        self.assertEqual(p.returncode, expect, p.stdout[-6000:] + p.stderr[-3000:])
        return p.stdout + p.stderr

    def code_history(self, good, bad, slow=2.0):
        rng = np.random.default_rng(5)
        paths = [write_run(os.path.join(self.dir, "run%02d.json" % k), k,
                           {ROW: noisy(rng, 0.2 * (slow if k >= 8 else 1), 2), "CPU/dgemm/n:1024": noisy(rng, 20, 2)},
                           {"solve_bench_commit": bad if k >= 8 else good, "host_name": "fakebed"})
                 for k in range(16)]
        self.track("add", "--store", self.store, *paths)


class HalfMadeWorktree(CulpritCase):
    def test_a_checkout_killed_midway_is_made_again(self):
        """A kill during `git worktree add` leaves its .git file and part of the files: the next
        build makes the worktree again instead of configuring what is there (CI, 2026-12-02: the
        resumed bisect's cmake found no CMakeLists.txt, then died writing its failure)."""
        sys.path.insert(0, os.path.dirname(TRACK))
        from tracking import measure
        repo, hashes = scratch(os.path.join(self.dir, "scratch"), [1, 2])
        work = os.path.join(self.dir, "work")
        src = os.path.join(work, "src", hashes[1][:12])
        os.makedirs(src)
        with open(os.path.join(src, ".git"), "w") as f:  # what the kill left: no CMakeLists.txt
            f.write("gitdir: %s\n" % os.path.join(repo.path, ".git", "worktrees", "gone"))
        builds = measure.Builds(repo.path, work, [], say=lambda _: None)
        exe, _ = builds.binary(hashes[1])
        self.assertTrue(os.access(exe, os.X_OK))
        self.assertTrue(os.path.exists(os.path.join(src, "CMakeLists.txt")))


class BisectEndToEnd(CulpritCase):
    def test_culprit_from_the_store(self):
        # commit 0 good, 1-8 in the range: 6 slows the row 2x, 4 does not build (the first midpoint)
        factors = [1, 1, 1, 1, "broken", 1, 2, 2, 2]
        repo, hashes = scratch(os.path.join(self.dir, "scratch"), factors)
        self.code_history(hashes[0], hashes[-1])
        work = os.path.join(self.dir, "work")
        common = ["--store", self.store, "--repo", repo.path, "--checks", CHECKS, "--work", work, "--row", "dgetrs"]
        analysis = json.loads(self.track_json("analyze", "--repo", repo.path))
        [cp] = [c for c in analysis["change_points"] if c["row"] == ROW]
        self.assertEqual(len(cp["cause"]["commits"]), 8)

        # killed once it has two steps, then resumed from its state file
        out = os.path.join(self.dir, "bisect.json")
        p = subprocess.Popen([sys.executable, TRACK, "bisect"] + common + ["--json", out], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, start_new_session=True)
        state = os.path.join(work, "state-%s-%s.json" % (hashes[0][:12], hashes[-1][:12]))
        deadline = time.monotonic() + 400
        while time.monotonic() < deadline and p.poll() is None:
            if os.path.exists(state) and steps_in(state) >= 2:
                os.killpg(p.pid, signal.SIGKILL)
                break
            time.sleep(0.5)
        p.wait()
        killed_output = p.stdout.read()
        p.stdout.close()
        self.assertLess(time.monotonic(), deadline, killed_output)
        self.assertFalse(os.path.exists(out))
        text = self.track_timed("bisect", *common, "--json", out)
        print(text)
        self.assertIn("from the state file", text)
        with open(out) as f:
            doc = json.load(f)
        self.assertEqual(doc["culprit"]["commit"], hashes[6], text)
        self.assertEqual(doc["culprit"]["subject"], "commit 6: factor 2")
        self.assertEqual([s["commit"] for s in doc["skipped"]], [hashes[4]])
        self.assertEqual(doc["skipped"][0]["outcome"], "unbuilt")
        self.assertIn("does not build", doc["skipped"][0]["why"])
        self.assertLessEqual(len(doc["steps"]), 3 + 2)  # ceil(log2(8)) + 2
        moved = doc["culprit"]["rows"][0]
        self.assertEqual(moved["row"], ROW)
        self.assertAlmostEqual(moved["change_pct"], 100, delta=15)
        for line in [l for l in text.splitlines() if l.startswith("step ") and not l.endswith(" ...")]:
            self.assertRegex(line, r"\(\d+(\.\d)? (s|min)\)")
        self.assertRegex(text.splitlines()[-2], r"^[0-9a-f]{7,} commit 6: factor 2: %s \+\d+%% \(±\d+%%, \d+ pairs\), "
                         r"\d steps, " % ROW.replace("/", "/"))

        # the record keeps it: analyze and the dashboard show the culprit beside the change point
        analysis = json.loads(self.track_json("analyze", "--repo", repo.path))
        [cp] = [c for c in analysis["change_points"] if c["row"] == ROW]
        self.assertEqual(cp["culprit"]["commit"], hashes[6])
        text = self.track("analyze", "--store", self.store)
        self.assertIn("bisect: %s commit 6: factor 2" % doc["culprit"]["short"], text)
        site = os.path.join(self.dir, "site")
        self.track("dashboard", "--store", self.store, "--out", site)
        with open(os.path.join(site, "fakebed", "index.html")) as f:
            page = f.read()
        self.assertIn("culprit: <code>%s</code> commit 6: factor 2" % doc["culprit"]["short"], page)

        # pending: nothing left (answered); a range where nothing moves: no culprit
        self.assertIn("0 pending change points", self.track("bisect", *common, "--pending"))

    def test_no_commit_reproduces_the_change(self):
        repo, hashes = scratch(os.path.join(self.dir, "scratch"), [1, 1, 1, 1])
        self.code_history(hashes[0], hashes[-1])  # the history moved; the code did not
        out = os.path.join(self.dir, "none.json")
        text = self.track_timed("bisect", "--store", self.store, "--repo", repo.path, "--checks", CHECKS, "--work",
                                os.path.join(self.dir, "work"), "--row", "dgetrs", "--json", out)
        self.assertIn("no commit reproduces the change", text)
        with open(out) as f:
            doc = json.load(f)
        self.assertEqual((doc["outcome"], doc["culprit"], len(doc["steps"])), ("no-culprit", None, 1))

    def test_good_bad_rows_without_a_history(self):
        """--good A --bad B --rows REGEX: the rows the bad build lists, any move compare sees in
        the first step, then that move's size."""
        repo, hashes = scratch(os.path.join(self.dir, "scratch"), [1, 1, 1.5, 1.5, 1.5])
        out = os.path.join(self.dir, "manual.json")
        text = self.track_timed("bisect", "--good", hashes[0], "--bad", hashes[-1], "--rows", "dgetrs", "--repo",
                                repo.path, "--checks", CHECKS, "--work", os.path.join(self.dir, "work"), "--json", out)
        with open(out) as f:
            doc = json.load(f)
        print(text)
        self.assertEqual(doc["culprit"]["commit"], hashes[2], text)
        self.assertEqual(doc["rows"], [ROW])
        self.assertAlmostEqual(doc["culprit"]["rows"][0]["change_pct"], 50, delta=10)
        self.assertLessEqual(len(doc["steps"]), 2 + 2)  # ceil(log2(4)) + 2
        self.track("bisect", "--good", hashes[0], "--bad", hashes[-1], "--repo", repo.path, expect=2)  # no --rows

    def track_json(self, *args):
        out = os.path.join(self.dir, "a.json")
        self.track(args[0], "--store", self.store, "--json", out, *args[1:])
        with open(out) as f:
            return f.read()


class ConfirmEndToEnd(CulpritCase):
    def test_the_key_that_reproduces_the_move(self):
        libs = {}
        for variant in ("openblas-pthread", "openblas-serial"):
            os.makedirs(os.path.join(self.dir, "lib", variant))
            libs[variant] = os.path.join(self.dir, "lib", variant, "libopenblas-r0.3.21.so")
            open(libs[variant], "w").close()
        rng = np.random.default_rng(3)

        def context(k):
            serial = k >= 8
            return {"host_name": "fakebed", "blas_variant": "openblas-serial" if serial else "openblas-pthread",
                    "blas_library": libs["openblas-serial" if serial else "openblas-pthread"],
                    "blas_threads": "1" if serial else "2", "cuda_driver_version": "13.0" if serial else "12.4"}
        paths = [write_run(os.path.join(self.dir, "run%02d.json" % k), k,
                           {"CPU/dgemm/n:1024": noisy(rng, 20 * (1.5 if k >= 8 else 1), 2), ROW: noisy(rng, 0.2, 2)},
                           context(k)) for k in range(16)]
        self.track("add", "--store", self.store, *paths)
        out = os.path.join(self.dir, "confirm.json")
        text = self.track_timed("confirm", "--store", self.store, "--solve-bench", FAKE, "--checks", CHECKS,
                                "--work", os.path.join(self.dir, "work"), "--json", out)
        print(text)
        with open(out) as f:
            doc = json.load(f)
        levers = {lv["lever"]: lv for lv in doc["levers"]}
        self.assertEqual(sorted(levers), ["library", "threads"])
        # the fake runs 1.5x slower with one OpenBLAS thread, and LD_LIBRARY_PATH changes nothing
        self.assertEqual(levers["threads"]["outcome"], "moved")
        self.assertAlmostEqual(levers["threads"]["rows"][0]["change_pct"], 50, delta=10)
        self.assertEqual(levers["library"]["outcome"], "same")
        self.assertIn("LD_LIBRARY_PATH=%s" % os.path.dirname(libs["openblas-serial"]), levers["library"]["how"])
        self.assertEqual(doc["confirmed"], ["threads"])
        self.assertIn("cuda_driver_version", doc["unconfirmable"])
        self.assertIn("blas_threads 2 -> 1", text)
        self.assertIn("reproduces the move", text)
        self.assertIn("cuda_driver_version 12.4 -> 13.0: unconfirmable", text)
        analysis = os.path.join(self.dir, "analysis.json")
        self.track("analyze", "--store", self.store, "--json", analysis)
        with open(analysis) as f:
            [cp] = json.load(f)["change_points"]
        self.assertEqual([c["lever"] for c in cp["confirmed"]], ["threads"])

    def test_coretype(self):
        rng = np.random.default_rng(4)
        paths = [write_run(os.path.join(self.dir, "run%02d.json" % k), k,
                           {"CPU/dgemm/n:1024": noisy(rng, 20 * (2 if k >= 8 else 1), 2)},
                           {"host_name": "fakebed", "blas_core": "Prescott" if k >= 8 else "Haswell",
                            "thread_env": "OPENBLAS_CORETYPE=Prescott" if k >= 8 else ""}) for k in range(16)]
        self.track("add", "--store", self.store, *paths)
        text = self.track_timed("confirm", "--store", self.store, "--solve-bench", FAKE, "--checks", CHECKS,
                                "--work", os.path.join(self.dir, "work"))
        self.assertIn("coretype: blas_core Haswell -> Prescott, thread_env \"\" -> OPENBLAS_CORETYPE=Prescott "
                      "(OPENBLAS_CORETYPE=Haswell -> OPENBLAS_CORETYPE=Prescott)\n    reproduces the move: "
                      "CPU/dgemm/n:1024 +", text)
        self.assertNotIn("variables", text)  # thread_env's only variable is the coretype lever's
        self.assertIn("0 keys unconfirmable", text)


if __name__ == "__main__":
    if "--checks" in sys.argv:
        i = sys.argv.index("--checks")
        CHECKS = os.path.abspath(sys.argv[i + 1])
        del sys.argv[i:i + 2]
    if not CHECKS or not os.access(CHECKS, os.X_OK):
        sys.exit("usage: test_track_culprit.py --checks PATH (solve_bench_checks)")
    unittest.main(verbosity=2)
