#!/bin/bash
# Interleaved A/A and planted runs, one BLAS thread (as the gate's CI job), 5 CPU rows at n = 1024.
F='^CPU/d(gesv|getrf|getrs|potrf|gemm)/n:1024(/nrhs:1)?/manual_time$'
B=/tmp/judge/bin/solve_bench
D=${IL_DIR:-/tmp/judge/il}
mkdir -p $D
export OPENBLAS_NUM_THREADS=1
for i in $(seq -w 1 ${IL_ROUNDS:-20}); do
  for side in a b c; do
    echo "$side $i $(date +%T) $(cut -d' ' -f1-3 /proc/loadavg)" >> $D/loads.txt
    if [ $side = b ]; then export SOLVE_BENCH_TEST_SLOWDOWN='^CPU/dgetrf/n:1024$=0.10'; else unset SOLVE_BENCH_TEST_SLOWDOWN; fi
    $B --sizes=1024 --precisions=d --benchmark_filter="$F" --benchmark_repetitions=3 --benchmark_out=$D/$side$i.json > $D/$side$i.log 2>&1
    echo "rc=$? $side $i end $(date +%T) $(cut -d' ' -f1-3 /proc/loadavg)" >> $D/loads.txt
  done
done
