#!/usr/bin/env bash
# What runs on the lent H200 machines (Ubuntu 24.04, one or two H200s, no network). Modes run in
# the order given; logs and results go to $OUT (only 8 files come back, so the results are packed
# into $OUT/<first mode>.tgz at the end, beside $OUT/log.txt):
#   build      configure + build with the default CUDA architectures (what a user's build gets),
#              then list the architectures the binary carries (cuobjdump); nlohmann-json comes
#              from .carry/debs (this machine has no registry)
#   gputests   the GPU tests (ctest label gpu, one at a time: several read device-wide free memory)
#   ab         the rows-layer redesign, A/B: .carry/old (the source before it) against this tree,
#              alternating rounds on this machine, gated by tools/regress (.ci/bench-pr)
#   sanitize   compute-sanitizer memcheck on the GPU tests and on every GPU family of solve_bench
#   sweep      the default sweep -> sweep.json
#   table      CPU (both paths) against GPU, fp64 solves, n = 1024..16384 -> table.json
#   numpy      tools/vs_numpy.py at n = 4096 and 10000 (numpy, scipy's bare dgesv, CPU, CPU-driver)
#   cond       the condition-number map of the mixed-precision rows -> cond.json
#   mgpu       cusolverMg rows, G = 1, 2, tiles 256 and 512, beside GPU/dgesv at 65536 -> mgpu.json
#   mgpu-big   one fp64 system larger than one H200 (n = 140000) on two -> mgpu-big.json
#   mgpu-target  the 1.7x target at n = 65536: GPU/dgesv and its halves against MGPU on two GPUs,
#              tile 512, medians of 3 in interleaved order -> mgpu-target.json
#   irs-limit  cuSOLVER IRS's largest n per factorization precision (tools/device/irs_limit.sh)
#   complex    the complex rows (z, c) on the CPU and the GPU at the default sizes -> complex.json
#   big        one H200 full: GPU d gesv/posv at n = 130000 and s at n = 180000 -> big-d.json, big-s.json
#   mixed-big  the mixed-precision rows at n = 46000 beside GPU/dgesv -> mixed-46000.json
#   max        what --sizes=max picks here (the rows' list and why, its exit status) -> max.txt, and
#              test/bench_paths.py sizes_max (its forms and docs/usage.md's example, checked)
#   ab2        A/B of the GPU dense rows: .carry/old (70d4130) against this tree, alternating rounds,
#              judged by solve_bench_checks compare -> ab-compare.json, ab-compare.md
#   spread     issue 30 item 2, what the suite adds between processes on the GPU rows: 10 processes
#              as before against 10 with a 50 us GPU-side hold before each timed call
#              (SOLVE_BENCH_GPU_HOLD_US, device_hold.hpp), alternating, no pair started after 170 s; prints
#              tools/aa-coverage per side and the processes' medians beside their SM clocks; 4 more
#              GPU/dgemm/n:1024 processes log cuBLASLt's kernel choice -> spread/, spread.txt
#   gate       the pull-request gate on this build as both sides, GPU rows of 1.7-40 ms: each word
#              of GATE_RUNS (default "aa aa planted") one .ci/bench-pr run, "planted" with
#              GPU/dgesv/n:4096 made 10% slower on the head -> gate-outcomes.txt, gate-<k>-*/;
#              each run may take GATE_LIMIT s (280): a planted row is re-run to its 64th pair,
#              which 280 s cut short on 2026-12-04: run one planted gate a call with GATE_LIMIT=480
#   ab3        issue 33's A/B: .carry/old against this tree, GPU dgesv/dgetrf/dgemm at 4096, 8192 with
#              the defaults, AB_PAIRS (7) pairs in random order -> ab3-compare.json, ab3-compare.md
#   coverage   issue 30's A/A: COVERAGE_RUNS (4) runs of GPU rows at n = 1024..8192 with the
#              defaults (3 processes over 120 s: about 130 s a run), turn about with as many with
#              --span=0 (back to back; COVERAGE_SPAN0=0 or COVERAGE_DEFAULT=0 leaves a set out); tools/aa-coverage on each
#              set -> coverage.txt. COVERAGE_FIRST=k starts at run k, adding to a warm machine's runs
#   regress-aa plain tools/regress on separate processes of this build, GPU rows of 1.7-40 ms, --span=0:
#              REGRESS_RUNS (default 6) rounds of three runs, interleaved: A, A' and B (B with
#              GPU/dgesv/n:4096 made 10% slower); judged A against A' and A against B, each pair
#              of single runs and all runs pooled (every file a process) -> regress-outcomes.txt
#   libraries  issue 33: every CPU library the machine has in one run (--cpu_libraries=auto); BLIS
#              and the reference BLAS + LAPACK come from .carry/debs where the machine lacks them
#              (unpacked into / where this user may) -> libraries.json
#   ceilings   issue 34: the solves, their halves and GEMM with --ceilings=on (the probes), fp64 and
#              fp32, at the default sizes (CPU to 4096, GPU to 16384; ~170 s estimated from the
#              sweep's rows) -> ceilings.json (+ verdict: each solve's headroom and its term)
#   rowlist    issue 33: the default row list (--benchmark_list_tests) of .carry/old against this
#              tree -> rowlist-old.txt, rowlist-new.txt, rowlist.diff
# Example: tools/device/h200.sh build gputests ab
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
# Two-GPU machines: NVLink multicast stays off (it can take the host's GPUs out of service).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OUT=${OUT:-$PWD/out}
WORK=/tmp/solve_bench-results
mkdir -p "$OUT" "$WORK"
LOG=$OUT/log.txt
BUILD=build/h200
BIN=$BUILD/benchmarks/solve_bench
CHECKS=$BUILD/benchmarks/checks/solve_bench_checks
# nlohmann-json (headers only) travels as its Debian package: no registry here.
if ls .carry/debs/nlohmann-json3-dev_*.deb >/dev/null 2>&1 && [ ! -d /tmp/pkgs/usr/include/nlohmann ]; then
  dpkg -x .carry/debs/nlohmann-json3-dev_*.deb /tmp/pkgs
