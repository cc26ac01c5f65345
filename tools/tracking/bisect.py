"""From a change point to its commit: a binary search over the first-parent commits of a
range, each step an A/B measurement (tracking.measure) of a candidate against the last commit
known good, as Chromium's Pinpoint and `git bisect` do. Standard library only.

The search is a pure function of its oracle (measure(candidate, reference) -> Step), so that
tests give it a fake one, and a state file that memoizes every step makes a killed bisect go on
where it stopped: the replay asks the same questions and gets the recorded answers.

  - First parents first: `git rev-list --first-parent --reverse GOOD..BAD`; when the commit
    found is a merge, its branch (`M^1..M^2`, against their merge base) is searched the same way,
    unless its tip does not move against that base (then the merge itself is the culprit).
  - Outcomes: moved (the candidate carries the change), same (it does not), undecided (not
    enough pairs to tell: skipped, as `git bisect skip` or a run script's exit 125), unbuilt (it
    does not build: skipped, and said). A range whose skipped commits sit next to the first bad
    one names them all: the culprit is one of them.
  - The first step measures BAD against GOOD: when the change does not come back there, no
    commit reproduces it (it came with the machine, or it was noise) and there is no culprit.
"""
import json
import math
import os
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Dict, List, Optional

import tracking

MOVED, SAME, UNDECIDED, UNBUILT = "moved", "same", "undecided", "unbuilt"
STATE_FORMAT = "solve_bench-track-bisect/1"


class BisectError(Exception):
    """A range that cannot be searched (unknown commits, a good commit that does not build)."""


@dataclass
class Step:
    """One measurement: `commit` against `against` (both full hashes)."""
    commit: str
    against: str
    outcome: str                      # MOVED, SAME, UNDECIDED or UNBUILT
    rows: List[dict] = field(default_factory=list)  # per row: row, status, change_pct, noise_pct, pairs
    seconds: float = 0.0              # the step's own time (builds and measurement)
    why: str = ""                     # for UNBUILT and UNDECIDED: what happened


class Git:
    """The questions the search asks of a repository."""

    def __init__(self, repo: str):
        self.repo = repo

    def run(self, *args) -> str:
        p = subprocess.run(["git", "-C", self.repo] + list(args), capture_output=True, text=True)
        if p.returncode != 0:
            raise BisectError("git %s: %s" % (" ".join(args), p.stderr.strip() or "exit %d" % p.returncode))
        return p.stdout.strip()

    def full(self, rev: str) -> str:
        return self.run("rev-parse", "--verify", "--quiet", rev + "^{commit}")

    def first_parents(self, good: str, bad: str) -> List[str]:
        """The first-parent chain from bad back to where good's history starts, oldest first."""
        out = self.run("rev-list", "--first-parent", "--reverse", "%s..%s" % (good, bad))
        return out.split()

    def parents(self, commit: str) -> List[str]:
        return self.run("rev-list", "--parents", "-n", "1", commit).split()[1:]

    def merge_base(self, a: str, b: str) -> str:
        return self.run("merge-base", a, b)

    def subject(self, commit: str) -> str:
        return self.run("log", "-1", "--format=%s", commit)

    def short(self, commit: str) -> str:
        return self.run("rev-parse", "--short", commit)


class OutOfBudget(Exception):
    pass


class State:
    """The bisect's record on disk: its settings and every step, rewritten whole (temporary
    file, then rename) after each step."""

    def __init__(self, path: str, settings: dict):
        self.path, self.settings = path, settings
        self.steps: List[Step] = []
        if path and os.path.exists(path):
            with open(path) as f:
                doc = json.load(f)
            if doc.get("format") != STATE_FORMAT:
                raise BisectError("%s: not a bisect state file (format %r)" % (path, doc.get("format")))
            if doc["settings"] != settings:
                differ = sorted(k for k in set(doc["settings"]) | set(settings)
                                if doc["settings"].get(k) != settings.get(k))
                raise BisectError("%s is the state of another bisect (%s differ): give another --state or "
                                  "remove it" % (path, ", ".join(differ)))
            self.steps = [Step(**s) for s in doc["steps"]]

    def find(self, commit: str, against: str) -> Optional[Step]:
        return next((s for s in self.steps if (s.commit, s.against) == (commit, against)), None)

    def add(self, step: Step):
        self.steps.append(step)
        self.save()

    def save(self):
        if not self.path:
            return
        folder = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".state-", dir=folder)
        with os.fdopen(fd, "w") as f:
            json.dump({"format": STATE_FORMAT, "settings": self.settings,
                       "steps": [asdict(s) for s in self.steps]}, f, indent=1)
            f.write("\n")
        os.replace(tmp, self.path)


