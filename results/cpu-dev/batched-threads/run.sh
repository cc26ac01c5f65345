#!/usr/bin/env bash
# usage: results/cpu-dev/batched-threads/run.sh (from the repository root, after a build in build/)
# The CPU batched rows with two OpenMP threads against one, in solve_bench, then loop.c (an OpenMP
# loop of LAPACKE calls, as the rows make) against each CPU library Debian has here: OpenBLAS
# pthread (the linked one), OpenBLAS serial, Netlib reference BLAS + LAPACK.
set -euo pipefail
B=build/benchmarks/solve_bench
out=$(mktemp --suffix=.json) loop=$(mktemp)
trap 'rm -f "$out" "${out%.json}".* "$loop"' EXIT
rows() {  # rows LABEL: six processes of the batched rows; each row's process medians, by tools/sbjson
  "$B" --batch_n=8,32 --batch_count=10000 --precisions=d --benchmark_filter='^CPU/d(posv|gesv)_batched/' \
       --progress=off --processes=6 --benchmark_out="$out" >/dev/null 2>&1
  PYTHONPATH=tools python3 - "$1" "$out" <<'PY'
import sys
import sbjson
rows, _ = sbjson.load_rows([sys.argv[2]])
for row in rows.values():
    if not row.ok:
        sys.exit(f"{row.name}: {row.error or row.skipped}")
    times = " ".join(f"{t:.2f}" for t in sorted(row.times_ms))
    print(f"{sys.argv[1]:<18} {row.name:<36} processes {times} ms  cores busy {row.counter('cpu_self_busy'):.2f}")
PY
}
echo "== solve_bench, 6 processes of one round each: their medians, sorted"
rows "2 threads"; OMP_NUM_THREADS=1 rows "OMP_NUM_THREADS=1"; OPENBLAS_NUM_THREADS=1 rows "OPENBLAS_NUM_THR=1"
echo "== loop.c, 10000 systems, best of 7, OMP_WAIT_POLICY=passive (as solve_bench sets it)"
export OMP_WAIT_POLICY=passive
gcc -O2 -fopenmp results/cpu-dev/batched-threads/loop.c -o "$loop" -llapacke
for lib in openblas-pthread openblas-serial "blas:/usr/lib/x86_64-linux-gnu/lapack"; do
  for n in 8 32; do for op in gesv posv; do for th in 1 2; do
    printf '%-18s ' "${lib%%:*}"
    LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/$lib OMP_NUM_THREADS=$th "$loop" $n $op
  done; done; done
done