fi
export CMAKE_PREFIX_PATH=/tmp/pkgs/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
say() { echo "=== $(date +%T) $*" | tee -a "$LOG"; }
# Steps are skipped once the whole script has used BUDGET seconds (a device call's limit is
# 600 s), so that what ran still comes back.
BUDGET=${BUDGET:-575}
step() {  # step SECONDS NAME CMD...: run with a time limit, log everything, report the status
  local limit=$1 name=$2; shift 2
  local left=$((BUDGET - SECONDS))
  if [ "$left" -lt 15 ]; then say "$name: skipped, out of time"; return 124; fi
  [ "$limit" -gt "$left" ] && limit=$left
  say "$name: $*"
  local t0=$SECONDS
  timeout "$limit" "$@" >>"$LOG" 2>&1
  local rc=$?
  say "$name: exit $rc after $((SECONDS - t0)) s"
  return $rc
}
pack() { tar czf "$OUT/${1}.tgz" -C "$WORK" . 2>/dev/null; }
trap 'pack "${first_mode:-results}"' EXIT
first_mode=${1:-results}

bench() {  # bench SECONDS NAME FILE FLAGS...: a solve_bench run whose JSON (+ audit, verdict) stays
  local limit=$1 name=$2 file=$3; shift 3
  step "$limit" "$name" "$BIN" --benchmark_out="$WORK/$file" --benchmark_out_format=json "$@"
}

sanitize() {
  # (CudaOwners.TooLarge* and the Mg pre-check provoke out-of-memory on purpose: not under the sanitizer)
  step 150 memcheck-tests compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 \
    "$BUILD/test/solvebench_gpu_tests" --gtest_filter='Cuda*:Cusolver*:DeviceGenerate*:IterativeRefinement*:Conditioned*-CudaOwners.TooLarge*'
  step 150 memcheck-sweep compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 \
    "$BIN" --sizes=64,200 --batch_n=4,33 --batch_count=7,64 --mixed_kinds=diagdom,uniform --cond=1e4 \
    --benchmark_filter='^GPU' --benchmark_min_time=0.001s
}

