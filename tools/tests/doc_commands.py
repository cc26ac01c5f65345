#!/usr/bin/env python3
"""The documentation's commands, run (issue 31: every documented path works).

usage: doc_commands.py --solve-bench BIN --checks BIN [--mpi BIN] --work DIR [--only FILE.md]
                       [--list] [--timeout SECONDS]

Finds every command in README.md, DEVELOPERS.md and docs/*.md that runs solve_bench,
solve_bench_checks, solve_bench_mpi or a tools/ program, in ```sh blocks (a line, with its
backslash continuations; `a && b` is two commands) and in inline code (a span that starts with
the program and gives it an argument that is not a bare subcommand word: `solve_bench --help`,
`tools/check-format HEAD~1`; `tools/track` or `solve_bench_checks compare` alone name a program,
they are not run). Each runs, in document order, in a copy of the tree that looks like a user's
checkout after the README's build: build/benchmarks/solve_bench, .../checks/solve_bench_checks and
.../solve_bench_mpi are the binaries given (a command naming one, by any path, runs that; the
tools find them as they document), and python3 on PATH is one that has what the tools need.
Inputs the docs name by placeholder are committed runs (INPUTS below: RUN.json, A.json,
B.rows.jsonl, run.json, cond.json ...); optional [parts] are left out, `X...` is one X, and
FILE, DIR, P, OUT, STORE, SITE, REGEX, NAME, TEXT, PATH, PCT and BASE get a value
(PLACEHOLDERS). Small inputs: every solve_bench and solve_bench_mpi command
runs with --benchmark_list_tests added; one that writes --benchmark_out and gives no --sizes
also runs for real at n = 64 (SOLVE_BENCH_SIZES=64 and friends in its environment, which its own
flags override; SOLVE_BENCH_SPAN=0, so that its processes do not wait out the default span: the
span is smoke.rounds's), and must write the files usage.md lists.

Each must exit 0 (a comparison 0 or 3, "undecided"). mpirun's commands run their program as
one rank without mpirun (its flags). A command that cannot run here carries a marker in the doc,
a comment in its sh line (`# needs a GPU`) or words right after its span (`... (needs root)`),
and is skipped by name in the output: "needs root", "needs MPI ranks", "needs the GPU machine",
"needs minutes", "needs the network". "needs a GPU" runs where the solve_bench under test lists
GPU rows; elsewhere a solve_bench command so marked still runs with --benchmark_list_tests and
must list no row, exit 0 or 4 (usage.md: nothing was measured), so that its flags are checked
and nothing aborts. A failure names the doc, the line and the command, the exit status (and whether it is in
docs/usage.md's exit-status table, and a signal when the program died of one) and the end of its
output.

Exit 0 when every command that ran passed, 1 when one failed, 2 on bad usage.
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
FENCE = re.compile(r"^\s*(```|~~~)\s*([\w+-]*)")
SHELL_BLOCKS = {"sh", "bash", "shell", "console"}
BINARIES = {"solve_bench": "benchmarks/solve_bench", "solve_bench_checks": "benchmarks/checks/solve_bench_checks",
            "solve_bench_mpi": "benchmarks/solve_bench_mpi"}
# Marker -> whether the command may run here (called with the runner's facts).
MARKERS = {
    "needs a GPU": lambda facts: facts["gpu_rows"],
    "needs root": lambda facts: False,
    "needs MPI ranks": lambda facts: False,
    "needs the GPU machine": lambda facts: False,
    "needs minutes": lambda facts: False,
    "needs the network": lambda facts: False,
}
MARKER = re.compile("|".join(re.escape(m) for m in MARKERS))
# Words the docs use for an input or an output, and what they stand for here.
PLACEHOLDERS = {
    "FILE": "RUN.json", "FILES": "RUN.json", "BASELINE": "BASE.json", "CONTENDER": "NEW.json",
    "DIR": "outdir", "P": "pooled", "OUT": "out.json", "STORE": "store", "SITE": "site", "REGEX": ".",
    "NAME": "docs", "TEXT": "docs", "PATH": "build/benchmarks/checks/solve_bench_checks", "PCT": "5",
    "BASE": "BASE.json", "NEW": "NEW.json",
}
PROGRAM_PLACEHOLDERS = {"tools/check-format": {"BASE": "HEAD"}}  # there BASE is a commit
INPUTS = {  # file in the copy's root -> committed file it is a copy of
    "RUN.json": "results/h200/sweep.json", "A.json": "results/h200/sweep.json", "B.json": "results/h200/sweep.json",
    "BASE.json": "results/h200/sweep.json", "NEW.json": "results/h200/sweep.json",
    "run.json": "results/h200/sweep.json", "sweep.json": "results/h200/sweep.json",
    "before.json": "results/h200/sweep.json", "after.json": "results/h200/sweep.json",
    "B.rows.jsonl": "results/h200/sweep.rows.jsonl", "cond.json": "results/h200-2026-11-30/cond.json",
    "history/store": "results/history/store",  # the nightly job's store (regressions.md)
}
TINY = {"SOLVE_BENCH_SIZES": "64", "SOLVE_BENCH_BATCH_N": "8", "SOLVE_BENCH_BATCH_COUNT": "10",
        "BENCHMARK_MIN_TIME": "0.01", "SOLVE_BENCH_SPAN": "0"}
OUTPUTS = (".json", ".rows.jsonl", ".audit.json", ".verdict.json", ".verdict.md")  # usage.md, "What a run writes"


class Command:
    def __init__(self, doc, line, text, marker, where):
        self.doc, self.line, self.text, self.marker, self.where = doc, line, text, marker, where

    def __str__(self):
        return "%s:%d: %s" % (self.doc, self.line, self.text)


def doc_files():
    files = ["README.md", "DEVELOPERS.md"]
    files += sorted(os.path.join("docs", f) for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))
    return [f for f in files if os.path.exists(os.path.join(ROOT, f))]


def program_of(word):
    """The program a word runs ("solve_bench", "tools/report"), or None."""
    base = os.path.basename(word)
    if base in BINARIES and (word == base or word.endswith("/" + base)):
        return base
    m = re.match(r"^(?:\./)?(tools/[\w./-]+)$", word)
    if m and os.path.isfile(os.path.join(ROOT, m.group(1))):
        return m.group(1)
    return None


def split_words(text):
    """shlex words, or None where the text is not a shell command (unbalanced quotes)."""
    try:
        return shlex.split(text, comments=True)
    except ValueError:
        return None


def segments(text):
    """The simple commands of a shell line: split at && || ; | outside quotes and outside a
    synopsis's [optional | parts]."""
    out, cur, quote, depth, i = [], "", None, 0, 0
    while i < len(text):
        c = text[i]
        if quote:
            cur += c
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
            cur += c
        elif c == "[" and (not cur or cur[-1].isspace() or depth):
            depth += 1
            cur += c
        elif c == "]" and depth:
            depth -= 1
            cur += c
        elif depth:
            cur += c
        elif text.startswith(("&&", "||"), i):
            out.append(cur)
            cur, i = "", i + 2
            continue
        elif c in ";|":
            out.append(cur)
            cur = ""
        elif c == "#" and (not cur or cur[-1].isspace()):
            break
        else:
            cur += c
        i += 1
    return [s.strip() for s in out + [cur] if s.strip()]


