"""A/B measurements for bisect and confirm: two sides (two commits' builds, or one build under
two environments) timed against each other on the rows that moved, by .ci/bench-pr as it is
(alternating chunks, pairs run back to back, re-run of suspects) with each side given as a
prebuilt folder; its calls pooled until the rows are decided; judged by solve_bench_checks
compare (through tools/regress); each row then classified against the change point it should
reproduce. Standard library only.

Classification (the statuses are compare's; only the size of the change point is added here):
  moved      compare says slower (beyond the pairs' noise, oriented so that the change point's
             direction is "slower") by at least half the change point in log (half_log: x3.58
             -> +89%, +20% -> +9.5%): the candidate carries that change;
  same       the change plus its noise (the pairs' 95% interval, or compare's detectable_pct for
             an undecided row) stays below that half: a move of that size would have shown;
  undecided  neither, after --max-pairs pairs: the step is skipped, as `git bisect skip`.
A step is moved when a row moved, same when every row is the same, else undecided.
"""
import importlib.machinery
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

from tracking.bisect import MOVED, SAME, UNBUILT, UNDECIDED, Step, half_log

TOOLS = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
ROOT = os.path.dirname(TOOLS)
BENCH_PR = os.path.join(ROOT, ".ci", "bench-pr")
REGRESS = os.path.join(TOOLS, "regress")
# bench-pr's rounds for one call: ROUNDS pairs of every row, then CONFIRM pairs of the suspects.
ROUNDS, CONFIRM_ROUNDS, REPETITIONS = 6, 8, 2
PAIR_STRIDE, CONFIRM_OFFSET = 1_000_000, 500_000  # pair tags of call k, stage: k * STRIDE (+ OFFSET)


class MeasureError(Exception):
    """Something that stops a measurement (no judge, a side that cannot run at all)."""


def find_checks(given: Optional[str]) -> str:
    """solve_bench_checks, found as tools/regress finds it (--checks, $SOLVE_BENCH_CHECKS, the
    newest build of this tree, beside the script, PATH)."""
    loader = importlib.machinery.SourceFileLoader("regress", REGRESS)
    found = loader.load_module().find_checks(given)
    if not found or not os.access(found, os.X_OK):
        raise MeasureError("no solve_bench_checks (%s): build it, or give --checks PATH" % (given or "none found"))
    return os.path.abspath(found)


def binary_beside(checks: str) -> str:
    """The solve_bench of the build that `checks` belongs to (BUILD/benchmarks/checks/...)."""
    path = os.path.join(os.path.dirname(os.path.dirname(checks)), "solve_bench")
    if not os.access(path, os.X_OK):
        raise MeasureError("no solve_bench beside %s: give --solve-bench PATH" % checks)
    return path


@dataclass
class Side:
    """One side of an A/B: a binary, and what its processes get on top of this environment."""
    label: str                                            # what it is: a commit, NAME=VALUE
    binary: str
    env: Dict[str, Optional[str]] = field(default_factory=dict)  # NAME: value, or None to unset
    prefix: List[str] = field(default_factory=list)      # e.g. taskset -c 0

    def script(self) -> str:
        lines = ["#!/bin/sh", "# tools/track: %s" % self.label.replace("\n", " ")]
        for name, value in sorted(self.env.items()):
            lines.append("unset %s" % name if value is None else "export %s=%s" % (name, shlex.quote(value)))
        lines.append("exec %s \"$@\"" % " ".join(shlex.quote(w) for w in self.prefix + [self.binary]))
        return "\n".join(lines) + "\n"


def side_folder(folder: str, side: Side, checks: str) -> str:
    """A folder bench-pr takes as a side's build (BENCH_BASE_BUILD/BENCH_HEAD_BUILD):
    benchmarks/solve_bench runs the side, benchmarks/checks/solve_bench_checks is the judge."""
    os.makedirs(os.path.join(folder, "benchmarks", "checks"), exist_ok=True)
    exe = os.path.join(folder, "benchmarks", "solve_bench")
    with open(exe, "w") as f:
        f.write(side.script())
    os.chmod(exe, 0o755)
    judge = os.path.join(folder, "benchmarks", "checks", "solve_bench_checks")
    if os.path.lexists(judge):
        os.unlink(judge)
    os.symlink(checks, judge)
    return folder


def anchored(rows: List[str]) -> str:
    """A filter that matches exactly these rows (as bench-pr's own)."""
    special = set("[]\\.^$*+?(){}|")
    return "^(%s)/manual_time$" % "|".join("".join("\\" + c if c in special else c for c in r) for r in rows)