@dataclass
class Result:
    outcome: str                 # "culprit", "ambiguous", "no-culprit", "budget", "undecided"
    message: str
    culprit: Optional[str] = None
    candidates: List[str] = field(default_factory=list)  # the commits the culprit may be
    evidence: Optional[Step] = None                        # the step that showed the culprit moved
    merge: Optional[str] = None                            # the merge whose branch holds the culprit
    steps: List[Step] = field(default_factory=list)        # in the order asked (replayed ones too)
    skipped: List[Step] = field(default_factory=list)


class Search:
    """measure(candidate, reference) -> Step; each answer is kept in `state`, and a question
    asked again (a resumed bisect) is answered from it."""

    def __init__(self, git: Git, measure: Callable[[str, str], Step], state: State, max_steps: int,
                 max_seconds: float, say: Callable[[str], None] = lambda line: None,
                 verified: Callable[[Step], None] = lambda step: None):
        """verified(first step): told what the first step (bad against good) found, measured or
        replayed, before the search goes on (the oracle then measures only what moved there)."""
        self.git, self.measure, self.state, self.say, self.verified = git, measure, state, say, verified
        self.max_steps, self.max_seconds = max_steps, max_seconds
        self.asked: List[Step] = []
        self.open: List[str] = []  # the commits the culprit may still be (for a search cut short)

    def seconds(self) -> float:
        return sum(s.seconds for s in self.state.steps)

    def ask(self, commit: str, against: str) -> Step:
        step = self.state.find(commit, against)
        if step is None:
            if len(self.state.steps) >= self.max_steps:
                raise OutOfBudget("%d steps" % self.max_steps)
            if self.seconds() >= self.max_seconds:
                raise OutOfBudget("%.0f s of the %.0f s budget" % (self.seconds(), self.max_seconds))
            self.say("step %d: %s against %s ..." % (len(self.asked) + 1, self.git.short(commit), self.git.short(against)))
            start = time.monotonic()
            step = self.measure(commit, against)
            step.seconds = step.seconds or time.monotonic() - start
            self.state.add(step)
            replayed = False
        else:
            replayed = True
        self.asked.append(step)
        self.say(self.describe(step, replayed))
        return step

    def describe(self, step: Step, replayed: bool) -> str:
        figures = ", ".join(row_text(r) for r in step.rows) or step.why
        return "step %d: %s against %s: %s%s (%s)%s" % (
            len(self.asked), self.git.short(step.commit), self.git.short(step.against), step.outcome,
            ": " + figures if figures else "", duration(step.seconds), ", from the state file" if replayed else "")

    def run(self, good: str, bad: str) -> Result:
        try:
            first = self.ask(bad, good)
            self.verified(first)
            if first.outcome == UNBUILT:
                raise BisectError("%s (bad) or %s (good) does not build: %s" % (bad, good, first.why))
            if first.outcome == SAME:
                return self.result("no-culprit", "no commit reproduces the change: %s against %s is the same "
                                   "(the change came with the machine, or it was noise)"
                                   % (self.git.short(bad), self.git.short(good)))
            if first.outcome == UNDECIDED:
                return self.result("undecided", "%s against %s is undecided: the change is not reproduced beyond "
                                   "the noise here" % (self.git.short(bad), self.git.short(good)))
            return self.within(self.git.first_parents(good, bad), good, first)
        except OutOfBudget as e:
            return self.result("budget", "the budget is spent (%s): the state file holds every step; run again "
                               "with a larger budget to go on" % e, candidates=self.open)

    def within(self, commits: List[str], good: str, bad_step: Step, merge: Optional[str] = None) -> Result:
        """The first commit of `commits` (the last of which moved against `good`) that moves."""
        lo, hi = -1, len(commits) - 1
        evidence = bad_step
        skipped = set()
        while True:
            open_ = [i for i in range(lo + 1, hi) if i not in skipped]
            self.open = commits[lo + 1:hi + 1]
            if not open_:
                break
            middle = (lo + hi) / 2
            i = min(open_, key=lambda k: (abs(k - middle), k))
            step = self.ask(commits[i], commits[lo] if lo >= 0 else good)
            if step.outcome == MOVED:
                hi, evidence = i, step
            elif step.outcome == SAME:
                lo = i
            else:
                skipped.add(i)
        hidden = [commits[i] for i in sorted(skipped) if lo < i < hi]
        culprit = commits[hi]
        if hidden:
            return self.result("ambiguous", "the first commit that moves is one of %s: %s"
                               % (", ".join(self.git.short(c) for c in hidden + [culprit]),
                                  "; ".join("%s %s" % (self.git.short(s.commit), s.outcome) for s in self.skips()
                                            if s.commit in hidden)),
                               candidates=hidden + [culprit], evidence=evidence, merge=merge)
        parents = self.git.parents(culprit)
        if len(parents) > 1:
            base = self.git.merge_base(parents[0], parents[1])
            branch = self.git.first_parents(parents[0], parents[1])
            if branch:
                tip = self.ask(parents[1], base)
                if tip.outcome == MOVED:
                    return self.within(branch, base, tip, merge=culprit)
                self.say("the merged branch's tip %s against its base %s: %s: the merge %s is the culprit"
                         % (self.git.short(parents[1]), self.git.short(base), tip.outcome, self.git.short(culprit)))
        return self.result("culprit", "", culprit=culprit, evidence=evidence, merge=merge)

    def skips(self) -> List[Step]:
        seen, out = set(), []
        for s in self.asked:
            if s.outcome in (UNDECIDED, UNBUILT) and s.commit not in seen:
                seen.add(s.commit)
                out.append(s)
        return out

    def result(self, outcome: str, message: str, **kw) -> Result:
        return Result(outcome, message, steps=list(self.asked), skipped=self.skips(), **kw)