def runs_a_program(text):
    """The program the command runs when its first words are only prefixes (VAR=value, sudo,
    a python interpreter, mpirun and its options); else None."""
    words = split_words(text) or []
    in_mpirun = False
    for w in words:
        p = program_of(w)
        if p:
            return p
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w) or w == "sudo" or re.match(r"^(/usr/bin/)?python3?$", w):
            continue
        if w in ("mpirun", "mpiexec"):
            in_mpirun = True
            continue
        if in_mpirun:  # mpirun's own options and their values
            continue
        return None
    return None


def sh_commands(doc, lines):
    """Commands of the ```sh blocks."""
    out, fenced, lang, pending, start = [], False, "", "", 0
    for number, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if m:
            fenced, lang = (not fenced), m.group(2).lower()
            continue
        if not fenced or lang not in SHELL_BLOCKS:
            continue
        if not pending:
            start = number
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        whole, pending = pending + line.strip(), ""
        marker = MARKER.search(whole)
        for seg in segments(whole):
            if runs_a_program(seg):
                out.append(Command(doc, start, seg, marker.group(0) if marker else None, "sh block"))
    return out


def inline_commands(doc, lines):
    """Commands in inline code outside fences (a span may run over a line break)."""
    out, fenced, para = [], False, []

    def flush():
        text = " ".join(l for _, l in para)
        offsets, pos = [], 0
        for number, l in para:
            offsets.append((pos, number))
            pos += len(l) + 1
        for m in re.finditer(r"(`+)(.+?)\1", text):
            span = m.group(2).strip()
            program = runs_a_program(span)
            words = split_words(span) or []
            if not program or len(words) < 2:
                continue
            args = words[[i for i, w in enumerate(words) if program_of(w)][0] + 1:]
            if all(re.match(r"^[a-z][a-z_-]*$", a) for a in args):
                continue  # a program and its subcommand named, not a command
            after = re.sub(r"^\]\([^)]*\)", "", text[m.end():])  # a link's target
            marker = MARKER.match(after.lstrip(" ,;(") or "")
            number = [n for p, n in offsets if p <= m.start()][-1]
            out.append(Command(doc, number, span, marker.group(0) if marker else None, "inline code"))

    for number, line in enumerate(lines, 1):
        if FENCE.match(line):
            if para:
                flush()
                para = []
            fenced = not fenced
            continue
        if fenced:
            continue
        if not line.strip():
            if para:
                flush()
            para = []
            continue
        para.append((number, line.rstrip("\n")))
    if para:
        flush()
    return out


