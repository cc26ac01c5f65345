#!/usr/bin/env python3
"""No flag combination aborts (issue 31, item 2): solve_bench's flag grammar under hypothesis.

The grammar is read from the binary's own --help: every flag, its placeholder (N[,N...], KIND,
PATH, REGEX ...) and the words and numbers of its help text, and its SOLVE_BENCH_* variable;
Google Benchmark's flags from the same page. Each example is a command line of valid and hostile
values (empty, huge, negative, NaN, unicode, lists with holes, max, none), repeated and unknown
flags, and SOLVE_BENCH_* and BENCHMARK_* variables, always under --benchmark_list_tests (nothing
is timed). Every exit must be 0, 2 or 4, never a signal, never "terminate called" or an internal
error; an exit 2 is one line naming the problem with a pointer to --help.

usage: fuzz_flags.py [--examples N | --seconds S] [--launcher CMD...] -- BINARY
  --examples N  examples, one hypothesis run (default 60: ~30 s on the 2-core machine)
  --seconds S   runs of 50 examples, each with a new seed, until S seconds have gone (CI)
  --launcher    a prefix for the binary, e.g. mpiexec -n 1 for solve_bench_mpi
"""
import os
import re
import subprocess
import sys
import tempfile
import time

# hypothesis keeps a folder of its own where it runs: not in the source tree
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", os.path.join(tempfile.gettempdir(), "solve_bench-hypothesis"))
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

ALLOWED = (0, 2, 4)  # --help's exit statuses that need no row to run: ok, usage, nothing measured
WORK = tempfile.mkdtemp(prefix="sb-fuzz-flags-")
NEVER = ("--benchmark_list_tests", "--help", "-h")  # drawn never: they end the parse or run rows


def parse_help(text):
    """[(flag, placeholder or None, variable or None, words, numbers)] from a --help page."""
    flags, current = [], None
    for line in text.splitlines():
        m = re.match(r"^  (--[a-z_0-9]+)(?:=(\S+))?", line)
        if m and m.group(1) not in NEVER and not any(f[0] == m.group(1) for f in flags):
            current = [m.group(1), m.group(2), None, set(), set()]
            flags.append(current)
        for gb in re.findall(r"(--benchmark_[a-z_]+)(?:=(\S+))?", line):
            if gb[0] not in NEVER and not any(f[0] == gb[0] for f in flags):
                flags.append([gb[0], gb[1] or None, None, set(), set()])
        if current is None:
            continue
        env = re.search(r"\[(SOLVE_BENCH_[A-Z_0-9]+)\]", line)
        if env:
            current[2] = env.group(1)
        current[3].update(w for w in re.findall(r"\b[a-z][a-z0-9_]{1,}\b", line) if w not in ("default", "the"))
        current[4].update(re.findall(r"\b\d+(?:\.\d+)?(?:e\d+)?\b", line))
        if not line.strip():
            current = None
    return [tuple(f[:3]) + (sorted(f[3]), sorted(f[4])) for f in flags]


TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12)
HOSTILE = st.sampled_from(["", " ", "-1", "0", "-0", "1", "2147483647", "2147483648", "9223372036854775808",
                           "99999999999999999999", "nan", "NaN", "inf", "-inf", "1e309", "1e-320", "0x10", "+3",
                           " 3", "3 ", "1.5", "1,,2", ",", ",1", "1,", "1,1", "max", "max,1", "none", "None",
                           "true", "false", "é", "∞", "\u202e1", "\U0001f600", "a=b", "9" * 400, "1" + ",1" * 300,
                           "x" * 5000]) | TEXT


def value_of(placeholder, words, numbers):
    """Valid-looking and hostile values for a flag, from its placeholder and help text."""
    choices = [HOSTILE]
    if words:
        choices.append(st.sampled_from(words))
    if numbers:
        choices.append(st.sampled_from(numbers))
    p = placeholder or ""
    if re.search(r"\b[NKSGTB]\b|N\[|K\[|G\[|T\[|B\[", p):
        ints = st.integers(-5, 70000) | st.integers(-2 ** 70, 2 ** 70)
        choices.append(st.lists(ints.map(str) | HOSTILE, min_size=1, max_size=4).map(",".join))
    if "SECONDS" in p:
        choices.append(st.floats(allow_nan=True, allow_infinity=True).map(repr))
        choices.append(st.integers(-3, 10 ** 20).map(lambda n: "%dx" % n))
        choices.append(st.floats(0, 1e3).map(lambda x: "%gs" % x))
    if p in ("PATH", "LOG", "FILE"):
        choices.append(st.sampled_from([os.path.join(WORK, "out.json"), os.path.join(WORK, "none", "x.json"),
                                        WORK, "/dev/null", "/proc/self/status", "/"]))
    if "REGEX" in p:
        choices.append(st.sampled_from(["^CPU/", "-_batched", "(", "[", "*", "-", "^GPU/d(gesv|posv)/", "\\", "a{99999}"]))
    if "," in p and not re.search(r"[NKGT]\[", p):  # d,s and A[,A...]-like lists of words
        choices.append(st.lists(st.sampled_from(words or ["d"]) | HOSTILE, max_size=4).map(",".join))
    if "|" in p:
        choices.append(st.sampled_from(p.split("|")))
    return st.one_of(choices)


