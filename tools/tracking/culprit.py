"""From an analysis's change points to their answers: which change points to bisect or confirm
(grouped: the rows that moved at one run, in one direction, on one testbed), running
tools/track bisect and confirm on them, keeping what they found in the store
(STORE/<testbed>/answers/) and attaching it to the analysis, so that analyze and the
dashboard show each change point's culprit or confirmed key, else its candidates. Standard
library only."""
import json
import os
import re
import shlex
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

from tracking import bisect, confirm, measure, store

MAX_ROWS = 3  # rows of one change point measured at each step: its largest moves


@dataclass
class Group:
    """The change points of one testbed at one run, in one direction: one bisect or confirm."""
    testbed: str
    run_index: int
    rows: List[str]
    ids: List[Optional[dict]]
    expected: Dict[str, Optional[float]]   # the change point's change of each row, in %
    runs: dict = field(default_factory=dict)         # {"before"/"after": {"index", "file", "commit"}}
    environment: dict = field(default_factory=dict)  # {key: [before, after]}
    commits: List[str] = field(default_factory=list)  # the commits that came in (git log)
    answered: set = field(default_factory=set)        # the kinds of answer kept for it already

    def describe(self) -> str:
        return ", ".join("%s %+.0f%%" % (r, self.expected[r]) if self.expected[r] is not None else r for r in self.rows)


def groups(result: dict, testbed=None, row=None, at=None, max_rows=MAX_ROWS) -> List[Group]:
    """The change points of `result` (tools/track analyze's JSON) selected by testbed, a row
    regular expression and a run index, grouped; the largest moves first."""
    pattern = re.compile(row) if row else None
    found: Dict[tuple, List[dict]] = {}
    for c in result["change_points"]:
        if (testbed and c["testbed"] != testbed) or (pattern and not pattern.search(c["row"])) \
                or (at is not None and c["run_index"] != at):
            continue
        found.setdefault((c["testbed"], c["run_index"], c["change_pct"] > 0), []).append(c)
    out = []
    for (tb, run, _), cps in found.items():
        cps = sorted(cps, key=lambda c: -abs(c["change_pct"]))[:max_rows]
        first = cps[0]
        out.append(Group(tb, run, [c["row"] for c in cps], [c.get("id") for c in cps],
                         {c["row"]: c["change_pct"] for c in cps}, first.get("runs", {}),
                         first["cause"]["environment"], first["cause"]["commits"],
                         {a["kind"] for c in cps for a in c.get("answers", [])}))
    return sorted(out, key=lambda g: -max(abs(v) for v in g.expected.values()))


