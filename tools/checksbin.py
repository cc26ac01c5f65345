"""Where the tools find solve_bench_checks, the C++ that judges (one finder for all of them).

find_checks(given): `given`, else $SOLVE_BENCH_CHECKS, else the newest
build*/benchmarks/checks/solve_bench_checks of this source tree, else the one beside the tools
(an installed bin/), else the one on PATH; None when there is none.
"""
import glob
import os
import shutil

HERE = os.path.dirname(os.path.realpath(__file__))
CHECKS = "solve_bench_checks"


def find_checks(given=None):
    if given:
        return given
    if os.environ.get("SOLVE_BENCH_CHECKS"):
        return os.environ["SOLVE_BENCH_CHECKS"]
    root = os.path.dirname(HERE)
    built = [p for pattern in ("build/benchmarks/checks/", "build*/*/benchmarks/checks/", "build*/benchmarks/checks/")
             for p in glob.glob(os.path.join(root, pattern, CHECKS)) if os.access(p, os.X_OK)]
    if built:
        return max(built, key=os.path.getmtime)
    beside = os.path.join(HERE, CHECKS)
    if os.access(beside, os.X_OK):
        return beside
    return shutil.which(CHECKS)
