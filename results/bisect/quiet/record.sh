#!/bin/bash
# The issue's BLAS switch on a quiet machine: 8 runs of one build as installed (openblas-pthread,
# 2 threads), then 8 with Debian's serial variant first on LD_LIBRARY_PATH; tools/track add and
# analyze. Usage: results/bisect/quiet/record.sh [SOLVE_BENCH] [EVAL_DIR] (default build's, /tmp/quiet).
set -u
T=$(cd "$(dirname "$0")/../../.." && pwd)
B=${1:-$T/build/benchmarks/solve_bench} E=${2:-/tmp/quiet} F='^CPU/d(getrs|getrf|gemm)/'
SERIAL=/usr/lib/x86_64-linux-gnu/openblas-serial
rm -rf "$E/runs" "$E/store"; mkdir -p "$E/runs"
one() {  # index [VAR=value...]
  local i=$1; shift
  env "$@" "$B" --benchmark_filter="$F" --sizes=1024 --benchmark_out="$E/runs/run-$i.json" > "$E/runs/run-$i.log" 2>&1
  echo "run $i $* $(uptime)"
}
for i in 00 01 02 03 04 05 06 07; do one $i; done
for i in 08 09 10 11 12 13 14 15; do one $i LD_LIBRARY_PATH=$SERIAL; done
cd "$T"
/usr/bin/python3 tools/track add --store "$E/store" --testbed dev-2core-quiet "$E"/runs/run-*.json > "$E/add.txt" 2>&1
/usr/bin/python3 tools/track analyze --store "$E/store" --repo "$T" | tee "$E/analysis.txt"
