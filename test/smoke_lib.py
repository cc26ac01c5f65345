#!/usr/bin/env python3
"""What the smoke runs of solve_bench share (bench_smoke.py, bench_lose_nothing.py): running the
binary, reading its rows log, the state of an earlier result, the shape of a usage error."""
import json
import os
import re
import subprocess
import sys
import time

THRESHOLD = 16.0
# The vendor this build was configured for (BLA_VENDOR, via CMake); "" where it named none.
BLAS_VENDOR = os.environ.get("SB_BLAS_VENDOR", "")
CONTEXT_KEYS = ["blas_vendor", "blas_version", "blas_config", "blas_core", "blas_threads", "blas_library",
                "lapack_version", "lapack_library", "solve_bench_build_type",
                "seed", "matrix_kind_lu", "matrix_kind_cholesky", "gpu_rows", "library_build_type"]
SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# One fast row: the earlier result the "lose nothing" cases must leave as it was.
ONE_ROW = "^CPU/dgesv/n:32/nrhs:1/manual_time$"
F = ["--sizes=32", "--precisions=d", "--benchmark_filter=" + ONE_ROW, "--benchmark_min_time=5x"]
SIDECARS = (".json", ".rows.jsonl", ".audit.json", ".verdict.json", ".verdict.md")
WIDTH = 100  # console lines (issue 26)
CHECKS = None  # solve_bench_checks, from argv


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(exe, args, env=None, timeout=300, **kw):
    full_env = dict(os.environ)
    full_env.update(env or {})
    p = subprocess.run([exe] + args, capture_output=True, text=True, errors="replace", env=full_env,
                       timeout=timeout, **kw)
    print("$", " ".join("%s=%s" % kv for kv in (env or {}).items()), exe, " ".join(args), "->", p.returncode)
    return p


def dense_operations(results_path):
    """(with right-hand sides, without): the dense operations of the checks' table, as the run's
    verdict sidecar (X.verdict.json) publishes it, in the table's order."""
    stem = re.sub(r"(\.rows\.jsonl|\.json)$", "", results_path)
    with open(stem + ".verdict.json") as f:
        ops = json.load(f)["verdict"]["operations"]
    dense = [o for o in ops.values() if not o["batched"] and not o.get("probe")]  # probes: --ceilings=on
    if not dense:
        fail("%s.verdict.json lists no operations" % stem)
    return [o["op"] for o in dense if o["has_rhs"]], [o["op"] for o in dense if not o["has_rhs"]]


def load_rows_log(path, killed=False):
    """The first context and the run objects (every other line) of a rows log. Each process of a run
    writes its own context line before its rounds (line 1 is one). killed: the writer was
    SIGKILLed, so its last line may be torn (no newline yet); it is left out."""
    context, rows = None, []
    text = open(path).read()
    lines = text.split("\n")
    if lines[-1] and not killed:
        fail("%s does not end with a newline" % path)
    for i, line in enumerate(lines[:-1]):
        doc = json.loads(line)
        if "context" in doc and "name" not in doc:
            context = context if context is not None else doc["context"]
        elif i == 0:
            fail("%s: line 1 is not the context: %.200s" % (path, line))
        elif "name" not in doc or "benchmarks" in doc:
            fail("%s:%d is not one run object: %.200s" % (path, i + 1, line))
        else:
            rows.append(doc)
    return context, rows


def context_lines(path):
    """How many context lines a rows log holds: one per process that ran a round."""
    return sum(1 for line in open(path) if line.startswith('{"context"'))


def repetitions(doc):
    """{row name: its repetitions (rounds), in order} of a Google Benchmark document."""
    out = {}
    for b in doc["benchmarks"]:
        if b.get("run_type", "iteration") == "iteration":
            out.setdefault(b["name"], []).append(b)
    return out


def aggregates(doc):
    """{row name: {aggregate name: entry}}."""
    out = {}
    for b in doc["benchmarks"]:
        if b.get("run_type") == "aggregate":
            out.setdefault(b["run_name"], {})[b["aggregate_name"]] = b
    return out


def slots(logged):
    """(name, process, round) of each run object of a rows log, in order."""
    return [(b["name"], b.get("process", 0), b.get("round", 0)) for b in logged]


def file_state(path):
    """Bytes and mtime of a file, None where there is none."""
    if not os.path.exists(path):
        return None
    return open(path, "rb").read(), os.stat(path).st_mtime_ns


def snapshot(stem):
    """The state of a result's files: STEM.json, its rows log and its sidecars."""
    return {stem + ext: file_state(stem + ext) for ext in SIDECARS}


