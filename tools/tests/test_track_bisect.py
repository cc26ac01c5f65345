#!/usr/bin/env python3
"""tools/track bisect's search (tracking.bisect) with a fake oracle on real git repositories:
the steps it takes and their bound, a commit that does not build and one that stays undecided
(skipped, named; next to the culprit: both named), a range where nothing moves (no culprit),
a killed and a budget-cut bisect resumed from its state file (no step measured twice), merges
(the culprit inside a merged branch; the merge itself when only the merge moves), and the
classification of compare's rows against a change point's size (tracking.measure)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
from tracking import bisect, confirm, measure  # noqa: E402
from tracking.bisect import MOVED, SAME, UNBUILT, UNDECIDED, Step  # noqa: E402

GIT_ENV = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t")


class Repo:
    """A scratch repository: commit("name") makes an empty commit and returns its hash."""

    def __init__(self, path):
        self.path = path
        os.makedirs(path)
        self.git("init", "-q", "-b", "main")

    def git(self, *args) -> str:
        return subprocess.run(["git", "-C", self.path] + list(args), check=True, capture_output=True, text=True,
                              env=GIT_ENV).stdout.strip()

    def commit(self, message) -> str:
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")


class Fake:
    """The oracle: a candidate moved when it holds the culprit and its reference does not."""

    def __init__(self, repo: Repo, culprit: str, unbuilt=(), undecided=(), interrupt_at=None):
        self.repo, self.culprit, self.unbuilt, self.undecided = repo, culprit, set(unbuilt), set(undecided)
        self.calls = []
        self.interrupt_at = interrupt_at

    def holds(self, commit):
        return subprocess.run(["git", "-C", self.repo.path, "merge-base", "--is-ancestor", self.culprit, commit],
                              env=GIT_ENV).returncode == 0

    def __call__(self, candidate, reference):
        if self.interrupt_at is not None and len(self.calls) == self.interrupt_at:
            raise KeyboardInterrupt  # a kill in the middle of a step
        self.calls.append((candidate, reference))
        if candidate in self.unbuilt:
            return Step(candidate, reference, UNBUILT, why="does not build")
        if candidate in self.undecided:
            return Step(candidate, reference, UNDECIDED, why="undecided after 40 pairs")
        moved = self.holds(candidate) and not self.holds(reference)
        return Step(candidate, reference, MOVED if moved else SAME,
                    rows=[{"row": "CPU/dgetrs/n:1024/nrhs:1", "change_pct": 250.0 if moved else 0.5,
                           "noise_pct": 4.0, "pairs": 16, "outcome": MOVED if moved else SAME}], seconds=60)


class SearchTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name
        self.repo = Repo(os.path.join(self.dir, "repo"))
        self.good = self.repo.commit("good")
        self.commits = [self.repo.commit("c%d" % i) for i in range(10)]
        self.bad = self.commits[-1]

    def tearDown(self):
        self._tmp.cleanup()

    def search(self, fake, state_path=None, max_steps=20, max_seconds=1e9, settings=None):
        state = bisect.State(state_path or os.path.join(self.dir, "state.json"), settings or {"case": 1})
        lines = []
        search = bisect.Search(bisect.Git(self.repo.path), fake, state, max_steps, max_seconds, lines.append)
        return search.run(self.good, self.bad), lines

    def test_every_culprit_found_within_the_bound(self):
        """Each of the ten commits as the culprit: found, each step against the last good commit,
        in at most 1 + ceil(log2(10)) = 5 steps (the task's bound is ceil(log2(10)) + 2 = 6)."""
        for k, culprit in enumerate(self.commits):
            fake = Fake(self.repo, culprit)
            result, lines = self.search(fake, os.path.join(self.dir, "state%d.json" % k))
            self.assertEqual((result.outcome, result.culprit), ("culprit", culprit), lines)
            self.assertLessEqual(len(fake.calls), bisect.bound(10))
            self.assertEqual(fake.calls[0], (self.bad, self.good))
            good = self.good
            for candidate, reference in fake.calls[1:]:
                self.assertEqual(reference, good)  # against the last commit known good
                if not fake.holds(candidate):
                    good = candidate
            self.assertEqual(result.evidence.commit, culprit if culprit != self.bad else self.bad)
            done = [line for line in lines if not line.endswith(" ...")]  # each step's result, with its time
            self.assertTrue(done and all(" (" in line and "s)" in line for line in done), lines)

    def test_no_commit_reproduces_the_change(self):
        outside = self.good  # the change came before the range (with the machine)
        fake = Fake(self.repo, outside)
        result, _ = self.search(fake)
        self.assertEqual((result.outcome, result.culprit), ("no-culprit", None))
        self.assertIn("no commit reproduces the change", result.message)
        self.assertEqual(len(fake.calls), 1)

    def test_a_commit_that_does_not_build_is_skipped_and_named(self):
        culprit = self.commits[6]
        fake = Fake(self.repo, culprit, unbuilt={self.commits[4]})  # the first midpoint
        result, lines = self.search(fake)
        self.assertEqual((result.outcome, result.culprit), ("culprit", culprit))
        self.assertEqual([s.commit for s in result.skipped], [self.commits[4]])
        self.assertEqual(result.skipped[0].outcome, UNBUILT)
        self.assertTrue(any("unbuilt" in line for line in lines), lines)
        self.assertLessEqual(len(fake.calls), bisect.bound(10) + 1)

    def test_skipped_next_to_the_culprit_leaves_both_named(self):
        culprit = self.commits[6]
        fake = Fake(self.repo, culprit, unbuilt={self.commits[5]}, undecided=set())
        result, _ = self.search(fake)
        self.assertEqual(result.outcome, "ambiguous")
        self.assertEqual(result.candidates, [self.commits[5], culprit])
        short = self.repo.git("rev-parse", "--short", self.commits[5])
        self.assertIn(short, result.message)
        fake = Fake(self.repo, culprit, undecided={self.commits[5]})
        result, _ = self.search(fake, os.path.join(self.dir, "state-undecided.json"))
        self.assertEqual((result.outcome, [s.outcome for s in result.skipped]), ("ambiguous", [UNDECIDED]))

    def test_undecided_bad_against_good(self):
        fake = Fake(self.repo, self.commits[3], undecided={self.bad})
        result, _ = self.search(fake)
        self.assertEqual(result.outcome, "undecided")

    def test_a_killed_bisect_goes_on_where_it_stopped(self):
        culprit = self.commits[2]
        whole = Fake(self.repo, culprit)
        expected, _ = self.search(whole, os.path.join(self.dir, "whole.json"))
        state = os.path.join(self.dir, "killed.json")
        killed = Fake(self.repo, culprit, interrupt_at=2)
        with self.assertRaises(KeyboardInterrupt):
            self.search(killed, state)
        with open(state) as f:
            self.assertEqual(len(json.load(f)["steps"]), 2)  # the steps that finished
        resumed = Fake(self.repo, culprit)
        result, lines = self.search(resumed, state)
        self.assertEqual(result.culprit, expected.culprit)
        self.assertEqual(killed.calls + resumed.calls, whole.calls)  # no step measured twice
        self.assertEqual(sum("from the state file" in line for line in lines), 2, lines)

    def test_a_budget_cut_bisect_resumes(self):
        culprit = self.commits[7]
        state = os.path.join(self.dir, "budget.json")
        first = Fake(self.repo, culprit)
        result, _ = self.search(first, state, max_steps=2)
        self.assertEqual(result.outcome, "budget")
        self.assertIn(culprit, result.candidates)
        self.assertEqual(len(first.calls), 2)
        result, _ = self.search(Fake(self.repo, culprit), state, max_seconds=60)  # 2 x 60 s recorded
        self.assertEqual(result.outcome, "budget")
        second = Fake(self.repo, culprit)
        result, _ = self.search(second, state)
        self.assertEqual(result.culprit, culprit)
        self.assertNotIn(first.calls[0], second.calls)

    def test_a_state_file_of_another_bisect_is_refused(self):
        state = os.path.join(self.dir, "other.json")
        self.search(Fake(self.repo, self.commits[1]), state, settings={"rows": ["a"]})
        with self.assertRaisesRegex(bisect.BisectError, "another bisect .*rows"):
            self.search(Fake(self.repo, self.commits[1]), state, settings={"rows": ["b"]})

    def merged(self):
        """main: good, m0, M (merging b0 b1 b2, forked at good), m1; (the setUp commits unused)."""
        repo = Repo(os.path.join(self.dir, "merges"))
        good = repo.commit("good")
        m0 = repo.commit("m0")
        repo.git("checkout", "-q", "-b", "topic", good)
        branch = [repo.commit("b%d" % i) for i in range(3)]
        repo.git("checkout", "-q", "main")
        repo.git("merge", "-q", "--no-ff", "-m", "merge topic", "topic")
        merge = repo.git("rev-parse", "HEAD")
        m1 = repo.commit("m1")
        return repo, good, m0, branch, merge, m1

    def test_into_a_merged_branch(self):
        repo, good, m0, branch, merge, m1 = self.merged()
        self.repo = repo
        self.good, self.bad = good, m1
        fake = Fake(repo, branch[1])
        result, lines = self.search(fake)
        self.assertEqual((result.outcome, result.culprit, result.merge), ("culprit", branch[1], merge), lines)
        self.assertIn((branch[2], good), fake.calls)  # the branch's tip against its base

    def test_the_merge_itself(self):
        """Only the merge moves (the branch alone does not): the merge is the culprit."""
        repo, good, m0, branch, merge, m1 = self.merged()
        self.repo = repo
        self.good, self.bad = good, m1

        class MergeOnly(Fake):
            def holds(self, commit):
                return super().holds(commit) and commit not in branch

        fake = MergeOnly(repo, merge)
        result, lines = self.search(fake)
        self.assertEqual((result.outcome, result.culprit, result.merge), ("culprit", merge, None), lines)
        self.assertTrue(any("the merge" in line for line in lines), lines)

    def test_the_answer_as_json_and_one_line(self):
        culprit = self.commits[3]
        result, _ = self.search(Fake(self.repo, culprit))
        doc = bisect.result_json(result, bisect.Git(self.repo.path), {"rows": ["CPU/dgetrs/n:1024/nrhs:1"]})
        self.assertEqual(doc["culprit"]["commit"], culprit)
        self.assertEqual(doc["culprit"]["subject"], "c3")
        self.assertEqual([s["commit"] for s in doc["steps"]][0], self.bad)
        for s in doc["steps"]:
            self.assertIn(s["outcome"], (MOVED, SAME))
            self.assertEqual(sorted(s["rows"][0]), ["change_pct", "noise_pct", "outcome", "pairs", "row"])
        line = bisect.culprit_line(doc)
        self.assertRegex(line, r"^[0-9a-f]{7,} c3: CPU/dgetrs/n:1024/nrhs:1 \+250% \(±4%, 16 pairs\), \d steps, \d")


class ClassifyTest(unittest.TestCase):
    def row(self, status, change, noise=None, detectable=None, threshold=3.0):
        return {"status": status, "change_pct": change, "pair_noise_pct": noise, "detectable_pct": detectable,
                "threshold_pct": threshold, "why": "w"}

    def test_against_the_change_points_size(self):
        self.assertAlmostEqual(bisect.half_log(258), 89.2, delta=0.1)
        self.assertAlmostEqual(bisect.half_log(20), 9.54, delta=0.01)
        cases = [(self.row("slower", 250, 4), 258, MOVED),
                 (self.row("slower", 95, 20), 258, MOVED),         # beyond noise, at least half the size
                 (self.row("slower", 12, 3), 258, SAME),           # a smaller move: not this change
                 (self.row("same", 1, 5), 20, SAME),
                 (self.row("same", 2, 9), 20, UNDECIDED),          # a move of half the change could hide
                 (self.row("faster", -30, 5), 20, SAME),
                 (self.row("undecided", 1, None, 6), 20, SAME),    # compare could have seen 6%
                 (self.row("undecided", 1, None, 12), 20, UNDECIDED),
                 (self.row("error", None), 20, UNDECIDED),
                 (self.row("slower", 30, 5), None, MOVED),         # --good/--bad: any move compare sees
                 (self.row("faster", -30, 5), None, MOVED),
                 (self.row("same", 1, 5), None, SAME)]
        for row, expected, outcome in cases:
            self.assertEqual(measure.classify(row, expected)[0], outcome, (row, expected))

    def test_a_faster_change_point_read_back(self):
        self.assertAlmostEqual(measure.back(100.0, True), -50.0)
        self.assertEqual(measure.back(100.0, False), 100.0)

    def test_anchored_filter(self):
        self.assertEqual(measure.anchored(["CPU/dgetrs/n:1024/nrhs:1", "CPU/x.y"]),
                         r"^(CPU/dgetrs/n:1024/nrhs:1|CPU/x\.y)/manual_time$")

    def test_flags_for_the_rows(self):
        ids = [{"backend": "CPU", "op": "getrs", "precision": "d", "n": 1024, "nrhs": 1},
               {"backend": "CPU", "op": "gemm", "precision": "s", "n": 256}]
        self.assertEqual(measure.flags_for(ids), ["--sizes=256,1024", "--nrhs=1", "--precisions=d,s"])
        self.assertEqual(measure.flags_for([None]), [])


class LeversTest(unittest.TestCase):
    """confirm's keys: which lever switches each, how, and why the others cannot be."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.libdir = self._tmp.name
        for variant in ("openblas-pthread", "openblas-serial"):
            os.makedirs(os.path.join(self.libdir, variant))
            open(os.path.join(self.libdir, variant, "libopenblas-r0.3.21.so"), "w").close()

    def tearDown(self):
        self._tmp.cleanup()

    def levers(self, env, **kw):
        found, unconfirmable = confirm.levers(env, libdirs=[self.libdir], cores=kw.get("cores", 2), gpus=kw.get("gpus", {}))
        return {lv.name: lv for lv in found}, unconfirmable

    def test_pthread_to_serial(self):
        files = [os.path.join(self.libdir, v, "libopenblas-r0.3.21.so") for v in ("openblas-pthread", "openblas-serial")]
        env = {"blas_variant": ["openblas-pthread", "openblas-serial"], "blas_library": files,
               "blas_config": ["OpenBLAS 0.3.21 ... MAX_THREADS=64", "OpenBLAS 0.3.21 ... SINGLE_THREADED"],
               "blas_threads": ["2", "1"], "cuda_driver_version": ["12.4", "13.0"]}
        levers, unconfirmable = self.levers(env)
        self.assertEqual(sorted(levers), ["library", "threads"])
        library = levers["library"]
        self.assertEqual(sorted(library.keys), ["blas_config", "blas_library", "blas_threads", "blas_variant"])
        self.assertEqual(library.before["env"], {"LD_LIBRARY_PATH": os.path.join(self.libdir, "openblas-pthread")})
        self.assertEqual(library.after["env"], {"LD_LIBRARY_PATH": os.path.join(self.libdir, "openblas-serial")})
        self.assertEqual(levers["threads"].after["env"]["OPENBLAS_NUM_THREADS"], "1")
        self.assertEqual(levers["threads"].before["env"]["OMP_NUM_THREADS"], "2")
        self.assertEqual(list(unconfirmable), ["cuda_driver_version"])
        self.assertIn("driver", unconfirmable["cuda_driver_version"])

    def test_the_variant_where_the_run_named_the_link(self):
        """Runs from before links were resolved name /etc/alternatives' link on both sides: the
        variant's folder in the system's library folders is switched instead."""
        link = os.path.join(self.libdir, "libopenblas.so.0")
        os.symlink(os.path.join(self.libdir, "openblas-pthread", "libopenblas-r0.3.21.so"), link)
        levers, _ = self.levers({"blas_variant": ["openblas-pthread", "openblas-serial"], "blas_library": [link, link]})
        self.assertEqual(levers["library"].after["env"]["LD_LIBRARY_PATH"], os.path.join(self.libdir, "openblas-serial"))
        levers, unconfirmable = self.levers({"blas_variant": ["openblas-pthread", "openblas-openmp"]})
        self.assertEqual(levers, {})
        self.assertIn("not on this machine (openblas-openmp)", unconfirmable["blas_variant"])

    def test_coretype_threads_variables_cores_gpu(self):
        env = {"blas_core": ["Haswell", "Prescott"], "blas_config": ["... Haswell ...", "... Prescott ..."],
               "thread_env": ["OMP_PROC_BIND=true", "OPENBLAS_CORETYPE=Prescott"],
               "cores_available": ["2", "1"], "gpu_name": ["NVIDIA H100", "NVIDIA H200"]}
        levers, unconfirmable = self.levers(env, gpus={"NVIDIA H200": ["0"], "NVIDIA H100": ["1"]})
        self.assertEqual(sorted(levers), ["cores", "coretype", "gpu", "variables"])
        self.assertEqual(sorted(levers["coretype"].keys), ["blas_config", "blas_core"])  # the config names the core
        self.assertEqual(levers["coretype"].after["env"], {"OPENBLAS_CORETYPE": "Prescott"})
        # OPENBLAS_CORETYPE is the coretype lever's: thread_env's lever sets only the rest
        self.assertEqual((levers["variables"].before["env"], levers["variables"].after["env"]),
                         ({"OMP_PROC_BIND": "true"}, {"OMP_PROC_BIND": None}))
        self.assertEqual(levers["cores"].after["prefix"], ["taskset", "-c", "0-0"])
        self.assertEqual((levers["gpu"].before["env"], levers["gpu"].after["env"]),
                         ({"CUDA_VISIBLE_DEVICES": "1"}, {"CUDA_VISIBLE_DEVICES": "0"}))
        self.assertEqual(unconfirmable, {})
        self.assertEqual(levers["variables"].how(), "OMP_PROC_BIND=true -> unset OMP_PROC_BIND")
        _, unconfirmable = self.levers({"cores_available": ["16", "2"], "gpu_name": ["NVIDIA H100", "NVIDIA H200"],
                                        "compiler": ["GNU 12.2.0", "GNU 13.3.0"], "new_key": ["a", "b"]})
        self.assertEqual(sorted(unconfirmable), ["compiler", "cores_available", "gpu_name", "new_key"])
        self.assertIn("fewer than 16", unconfirmable["cores_available"])

    def test_a_side_runs_with_its_environment(self):
        """The script bench-pr runs as a side's solve_bench: variables set and unset, a prefix."""
        probe = os.path.join(self.libdir, "probe")
        with open(probe, "w") as f:
            f.write("#!/bin/sh\necho \"A=${A-unset} B=${B-unset} args=$*\"; taskset -p $$ | sed 's/.*: //'\n")
        os.chmod(probe, 0o755)
        side = measure.Side("x", probe, {"A": "1 2", "B": None}, ["taskset", "-c", "0"])
        folder = measure.side_folder(os.path.join(self.libdir, "side"), side, "/bin/true")
        out = subprocess.run([os.path.join(folder, "benchmarks", "solve_bench"), "--flag"], capture_output=True,
                             text=True, env=dict(os.environ, B="set"), check=True).stdout.split("\n")
        self.assertEqual(out[0], "A=1 2 B=unset args=--flag")
        self.assertEqual(out[1], "1")  # the affinity mask: core 0 alone
        self.assertEqual(os.readlink(os.path.join(folder, "benchmarks", "checks", "solve_bench_checks")), "/bin/true")


if __name__ == "__main__":
    unittest.main(verbosity=2)