def half_log(change_pct: float, share=None) -> float:
    """The change (%) the checks' moved_share_log of the way, in log, from none to change_pct (0.5:
    halfway, x3.58 -> x1.89, +20% -> +9.5%): a move counts as the change point's when it is at
    least this large."""
    share = tracking.limit("moved_share_log") if share is None else share
    return ((1 + change_pct / 100) ** share - 1) * 100


def bound(commits: int) -> int:
    """The steps a search of `commits` first-parent commits needs: the first (bad against
    good) and a binary search of the rest, ceil(log2(commits))."""
    return 1 + math.ceil(math.log2(max(commits, 1)))


def row_text(r: dict) -> str:
    if r.get("change_pct") is None:
        return "%s %s" % (r["row"], r.get("status", "?"))
    noise = " (±%.0f%%, %d pairs)" % (r["noise_pct"], r.get("pairs") or 0) if r.get("noise_pct") is not None else ""
    if r.get("outcome") != MOVED and r.get("expected_pct") is not None:  # what it was held against
        noise = noise[:-1] + "; the change point's %+.0f%%)" % r["expected_pct"] if noise else \
            " (the change point's %+.0f%%)" % r["expected_pct"]
    return "%s %+.0f%%%s" % (r["row"], r["change_pct"], noise)


def duration(seconds: float) -> str:
    if seconds < 90:
        return "%.0f s" % seconds
    return "%.0f min" % (seconds / 60) if seconds >= 600 else "%.1f min" % (seconds / 60)


def result_json(result: Result, git: Git, settings: Dict) -> dict:
    def step_json(s: Step) -> dict:
        return dict(asdict(s), short=git.short(s.commit))

    out = {"outcome": result.outcome, "message": result.message, "settings": settings,
           "culprit": None, "candidates": [git.short(c) for c in result.candidates],
           "steps": [step_json(s) for s in result.steps], "skipped": [step_json(s) for s in result.skipped],
           "seconds": sum(s.seconds for s in result.steps)}
    if result.culprit:
        out["culprit"] = {"commit": result.culprit, "short": git.short(result.culprit),
                          "subject": git.subject(result.culprit),
                          "rows": result.evidence.rows if result.evidence else [],
                          "merge": result.merge}
    return out


def culprit_line(doc: dict) -> str:
    """`1ce1d57 lapack: let LAPACKE check its inputs: CPU/dgetrs/n:1024/nrhs:1 +258% (±4%, 16
    pairs), 4 steps, 6 min`, or the message when there is no culprit."""
    tail = "%d step%s, %s" % (len(doc["steps"]), "" if len(doc["steps"]) == 1 else "s", duration(doc["seconds"]))
    if doc.get("culprit"):
        c = doc["culprit"]
        rows = "; ".join(row_text(r) for r in c["rows"] if r.get("outcome") != SAME)
        merge = " (in the branch of merge %s)" % c["merge"][:10] if c.get("merge") else ""
        return "%s %s%s: %s, %s" % (c["short"], c["subject"], merge, rows, tail)
    return "%s (%s)" % (doc["message"], tail)
