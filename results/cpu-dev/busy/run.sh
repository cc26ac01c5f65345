#!/bin/bash
D=/tmp/busy
yes > /dev/null & y1=$!
yes > /dev/null & y2=$!
sleep 2
for i in 1 2; do
  echo "busy $i $(date +%T) $(cut -d' ' -f1-3 /proc/loadavg)" >> $D/loads.txt
  /work/main/build/dev/benchmarks/solve_bench --sizes=256,1024 --precisions=d --progress=off --benchmark_out=$D/busy$i.json > $D/busy$i.log 2>&1
  echo "rc=$? busy $i end $(date +%T) $(cut -d' ' -f1-3 /proc/loadavg)" >> $D/loads.txt
done
kill $y1 $y2