def command_lines(flags):
    def one_arg(flag):
        name, placeholder, _, words, numbers = flag
        return st.one_of(value_of(placeholder, words, numbers).map(lambda v: "%s=%s" % (name, v)),
                         st.just(name))  # without its value

    known = st.sampled_from(flags).flatmap(one_arg)
    unknown = st.sampled_from(["--frobnicate", "--sizes_max", "-", "--", "positional", "--SIZES=1", "-sizes=1",
                               "--benchmark_", "--benchmark_context", "--v=3"]) | TEXT.map(lambda t: "--" + t)
    return st.lists(st.one_of(known, known, known, unknown), max_size=6)


def environments(flags):
    variables = sorted({f[2] for f in flags if f[2]})
    by_variable = {f[2]: f for f in flags if f[2]}
    ours = st.sampled_from(variables).flatmap(
        lambda v: value_of(by_variable[v][1], by_variable[v][3], by_variable[v][4]).map(lambda x: (v, x)))
    others = st.tuples(st.sampled_from(["SOLVE_BENCH_SIZS", "SOLVE_BENCH_", "SOLVE_BENCH_CHECKS", "SOLVE_BENCH_NB",
                                        "BENCHMARK_FILTER", "BENCHMARK_MIN_TIME", "BENCHMARK_REPETITIONS",
                                        "BENCHMARK_OUT_FORMAT", "BENCHMARK_ENABLE_RANDOM_INTERLEAVING",
                                        "OPENBLAS_NUM_THREADS"]), HOSTILE)
    return st.lists(ours | others, max_size=3).map(dict)


def printable(value):
    return value if len(value) < 80 else value[:40] + "...(%d chars)" % len(value)


EXITS = {}


def check(command, program, args, env):
    base = {k: v for k, v in os.environ.items() if not k.startswith(("SOLVE_BENCH_", "BENCHMARK_"))}
    base.update(env)
    try:
        p = subprocess.run(command + args + ["--benchmark_list_tests"], capture_output=True, text=True,
                           errors="replace", env=base, cwd=WORK, timeout=120)
    except subprocess.TimeoutExpired:
        raise AssertionError("hung for 120 s")
    EXITS[p.returncode] = EXITS.get(p.returncode, 0) + 1
    said = "%s: exit %d\n%s" % ([printable(a) for a in args], p.returncode, p.stderr[-1500:])
    assert p.returncode in ALLOWED, said
    assert "terminate called" not in p.stderr and "internal error" not in p.stderr, said
    if p.returncode == 2:
        ours = [l for l in p.stderr.split("\n") if l.startswith(program + ":")]  # a terminal's lines
        assert len(ours) == 1 and ours[0].endswith("(see %s --help)" % program), said


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        print(__doc__)
        sys.exit(2)
    options, binary = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    binary = [os.path.abspath(b) if os.path.exists(b) else b for b in binary]
    examples, seconds, launcher = 60, None, []
    if "--examples" in options:
        examples = int(options[options.index("--examples") + 1])
    if "--seconds" in options:
        seconds = float(options[options.index("--seconds") + 1])
    if "--launcher" in options:
        launcher = options[options.index("--launcher") + 1:]
        launcher = launcher[:next((i for i, o in enumerate(launcher) if o.startswith("--") and o in
                                   ("--examples", "--seconds")), len(launcher))]
    launcher = [os.path.abspath(a) if os.path.exists(a) else a for a in launcher]
    command = launcher + binary
    program = os.path.basename(binary[0])
    page = subprocess.run(command + ["--help"], capture_output=True, text=True, timeout=120)
    flags = parse_help(page.stdout)
    if page.returncode != 0 or len(flags) < 10 or not any(f[2] for f in flags):
        print("FAIL: %s --help gave %d flags (exit %d):\n%s" % (program, len(flags), page.returncode, page.stdout))
        sys.exit(1)
    print("%s: %d flags from --help (%d with a variable): %s" % (program, len(flags), sum(1 for f in flags if f[2]),
                                                               " ".join(f[0] for f in flags)))
    runs = [0]

    def one_run(n):
        @settings(max_examples=n, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
        @given(command_lines(flags), environments(flags))
        def property_(args, env):
            runs[0] += 1
            check(command, program, args, env)
        property_()

    t0 = time.monotonic()
    if seconds is None:
        one_run(examples)
    else:
        while time.monotonic() - t0 < seconds:
            one_run(50)
    print("ok: %d command lines of %s under --benchmark_list_tests in %.0f s: every exit 0, 2 or 4 (%s)"
          % (runs[0], program, time.monotonic() - t0, ", ".join("%d x exit %d" % (n, c) for c, n in sorted(EXITS.items()))))


if __name__ == "__main__":
    main()