def parse_budget(text: str) -> float:
    """90, 90s, 30m, 2h -> seconds."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*", text or "")
    if not m:
        raise store.InputError("--budget %r: give seconds, or a number with s, m or h (30m)" % text)
    return float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[m.group(2)]


def answer_name(kind: str, group: Group) -> str:
    direction = "up" if any((v or 0) > 0 for v in group.expected.values()) else "down"
    if kind == "bisect":
        ends = [group.runs[s]["commit"][:12] for s in ("before", "after")]
    else:
        ends = [group.runs[s]["file"][:16] for s in ("before", "after")]
    return "%s-%s-%s-%s" % (kind, ends[0], ends[1], direction)


# ---------------------------------------------------------------------------------- bisect

def manual_group(repo: str, options) -> Group:
    """--good A --bad B --rows REGEX: the rows of the bad commit's build that match, with no
    change point to match (the first step's move is what the others must show)."""
    git = bisect.Git(repo)
    good, bad = git.full(options.good), git.full(options.bad)
    flags = shlex.split(options.flags) if options.flags else []
    builds = measure.Builds(repo, os.path.abspath(options.work), cmake_args_of(options, [None]))
    try:
        binary, _ = builds.binary(bad)
    except measure.Unbuilt as e:
        raise store.InputError("the bad commit %s does not build: %s" % (bad[:10], e)) from None
    rows = measure.listed(binary, flags, options.rows)
    if not rows:
        raise store.InputError("no row of %s with %s matches --rows %r" % (git.short(bad), " ".join(flags), options.rows))
    return Group(options.testbed or "", -1, rows[: options.max_rows], [None] * min(len(rows), options.max_rows),
                 {r: None for r in rows[: options.max_rows]},
                 {"before": {"commit": good}, "after": {"commit": bad}})


def cmake_args_of(options, ids) -> List[str]:
    if options.cmake_args is not None:
        return shlex.split(options.cmake_args)
    gpu = any((i or {}).get("backend", "CPU") != "CPU" for i in ids)
    return [] if gpu else ["-DSOLVE_BENCH_CUDA=OFF", "-DSOLVE_BENCH_MPI=OFF"]


def run_bisect(group: Group, repo: str, options, budget: float, say: Callable[[str], None] = print) -> dict:
    """Bisect one group within `budget` seconds; its answer as JSON (bisect.result_json, with
    what it was about)."""
    git = bisect.Git(repo)
    ends = {}
    for s in ("before", "after"):
        commit = str(group.runs.get(s, {}).get("commit") or "")
        if commit.endswith("-dirty"):
            say("bisect: the %s run was built from %s: the commit less its uncommitted changes is used" % (s, commit))
            commit = commit[: -len("-dirty")]
        try:
            ends[s] = git.full(commit)
        except bisect.BisectError:
            raise store.InputError("the %s run's commit %r is not in %s (--repo)" % (s, commit, repo)) from None
    good, bad = ends["before"], ends["after"]
    work = os.path.abspath(options.work)
    flags = shlex.split(options.flags) if options.flags else measure.flags_for(group.ids)
    checks = measure.find_checks(options.checks)
    commits = git.first_parents(good, bad)
    if not commits:
        raise store.InputError("%s..%s holds no commit: the change point's two runs have the same code" % (good, bad))
    cmake_args = cmake_args_of(options, group.ids)
    settings = {"repo": os.path.abspath(repo), "good": good, "bad": bad, "rows": group.rows,
                "expected": group.expected, "flags": flags, "cmake_args": cmake_args}
    state_path = options.state or os.path.join(work, "state-%s-%s.json" % (good[:12], bad[:12]))
    state = bisect.State(state_path, settings)
    max_steps = options.max_steps or bisect.bound(len(commits)) + 3
    say("bisect: %d first-parent commits %s..%s; rows %s; flags %s; at most %d steps and %s; state %s%s"
        % (len(commits), git.short(good), git.short(bad), group.describe(), " ".join(flags) or "(the defaults)", max_steps,
           bisect.duration(budget), state_path, " (%d steps recorded: resuming)" % len(state.steps) if state.steps else ""))
    builds = measure.Builds(repo, work, cmake_args, say)
    ab = measure.AB(work, checks, flags, dict(group.expected), options.max_pairs, say)
    missing = check_rows(builds, good, flags, group.rows)
    if missing:
        raise store.InputError("%s with %s does not make %s: give the sweep's flags with --flags"
                               % (git.short(good), " ".join(flags), ", ".join(missing)))

    def verified(step: bisect.Step):
        """After the first step, only the rows that moved there, against the change they showed."""
        moved = {r["row"]: r["change_pct"] for r in step.rows if r.get("outcome") == bisect.MOVED}
        if moved:
            ab.expected = moved

    search = bisect.Search(git, measure.commit_oracle(builds, ab, say), state, max_steps, budget, say, verified)
    result = search.run(good, bad)
    doc = bisect.result_json(result, git, settings)
    doc.update(kind="bisect", testbed=group.testbed, rows=group.rows, runs=group.runs,
               commits=len(commits), bound=bisect.bound(len(commits)))
    return doc


def check_rows(builds: measure.Builds, commit: str, flags: List[str], rows: List[str]) -> List[str]:
    try:
        binary, _ = builds.binary(commit)
    except measure.Unbuilt as e:
        raise store.InputError("the good commit %s does not build: %s" % (commit[:10], e)) from None
    present = measure.existing_rows(binary, flags, rows)
    return [r for r in rows if r not in present]


# ---------------------------------------------------------------------------------- confirm

def run_confirm(group: Group, options, say: Callable[[str], None] = print) -> dict:
    """Switch each differing key alone where a process can: which reproduces the move."""
    found, unconfirmable = confirm.levers(group.environment)
    checks = measure.find_checks(options.checks)
    binary = os.path.abspath(options.solve_bench) if options.solve_bench else measure.binary_beside(checks)
    flags = shlex.split(options.flags) if options.flags else measure.flags_for(group.ids)
    say("confirm: run %d on %s: %s; rows %s; %d lever%s, %d key%s unconfirmable"
        % (group.run_index, group.testbed, confirm.keys_text(group.environment) or "nothing recorded changed",
           group.describe(), len(found), "" if len(found) == 1 else "s", len(unconfirmable),
           "" if len(unconfirmable) == 1 else "s"))
    missing = [r for r in group.rows if r not in measure.existing_rows(binary, flags, group.rows)]
    if missing:
        raise store.InputError("%s with %s does not make %s: give the sweep's flags with --flags"
                               % (binary, " ".join(flags), ", ".join(missing)))
    ab = measure.AB(os.path.abspath(options.work), checks, flags, dict(group.expected), options.max_pairs, say)
    results = []
    for lever in found:
        start = time.monotonic()
        say("  %s: %s (%s)" % (lever.name, confirm.keys_text(lever.keys), lever.how()))
        outcome, rows, why = ab.measure(*lever.sides(binary), tag="confirm-%d-%s" % (group.run_index, lever.name))
        item = {"lever": lever.name, "keys": lever.keys, "how": lever.how(), "outcome": outcome, "rows": rows,
                "why": why, "seconds": time.monotonic() - start}
        results.append(item)
        say("    %s" % verdict_text(item))
    for key, why in sorted(unconfirmable.items()):
        say("  %s %s -> %s: unconfirmable: %s" % (key, group.environment[key][0], group.environment[key][1], why))
    return {"kind": "confirm", "testbed": group.testbed, "rows": group.rows, "runs": group.runs,
            "environment": group.environment, "levers": results, "unconfirmable": unconfirmable,
            "confirmed": [r["lever"] for r in results if r["outcome"] == bisect.MOVED],
            "seconds": sum(r["seconds"] for r in results)}


def verdict_text(item: dict) -> str:
    """`reproduces the move: CPU/dgemm/n:1024 +95% (±4%, 14 pairs) (2.1 min)`."""
    verdict = {bisect.MOVED: "reproduces the move", bisect.SAME: "does not reproduce the move",
               bisect.UNDECIDED: "undecided"}[item["outcome"]]
    figures = "; ".join(bisect.row_text(r) for r in item["rows"])
    return "%s%s (%s)%s" % (verdict, ": " + figures if figures else "", bisect.duration(item["seconds"]),
                            "; " + item["why"] if item.get("why") else "")


def lever_line(item: dict) -> str:
    return "%s (%s): %s" % (confirm.keys_text(item["keys"]), item["how"], verdict_text(item))


# ---------------------------------------------------------------------------------- the record

def keep(store_dir: str, group: Group, doc: dict) -> str:
    """The answer into the store, beside the runs it is about."""
    return store.write_answer(store_dir, group.testbed, answer_name(doc["kind"], group), doc)


def attach(result: dict, store_dir: str) -> None:
    """Each change point of `result` gets the answers kept for it: "culprit" (the commit, with
    the bisect's evidence), "confirmed" (the levers that reproduced it), "answers" (a line each,
    whatever they found); without them its "cause" stays the list of candidates."""
    kept = {}
    for c in result["change_points"]:
        if c["testbed"] not in kept:
            kept[c["testbed"]] = store.answers(store_dir, c["testbed"])
        runs = c.get("runs") or {}
        for a in kept[c["testbed"]]:
            if c["row"] not in a.get("rows", []):
                continue
            ends = a.get("runs") or {}
            if a["kind"] == "bisect" and all((ends.get(s) or {}).get("commit") == (runs.get(s) or {}).get("commit")
                                             for s in ("before", "after")):
                c.setdefault("answers", []).append({"kind": "bisect", "outcome": a["outcome"], "path": a["path"],
                                                    "line": bisect.culprit_line(a)})
                if a.get("culprit"):
                    c["culprit"] = dict(a["culprit"], steps=len(a["steps"]), seconds=a["seconds"])
            elif a["kind"] == "confirm" and all((ends.get(s) or {}).get("file") == (runs.get(s) or {}).get("file")
                                                for s in ("before", "after")):
                c.setdefault("answers", []).append({"kind": "confirm", "path": a["path"], "line": confirm_line(a)})
                c["confirmed"] = [{k: lever[k] for k in ("lever", "keys", "how", "rows")}
                                  for lever in a["levers"] if lever["outcome"] == bisect.MOVED]


def confirm_line(doc: dict) -> str:
    moved = [lv for lv in doc["levers"] if lv["outcome"] == bisect.MOVED]
    if moved:
        return "; ".join("confirmed %s: %s" % (confirm.keys_text(lv["keys"], short=True),
                                               ", ".join(bisect.row_text(r) for r in lv["rows"]
                                                         if r.get("outcome") == bisect.MOVED)) for lv in moved)
    tried = "; ".join("%s (%s) %s: %s" % (lv["lever"], confirm.keys_text(lv["keys"], short=True), lv["outcome"],
                                          ", ".join(bisect.row_text(r) for r in lv["rows"]))
                      for lv in doc["levers"]) or "no lever"
    return "no switched key reproduces the move (%s)%s" % (
        tried, "; unconfirmable: " + ", ".join(sorted(doc["unconfirmable"])) if doc["unconfirmable"] else "")


def answer_lines(c: dict) -> List[str]:
    return [a["line"] for a in c.get("answers", [])]


def write_json(path: str, doc: dict):
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    store.write_whole(folder, json.dumps(doc, indent=1) + "\n", lambda tmp: os.replace(tmp, path))
