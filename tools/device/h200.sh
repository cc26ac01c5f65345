#!/usr/bin/env bash
# What runs on the lent H200 machine (Ubuntu 24.04, 16 cores, one H200, no network):
#   tools/device/h200.sh build                 configure + build (Release, CUDA on, sm_90)
#   tools/device/h200.sh check                 ctest + compute-sanitizer
#   tools/device/h200.sh gputests              only the GPU tests (label gpu, one at a time)
#   tools/device/h200.sh sanitize              compute-sanitizer memcheck, racecheck, initcheck
#   tools/device/h200.sh sweep                 the default sweep (timed) -> $OUT/h200_default.json
#   tools/device/h200.sh compare               GPU rows vs a bare cuSOLVER loop vs torch, one run
# Modes can be chained: tools/device/h200.sh build check. Logs go to $OUT/log.txt.
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
LOG=$OUT/log.txt
BUILD=build/h200
BIN=$BUILD/benchmarks/solve_bench
say() { echo "=== $(date +%T) $*" | tee -a "$LOG"; }
# Steps are skipped once the whole script has used BUDGET seconds (the device call's limit
# is 600 s), so that what ran still comes back.
BUDGET=${BUDGET:-570}
step() {  # step SECONDS NAME CMD...: run with a time limit, log everything, report the status
  local limit=$1 name=$2; shift 2
  local left=$((BUDGET - SECONDS))
  if [ "$left" -lt 20 ]; then say "$name: skipped, out of time"; return 124; fi
  [ "$limit" -gt "$left" ] && limit=$left
  say "$name: $*"
  local t0=$SECONDS
  timeout "$limit" "$@" >>"$LOG" 2>&1
  local rc=$?
  say "$name: exit $rc after $((SECONDS - t0)) s"
  return $rc
}

sanitize() {
  # (CudaOwners.TooLarge* provokes an out-of-memory API error on purpose: not under the sanitizer)
  step 150 memcheck-tests compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 \
    "$BUILD/test/solvebench_gpu_tests" --gtest_filter='Cuda*:Cusolver*:DeviceGenerate*:IterativeRefinement*-CudaOwners.TooLarge*'
  step 150 memcheck-sweep compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 \
    "$BIN" --sizes=64,200 --batch_n=4,33 --batch_count=7,64 --mixed_kinds=diagdom,uniform \
    --benchmark_filter='^GPU' --benchmark_min_time=0.001s
  step 100 racecheck compute-sanitizer --tool racecheck --error-exitcode 9 \
    "$BUILD/test/solvebench_gpu_tests" --gtest_filter='DeviceGenerate*:Cusolver/*.DeviceResidual*:Cusolver/*.Gemm*:CusolverBatched/*'
  step 100 initcheck compute-sanitizer --tool initcheck --error-exitcode 9 \
    "$BUILD/test/solvebench_gpu_tests" --gtest_filter='DeviceGenerate*:Cusolver/*.DeviceResidual*:CusolverBatched/*'
}

for mode in "$@"; do
  case "$mode" in
    build)
      nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used,clocks.sm,clocks.max.sm --format=csv >>"$LOG" 2>&1
      step 300 configure cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSOLVE_BENCH_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES=90 -DSOLVE_BENCH_WERROR=${WERROR:-OFF}
      step 400 build cmake --build "$BUILD" -j 16 || { tail -60 "$LOG"; exit 1; }
      say "compiler warnings: $(grep -c 'warning:' "$LOG")"
      ;;
    gputests)
      step 240 ctest-gpu ctest --test-dir "$BUILD" --output-on-failure -L gpu
      ;;
    check)
      step 240 ctest ctest --test-dir "$BUILD" --output-on-failure -j 4
      sanitize
      ;;
    sanitize)
      sanitize
      ;;
    sweep)
      step 590 sweep "$BIN" --benchmark_out="$OUT/h200_default.json" --benchmark_out_format=json
      ;;
    table)
      # CPU (16 cores) against GPU at the sizes of the README table, fp64 LU and Cholesky.
      step 300 table "$BIN" --sizes=1024,4096,10000,16384 --precisions=d \
        --benchmark_filter='^(CPU|GPU)/d(gesv|posv)/n:[0-9]+/nrhs:1/manual_time' \
        --benchmark_out="$OUT/h200_table.json"
      ;;
    compare)
      # One run, back to back: solve_bench's GPU rows, the bare loop, torch.
      step 300 compare-solve_bench "$BIN" --sizes=10000,16384 --precisions=d --benchmark_repetitions=5 \
        --benchmark_filter='^GPU/d(gesv|posv)/n:[0-9]+/nrhs:1/manual_time' --benchmark_out="$OUT/h200_vs_bare.json"
      step 200 compare-bare-gesv "$BUILD/tools/reference/bare_cusolver" gesv generic64 10000,16384 10
      step 200 compare-bare-posv "$BUILD/tools/reference/bare_cusolver" posv generic64 10000,16384 10
      step 200 compare-bare-legacy "$BUILD/tools/reference/bare_cusolver" gesv legacy32 10000,16384 10
      step 300 compare-solve_bench-legacy "$BIN" --cusolver_api=legacy32 --sizes=10000,16384 --precisions=d \
        --benchmark_repetitions=5 --benchmark_filter='^GPU/d(gesv|posv)/n:[0-9]+/nrhs:1/manual_time' \
        --benchmark_out="$OUT/h200_legacy.json"
      step 300 compare-torch python3 tools/reference/torch_solve.py --sizes 10000,16384
      ;;
    *) echo "unknown mode $mode" >&2; exit 2 ;;
  esac
done
say "done"
grep -E "^=== .*exit" "$LOG" | tail -20