def retagged(paths: List[str], out: str):
    """The rows logs in one, their bench-pr pair tags made distinct across calls and stages."""
    with open(out, "w") as f:
        for path, offset in paths:
            if not os.path.exists(path):
                continue
            for line in open(path):
                doc = json.loads(line)
                if "pair" in doc:
                    doc["pair"] = offset + doc["pair"]
                f.write(json.dumps(doc) + "\n")


def classify(row: dict, expected_pct: float):
    """(outcome, why) of one row of compare's JSON against a change of expected_pct (> 0; None:
    any move compare calls slower or faster)."""
    status, change = row.get("status"), row.get("change_pct")
    if status not in ("slower", "faster", "same", "undecided") or change is None:
        return UNDECIDED, "%s%s" % (status, ": " + row["why"] if row.get("why") else "")
    if expected_pct is None:  # no change point to match (--good/--bad): compare's statuses alone
        return {"slower": MOVED, "faster": MOVED, "same": SAME}.get(status, UNDECIDED), row.get("why", "")
    half = half_log(expected_pct)
    spread = row.get("detectable_pct") if status == "undecided" else row.get("pair_noise_pct")
    if spread is None:
        spread = row.get("threshold_pct") or 0.0
    if status == "slower" and change >= half:
        return MOVED, "slower by %+.1f%%, at least half the change (%+.1f%%)" % (change, half)
    if change + spread < half:
        return SAME, "%+.1f%% ± %.1f%% stays below half the change (%+.1f%%)" % (change, spread, half)
    return UNDECIDED, "%+.1f%% ± %.1f%% against half the change, %+.1f%%" % (change, spread, half)


def back(pct: Optional[float], swapped: bool) -> Optional[float]:
    """A change of head against base, as the change point's direction reads it."""
    if pct is None or not swapped:
        return pct
    return (1 / (1 + pct / 100) - 1) * 100