def untouched(before, what):
    for path, was in before.items():
        now = file_state(path)
        if now != was:
            fail("%s: %s was %s" % (what, path, "removed" if now is None else "changed"))


def earlier_result(exe, work, name="keep"):
    """A whole earlier result (the one-row run) at WORK/NAME.json and its snapshot."""
    stem = os.path.join(work, name)
    for ext in SIDECARS + (".rows.jsonl.partial",):
        if os.path.exists(stem + ext):
            os.remove(stem + ext)
    p = run(exe, F + ["--benchmark_out=" + stem + ".json"])
    if p.returncode != 0:
        fail("the earlier result: exit %d\n%s" % (p.returncode, p.stderr))
    snap = snapshot(stem)
    missing = [path for path, v in snap.items() if v is None or not v[0]]
    if missing:
        fail("the earlier result lacks %s" % missing)
    time.sleep(0.02)  # a later write would have a later mtime
    return stem, snap


# The console table: a row's line (name, time, ±, calls, rate, resid, notes) or its error.
ROW_LINE = re.compile(r"^(?P<name>[A-Z][\w-]*/\S+)\s+"
                      r"(?:(?P<time>[\d.]+ (?:ns|us|ms|s))\s+(?:±(?P<noise>\S+)%)?\s+(?P<calls>\d+)?\s+"
                      r"(?P<rate>\S+)\s+(?P<resid>\S+)?(?:\s+(?P<notes>.*))?|ERROR (?P<error>.*))$")


def table_lines(stdout):
    """The console table's lines after its header and rule (up to the audit), each with its
    continuation lines; and the lines above the header."""
    table = stdout.split("\naudit: ")[0].splitlines()
    head = next(i for i, l in enumerate(table) if l.startswith("row "))
    rows = []
    for line in table[head:]:
        if line.startswith(" ") and rows:
            rows[-1][1].append(line)
        else:
            rows.append((line, []))
    return rows, table[:head]


def usage_error(p, needle, program="solve_bench"):
    """Exit 2 and one line on stderr that names the problem and points to --help (Google
    Benchmark's own warning about a BENCHMARK_* variable, printed before main, aside)."""
    lines = [l for l in p.stderr.splitlines() if l.strip() and not l.startswith("Environment variable BENCHMARK_")]
    if p.returncode != 2:
        fail("%r: expected exit 2, got %d\n%s" % (needle, p.returncode, p.stderr))
    if len(lines) != 1 or needle not in lines[0] or not lines[0].endswith("(see %s --help)" % program):
        fail("expected one line naming %r with a pointer to --help, got:\n%s" % (needle, p.stderr))
    if len(lines[0]) > 300 or "Traceback" in p.stderr:
        fail("usage error: %s" % p.stderr)


def no_build_paths(text, where):
    """Messages name source files relative to the source root, never by the build machine's path."""
    m = re.search(r"(?<![\w.])/[\w./+-]+\.(?:cpp|hpp|cu|cuh|h)\b", text)
    if m:
        fail("%s carries an absolute source path %s:\n%s" % (where, m.group(0), text[-2000:]))


def peak_rss_kb(exe, args):
    """Exit status, the child's own peak resident set in KB (wait4) and its stderr."""
    with open(os.path.join(os.environ.get("TMPDIR", "/tmp"), "sb_rss_%d.err" % os.getpid()), "w+") as errf:
        proc = subprocess.Popen([exe] + args, stdout=subprocess.DEVNULL, stderr=errf)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        errf.seek(0)
        text = errf.read()
    os.remove(errf.name)
    print("$", exe, " ".join(args), "->", proc.returncode, "peak RSS %d MB" % (usage.ru_maxrss // 1024))
    return proc.returncode, usage.ru_maxrss, text


def require_gpu(exe):
    probe = run(exe, ["--sizes=64", "--benchmark_filter=^GPU/dgesv/", "--benchmark_list_tests=true"])
    if "GPU rows not registered" in probe.stderr:
        print("SKIP: no GPU: " + probe.stderr.strip().splitlines()[0])
        sys.exit(77)


def main(doc, cases):
    """CASE EXE WORKDIR [SOLVE_BENCH_CHECKS] from argv: runs CASE in WORKDIR/CASE."""
    global CHECKS
    if len(sys.argv) not in (4, 5) or sys.argv[1] not in cases:
        print(doc)
        sys.exit(2)
    case, exe, work = sys.argv[1:4]
    CHECKS = sys.argv[4] if len(sys.argv) == 5 else None
    work = os.path.join(work, case)
    os.makedirs(work, exist_ok=True)
    cases[case](exe, work)
