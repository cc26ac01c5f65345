#!/bin/bash
# A/A and planted runs for results/cpu-dev/gate-aa.md: one build (/tmp/judge/bin/solve_bench), separate processes.
F='^CPU/d(gesv|posv|getrf|getrs|potrf|potrs|gemm)/n:(256|1024)(/nrhs:1)?/manual_time$'
B=/tmp/judge/bin/solve_bench
D=/tmp/judge/aa
mode=$1; n=$2; shift 2
for i in $(seq -w 1 "$n"); do
  echo "$mode $i $(date +%T) $(cut -d' ' -f1-3 /proc/loadavg)" >> $D/loads.txt
  case $mode in
    plain) $B --sizes=256,1024 --precisions=d --benchmark_filter="$F" --benchmark_out=$D/p$i.json > $D/p$i.log 2>&1 ;;
    reps) $B --sizes=256,1024 --precisions=d --benchmark_filter="$F" --benchmark_repetitions=5 --benchmark_out=$D/r$i.json > $D/r$i.log 2>&1 ;;
    planted) SOLVE_BENCH_TEST_SLOWDOWN='^CPU/dgetrf/n:1024$=0.10' $B --sizes=256,1024 --precisions=d --benchmark_filter="$F" --benchmark_out=$D/s$i.json > $D/s$i.log 2>&1 ;;
    plantedreps) SOLVE_BENCH_TEST_SLOWDOWN='^CPU/dgetrf/n:1024$=0.10' $B --sizes=256,1024 --precisions=d --benchmark_filter="$F" --benchmark_repetitions=5 --benchmark_out=$D/sr$i.json > $D/sr$i.log 2>&1 ;;
  esac
  echo "rc=$? $mode $i end $(date +%T) $(cut -d' ' -f1-3 /proc/loadavg)" >> $D/loads.txt
done
