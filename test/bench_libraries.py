#!/usr/bin/env python3
"""Smoke runs of solve_bench with CPU libraries loaded beside the linked one (--cpu_libraries).

usage: bench_libraries.py CASE SOLVE_BENCH WORKDIR [SOLVE_BENCH_CHECKS]
  libraries    the default row list is the one without the flag; with --cpu_libraries=reference,
               blis,... one run has rows of each library, every answer checked, each row carrying
               its own library's facts (a different blas_library per library), a library that is
               not installed skipped with a line; a name it does not know is a usage error
Exits 77 (skipped) where BLIS or the reference BLAS + LAPACK is not installed.
"""

import json
import os
import re
import sys

import smoke_lib as sb
from smoke_lib import THRESHOLD, fail, load_rows_log, run, usage_error

BLIS = "/usr/lib/x86_64-linux-gnu/blis-pthread/libblas.so.3"
REFERENCE = ("/usr/lib/x86_64-linux-gnu/blas/libblas.so.3", "/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3")
FACTS = ["cpu_library", "blas_vendor", "blas_version", "blas_variant", "blas_threads", "blas_library",
         "lapack_version", "lapack_library"]
NAME = re.compile(r"^(CPU|CPU-driver)(?:\[([a-z-]+)\])?/")


def listed(exe, args):
    p = run(exe, args + ["--benchmark_list_tests"])
    if p.returncode != 0:
        fail("--benchmark_list_tests %s: exit %d\n%s" % (args, p.returncode, p.stderr))
    return p.stdout.split()


def case_libraries(exe, work):
    if not all(os.path.exists(f) for f in (BLIS,) + REFERENCE):
        print("skipped: needs libblis4-pthread, libblas3 and liblapack3")
        sys.exit(77)
    default = listed(exe, [])
    if listed(exe, ["--cpu_libraries=none"]) != default or any("[" in r for r in default):
        fail("--cpu_libraries=none changed the default row list")
    print("ok: the default list (%d rows) is the one --cpu_libraries=none gives, no CPU[...] row" % len(default))

    out = os.path.join(work, "libs.json")
    # One BLIS thread: a loaded 2-core machine stalls BLIS's spinning barriers with two (cpu-libraries.md).
    p = run(exe, ["--cpu_libraries=reference,blis,blis-openmp", "--sizes=48", "--precisions=d", "--nrhs=1",
                  r"--benchmark_filter=^CPU(-driver)?(\[[a-z-]+])?/d(gesv|getrf|gemm)/", "--benchmark_min_time=5x",
                  "--rounds=1", "--progress=off", "--benchmark_out=" + out],
            env={"BLIS_NUM_THREADS": "1"})
    print(p.stderr[-3000:])
    if p.returncode != 0:
        fail("exit status %d" % p.returncode)
    doc = json.load(open(out))
    rows = {name: reps[-1] for name, reps in sb.repetitions(doc).items()}
    files = {}
    for lib in ("linked", "reference", "blis"):
        tag = "" if lib == "linked" else "[%s]" % lib
        for row in ["CPU%s/dgesv/n:48/nrhs:1" % tag, "CPU%s/dgetrf/n:48" % tag, "CPU%s/dgemm/n:48" % tag,
                    "CPU-driver%s/dgesv/n:48/nrhs:1" % tag]:
            b = rows.get(row + "/manual_time")
            if b is None:
                fail("no row %s among %s" % (row, sorted(rows)))
            if b.get("error_occurred") or not b.get("resid", THRESHOLD) < THRESHOLD:
                fail("%s: %s, resid %s" % (row, b.get("error_message"), b.get("resid")))
            missing = [k for k in FACTS if k not in b]
            if missing:
                fail("%s carries no %s" % (row, missing))
            api = "blas" if "gemm" in row else "lapack"
            if b["cpu_library"] != lib or b["id"]["device"] != "cpu" or b["id"]["backend"] != NAME.match(row)[0][:-1] \
                    or b["id"]["library"] != api + tag:
                fail("%s: cpu_library %r, id %s" % (row, b["cpu_library"], b["id"]))
            files.setdefault(lib, set()).add(b["blas_library"])
    if any(len(f) != 1 for f in files.values()) or len(set().union(*files.values())) != 3:
        fail("each library's rows should name one blas_library, three in all: %s" % files)
    ref = rows["CPU[reference]/dgesv/n:48/nrhs:1/manual_time"]
    blis = rows["CPU[blis]/dgesv/n:48/nrhs:1/manual_time"]
    if "/blas/libblas.so" not in ref["blas_library"] or "/lapack/liblapack.so" not in ref["lapack_library"]:
        fail("CPU[reference] rows ran %s + %s" % (ref["blas_library"], ref["lapack_library"]))
    if blis["blas_vendor"] != "BLIS" or "blis" not in blis["blas_library"] or blis["blas_threads"] != 1:
        fail("CPU[blis] rows: %s" % {k: blis[k] for k in FACTS})
    if ref["blas_threads"] != 1:
        fail("the reference BLAS runs one thread, its rows say %s" % ref["blas_threads"])
    print("ok: one run, rows of three libraries, every answer checked; blas_library %s" % sorted(files.items()))

    context = doc["context"]
    if "reference" not in context.get("cpu_libraries", "") or "blis" not in context.get("cpu_libraries", ""):
        fail("context cpu_libraries: %r" % context.get("cpu_libraries"))
    if not os.path.exists("/usr/lib/x86_64-linux-gnu/blis-openmp/libblas.so.3"):
        if "blis-openmp skipped: not installed" not in p.stderr or "blis-openmp" not in context.get(
                "cpu_libraries_skipped", ""):
            fail("blis-openmp is not installed: no line says it was skipped")
        print("ok: blis-openmp, not installed, skipped with a line")
    logged = load_rows_log(out.replace(".json", ".rows.jsonl"))[1]
    if not any(r["name"].startswith("CPU[blis]/") and r.get("cpu_library") == "blis" for r in logged):
        fail("the rows log's CPU[blis] rows carry no cpu_library")
    for side in ("audit", "verdict"):
        if not os.path.exists(out.replace(".json", ".%s.json" % side)):
            fail("no %s beside the JSON" % side)

    usage_error(run(exe, ["--cpu_libraries=nosuch", "--benchmark_list_tests"]), "unknown library 'nosuch'")
    usage_error(run(exe, ["--cpu_libraries=auto,blis", "--benchmark_list_tests"]), "'auto' stands alone")
    print("ok: an unknown library, and auto beside a name, are usage errors")


if __name__ == "__main__":
    sb.main(__doc__, {"libraries": case_libraries})