def extract(only=None):
    commands = []
    for doc in doc_files():
        if only and doc != only:
            continue
        with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
            lines = f.read().splitlines()
        found = sh_commands(doc, lines) + inline_commands(doc, lines)
        commands += sorted(found, key=lambda c: c.line)
    return commands


def exit_table():
    """docs/usage.md's exit-status table: {code: meaning}."""
    table, inside = {}, False
    with open(os.path.join(ROOT, "docs", "usage.md"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("## "):
                inside = line.strip() == "## Exit status"
            m = re.match(r"^\|\s*(\d+)\s*\|\s*(.*?)\s*\|$", line.strip()) if inside else None
            if m:
                table[int(m.group(1))] = m.group(2)
    return table


def substitute(text, program, scratch):
    """The command with its placeholders given values, [optional parts] and `...` left out, a
    binary's path the copy's build/ path, and /tmp/... the scratch folder's."""
    values = dict(PLACEHOLDERS, **PROGRAM_PLACEHOLDERS.get(program, {}))

    def word(w):
        if w.startswith("/tmp/"):
            return os.path.join(scratch, w[1:])
        if program_of(w) in BINARIES:  # a binary, named or by any path: the README's build's
            return "build/" + BINARIES[program_of(w)]
        return "/".join(values.get(part, part) for part in w.split("/"))

    while True:  # innermost groups first; a [ inside a word (a regex) is not a group
        shorter = re.sub(r"(^|(?<=\s))\[(?:[^\[\]'\"]|'[^']*'|\"[^\"]*\")*\]", "", text)
        if shorter == text:
            break
        text = shorter
    words = split_words(text)
    out = []
    for w in words:
        if w == "...":
            continue
        w = re.sub(r"(?<=[\w.])\.\.\.$", "", w)
        flag, eq, value = w.partition("=")
        if eq and value == "...":
            w = flag + "=" + flag.lstrip("-") + ".out"
        elif eq and flag.startswith("--"):
            w = flag + "=" + word(value)
        elif not re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w):
            w = word(w)
        out.append(w)
    return out


def without_mpirun(argv):
    """mpirun [options] PROGRAM ARGS -> PROGRAM ARGS (one rank), or None without mpirun."""
    words = [w for w in argv if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w)]
    if not words or words[0] not in ("mpirun", "mpiexec"):
        return None
    return argv[[i for i, w in enumerate(argv) if program_of(w)][0]:]


def prepare(work, binaries):
    """A copy of the tree (its tracked and untracked files), the binaries where the README's
    build puts them, the committed inputs under the docs' names."""
    copy = os.path.join(work, "tree")
    if os.path.exists(copy):
        shutil.rmtree(copy)
    listed = subprocess.run(["git", "-C", ROOT, "ls-files", "-co", "--exclude-standard", "-z"],
                            capture_output=True, text=True)
    if listed.returncode == 0:
        for rel in filter(None, listed.stdout.split("\0")):
            src = os.path.join(ROOT, rel)
            if os.path.isfile(src):
                os.makedirs(os.path.dirname(os.path.join(copy, rel)) or copy, exist_ok=True)
                shutil.copy2(src, os.path.join(copy, rel))
    else:
        shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns("build*", ".git"))
    for name, rel in BINARIES.items():  # not on PATH: the tools must find them as they document
        src = binaries.get(name)
        if src and os.path.exists(src):
            os.makedirs(os.path.dirname(os.path.join(copy, "build", rel)), exist_ok=True)
            os.symlink(src, os.path.join(copy, "build", rel))
    for name, rel in INPUTS.items():
        (shutil.copytree if os.path.isdir(os.path.join(ROOT, rel)) else shutil.copy2)(
            os.path.join(ROOT, rel), os.path.join(copy, name))
    for folder in ("outdir", "bench-out", os.path.join(work, "tmp")):
        os.makedirs(os.path.join(copy, folder), exist_ok=True)
    py = os.path.join(work, "python")  # the interpreter CMake chose, first on PATH as python3
    os.makedirs(py, exist_ok=True)
    if not os.path.exists(os.path.join(py, "python3")):
        os.symlink(sys.executable, os.path.join(py, "python3"))
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([py, env.get("PATH", "")])
    for var in list(env):  # the docs' commands run as a user types them: no test's settings
        if var.startswith(("SOLVE_BENCH_", "BENCHMARK_")):
            del env[var]
    git_dir = subprocess.run(["git", "-C", ROOT, "rev-parse", "--absolute-git-dir"], capture_output=True, text=True)
    if git_dir.returncode == 0:  # git commands in the copy (check-format, track --repo) see the history
        env.update(GIT_DIR=git_dir.stdout.strip(), GIT_WORK_TREE=copy, GIT_OPTIONAL_LOCKS="0")
    return copy, env


