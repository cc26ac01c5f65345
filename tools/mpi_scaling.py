#!/usr/bin/env python3
"""Strong scaling of ScaLAPACK against LAPACKE, in one JSON: CPU rows and MPI rows for
several rank counts, side by side, with a table of medians.

usage: mpi_scaling.py --build DIR --out RUN.json [--ranks 1,2] [--sizes 2048] [--nb 64]
                      [--repetitions 5] [--precisions d] [--mpiexec "mpirun ..."]

Runs, one after the other, on this machine:
  DIR/benchmarks/solve_bench      --benchmark_filter=^CPU/<p>(gesv|posv)/  (one process,
                                  OpenBLAS on every core: the single-node baseline)
  mpiexec -n P DIR/benchmarks/solve_bench_mpi   for each P in --ranks (1 OpenBLAS thread
                                  per rank, one rank per core)
then merges the Google Benchmark JSON files into RUN.json (rows keep their names; the
context is the CPU run's, plus every MPI run's under "mpi_np<P>.") and prints the medians.
Rows pair with compare.py as docs/mpi.md shows. Exit status: non-zero when a run failed.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import sbjson  # noqa: E402


def run(cmd, env=None):
    print("$", " ".join(shlex.quote(c) for c in cmd), flush=True)
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(cmd, env=full_env).returncode


def merge(cpu_path, mpi_paths, commands):
    cpu = sbjson.load(cpu_path)
    merged = {"context": cpu.context, "benchmarks": cpu.rows}
    merged["context"]["merged_runs"] = " ; ".join(commands)
    merged["context"]["mpi_scaling_env"] = " ".join(
        "%s=%s" % (k, v) for k, v in sorted(os.environ.items()) if k.startswith(("OMPI_MCA_", "OPENBLAS_", "OMP_")))
    for index, (ranks, path) in enumerate(mpi_paths, start=1):
        doc = sbjson.load(path)
        for key, value in doc.context.items():
            merged["context"]["mpi_np%d.%s" % (ranks, key)] = value
        for row in doc.rows:
            # Keep family indices apart, so tools that sort by them keep each run's rows together.
            row["family_index"] = row.get("family_index", 0) + 1000 * index
            merged["benchmarks"].append(row)
    return merged


def medians(doc):
    rows = sbjson.summarize(doc["benchmarks"])
    lines = ["| row | median ms | GFLOP/s | resid | repetitions |", "| --- | --- | --- | --- | --- |"]
    for row in rows.values():
        if not row.ok:
            lines.append("| `%s` | %s | | | |" % (row.name, "error: " + (row.error or row.skipped or "")))
            continue
        resid = max(row.counters.get("resid", [float("nan")]))
        lines.append("| `%s` | %.2f | %.2f | %.3g | %d |" % (row.name, row.median_ms, row.counter("GFLOP/s") or 0,
                                                            resid, row.repetitions))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="build directory with benchmarks/solve_bench{,_mpi}")
    ap.add_argument("--out", required=True, help="merged Google Benchmark JSON to write")
    ap.add_argument("--ranks", default="1,2", help="MPI rank counts, e.g. 1,2,4,8,16")
    ap.add_argument("--sizes", default="2048")
    ap.add_argument("--nb", default="64", help="ScaLAPACK block size(s)")
    ap.add_argument("--repetitions", type=int, default=5)
    ap.add_argument("--precisions", default="d")
    ap.add_argument("--mpiexec", default=os.environ.get("SOLVE_BENCH_MPIEXEC", "mpirun --bind-to core --map-by core"),
                    help="launcher and its flags (default: %(default)s; env SOLVE_BENCH_MPIEXEC)")
    args = ap.parse_args()

    bench = os.path.join(args.build, "benchmarks")
    ops = "(gesv|posv)"
    prec = "[%s]" % args.precisions.replace(",", "")
    common = ["--sizes=" + args.sizes, "--precisions=" + args.precisions,
              "--benchmark_repetitions=%d" % args.repetitions, "--benchmark_out_format=json"]
    status = 0
    with tempfile.TemporaryDirectory() as tmp:
        cpu_json = os.path.join(tmp, "cpu.json")
        cmd = [os.path.join(bench, "solve_bench"), "--benchmark_filter=^CPU/%s%s/" % (prec, ops),
               "--benchmark_out=" + cpu_json, "--rows_out=" + os.path.join(tmp, "cpu.rows.jsonl")] + common
        commands = [" ".join(cmd[:1] + cmd[1:2] + common)]
        status |= run(cmd)
        mpi_jsons = []
        for ranks in (int(r) for r in args.ranks.split(",")):
            out = os.path.join(tmp, "mpi-%d.json" % ranks)
            cmd = shlex.split(args.mpiexec) + ["-n", str(ranks), os.path.join(bench, "solve_bench_mpi"),
                                               "--nb=" + args.nb, "--benchmark_out=" + out,
                                               "--rows_out=" + os.path.join(tmp, "mpi-%d.rows.jsonl" % ranks)] + common
            commands.append(" ".join(c for c in cmd if not c.startswith(("--benchmark_out=", "--rows_out="))))
            status |= run(cmd)
            if os.path.exists(out):
                mpi_jsons.append((ranks, out))
        if not os.path.exists(cpu_json):
            print("mpi_scaling: the CPU run wrote no JSON", file=sys.stderr)
            return 1
        merged = merge(cpu_json, mpi_jsons, commands)
    with open(args.out, "w") as f:
        json.dump(merged, f, indent=1)
    print("\nmedians (%s):\n" % args.out)
    print(medians(merged))
    if status:
        print("mpi_scaling: a run failed (see above)", file=sys.stderr)
    return 1 if status else 0


if __name__ == "__main__":
    sys.exit(main())