class AB:
    """Times two sides against each other on `rows` (names) made by `flags`. expected: {row:
    the change point's change in %}, whose sign orients each call (the slower side is head)."""

    def __init__(self, work: str, checks: str, flags: List[str], expected: Dict[str, float], max_pairs: int,
                 say: Callable[[str], None] = print, rounds: int = ROUNDS, confirm_rounds: int = CONFIRM_ROUNDS):
        self.work, self.checks, self.flags, self.expected = work, checks, flags, expected
        self.max_pairs, self.say, self.rounds, self.confirm_rounds = max_pairs, say, rounds, confirm_rounds

    def measure(self, before: Side, after: Side, tag: str, rows: Optional[List[str]] = None):
        """(outcome, per-row figures, why): does `after` against `before` move as the change point?"""
        rows = rows or sorted(self.expected)
        slower = sum(1 for r in rows if (self.expected[r] or 0) >= 0) >= len(rows) / 2
        swapped = not slower  # a faster change point: time the "after" side as the base
        base, head = (after, before) if swapped else (before, after)
        expected = {r: None if self.expected[r] is None else abs(back(self.expected[r], swapped)) for r in rows}
        folder = os.path.join(self.work, "ab", tag)
        if os.path.isdir(folder):
            shutil.rmtree(folder)  # what a killed step left: measured again, whole
        sides = [side_folder(os.path.join(folder, name), s, self.checks) for name, s in (("base", base), ("head", head))]
        calls, figures, why = [], [], ""
        while True:
            call = os.path.join(folder, "call%d" % len(calls))
            status = self.bench_pr(sides, call, rows)
            if status not in (0, 1, 3):
                why = "bench-pr exit %d: %s" % (status, last_lines(os.path.join(call, "summary.md")))
                return UNDECIDED, figures, why
            calls.append(call)
            judged = self.judge(folder, calls)
            figures, outcomes = [], []
            for r in judged:
                if r["row"] not in expected:
                    continue
                outcome, reason = classify(r, expected[r["row"]])
                outcomes.append(outcome)
                status = {"slower": "faster", "faster": "slower"}.get(r["status"], r["status"]) if swapped else r["status"]
                figures.append({"row": r["row"], "status": status, "outcome": outcome, "why": reason,
                                "expected_pct": self.expected[r["row"]],
                                "change_pct": back(r.get("change_pct"), swapped),
                                "noise_pct": r.get("pair_noise_pct") if r.get("pair_noise_pct") is not None
                                else r.get("threshold_pct"),
                                "pairs": r.get("pairs") or 0, "base_ms": r.get("new_ms" if swapped else "base_ms"),
                                "new_ms": r.get("base_ms" if swapped else "new_ms")})
            pairs = min((f["pairs"] for f in figures), default=0)
            if MOVED in outcomes:
                return MOVED, figures, ""
            if outcomes and all(o == SAME for o in outcomes):
                return SAME, figures, ""
            if pairs >= self.max_pairs or not outcomes:
                return UNDECIDED, figures, "undecided after %d pairs (--max-pairs %d)" % (pairs, self.max_pairs)
            self.say("    undecided after %d pairs: more pairs" % pairs)

    def bench_pr(self, sides: List[str], out: str, rows: List[str]) -> int:
        env = dict(os.environ, BENCH_BASE_BUILD=sides[0], BENCH_HEAD_BUILD=sides[1], BENCH_ROUNDS=str(self.rounds),
                   BENCH_CONFIRM_ROUNDS=str(self.confirm_rounds), BENCH_CONFIRM_MAX_ROUNDS=str(self.confirm_rounds),
                   BENCH_CONFIRM_REPETITIONS=str(REPETITIONS), PYTHON=sys.executable)
        os.makedirs(out, exist_ok=True)
        command = [BENCH_PR, ROOT, ROOT, out] + self.flags + [
            "--benchmark_filter=" + anchored(rows), "--benchmark_repetitions=%d" % REPETITIONS]
        with open(os.path.join(out, "bench-pr.log"), "w") as log:
            log.write("$ %s\n" % " ".join(shlex.quote(w) for w in command))
            log.flush()
            return subprocess.run(command, env=env, stdout=log, stderr=subprocess.STDOUT).returncode

    def judge(self, folder: str, calls: List[str]) -> List[dict]:
        """compare's rows on every pair of every call so far."""
        pooled = []
        for side in ("base", "head"):
            path = os.path.join(folder, "%s.rows.jsonl" % side)
            retagged([(os.path.join(c, f % side), k * PAIR_STRIDE + offset) for k, c in enumerate(calls)
                      for f, offset in (("%s.rows.jsonl", 0), ("%s-confirm.rows.jsonl", CONFIRM_OFFSET))], path)
            pooled.append(path)
        out = os.path.join(folder, "judged.json")
        p = subprocess.run([sys.executable, REGRESS, "--checks", self.checks, "--json", out,
                            "--markdown", os.path.join(folder, "judged.md"), pooled[0], pooled[1]],
                           capture_output=True, text=True)
        if p.returncode not in (0, 1, 3) or not os.path.exists(out):
            raise MeasureError("tools/regress exit %d on %s: %s" % (p.returncode, folder, p.stderr.strip()[-500:]))
        with open(out) as f:
            return json.load(f)["compare"]["rows"]


def last_lines(path: str, n: int = 3) -> str:
    try:
        with open(path) as f:
            lines = [line.strip() for line in f if line.strip() and not line.startswith("#")]
        return " ".join(lines[-n:])
    except OSError:
        return "(no summary)"


