#!/usr/bin/env python3
"""The suite's own environment variables never collide (issue 31, item 8): every SOLVE_BENCH_*
variable the docs or a program's --help names is exported, all at once, to every binary of the
suite (under --benchmark_list_tests, so nothing runs), and none may refuse it as a name it does
not know. (A value it cannot parse is another matter: exit 2 naming the value is allowed.) A
misspelt one is still refused. CMake's own SOLVE_BENCH_* settings (the build's CMakeCache.txt,
the configured headers) are options of the build, not variables, and are left out.

usage: suite_variables.py SOURCE_ROOT BUILD_DIR SOLVE_BENCH SOLVE_BENCH_CHECKS
                          [--mpi SOLVE_BENCH_MPI MPIEXEC [MPIEXEC FLAGS...]]
"""
import glob
import os
import re
import subprocess
import sys

NAME = re.compile(r"\bSOLVE_BENCH_[A-Z0-9_]*[A-Z0-9]\b")
REFUSED = "names no flag"
# The programs of the suite whose --help documents variables, besides the binaries.
TOOLS = ["tools/quickstart", "tools/regress", "tools/report", "tools/track", "tools/aa-coverage",
         "tools/mpi_scaling.py", "tools/vs_numpy.py", ".ci/bench-pr"]


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def help_text(command, source):
    """What `command --help` prints; the program's own text where it cannot run here."""
    try:
        p = subprocess.run(command + ["--help"], capture_output=True, text=True, errors="replace", timeout=60)
        text = p.stdout + p.stderr
        if "usage" in text.lower():
            return text
    except OSError:
        pass
    return open(source, errors="replace").read() if source else ""


def documented(root, binaries):
    where = {}
    docs = [os.path.join(root, f) for f in ("README.md", "DEVELOPERS.md")] + sorted(glob.glob(os.path.join(root, "docs",
                                                                                                          "*.md")))
    texts = [(os.path.relpath(d, root), open(d).read()) for d in docs]
    texts += [(t + " --help", help_text([os.path.join(root, t)], os.path.join(root, t))) for t in TOOLS]
    texts += [(os.path.basename(b[-1]) + " --help", help_text(b, None)) for b in binaries]
    if len(binaries) != sum(1 for _, t in texts[-len(binaries):] if "usage" in t.lower()):
        fail("a binary's --help printed no usage: %s" % [t[:300] for _, t in texts[-len(binaries):]])
    for what, text in texts:
        for name in NAME.findall(text):
            where.setdefault(name, what)
    return where


def cmake_names(root, build):
    names = set()
    with open(os.path.join(build, "CMakeCache.txt"), errors="replace") as f:
        names.update(NAME.findall(f.read()))
    for configured in glob.glob(os.path.join(root, "**", "*.in"), recursive=True):
        if "/build" not in configured:
            names.update(NAME.findall(open(configured, errors="replace").read()))
    return names


def run(command, env_add):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOLVE_BENCH_")}
    env.update(env_add)
    p = subprocess.run(command, capture_output=True, text=True, errors="replace", env=env, timeout=300)
    print("$", len(env_add), "SOLVE_BENCH_* variables,", " ".join(command), "->", p.returncode)
    return p


def main():
    args = sys.argv[1:]
    if len(args) < 4:
        print(__doc__)
        sys.exit(2)
    root, build, solve_bench, checks = args[:4]
    listed = ["--benchmark_list_tests", "--benchmark_filter=^none$"]  # nothing runs
    saved = os.path.join(root, "test", "fuzz", "corpus", "load", "run.json")  # a committed run to judge
    binaries = [[solve_bench] + listed, [checks, "--no-files", saved]]
    if len(args) > 5 and args[4] == "--mpi":
        binaries.append(args[6:] + [args[5]] + listed)
    where = documented(root, [[solve_bench], [checks]] + ([args[6:] + [args[5]]] if "--mpi" in args else []))
    build_options = cmake_names(root, build)
    variables = {n: w for n, w in where.items() if n not in build_options}
    print("documented variables: %s" % ", ".join("%s (%s)" % kv for kv in sorted(variables.items())))
    print("left out as CMake's: %s" % ", ".join(sorted(n for n in where if n in build_options)))
    for must in ("SOLVE_BENCH_CHECKS", "SOLVE_BENCH_SIZES", "SOLVE_BENCH_NB", "SOLVE_BENCH_CMAKE_ARGS"):
        if must not in variables:
            fail("%s is documented (docs/, --help) but this test did not find it" % must)
    for command in binaries:
        program = next(os.path.basename(c) for c in command if os.path.basename(c).startswith("solve_bench"))
        p = run(command, {n: "1" for n in variables})
        if p.returncode not in (0, 2) or REFUSED in p.stderr:
            refused = [n for n in variables if REFUSED in run(command, {n: "1"}).stderr]
            fail("%s refuses documented variables %s (exit %d):\n%s"
                 % (program, ["%s (%s)" % (n, variables[n]) for n in refused], p.returncode,
                    p.stderr[-1500:]))
        if command[0] != checks:  # solve_bench_checks reads no variable, so it refuses none either
            q = run(command, {"SOLVE_BENCH_SIZS": "32"})
            if q.returncode != 2 or "SOLVE_BENCH_SIZS " + REFUSED not in q.stderr:
                fail("%s accepts the misspelt SOLVE_BENCH_SIZS (exit %d):\n%s"
                     % (program, q.returncode, q.stderr))
    print("ok: %d documented variables, refused by none of %d binaries; a misspelt one refused"
          % (len(variables), len(binaries)))


if __name__ == "__main__":
    main()
