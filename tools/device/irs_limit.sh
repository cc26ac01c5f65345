#!/usr/bin/env bash
# The largest n cuSOLVER's iterative refinement solves, per factorization precision, on this GPU
# and cuSOLVER: each try a fresh process (a failed IRS call can break the CUDA context), with
# the limit check that the library would apply switched off. First the two sizes the n (n + 2)
# < 2^31 hypothesis names (46339 passes, 46340 fails), then a bisection where that is wrong.
#   tools/device/irs_limit.sh SOLVE_BENCH OUT.txt
set -uo pipefail
bin=$1 out=$2
try() {  # try LETTER N: 0 when the row solved and passed its check
  SOLVE_BENCH_IGNORE_IRS_LIMIT=1 timeout 120 "$bin" --sizes="$2" --precisions=d --mixed_kinds=diagdom --refine=classical \
    --benchmark_filter="^GPU/d$1gesv/n:$2/nrhs:1/kind:diagdom/refine:classical/" --benchmark_min_time=1x \
    >>"$out.log" 2>&1
}
for f in s x h b; do
  lo=46000 hi=46341
  if try "$f" 46339 && ! try "$f" 46340; then
    echo "d${f}gesv largest n = 46339 (46340 fails)" | tee -a "$out"
    continue
  fi
  if ! try "$f" "$lo"; then echo "d${f}gesv fails already at n = $lo" | tee -a "$out"; continue; fi
  if try "$f" "$hi"; then echo "d${f}gesv solves n = $hi: no limit below it" | tee -a "$out"; continue; fi
  while [ $((hi - lo)) -gt 1 ]; do
    mid=$(((lo + hi) / 2))
    if try "$f" "$mid"; then lo=$mid; else hi=$mid; fi
  done
  echo "d${f}gesv largest n = $lo ($hi fails)" | tee -a "$out"
done
