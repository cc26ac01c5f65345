#!/usr/bin/env python3
"""Smoke runs of solve_bench for issue 21 ("lose nothing"): every bad input named, every write
checked, a GPU fault costs one row. One case per item of its list, each running the command that
failed and checking the named error, the documented exit status (0 ok, 1 a row failed or an output
could not be written, 2 usage, 4 nothing measured) and that an earlier result is left as it was
(bytes and mtime of keep.json, keep.rows.jsonl, keep.audit.json, ...).

usage: bench_lose_nothing.py CASE SOLVE_BENCH WORKDIR [SOLVE_BENCH_CHECKS]
  kill_processes  a --processes=2 run SIGKILLed in its second process; --resume finishes its rounds
  min_time_1x  1: BENCHMARK_MIN_TIME=1x (and --benchmark_min_time=Nx) runs exactly N calls a row
  repetitions  2: --benchmark_repetitions=-1 (flag and environment) refused; 2 gives aggregates,
               cv in percent
  nothing      3: a filter that matches nothing over an earlier result: exit 4, that result untouched
  write_errors 4: /dev/full refused by name; a rows log or a JSON that cannot be written (a full
               disk: RLIMIT_FSIZE) is named, exit 1, the earlier result untouched
  one_writer   5: --rows_out equal to --benchmark_out refused; of two runs writing one file at once
               the second is refused, the first is whole
  memory_first 6: --sizes=500000000 and --batch_n=256 --batch_count=1000000 refused before memory
               is taken (peak RSS stays small)
  exit_codes   7: measured nothing -> 4, bad values of Google Benchmark's flags -> 2, each named
  bad_files    8: solve_bench_checks names what is wrong with a file (exit 2), never crashes
  sticky       9: (fault-injection build, GPU) a sticky CUDA error fails its row by name, the other
               GPU rows run in a re-executed process, one audit and verdict over all rows, exit 1;
               skipped (exit 77) without a GPU
  small_ones   10: --cond=1e300, --irs_tol=inf, duplicate sizes, a mistyped SOLVE_BENCH_ variable
               refused; --mgpu_sizes=none taken; BENCHMARK_OUT gets its rows log and sidecars;
               OMP_PROC_BIND named by the audit; /dev/null refused; NaN in dsgesv named
  kill         a sweep SIGKILLed over an earlier result leaves that result whole and its finished
               rows in X.rows.jsonl.partial; --resume ends with exactly the rows
               --benchmark_list_tests gives, each once, and one audit and verdict over all
"""

import json
import os
import signal
import subprocess
import time

import smoke_lib as sb
from smoke_lib import (F, SIDECARS, THRESHOLD, earlier_result, fail, load_rows_log, no_build_paths,
                       peak_rss_kb, require_gpu, run, snapshot, untouched, usage_error)


SWEEP_FILTER = "^CPU/d(gesv|posv|getrf|getrs|potrf|potrs|gemm)/n:[0-9]+(/nrhs:1)?/manual_time$"