def cannot_run_here(program, argv, env, copy):
    """Why a command cannot run in this checkout (said by name, never silently), or None."""
    if program == "tools/check-format":
        if not (shutil.which("clang-format-14") or shutil.which("clang-format")):
            return "no clang-format here"
        base = "HEAD" if argv[-1] == "--all" else argv[-1]  # --all: every tracked file, in a checkout
        if "GIT_DIR" not in env or subprocess.run(["git", "rev-parse", "-q", "--verify", base + "^{commit}"],
                                                  cwd=copy, env=env, capture_output=True).returncode != 0:
            return "no commit %s here (not a git checkout, or a shallow clone)" % base
    return None


def lists_gpu_rows(env, copy):
    p = subprocess.run(["build/benchmarks/solve_bench", "--benchmark_list_tests"], cwd=copy, env=env,
                       capture_output=True, text=True, timeout=120)
    return any(re.match(r"^GPU", line) for line in p.stdout.splitlines())


def describe(code, program, table):
    if code < 0:
        return "killed by signal %d" % -code
    if code >= 128:
        return "exit %d (signal %d: a crash)" % (code, code - 128)
    if program in ("solve_bench", "solve_bench_mpi"):
        return "exit %d (%s)" % (code, table[code] if code in table else "not in docs/usage.md's exit-status table")
    return "exit %d" % code


