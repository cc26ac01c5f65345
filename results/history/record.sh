#!/bin/bash
# results/history: 12 runs at d464136, 12 at 9ff83e3 (planted double getrs), 12 at 9ff83e3 with
# OPENBLAS_CORETYPE=Prescott. The revert (eb2e497) came after the last run.
set -u
F='^CPU/d(gesv|getrf|getrs|gemm|posv)/'
H=/tmp/hist3; mkdir -p $H
one() { local i=$1 bin=$2; shift 2
  env "$@" $bin --benchmark_filter="$F" --sizes=256,1024 --benchmark_out=$H/run-$i.json > $H/run-$i.log 2>&1
  echo "run $i rc=$? $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)" >> $H/status.txt; }
(cd /tmp/hA && cmake -DSOLVE_BENCH_COMMIT_OVERRIDE=$(git -C /work/main rev-parse d464136) . > $H/reconf.log 2>&1 && ninja solve_bench >> $H/reconf.log 2>&1)
for i in $(seq 0 11); do one $i /tmp/hA/benchmarks/solve_bench; done
for i in $(seq 12 23); do one $i /tmp/hB/benchmarks/solve_bench; done
for i in $(seq 24 35); do one $i /tmp/hB/benchmarks/solve_bench OPENBLAS_CORETYPE=Prescott; done
echo all-done >> $H/status.txt