def case_kill(exe, work):
    stem, before = earlier_result(exe, work, "killed")
    partial = stem + ".rows.jsonl.partial"
    # Many rows of a fraction of a second each: the kill lands mid-sweep. One process of 5 rounds
    # (--rounds alone): kill_processes kills the second process of several.
    args = ["--sizes=32,48,64,96,128", "--precisions=d", "--benchmark_filter=" + SWEEP_FILTER,
            "--benchmark_min_time=0.05", "--rounds=5", "--benchmark_out=" + stem + ".json"]
    proc = subprocess.Popen([exe] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if os.path.exists(partial) and sum(1 for _ in open(partial)) >= 6:  # the context line + 5 rows
            break
        time.sleep(0.02)
    if proc.poll() is not None:
        fail("the sweep ended before it could be killed")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    # The earlier result is whole and untouched (no new rows against its old audit); the new
    # rows are in the .partial log, every line complete.
    untouched(before, "a run killed over an earlier result")
    context, kept = load_rows_log(partial, killed=True)
    if len(kept) < 5:
        fail("kept %d rows" % len(kept))
    for b in kept:
        if b.get("error_occurred") or not b["resid"] < THRESHOLD or not b["real_time"] > 0:
            fail("a kept row is not a finished, checked row: %r" % b)
    if sb.CHECKS and open(partial).read().endswith("\n"):  # the checks read what a killed run kept
        q = subprocess.run([sb.CHECKS, "--no-files", partial], capture_output=True, text=True, timeout=120)
        if q.returncode not in (0, 1) or ("%d row" % len(kept)) not in q.stdout:
            fail("solve_bench_checks on the kept rows: exit %d\n%s%s" % (q.returncode, q.stdout, q.stderr))
    # Resumed: exactly the rows the command lists, each once, one audit and verdict over all.
    p = run(exe, args + ["--resume=" + partial])
    print(p.stderr[-1000:])
    if p.returncode != 0:
        fail("resume: exit %d" % p.returncode)
    listed = run(exe, args + ["--benchmark_list_tests=true"]).stdout.split()
    doc = json.load(open(stem + ".json"))
    reps = sb.repetitions(doc)
    if sorted(reps) != sorted(listed) or len(set(listed)) != len(listed):
        fail("resumed run: %d rows, the command lists %d: extra %s, missing %s"
             % (len(reps), len(listed), sorted(set(reps) - set(listed)), sorted(set(listed) - set(reps))))
    if os.path.exists(partial):
        fail("the .partial log is still there after the resumed run ended")
    # Each row's 5 rounds exactly once: those the killed process finished, then the resumed one's
    # (its own context line, so the checks keep the two processes apart).
    _, logged = load_rows_log(stem + ".rows.jsonl")
    if sorted(sb.slots(logged)) != sorted((name, 0, k) for name in listed for k in range(5)):
        fail("the rows log after resume does not hold each listed row's 5 rounds once")
    if sb.context_lines(stem + ".rows.jsonl") != 2 or any(len(r) != 5 for r in reps.values()):
        fail("two processes' context lines, and 5 repetitions a row in the JSON")
    audit = json.load(open(stem + ".audit.json"))["audit"]
    verdict = json.load(open(stem + ".verdict.json"))["verdict"]
    if audit["rows_checked"] != len(listed) or verdict["rows_passed"] != len(listed):
        fail("the audit checked %d rows and the verdict passed %d, of %d"
             % (audit["rows_checked"], verdict["rows_passed"], len(listed)))
    if p.stdout.count("\naudit: ") != 1:
        fail("one audit at the end of the resumed run")
    print("ok: killed after %d rows over an earlier result (left whole); resumed to the %d listed rows, each once"
          % (len(kept), len(listed)))


def case_kill_processes(exe, work):
    """A run of --processes=2 SIGKILLed in its second process: --resume finishes the second
    process's rounds (in a third OS process, a context line of its own) and judges once."""
    stem = os.path.join(work, "procs")
    for ext in SIDECARS + (".rows.jsonl.partial",):
        if os.path.exists(stem + ext):
            os.remove(stem + ext)
    partial = stem + ".rows.jsonl.partial"
    args = ["--sizes=32,48,64,96", "--precisions=d", "--benchmark_filter=" + SWEEP_FILTER, "--rounds=2",
            "--processes=2", "--benchmark_min_time=0.02", "--benchmark_out=" + stem + ".json"]
    proc = subprocess.Popen([exe] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if os.path.exists(partial) and sb.context_lines(partial) >= 2 and sum(1 for _ in open(partial)) >= 62:
            break  # the second process has written a few rounds
        time.sleep(0.02)
    if proc.poll() is not None:
        fail("the run ended before its second process could be killed")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    _, kept = load_rows_log(partial, killed=True)
    if not any(b["process"] == 1 for b in kept):
        fail("killed before the second process wrote a round")
    p = run(exe, args + ["--resume=" + partial])
    if p.returncode != 0 or p.stdout.count("\naudit: ") != 1:
        fail("resume: exit %d, %d audits\n%s" % (p.returncode, p.stdout.count("\naudit: "), p.stderr[-2000:]))
    listed = run(exe, args + ["--benchmark_list_tests=true"]).stdout.split()
    _, logged = load_rows_log(stem + ".rows.jsonl")
    want = sorted((n, proc_, r) for n in listed for proc_ in (0, 1) for r in (0, 1))
    if sorted(sb.slots(logged)) != want or sb.context_lines(stem + ".rows.jsonl") != 3:
        fail("each row's 2 x 2 rounds once, three processes' context lines (%d)" % sb.context_lines(stem + ".rows.jsonl"))
    reps = sb.repetitions(json.load(open(stem + ".json")))
    if sorted(reps) != sorted(listed) or any(len(v) != 4 or {b["processes"] for b in v} - {2, 3} for v in reps.values()):
        fail("the JSON: 4 rounds a row, from the processes that ran them")
    print("ok: killed in its second process after %d rounds; resumed to every row's 4 rounds once, one audit"
          % len(kept))


def case_min_time_1x(exe, work):
    out = os.path.join(work, "min1x.json")
    filt = "--benchmark_filter=^CPU/d(gesv|getrf)/n:32(/nrhs:1)?/manual_time$"
    for args, env, calls in (([filt], {"BENCHMARK_MIN_TIME": "1x"}, 1),
                             ([filt, "--benchmark_min_time=3x"], {}, 3),
                             ([filt, "--benchmark_min_time=1x"], {"BENCHMARK_MIN_TIME": "0.01"}, 1)):
        p = run(exe, ["--sizes=32", "--precisions=d", "--benchmark_out=" + out] + args, env)
        if p.returncode != 0:
            fail("exit %d (it crashed with 139 once)\n%s" % (p.returncode, p.stderr))
        reps = sb.repetitions(json.load(open(out)))
        rounds = [b for r in reps.values() for b in r]
        if len(reps) != 2 or len(rounds) != 6 or any(
                b.get("error_occurred") or b["iterations"] != calls or b["samples"] != calls for b in rounds):
            fail("%s %s: expected 2 rows of 3 rounds (3 processes of one) of exactly %d timed calls: %r"
                 % (args, env, calls, rounds))
    for bad in ("0x", "-2x", "x", "1.5x"):
        usage_error(run(exe, F + ["--benchmark_min_time=" + bad]), "'%s' is not a positive number of calls" % bad)
    print("ok: 1x and 3x run exactly that many calls a round; 0x, -2x, x, 1.5x refused")


def case_repetitions(exe, work):
    stem, before = earlier_result(exe, work)
    for args, env in ((["--benchmark_repetitions=-1"], {}), ([], {"BENCHMARK_REPETITIONS": "-1"})):
        p = run(exe, F + args + ["--benchmark_out=" + stem + ".json"], env)
        usage_error(p, "'-1' is not a number of repetitions from 1 to 10000")
        if ("environment variable BENCHMARK_REPETITIONS" in p.stderr) != bool(env):
            fail("the message names where the value came from: %s" % p.stderr)
    untouched(before, "a refused --benchmark_repetitions")
    # Two repetitions: each repetition, then mean, median, stddev and cv (a fraction in the JSON).
    out = os.path.join(work, "reps.json")
    p = run(exe, F + ["--benchmark_repetitions=2", "--benchmark_out=" + out])
    if p.returncode != 0:
        fail("--benchmark_repetitions=2: exit %d" % p.returncode)
    rows = json.load(open(out))["benchmarks"]
    kinds = [(b["run_type"], b.get("repetition_index", b.get("aggregate_name"))) for b in rows]
    if kinds != [("iteration", 0), ("iteration", 1), ("aggregate", "mean"), ("aggregate", "median"),
                 ("aggregate", "stddev"), ("aggregate", "cv")]:
        fail("repetitions and aggregates: %r" % kinds)
    mean, stddev, cv = rows[2]["real_time"], rows[4]["real_time"], rows[5]
    if cv["aggregate_unit"] != "percentage" or abs(cv["real_time"] - stddev / mean) > 1e-6 + 0.01 * stddev / mean:
        fail("cv %r is not stddev/mean = %r" % (cv["real_time"], stddev / mean))
    print("ok: -1 refused by flag and environment, nothing lost; 2 repetitions with a cv that is stddev/mean")


def case_nothing(exe, work):
    stem, before = earlier_result(exe, work)
    p = run(exe, ["--benchmark_filter=^nomatch$", "--benchmark_out=" + stem + ".json"])
    if p.returncode != 4 or "nothing was measured (no row matched the filter)" not in p.stderr:
        fail("a filter that matches nothing: expected exit 4 and its reason, got %d:\n%s" % (p.returncode, p.stderr))
    untouched(before, "a run that measured nothing")
    left = [f for f in os.listdir(work) if f.startswith("keep") and f not in {os.path.basename(k) for k in before}]
    if left:
        fail("a run that measured nothing left %s" % left)
    print("ok: exit 4, the earlier result untouched, nothing left behind")


def case_write_errors(exe, work):
    import resource
    stem, before = earlier_result(exe, work)
    for flag, what in (("--benchmark_out", "--benchmark_out"), ("--rows_out", "the rows log")):
        p = run(exe, F + ["%s=/dev/full" % flag] + (["--benchmark_out=" + stem + ".json"] if flag == "--rows_out" else []))
        usage_error(p, "%s: /dev/full is not a regular file" % what)
    untouched(before, "an output on /dev/full")

    # A full disk, as RLIMIT_FSIZE makes one: each write past the limit fails (EFBIG).
    def limited(limit):
        def set_limit():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        return set_limit
    # The rows log's first line (the context) does not fit: named, exit 1, nothing replaced.
    p = run(exe, F + ["--benchmark_out=" + stem + ".json"], preexec_fn=limited(1024))
    if p.returncode != 1 or "cannot write the rows log %s.rows.jsonl.partial: File too large" % stem not in p.stderr:
        fail("a rows log that cannot be written: expected exit 1 naming it, got %d:\n%s" % (p.returncode, p.stderr))
    untouched(before, "a run whose rows log could not be written")
    # The log fits but the JSON does not (one call a row: short log lines, a longer JSON).
    args = ["--sizes=16,24,32", "--precisions=d", "--benchmark_filter=" + SWEEP_FILTER, "--benchmark_min_time=1x"]
    big_stem = os.path.join(work, "sized")
    p = run(exe, args + ["--benchmark_out=" + big_stem + ".json"])
    log_size, json_size = os.path.getsize(big_stem + ".rows.jsonl"), os.path.getsize(big_stem + ".json")
    if p.returncode != 0 or json_size < log_size + 4000:
        fail("the sizing run: exit %d, log %d bytes, JSON %d" % (p.returncode, log_size, json_size))
    p = run(exe, args + ["--benchmark_out=" + stem + ".json"], preexec_fn=limited((log_size + json_size) // 2))
    if p.returncode != 1 or "cannot write %s.json" % stem not in p.stderr or "File too large" not in p.stderr:
        fail("a JSON that cannot be written: expected exit 1 naming it, got %d:\n%s" % (p.returncode, p.stderr))
    untouched(before, "a run whose JSON could not be written")
    if [f for f in os.listdir(work) if f.startswith("keep.json") and f != "keep.json"]:
        fail("a temporary file was left: %s" % os.listdir(work))
    _, kept = load_rows_log(stem + ".rows.jsonl.partial")  # the new rows stay, for a --resume
    if len(kept) != 21 * 3 or len({b["name"] for b in kept}) != 21:
        fail("the new rows' rounds are not all in the .partial log: %d" % len(kept))
    print("ok: /dev/full refused by name; a rows log and a JSON that cannot be written are named, exit 1, "
          "the earlier result untouched")


def case_one_writer(exe, work):
    p = run(exe, F + ["--benchmark_out=" + os.path.join(work, "same.json"),
                      "--rows_out=" + os.path.join(work, "same.json")])
    usage_error(p, "the rows log and --benchmark_out are the same file")
    p = run(exe, F + ["--benchmark_out=" + os.path.join(work, "same.json"),
                      "--rows_out=" + os.path.join(work, "same.audit.json")])
    usage_error(p, "are the same file")
    # Two runs writing one result at once: the second is refused by name, the first is whole.
    stem = os.path.join(work, "shared")
    for ext in SIDECARS + (".rows.jsonl.partial",):
        if os.path.exists(stem + ext):
            os.remove(stem + ext)
    args = ["--sizes=32,48,64", "--precisions=d", "--benchmark_filter=" + SWEEP_FILTER,
            "--benchmark_min_time=0.1", "--benchmark_out=" + stem + ".json"]
    first = subprocess.Popen([exe] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while time.time() < deadline and first.poll() is None:
        if os.path.exists(stem + ".rows.jsonl.partial") and sum(1 for _ in open(stem + ".rows.jsonl.partial")) >= 2:
            break
        time.sleep(0.02)
    if first.poll() is not None:
        fail("the first run ended before the second started")
    second = run(exe, F + ["--benchmark_out=" + stem + ".json"])
    running = first.poll() is None
    first_err = first.communicate(timeout=300)[1]
    if not running:
        fail("the first run ended while the second ran: the test proves nothing")
    if second.returncode != 2 or "another solve_bench run is writing %s.rows.jsonl.partial" % stem not in second.stderr:
        fail("the second run: expected exit 2 naming the lock, got %d:\n%s" % (second.returncode, second.stderr))
    if first.returncode != 0:
        fail("the first run: exit %d\n%s" % (first.returncode, first_err))
    listed = run(exe, args + ["--benchmark_list_tests=true"]).stdout.split()
    names = sb.repetitions(json.load(open(stem + ".json")))
    _, logged = load_rows_log(stem + ".rows.jsonl")
    if sorted(names) != sorted(listed) or sorted(sb.slots(logged)) != sorted(
            (name, p, 0) for name in listed for p in range(3)):
        fail("the first run's results are not whole: %d rows in the JSON, %d logged, %d listed"
             % (len(names), len(logged), len(listed)))
    print("ok: --rows_out on another output refused; a second writer refused by name, the first whole")


def case_memory_first(exe, work):
    code, base_kb, _ = peak_rss_kb(exe, F)
    if code != 0:
        fail("the baseline run: exit %d" % code)
    for args in (["--sizes=500000000", "--precisions=d", "--benchmark_filter=^CPU/dgesv/n:500000000/nrhs:1/"],
                 ["--batch_n=256", "--batch_count=1000000", "--precisions=d", "--benchmark_filter=^CPU/dgesv_batched/"]):
        code, kb, err = peak_rss_kb(exe, args + ["--benchmark_min_time=0.01"])
        if code != 4 or "not enough host memory: needed" not in err or "every row was refused" not in err:
            fail("%s: expected exit 4 with the refusal named, got %d:\n%s" % (args, code, err))
        # The refusal comes before the allocation: the peak is the baseline's (it was 2.1 / 1.2 GB).
        if kb > base_kb + 100 * 1024:
            fail("%s: peak RSS %d MB, the one-row run's %d MB: memory was taken before the refusal"
                 % (args, kb // 1024, base_kb // 1024))
    print("ok: both refused before allocating (peak RSS within 100 MB of a one-row run's %d MB)" % (base_kb // 1024))


def case_exit_codes(exe, work):
    stem, before = earlier_result(exe, work)
    out = ["--benchmark_out=" + stem + ".json"]
    # Nothing measured: 4, the earlier result untouched.
    p = run(exe, ["--sizes=3000000", "--precisions=d", "--benchmark_filter=^CPU/dgesv/n:3000000/nrhs:1/manual_time$"]
            + out)
    if p.returncode != 4 or "every row was refused" not in p.stderr:
        fail("every row refused for memory: expected exit 4, got %d:\n%s" % (p.returncode, p.stderr))
    p = run(exe, ["--benchmark_filter=^nomatch$"] + out)
    if p.returncode != 4:
        fail("a filter that matches nothing: expected exit 4, got %d" % p.returncode)
    untouched(before, "a run that measured nothing")
    listed = run(exe, ["--benchmark_list_tests=true", "--benchmark_filter=GPU"]).stdout.split()
    if not listed:  # no GPU here: the headline command measures nothing, says so, writes nothing
        gpu = os.path.join(work, "gpu")
        p = run(exe, ["--benchmark_filter=GPU", "--benchmark_out=" + gpu + ".json"])
        if p.returncode != 4 or "GPU rows not registered" not in p.stderr or "nothing was measured" not in p.stderr:
            fail("--benchmark_filter=GPU without a GPU: expected exit 4, got %d:\n%s" % (p.returncode, p.stderr))
        left = [f for f in os.listdir(work) if f.startswith("gpu.")]
        if left:
            fail("--benchmark_filter=GPU without a GPU left %s" % left)
    # Refused values: 2, each named, in one line.
    refused = [
        (["--precisions="], {}, "--precisions: empty list"),
        (["--benchmark_repetitions=0"], {}, "--benchmark_repetitions: '0' is not a number of repetitions"),
        (["--benchmark_out_format=bogus"], {}, "--benchmark_out_format: 'bogus' is not one of json, csv, console"),
        (["--benchmark_time_unit=zz"], {}, "--benchmark_time_unit: 'zz' is not one of ns, us, ms, s"),
        (["--benchmark_format=xml"], {}, "--benchmark_format: 'xml' is not one of"),
        ([], {"BENCHMARK_FORMAT": "xml"}, "environment variable BENCHMARK_FORMAT: 'xml' is not one of"),
        ([], {"BENCHMARK_TIME_UNIT": "zz"}, "environment variable BENCHMARK_TIME_UNIT: 'zz' is not one of"),
        (["--benchmark_min_time=nan"], {}, "--benchmark_min_time: 'nan' is not a positive, finite number"),
        (["--benchmark_min_time=inf"], {}, "--benchmark_min_time: 'inf' is not a positive, finite number"),
        (["--benchmark_min_time=-1"], {}, "--benchmark_min_time: '-1' is not a positive, finite number"),
        (["--benchmark_min_time=-0.5s"], {}, "--benchmark_min_time: '-0.5s' is not a positive"),
        (["--benchmark_min_time=0"], {}, "--benchmark_min_time: '0' is not a positive"),
        ([], {"BENCHMARK_MIN_TIME": "abc"}, "environment variable BENCHMARK_MIN_TIME: 'abc' is not a positive"),
        ([], {"BENCHMARK_OUT_FORMAT": "bogus"}, "environment variable BENCHMARK_OUT_FORMAT: 'bogus' is not one of"),
    ]
    for args, env, needle in refused:
        usage_error(run(exe, F + args + out, env), needle)
    untouched(before, "a refused flag")
    print("ok: nothing measured -> 4 (earlier result untouched, nothing written); %d bad values -> 2, named"
          % len(refused))


def case_bad_files(exe, work):
    if not sb.CHECKS:
        fail("bad_files needs solve_bench_checks (4th argument)")
    d = os.path.join(work, "bad")
    os.makedirs(d, exist_ok=True)
    row = {"name": "CPU/dgesv/n:32/nrhs:1/manual_time", "run_name": "CPU/dgesv/n:32/nrhs:1/manual_time",
           "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "iterations": 10, "real_time": 1000.0,
           "cpu_time": 1000.0, "time_unit": "ns", "resid": 0.1, "GFLOP/s": 1.0}

    def doc(**change):
        r = dict(row, **change)
        for k, v in change.items():
            if v is None:
                del r[k]
        return json.dumps({"context": {"solve_bench_version": "0"}, "benchmarks": [r]}).encode()
    files = {
        "latin1.json": (b'{"context": {"host_name": "\xff\xfe"}, "benchmarks": []}', "ill-formed UTF-8"),
        "utf16.json": (json.dumps({"context": {}, "benchmarks": [row]}).encode("utf-16"), "UTF-16"),
        "notobj.json": (json.dumps({"context": {}, "benchmarks": [1, 2]}).encode(), "a row that is not an object"),
        "strtime.json": (doc(real_time="12"), '"real_time" is not a number'),
        "numname.json": (doc(name=5, run_name=None), '"name" is not text'),
        "deep.json": (b"[" * 100000 + b"]" * 100000, "nested deeper than"),
        "ctxstr.json": (json.dumps({"context": "x", "benchmarks": [row]}).encode(), '"context" is not an object'),
        "empty.json": (b"", "empty file"),
        "notime.json": (doc(real_time=None), ": no real_time"),
        "negtime.json": (doc(real_time=-5.0), "a negative or non-finite time"),
        "foreign.json": (doc(name="BM_Foo/8", run_name="BM_Foo/8"), "'BM_Foo/8' is not a solve_bench row name"),
        "middle.rows.jsonl": ("\n".join([json.dumps({"context": {}}), json.dumps(row), '{"name": broken',
                                         json.dumps(dict(row, name="CPU/dgesv/n:48/nrhs:1/manual_time",
                                                         run_name="CPU/dgesv/n:48/nrhs:1/manual_time"))]).encode()
                              + b"\n", "middle.rows.jsonl:3: not JSON"),
    }
    good = os.path.join(d, "good.json")
    open(good, "wb").write(doc())
    for name, (data, needle) in files.items():
        path = os.path.join(d, name)
        open(path, "wb").write(data)
        for cmd in ([sb.CHECKS, "--no-files", path], [sb.CHECKS, "compare", good, "--", path]):
            q = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=60)
            if q.returncode != 2 or needle not in q.stderr or path not in q.stderr:
                fail("%s: expected exit 2 naming the file and %r, got %d:\n%s"
                     % (" ".join(cmd[1:3]), needle, q.returncode, q.stderr))
    print("ok: %d bad files named with exit 2, by the checks and by compare" % len(files))


def case_small_ones(exe, work):
    for args, env, needle in (
            (["--cond=1e300"], {}, "--cond: 1e300 is beyond 1e16"),
            (["--irs_tol=inf"], {}, "--irs_tol: 'inf' is not a positive, finite number"),
            (["--irs_tol=nan"], {}, "--irs_tol: 'nan' is not a positive, finite number"),
            (["--sizes=32,32"], {}, "--sizes: 32 appears twice"),
            (["--batch_n=4,4"], {}, "--batch_n: 4 appears twice"),
            ([], {"SOLVE_BENCH_SIZS": "32"}, "environment variable SOLVE_BENCH_SIZS names no flag of this binary"),
            (["--benchmark_out=/dev/null"], {}, "--benchmark_out: /dev/null is not a regular file")):
        usage_error(run(exe, F + args, env), needle)
    for side in ("/dev/null.rows.jsonl", "/dev/null.rows.jsonl.partial", "/dev/null.audit.json", "/dev/null.verdict.md"):
        if os.path.exists(side):
            fail("%s was written" % side)
    p = run(exe, F + ["--mgpu_sizes=none"])
    if p.returncode != 0:
        fail("--mgpu_sizes=none (as --help offers): exit %d\n%s" % (p.returncode, p.stderr))
    # BENCHMARK_OUT from the environment: the rows log and the sidecars beside it.
    stem = os.path.join(work, "envout")
    for ext in SIDECARS:
        if os.path.exists(stem + ext):
            os.remove(stem + ext)
    p = run(exe, F, {"BENCHMARK_OUT": stem + ".json"})
    missing = [stem + ext for ext in SIDECARS if not os.path.exists(stem + ext)]
    if p.returncode != 0 or missing:
        fail("BENCHMARK_OUT: exit %d, missing %s" % (p.returncode, missing))
    # ... and Google Benchmark, which read it before main, does not write it itself (it truncated
    # the file when the run started): a run that measures nothing leaves it as it was.
    before = snapshot(stem)
    time.sleep(0.02)
    p = run(exe, ["--sizes=3000000", "--precisions=d", "--benchmark_filter=^CPU/dgesv/n:3000000/nrhs:1/manual_time$"],
            {"BENCHMARK_OUT": stem + ".json"})
    if p.returncode != 4:
        fail("BENCHMARK_OUT, every row refused: expected exit 4, got %d" % p.returncode)
    untouched(before, "a run given BENCHMARK_OUT that measured nothing")
    # A thread-pinning variable: the audit names it (it was clean, counting one core).
    p = run(exe, F + ["--benchmark_out=" + os.path.join(work, "bind.json")], {"OMP_PROC_BIND": "true"})
    audit = json.load(open(os.path.join(work, "bind.audit.json")))["audit"]
    if p.returncode != 0 or audit["clean"] or not any(
            f["rule"] == "thread_env" and "OMP_PROC_BIND=true" in f["message"] for f in audit["findings"]):
        fail("OMP_PROC_BIND=true is not named by the audit: %r" % audit["findings"])
    # NaN input in a mixed-precision row: named, not "residual inf".
    out = os.path.join(work, "nan.json")
    p = run(exe, ["--sizes=40", "--precisions=d", "--mixed_kinds=nan", "--benchmark_min_time=5x",
                  "--benchmark_filter=^CPU/d(sgesv|gesv)/n:40/nrhs:1/kind:nan", "--benchmark_out=" + out])
    rows = json.load(open(out))["benchmarks"]
    if p.returncode != 1 or len(rows) != 2 or not all(
            "input A holds NaN at (20,20)" in b.get("error_message", "") for b in rows):
        fail("NaN input in dgesv/dsgesv rows: exit %d, %r" % (p.returncode, [(b["name"], b.get("error_message"))
                                                                             for b in rows]))
    # --kind says which rows it applies to.
    h = run(exe, ["--help"]).stdout
    kind_help = h[h.index("--kind="):h.index("--seed=")]
    if "--mixed_kinds" not in kind_help or "batched rows keep theirs" not in kind_help:
        fail("--kind's help does not say the mixed and batched rows keep their own matrices:\n" + kind_help)
    no_build_paths(p.stdout + p.stderr, "a failed row's message")
    print("ok: the smaller ones of issue 21")


def case_sticky(exe, work):
    stem = os.path.join(work, "sticky")
    for ext in SIDECARS + (".rows.jsonl.partial",):
        if os.path.exists(stem + ext):
            os.remove(stem + ext)
    require_gpu(exe)
    faulty = "GPU/dgesv/n:64/nrhs:1"
    env = {"SOLVE_BENCH_INJECT_FAULT": "GPU/dgesv/n:64/"}  # a part of the row's name
    args = ["--sizes=64,96", "--precisions=d", "--benchmark_min_time=5x",
            "--benchmark_filter=^(CPU|GPU)/d(gesv|posv)/n:[0-9]+/nrhs:1/manual_time$", "--benchmark_out=" + stem + ".json"]
    p = run(exe, args, env)
    print(p.stdout[-3000:], p.stderr[-3000:])
    if p.returncode != 1:
        fail("expected exit 1 (one row failed), got %d" % p.returncode)
    if "running them in a fresh one" not in p.stderr:
        fail("no line says the rows after the fault run in a fresh process")
    reps = sb.repetitions(json.load(open(stem + ".json")))
    rows = [b for r in reps.values() for b in r]
    hit = reps.get(faulty + "/manual_time", [])
    if len(hit) != 1 or "cudaErrorIllegalAddress" not in hit[0].get("error_message", ""):
        fail("the faulted row must name the CUDA error, in its one round: %r" % hit)
    others = [b for b in rows if b["name"] != faulty + "/manual_time"]
    bad = [(b["name"], b.get("error_message")) for b in others if b.get("error_occurred") or not b["resid"] < THRESHOLD]
    if bad or any(len(r) != 3 for name, r in reps.items() if name != faulty + "/manual_time"):
        fail("every other row must run its 3 rounds (one in each of 3 processes) and pass, the GPU ones in a "
             "fresh process: %r" % bad)
    listed = run(exe, args + ["--benchmark_list_tests=true"], env).stdout.split()
    names = list(reps)
    if sorted(names) != sorted(listed) or not any(n.startswith("GPU/") for n in names if n != faulty + "/manual_time"):
        fail("the run holds %s, the command lists %s" % (sorted(names), sorted(listed)))
    audit = json.load(open(stem + ".audit.json"))["audit"]
    verdict = json.load(open(stem + ".verdict.json"))["verdict"]
    if audit["rows_failed"] != 1 or audit["rows_checked"] != len(listed) - 1 or \
            verdict["rows_passed"] != len(listed) - 1 or verdict["rows_failed"] != 1:
        fail("one audit and verdict over all %d rows: audit %r/%r, verdict %r/%r"
             % (len(listed), audit["rows_checked"], audit["rows_failed"], verdict["rows_passed"], verdict["rows_failed"]))
    if p.stdout.count("\naudit: ") != 1 or os.path.exists(stem + ".rows.jsonl.partial"):
        fail("one audit at the end, the rows log settled")
    no_build_paths(p.stdout + p.stderr + " ".join(b.get("error_message", "") for b in rows), "the fault's message")
    print("ok: the sticky error failed its row by name; the %d other rows ran, one audit and verdict, exit 1"
          % len(others))


if __name__ == "__main__":
    sb.main(__doc__, {"kill": case_kill, "kill_processes": case_kill_processes, "min_time_1x": case_min_time_1x, "repetitions": case_repetitions,
                      "nothing": case_nothing, "write_errors": case_write_errors, "one_writer": case_one_writer,
                      "memory_first": case_memory_first, "exit_codes": case_exit_codes, "bad_files": case_bad_files,
                      "small_ones": case_small_ones, "sticky": case_sticky})
