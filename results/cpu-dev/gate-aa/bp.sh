#!/bin/bash
# .ci/bench-pr, one frozen build as both sides, 5 CPU rows at n = 1024, one BLAS thread.
cd /work/wt/judge
F='^CPU/d(gesv|getrf|getrs|potrf|gemm)/n:1024(/nrhs:1)?/manual_time$'
for kind in "$@"; do
  k=$((k + 1))
  env=""
  [ "${kind%%-*}" = planted ] && env='SOLVE_BENCH_TEST_SLOWDOWN=^CPU/dgetrf/n:1024$=0.10'
  start=$(date +%T); l0=$(cut -d' ' -f1 /proc/loadavg); t0=$SECONDS
  BENCH_BASE_BUILD=/tmp/judge/frozen BENCH_HEAD_BUILD=/tmp/judge/frozen BENCH_HEAD_ENV="$env" OPENBLAS_NUM_THREADS=1 \
    .ci/bench-pr . . /tmp/judge/bp/$kind --sizes=1024 --precisions=d --benchmark_filter="$F" > /tmp/judge/bp/$kind.log 2>&1
  rc=$?
  echo "$kind rc=$rc start $start load $l0 -> $(cut -d' ' -f1 /proc/loadavg) $((SECONDS - t0)) s | $(grep '^bench-pr: ' /tmp/judge/bp/$kind.log | tail -1)" >> /tmp/judge/bp/outcomes.txt
done