def run_one(cmd, argv, program, copy, env, timeout, table, extra_env=None, what="", expect=(0,), no_rows=False):
    """None when it passed, else why not."""
    run_env = dict(env, **(extra_env or {}))
    assignments = {}
    while argv and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", argv[0]):  # VAR=value before the program
        k, _, v = argv.pop(0).partition("=")
        assignments[k] = v
    run_env.update(assignments)
    start = time.monotonic()
    try:
        p = subprocess.run(argv, cwd=copy, env=run_env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "took over %d s%s: give it smaller inputs or mark it (needs minutes)" % (timeout, what)
    except OSError as e:
        return "cannot run it: %s" % e
    took = time.monotonic() - start
    listed = [line for line in p.stdout.splitlines() if re.match(r"^[A-Z][A-Za-z-]*/\S+$", line)]
    if no_rows and listed:
        return "it lists %d rows (%s ...)%s where it should list none" % (len(listed), listed[0], what)
    if p.returncode not in expect:
        tail = "\n".join((p.stdout + p.stderr).strip().splitlines()[-12:])
        return "%s%s, expected %s, after %.1f s; its output ends:\n%s" % (
            describe(p.returncode, program, table), what, " or ".join(map(str, expect)), took,
            "\n".join("      " + l for l in tail.splitlines()))
    return None


def main(argv):
    parser = argparse.ArgumentParser(description="Run the documentation's commands.")
    parser.add_argument("--solve-bench", help="the solve_bench under test")
    parser.add_argument("--checks", help="its solve_bench_checks")
    parser.add_argument("--mpi", help="its solve_bench_mpi (none: its commands are skipped, by name)")
    parser.add_argument("--work", help="a scratch folder")
    parser.add_argument("--only", help="one doc, e.g. docs/usage.md")
    parser.add_argument("--list", action="store_true", help="list the commands found and stop")
    parser.add_argument("--timeout", type=int, default=240, help="seconds per command (default 240)")
    args = parser.parse_args(argv)
    commands = extract(args.only)
    if args.list:
        for c in commands:
            print("%-16s %s%s" % (c.where, c, "   [%s]" % c.marker if c.marker else ""))
        return 0
    if not args.solve_bench or not args.checks or not args.work:
        parser.print_usage(sys.stderr)
        return 2
    binaries = {"solve_bench": args.solve_bench, "solve_bench_checks": args.checks, "solve_bench_mpi": args.mpi}
    os.makedirs(args.work, exist_ok=True)
    work = tempfile.mkdtemp(prefix="doc_commands_", dir=args.work)
    copy, env = prepare(work, {k: os.path.realpath(v) for k, v in binaries.items() if v})
    facts = {"gpu_rows": lists_gpu_rows(env, copy)}
    table = exit_table()
    if sorted(table) != [0, 1, 2, 3, 4]:
        print("FAIL docs/usage.md: its exit-status table lists %s, not 0 to 4" % sorted(table))
        return 1
    failed, skipped, ran = [], [], 0
    started = time.monotonic()
    for cmd in commands:
        program = runs_a_program(cmd.text)
        gpu_elsewhere = cmd.marker == "needs a GPU" and not facts["gpu_rows"] and program in ("solve_bench", "solve_bench_mpi")
        if cmd.marker and not MARKERS[cmd.marker](facts) and not gpu_elsewhere:
            skipped.append(cmd)
            print("skip %s   (%s)" % (cmd, cmd.marker))
            continue
        if program in BINARIES and not os.path.exists(os.path.join(copy, "build", BINARIES[program])):
            skipped.append(cmd)
            print("skip %s   (this build has no %s)" % (cmd, program))
            continue
        argv = substitute(cmd.text, program, work)
        if argv and argv[0] == "sudo":
            argv = argv[1:]
        why_not = cannot_run_here(program, argv, env, copy)
        if why_not:
            skipped.append(cmd)
            print("skip %s   (%s)" % (cmd, why_not))
            continue
        problems, note = [], ""
        if without_mpirun(argv):
            argv, note = without_mpirun(argv), "   (its flags: one rank, without mpirun)"
        if gpu_elsewhere:  # its flags still parse and nothing aborts: it lists no row
            listing = argv + ([] if "--benchmark_list_tests" in argv else ["--benchmark_list_tests"])
            why = run_one(cmd, listing, program, copy, env, args.timeout, table, expect=(0, 4),
                          what=" (with --benchmark_list_tests, no GPU here)", no_rows=True)
            note = "   (no GPU here: its flags, listing no row)"
            if why:
                problems.append(why)
        elif program in ("solve_bench", "solve_bench_mpi"):
            listing = argv + ([] if "--benchmark_list_tests" in argv else ["--benchmark_list_tests"])
            why = run_one(cmd, listing, program, copy, env, args.timeout, table, what=" (with --benchmark_list_tests)")
            if why:
                problems.append(why)
            out = [a.split("=", 1)[1] for a in argv if a.startswith("--benchmark_out=")]
            if not why and out and not any(a.startswith("--sizes") for a in argv) and program == "solve_bench" \
                    and not note:
                why = run_one(cmd, list(argv), program, copy, env, args.timeout, table, extra_env=TINY,
                              what=" (run at n = 64: %s)" % " ".join("%s=%s" % kv for kv in TINY.items()))
                base = out[0][:-len(".json")] if out[0].endswith(".json") else out[0]
                missing = [base + ext for ext in OUTPUTS if not os.path.exists(os.path.join(copy, base + ext))]
                if why:
                    problems.append(why)
                elif missing:
                    problems.append("exit 0 at n = 64 but it did not write %s (usage.md says it does)"
                                    % ", ".join(missing))
        else:  # a comparison may also answer "undecided" (3: issue 30's contract), which is no failure
            compares = program == "tools/regress" or (program == "solve_bench_checks" and "compare" in argv)
            why = run_one(cmd, argv, program, copy, env, args.timeout, table, expect=(0, 3) if compares else (0,))
            if why:
                problems.append(why)
        ran += 1
        if problems:
            failed.append(cmd)
            print("FAIL %s\n     %s" % (cmd, "\n     ".join(problems)))
        else:
            print("ok   %s%s" % (cmd, note))
    print("doc_commands: %d commands from %d docs: %d ran (%d failed), %d skipped (each named above), in %.0f s"
          % (len(commands), len({c.doc for c in commands}), ran, len(failed), len(skipped),
             time.monotonic() - started))
    if failed:
        print("doc_commands: failed:\n" + "\n".join("  %s" % c for c in failed))
        return 1
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