for mode in "$@"; do
  case "$mode" in
    build)
      nvidia-smi --query-gpu=index,name,driver_version,memory.total,memory.used,clocks.sm,clocks.max.sm,pcie.link.gen.max,pcie.link.width.max --format=csv >>"$LOG" 2>&1
      nvidia-smi topo -m >>"$LOG" 2>&1
      lscpu | grep -E "Model name|^CPU\(s\)|Thread|Socket|NUMA node\(s\)" >>"$LOG" 2>&1
      # CUDA_ARCH=90 builds for the H200 alone (a quicker call); unset, the architectures a user gets.
      step 120 configure cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSOLVE_BENCH_CUDA=ON -DCMAKE_CUDA_FLAGS=--threads=0 \
        ${CUDA_ARCH:+-DCMAKE_CUDA_ARCHITECTURES=$CUDA_ARCH} \
        -DSOLVE_BENCH_MPI=OFF -DSOLVE_BENCH_WERROR=${WERROR:-ON} \
        -DSOLVE_BENCH_COMMIT_OVERRIDE="$(cat .carry/commit 2>/dev/null)"
      step 400 build cmake --build "$BUILD" -j "$(nproc)" || { tail -60 "$LOG"; exit 1; }
      say "compiler warnings: $(grep -c 'warning:' "$LOG")"
      step 30 architectures sh -c "cuobjdump --list-elf $BIN | sed 's/.*\.\(sm_[0-9a-z]*\)\..*/\1/' | sort | uniq -c; cuobjdump --list-ptx $BIN | sed 's/.*\.\(sm_[0-9a-z]*\)\..*/ptx \1/' | sort | uniq -c"
      ;;
    gputests)
      step 300 ctest-gpu ctest --test-dir "$BUILD" --output-on-failure -L gpu --timeout 280
      ;;
    ab)
      PYTHON=python3 BENCH_ROUNDS=3 CMAKE_ARGS="-DCMAKE_CUDA_ARCHITECTURES=90 -DSOLVE_BENCH_MPI=OFF" \
        step 400 ab .ci/bench-pr .carry/old . "$WORK/ab" --precisions=d --sizes=4096,16384 \
        --benchmark_repetitions=3 --benchmark_min_time=0.1s \
        --benchmark_filter='^GPU[^/]*/d(gesv|posv|getrf|getrs|potrf|potrs|gemm)/n:[0-9]+(/nrhs:1)?/manual_time$'
      rm -rf "$WORK/ab"/build-*
      ;;
    sanitize) sanitize ;;
    mgtests)
      step 120 mg-tests "$BUILD/test/solvebench_gpu_tests" --gtest_filter='Mgpu*:Gpus/Mgpu.*'
      ;;
    sweep)
      # The default sweep, every row of it: what `tools/quickstart bench` runs.
      bench 570 sweep sweep.json
      ;;
    ab3)
      # Issue 33's A/B: .carry/old against this tree with the defaults a user runs, AB_PAIRS (7)
      # pairs in random order, judged distribution-free (7 against 7 processes bound a change).
      step 200 old-build sh -c "cmake -S .carry/old -B build/old -G Ninja -DCMAKE_BUILD_TYPE=Release -DSOLVE_BENCH_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES=90 -DSOLVE_BENCH_MPI=OFF -DSOLVE_BENCH_TESTS=OFF && cmake --build build/old -j $(nproc) --target solve_bench"
      ab3_flags=(--precisions=d --sizes=4096,8192 --progress=off --benchmark_filter='^GPU/d(gesv|getrf|gemm)/n:[0-9]+(/nrhs:1)?/manual_time$')
      for pair in $(seq 1 "${AB_PAIRS:-7}"); do
        sides="old new"; [ $((RANDOM % 2)) -eq 1 ] && sides="new old"
        for side in $sides; do
          exe=$BIN; [ "$side" = old ] && exe=build/old/benchmarks/solve_bench
          step 40 "ab3-$side-$pair" "$exe" "${ab3_flags[@]}" --benchmark_out="$WORK/ab3-$side-$pair.json" --benchmark_out_format=json
        done
      done
      step 60 ab3-compare sh -c "$CHECKS compare --json=$WORK/ab3-compare.json --markdown=$WORK/ab3-compare.md \
        \$(ls $WORK/ab3-old-*.json | grep -v '\.\(audit\|verdict\)\.json$') -- \$(ls $WORK/ab3-new-*.json | grep -v '\.\(audit\|verdict\)\.json$'); cat $WORK/ab3-compare.md"
      ;;
    cliffs)
      # The size scan (docs/cliffs.md): OpenBLAS 0.3.26's one-call dgesv, one thread below n * nrhs = 10000.
      bench 560 cliffs cliffs.json --sizes=scan:8192..12288 --benchmark_filter='^CPU-driver/dgesv/'
      ;;
    table)
      bench 300 table table.json --sizes=1024,4096,10000,16384 --precisions=d \
        --benchmark_filter='^(CPU|CPU-driver|GPU|GPU-pinned|GPU-pageable)/[ds](gesv|posv|getrf|getrs|potrf|potrs|gemm)/n:[0-9]+(/nrhs:1)?/manual_time$'
      ;;
    numpy)
      for n in 4096 10000; do
        step 120 "numpy-$n" python3 tools/vs_numpy.py "$BIN" --n "$n" --repetitions 5 --out "$WORK/vs_numpy-$n.json"
      done
      ;;
    cond)
      # The map (GPU rows only: the CPU's dsgesv rows at n >= 16384 take minutes each), then the
      # avenues toward 1.6x at n = 16384 on a well-conditioned matrix: two-level refinement, the
      # unrefined low-precision solve (the floor), cuSOLVER's simple API.
      bench 260 cond cond.json --precisions=d --sizes=4096,16384,32768 --cond=1e1,1e2,1e4,1e6,1e8,1e12 \
        --mixed_kinds=diagdom --benchmark_filter='^GPU/d[a-z]*gesv/n:[0-9]+/nrhs:1/(cond|kind):'
      bench 80 avenues avenues.json --precisions=d --sizes=16384 --mixed_kinds=diagdom \
        --refine=classical,gmres,classical_gmres,none --irs_api=expert,simple \
        --benchmark_filter='^GPU/d[a-z]*gesv/n:16384/nrhs:1/kind:diagdom'
      ;;
    mgpu)
      bench 300 mgpu mgpu.json --precisions=d --sizes=65536 --mgpu_sizes=16384,32768,65536 --mgpu_gpus=1,2 \
        --mgpu_tiles=256,512 --benchmark_filter='^(MGPU/dgesv|GPU/dgesv/n:65536/nrhs:1/manual)'
      ;;
    mgpu-big)
      bench 300 mgpu-big mgpu-big.json --precisions=d --mgpu_sizes=140000 --mgpu_gpus=2 --mgpu_tiles=512 \
        --benchmark_filter='^MGPU/dgesv'
      ;;
    mgpu-target)
      bench 240 mgpu-target mgpu-target.json --precisions=d --sizes=65536 --mgpu_sizes=65536 --mgpu_gpus=2 \
        --mgpu_tiles=512 --benchmark_repetitions=3 --benchmark_enable_random_interleaving=true \
        --benchmark_filter='^(MGPU/dget(rf|rs)|MGPU/dgesv|GPU/dget(rf|rs)/n:65536/|GPU/dgesv/n:65536/nrhs:1/manual)'
      ;;
    irs-limit)
      step 240 irs-limit tools/device/irs_limit.sh "$BIN" "$WORK/irs-limit.txt"
      ;;
    complex)
      bench 200 complex complex.json --precisions=z,c --benchmark_filter='^(CPU|CPU-driver|GPU|GPU-pinned|GPU-pageable)/[cz]'
      ;;
    libraries)
      for want in libblis4-pthread:blis-pthread/libblas.so.3 libblas3:blas/libblas.so.3 liblapack3:lapack/liblapack.so.3; do
        deb=$(ls .carry/debs/${want%%:*}_*.deb 2>/dev/null | head -1) file=/usr/lib/x86_64-linux-gnu/${want#*:}
        [ -e "$file" ] && continue
        if [ -n "$deb" ] && [ -w /usr/lib/x86_64-linux-gnu ]; then dpkg -x "$deb" / && say "unpacked $deb into /"
        else say "$file missing, and no $deb or / not writable"; fi
      done
      bench 200 libraries libraries.json --cpu_libraries=auto --sizes=1024,4096 --precisions=d --benchmark_filter='^CPU'
      ;;
    ceilings)
      # The dense rows alone: no matrix kinds, mixed precision or batches (the $ ends the name).
      bench 420 ceilings ceilings.json --ceilings=on --precisions=d,s \
        --benchmark_filter='^(CPU|GPU)[^/]*/[ds](gesv|posv|getrf|getrs|potrf|potrs|gemm|gemm_update|getrf_panel|trsm_panel|potrf_block)/n:[0-9]+(/nrhs:[0-9]+|/nb:[0-9]+)?/manual_time$'
      ;;
    rowlist)
      step 200 old-build sh -c "cmake -S .carry/old -B build/old -G Ninja -DCMAKE_BUILD_TYPE=Release -DSOLVE_BENCH_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES=90 -DSOLVE_BENCH_MPI=OFF -DSOLVE_BENCH_TESTS=OFF && cmake --build build/old -j $(nproc) --target solve_bench"
      step 30 rowlist sh -c "build/old/benchmarks/solve_bench --benchmark_list_tests > $WORK/rowlist-old.txt; $BIN --benchmark_list_tests > $WORK/rowlist-new.txt; \
        wc -l $WORK/rowlist-old.txt $WORK/rowlist-new.txt; diff $WORK/rowlist-old.txt $WORK/rowlist-new.txt > $WORK/rowlist.diff; echo diff exit \$?"
      ;;
    big)
      bench 260 big-d big-d.json --precisions=d --sizes=130000 --benchmark_filter='^GPU/d(gesv|posv)/n:130000/nrhs:1/manual_time$'
      bench 280 big-s big-s.json --precisions=s --sizes=180000 --benchmark_filter='^GPU/s(gesv|posv)/n:180000/nrhs:1/manual_time$'
      ;;
    mixed-big)
      bench 200 mixed-46000 mixed-46000.json --precisions=d --sizes=46000 --mixed_kinds=diagdom \
        --benchmark_filter='^GPU/d[a-z]*gesv/n:46000/nrhs:1/kind:diagdom'
      ;;
    max)
      # Its exit status too (it aborted, 134, before the fix of issue 31); then the checked forms
      # of it and docs/usage.md's example (test/bench_paths.py: lists, exit 0, every row at the n
      # its line names, the example's GPU rows).
      step 60 max sh -c "$BIN --sizes=max --benchmark_list_tests > $WORK/max.txt 2>&1; echo \"exit \$?\" >> $WORK/max.txt; nvidia-smi --query-gpu=memory.free,memory.total --format=csv >> $WORK/max.txt"
      step 120 max-checked python3 test/bench_paths.py sizes_max "$BIN" "$WORK/paths"
      ;;
    ab2)
      step 200 old-build sh -c "cmake -S .carry/old -B build/old -G Ninja -DCMAKE_BUILD_TYPE=Release -DSOLVE_BENCH_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES=90 -DSOLVE_BENCH_MPI=OFF -DSOLVE_BENCH_TESTS=OFF && cmake --build build/old -j $(nproc)"
      ab_filter='^GPU[^/]*/d(gesv|posv|getrf|getrs|potrf|potrs|gemm)/n:[0-9]+(/nrhs:1)?/manual_time$'
      for round in 0 1 2; do
        for side in old new; do
          [ $((round % 2)) -eq 1 ] && side=$([ "$side" = old ] && echo new || echo old)
          exe=$BIN
          [ "$side" = old ] && exe=build/old/benchmarks/solve_bench
          step 120 "ab-$side-$round" "$exe" --precisions=d --sizes=4096,16384 --benchmark_repetitions=3 \
            --benchmark_min_time=0.1s --benchmark_filter="$ab_filter" \
            --benchmark_out="$WORK/ab-$side-$round.json" --benchmark_out_format=json
        done
      done
      step 60 ab-compare sh -c "$CHECKS compare --json=$WORK/ab-compare.json --markdown=$WORK/ab-compare.md $WORK/ab-old-*.json -- $WORK/ab-new-*.json; cat $WORK/ab-compare.md"
      ;;
    spread)
      mkdir -p "$WORK/spread"
      for f in enabled defrag; do echo "thp $f: $(cat /sys/kernel/mm/transparent_hugepage/$f)"; done >"$WORK/spread.txt"
      lscpu | grep -E "Model name|^CPU\(s\)|NUMA" >>"$WORK/spread.txt"
      spread_t0=$SECONDS
      for i in 0 1 2 3 4 5 6 7 8 9; do
        [ $((SECONDS - spread_t0)) -gt ${SPREAD_SECONDS:-170} ] && { say "spread: stopping at pair $i (time)"; break; }
        sides="0 50"; [ $((i % 2)) -eq 1 ] && sides="50 0"  # A B B A ...: drift falls on both
        for us in $sides; do
          step 40 "spread-hold$us-$i" env SOLVE_BENCH_GPU_HOLD_US=$us "$BIN" --sizes=1024,4096,8192 --precisions=d \
            --benchmark_filter='^GPU/d(gesv|posv|getrf|potrf|gemm)/' \
            --benchmark_out="$WORK/spread/hold$us-$i.json" --benchmark_out_format=json
        done
      done
      for k in 0 1 2 3; do  # which kernel cuBLAS picks for GPU/dgemm/n:1024, process by process
        step 12 "spread-cublaslt-$k" env CUBLASLT_LOG_LEVEL=2 CUBLASLT_LOG_FILE="$WORK/spread/cublaslt-$k.%i.log" "$BIN" \
          --sizes=1024 --precisions=d --benchmark_filter='^GPU/dgemm/n:1024/' --benchmark_min_time=20x \
          --benchmark_out="$WORK/spread/cublaslt-$k.json" --benchmark_out_format=json
        for f in "$WORK"/spread/cublaslt-$k.*.log; do [ -f "$f" ] && { head -c 4000 "$f" >"$f.head"; rm -f "$f"; }; done
      done
      files() { ls "$WORK"/spread/hold"$1"-*.json 2>/dev/null | grep -v '\.\(audit\|verdict\)\.json$'; }
      for us in 0 50; do
        { echo "== aa-coverage, hold $us us"; python3 tools/aa-coverage --checks "$CHECKS" $(files $us); } >>"$WORK/spread.txt" 2>&1
      done
      python3 tools/device/spread_table.py "hold0:$(files 0 | paste -sd,)" "hold50:$(files 50 | paste -sd,)" \
        >>"$WORK/spread.txt" 2>&1
      grep -h -m3 -i "algo\|kernel" "$WORK"/spread/cublaslt-*.head >>"$WORK/spread.txt" 2>/dev/null
      cat "$WORK/spread.txt"
      ;;
    coverage)
      # Issue 30's test as a new user would run it: runs of the GPU rows with the defaults, turn
      # about with runs back to back (--span=0); tools/aa-coverage on each set. Four of each fill
      # most of a call's 10 minutes.
      mkdir -p "$WORK/coverage"
      cflags=(--sizes=1024,4096,8192 --precisions=d --benchmark_filter='^GPU/d(gesv|posv|getrf|potrf|gemm)/' --progress=off)
      for i in $(seq "${COVERAGE_FIRST:-1}" "${COVERAGE_RUNS:-4}"); do
        [ "${COVERAGE_DEFAULT:-1}" = 0 ] || bench 170 "coverage-r$i" "coverage/r$i.json" "${cflags[@]}"
        [ "${COVERAGE_SPAN0:-1}" = 0 ] || bench 60 "coverage-b$i" "coverage/b$i.json" "${cflags[@]}" --span=0
      done
      cov() { ls "$WORK"/coverage/"$1"*.json 2>/dev/null | grep -v '\.\(audit\|verdict\)\.json$'; }
      { echo "== aa-coverage, defaults (--span=120)"; python3 tools/aa-coverage --checks "$CHECKS" $(cov r);
        echo "== aa-coverage, --span=0"; python3 tools/aa-coverage --checks "$CHECKS" $(cov b); } \
        >"$WORK/coverage.txt" 2>&1
      cat "$WORK/coverage.txt"
      ;;
    gate)
      k=0
      for kind in ${GATE_RUNS:-aa aa planted}; do
        k=$((k + 1))
        slow=""
        [ "$kind" = planted ] && slow='SOLVE_BENCH_TEST_SLOWDOWN=^GPU/dgesv/n:4096/nrhs:1$=0.10'
        t0=$SECONDS
        BENCH_BASE_BUILD=$BUILD BENCH_HEAD_BUILD=$BUILD BENCH_HEAD_ENV="$slow" PYTHON=python3 \
          step "${GATE_LIMIT:-280}" "gate-$k-$kind" .ci/bench-pr . . "$WORK/gate-$k-$kind" --precisions=d --sizes=4096,8192 \
          --benchmark_filter='^GPU/d(gesv|posv|getrf|potrf|gemm)/n:[0-9]+(/nrhs:1)?/manual_time$' \
          --benchmark_repetitions=4 --benchmark_enable_random_interleaving=true --benchmark_min_time=0.1s
        echo "gate-$k-$kind rc=$? $((SECONDS - t0)) s | $(grep '^bench-pr: \(passed\|FAILED\|UNDECIDED\)' "$LOG" | tail -1)" >> "$WORK/gate-outcomes.txt"
        find "$WORK/gate-$k-$kind" -name '*-round*' -o -name '*-confirm[0-9]*' | xargs rm -f
      done
      cat "$WORK/gate-outcomes.txt"
      ;;
    regress-aa)
      # --span=0: the default's two minutes a run would not fit three runs a round in a call (on
      # the GPU the span bought nothing measured: results/h100/coverage/span-a1bdc25).
      flags=(--precisions=d '--sizes=4096,8192' --span=0 --benchmark_filter='^GPU/d(gesv|posv|getrf|potrf|gemm)/n:[0-9]+(/nrhs:1)?/manual_time$')
      planted='SOLVE_BENCH_TEST_SLOWDOWN=^GPU/dgesv/n:4096/nrhs:1$=0.10'
      for i in $(seq 1 "${REGRESS_RUNS:-6}"); do
        bench 60 "regress-a$i" "regress-a$i.json" "${flags[@]}"
        bench 60 "regress-c$i" "regress-c$i.json" "${flags[@]}"
        step 60 "regress-b$i" env "$planted" "$BIN" --benchmark_out="$WORK/regress-b$i.json" "${flags[@]}"
      done
      out=$WORK/regress-outcomes.txt
      for i in $(seq 1 "${REGRESS_RUNS:-6}"); do
        for other in c b; do
          python3 tools/regress --checks "$CHECKS" "$WORK/regress-a$i.json" "$WORK/regress-$other$i.json" >"$WORK/regress-a$i-$other$i.txt" 2>&1
          echo "a$i vs $other$i: exit $? | $(tail -1 "$WORK/regress-a$i-$other$i.txt" | cut -c1-160)" >>"$out"
        done
      done
      runs() { printf '%s\n' "$@" | grep -v '\.\(audit\|verdict\)\.json$'; }  # runs, not their sidecars
      for other in c b; do
        python3 tools/regress --checks "$CHECKS" --json "$WORK/regress-pooled-$other.json" $(runs "$WORK"/regress-a[0-9]*.json) -- \
          $(runs "$WORK"/regress-"$other"[0-9]*.json) >"$WORK/regress-pooled-$other.txt" 2>&1
        echo "pooled a vs $other: exit $?" >>"$out"
        cat "$WORK/regress-pooled-$other.txt" >>"$out"
      done
      cat "$out"
      ;;
    *) echo "unknown mode $mode" >&2; exit 2 ;;
  esac
done
say "done"
grep -E "^=== .*exit" "$LOG" | tail -20