class Builds:
    """Each commit built once, in its own worktree WORK/src/<commit>, with ccache where it is
    installed (one relative layout for every worktree, so that a file no commit changed is a
    cache hit), the solve_bench target only."""

    def __init__(self, repo: str, work: str, cmake_args: List[str], say: Callable[[str], None] = print):
        self.repo, self.work, self.cmake_args, self.say = repo, work, cmake_args, say

    def binary(self, commit: str):
        """(solve_bench path, seconds spent building now); raises Unbuilt when it does not build."""
        src = os.path.join(self.work, "src", commit[:12])
        build = os.path.join(src, "build")
        exe = os.path.join(build, "benchmarks", "solve_bench")
        done, failed = os.path.join(build, ".track-built"), os.path.join(build, ".track-failed")
        if os.path.exists(done) and os.access(exe, os.X_OK):
            return exe, 0.0
        if os.path.exists(failed):
            with open(failed) as f:
                raise Unbuilt(f.read().strip())
        start = time.monotonic()
        log_path = os.path.join(self.work, "logs", "build-%s.log" % commit[:12])
        os.makedirs(os.path.dirname(log_path), exist_ok=True)
        # A worktree counts once `git worktree add` has returned: a kill during it leaves the .git
        # file with only part of the files checked out (CI, 2026-12-02: cmake found no CMakeLists.txt).
        checked_out = os.path.join(self.work, "src", commit[:12] + ".checked-out")
        with open(log_path, "w") as log:
            if not os.path.exists(checked_out):
                shutil.rmtree(src, ignore_errors=True)  # a worktree a kill left half made
                subprocess.run(["git", "-C", self.repo, "worktree", "prune"], stdout=log, stderr=log)
                if subprocess.run(["git", "-C", self.repo, "worktree", "add", "--detach", src, commit],
                                  stdout=log, stderr=subprocess.STDOUT).returncode != 0:
                    raise MeasureError("git worktree add %s failed: %s" % (commit, log_path))
                open(checked_out, "w").close()
            env = dict(os.environ, CCACHE_BASEDIR=os.path.join(self.work, "src"), CCACHE_NOHASHDIR="true")
            configure = ["cmake", "-S", src, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DSOLVE_BENCH_TESTS=OFF"]
            if shutil.which("ninja"):
                configure += ["-G", "Ninja"]
            if shutil.which("ccache"):
                configure += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache"]
            for command in (configure + self.cmake_args,
                            ["cmake", "--build", build, "--target", "solve_bench", "-j", str(os.cpu_count() or 2)]):
                log.write("$ %s\n" % " ".join(shlex.quote(w) for w in command))
                log.flush()
                if subprocess.run(command, env=env, stdout=log, stderr=subprocess.STDOUT).returncode != 0:
                    why = "does not build (%s): %s" % (log_path, first_error(log_path))
                    os.makedirs(build, exist_ok=True)  # a configure that failed may not have made it
                    with open(failed, "w") as f:
                        f.write(why + "\n")
                    raise Unbuilt(why)
        open(done, "w").close()
        return exe, time.monotonic() - start


class Unbuilt(Exception):
    """A commit that does not build; the message says where and why."""


def first_error(log_path: str) -> str:
    """The compiler's (or ninja's, or CMake's) first complaint in a build log, else its last line."""
    with open(log_path, errors="replace") as f:
        lines = [line.strip() for line in f if line.strip()]
    errors = [line for line in lines if re.search(r"\berror:|^FAILED:|CMake Error", line)]
    return (errors or lines[-1:] or ["no output"])[0][:300]


def commit_oracle(builds: Builds, ab: AB, say: Callable[[str], None]):
    """measure(candidate, reference) for tracking.bisect.Search: both built, then timed."""
    def measure(candidate: str, reference: str) -> Step:
        start = time.monotonic()
        binaries, built = {}, 0.0
        for commit in (reference, candidate):
            try:
                binaries[commit], seconds = builds.binary(commit)
            except Unbuilt as e:
                return Step(candidate, reference, UNBUILT, seconds=time.monotonic() - start,
                            why="%s %s" % (commit[:10], e))
            built += seconds
            if seconds:
                say("    built %s in %.0f s" % (commit[:10], seconds))
        outcome, rows, why = ab.measure(Side(reference[:12], binaries[reference]),
                                        Side(candidate[:12], binaries[candidate]),
                                        "%s-vs-%s" % (candidate[:12], reference[:12]))
        took = time.monotonic() - start
        why = why or ("build %.0f s, measurement %.0f s" % (built, took - built))
        return Step(candidate, reference, outcome, rows, took, why)

    return measure


def listed(binary: str, flags: List[str], name_filter: str) -> List[str]:
    """The rows `binary` with `flags` would run under a filter (--benchmark_list_tests)."""
    p = subprocess.run([binary, "--benchmark_list_tests", "--benchmark_filter=" + name_filter] + flags,
                       capture_output=True, text=True)
    return [line.strip()[: -len("/manual_time")] for line in p.stdout.splitlines()
            if line.strip().endswith("/manual_time")]


def existing_rows(binary: str, flags: List[str], rows: List[str]) -> List[str]:
    """The rows of `rows` that `binary` with `flags` would run."""
    present = set(listed(binary, flags, anchored(rows)))
    return [r for r in rows if r in present]


def flags_for(ids: List[Optional[dict]]) -> List[str]:
    """solve_bench flags that make the dense solve rows of these ids: their sizes, right-hand
    sides and precisions (other families need --flags)."""
    def values(key):
        return sorted({i[key] for i in ids if i and isinstance(i.get(key), int)})

    flags = []
    if values("n"):
        flags.append("--sizes=" + ",".join(map(str, values("n"))))
    if values("nrhs"):
        flags.append("--nrhs=" + ",".join(map(str, values("nrhs"))))
    precisions = sorted({i["precision"] for i in ids if i and i.get("precision") in ("d", "s", "z", "c")})
    if precisions:
        flags.append("--precisions=" + ",".join(precisions))
    return flags
