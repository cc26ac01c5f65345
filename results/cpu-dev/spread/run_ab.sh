#!/bin/bash
# run_ab.sh DIR PAIRS FLAGS... : alternate base and new solve_bench processes (A B A B ...), one JSON each,
# `uptime` beside every process in DIR/uptime.txt. ENV_A / ENV_B: extra environment for each side;
# BIN_A / BIN_B: the binaries (default base and new).
dir=$1; pairs=$2; shift 2
A=${BIN_A:-/tmp/spread/base/build/benchmarks/solve_bench}
B=${BIN_B:-/work/wt/spread/build/dev/benchmarks/solve_bench}
mkdir -p "$dir"
for i in $(seq 0 $((pairs - 1))); do
  for side in A B; do
    # alternate which side goes first in each pair
    [ $((i % 2)) -eq 1 ] && side=$([ $side = A ] && echo B || echo A)
    bin=$A; envs=$ENV_A; [ $side = B ] && bin=$B && envs=$ENV_B
    echo "$side $i $(uptime)" >> "$dir/uptime.txt"
    env $envs "$bin" "$@" --benchmark_out="$dir/$side-$i.json" --benchmark_out_format=json > "$dir/$side-$i.log" 2>&1
  done
done
