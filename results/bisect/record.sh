#!/bin/bash
# results/bisect: a history made as a new user would. A scratch clone of this tree with 12
# commits on top (c5 does not build, c6 fixes it, c7 re-enables LAPACKE's NaN check, the others
# are harmless), three builds (A = the clone's HEAD, B = c10, C = c12), 4 x N runs (N = 8) of a
# bounded CPU sweep stored with tools/track add: N at A, N at B (the code change), N at B with
# Debian's serial OpenBLAS first on LD_LIBRARY_PATH (the library's variant), N at C with the
# serial OpenBLAS and OPENBLAS_CORETYPE=Prescott (the kernels; the commits c11, c12 harmless).
# Then tools/track analyze. Usage: results/bisect/record.sh [EVAL_DIR] (default /tmp/culprit-eval).
set -eu
T=$(cd "$(dirname "$0")/../.." && pwd)   # this tree: tools/track, .ci/bench-pr, the judge
E=${1:-/tmp/culprit-eval}
N=${N:-8}
F='^CPU/d(getrs|getrf|gemm)/'
SERIAL=/usr/lib/x86_64-linux-gnu/openblas-serial
export CCACHE_BASEDIR=$E CCACHE_NOHASHDIR=true
mkdir -p "$E/runs"
log() { echo "$(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg): $*" | tee -a "$E/record.log"; }

log "scratch repository from $(git -C "$T" rev-parse --short HEAD)"
rm -rf "$E/scratch"
git clone -q "$T" "$E/scratch"
cd "$E/scratch"
git config user.name "A New User"; git config user.email "user@example.com"
change() {  # file perl-expression message
  perl -0pi -e "$2" "$1"; git commit -q -am "$3"
}
change docs/regressions.md 's/\z/\nThe nightly dashboard is on the GitHub Pages of the repository.\n/' \
  "docs: say where the nightly dashboard lives"                                         # c1
change tools/regress 's/^(def find_checks)/# The checks of this tree first: a gate judges with its own rule.\n$1/m' \
  "tools/regress: say why this tree's checks come first"                                # c2
change lib/src/cpu/cpu_facts.cpp 's/\A/\/\/ (sysfs, not cpuid: a container may see fewer cores than the CPU has)\n/' \
  "cpu facts: say where the core count comes from"                                     # c3
change benchmarks/checks/audit.cpp 's/\A/\/\/ The audit: one function per rule family.\n/' \
  "audit: a header comment"                                                             # c4
change lib/src/cpu/rapl.cpp 's/\A/int rapl_counters_in_one_place() { return 1 }\n/' \
  "rapl: read the energy counters in one place"                                         # c5 (does not build)
change lib/src/cpu/rapl.cpp 's/\Aint rapl_counters_in_one_place\(\) \{ return 1 \}\n//' \
  "rapl: back to what builds"                                                           # c6
change lib/src/cpu/lapack.cpp 's/LAPACKE_set_nancheck\(0\)/LAPACKE_set_nancheck(1)/' \
  "lapack: let LAPACKE check its inputs"                                                # c7 (the culprit)
change docs/usage.md 's/\z/\n<!-- the getrs rows: LU solves with the factors of getrf -->\n/' \
  "docs: a note on the getrs rows"                                                      # c8
change test/test_lapack.cpp 's/\A/\/\/ LAPACK through LAPACKE, on small matrices.\n/' \
  "tests: a header comment"                                                             # c9
change CMakeLists.txt 's/^(project\(.*\n)/$1# (the build type is said at configure time)\n/m' \
  "cmake: a comment"                                                                    # c10 = B
change benchmarks/cpu/cpu_adapters.hpp 's/\A/\/\/ The CPU adapters: LAPACKE calls behind one interface.\n/' \
  "benchmarks: a header comment on the CPU adapters"                                    # c11
change README.md 's/\z/\n/' "README: end with a blank line"                           # c12 = C
git log --oneline | head -13 | tee -a "$E/record.log"

build() {  # name commit
  rm -rf "$E/hist-$1"; git -C "$E/scratch" worktree prune
  git -C "$E/scratch" worktree add -q --detach "$E/hist-$1" "$2"
  local start=$SECONDS
  cmake -S "$E/hist-$1" -B "$E/hist-$1/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSOLVE_BENCH_TESTS=OFF \
        -DSOLVE_BENCH_CUDA=OFF -DSOLVE_BENCH_MPI=OFF -DCMAKE_CXX_COMPILER_LAUNCHER=ccache > "$E/build-$1.log" 2>&1
  cmake --build "$E/hist-$1/build" --target solve_bench -j2 >> "$E/build-$1.log" 2>&1
  log "built $1 ($2) in $((SECONDS - start)) s"
}
build A HEAD~12
build B HEAD~2
build C HEAD

one() {  # index build [VAR=value...]
  local i=$1 b=$2; shift 2
  env "$@" "$E/hist-$b/build/benchmarks/solve_bench" --benchmark_filter="$F" --sizes=1024 \
      --benchmark_out="$E/runs/run-$i.json" > "$E/runs/run-$i.log" 2>&1 || log "run $i exit $?"
  log "run $i ($b $*) done"
}
rm -rf "$E/runs" "$E/store"; mkdir -p "$E/runs"
for i in $(seq 0 $((N - 1))); do one "$(printf %02d $i)" A; done
for i in $(seq $N $((2 * N - 1))); do one "$(printf %02d $i)" B; done
for i in $(seq $((2 * N)) $((3 * N - 1))); do one "$(printf %02d $i)" B LD_LIBRARY_PATH=$SERIAL; done
for i in $(seq $((3 * N)) $((4 * N - 1))); do one "$(printf %02d $i)" C LD_LIBRARY_PATH=$SERIAL OPENBLAS_CORETYPE=Prescott; done

cd "$T"
# As a new user would: the whole folder (runs, sidecars, the console logs, which are refused).
python3 tools/track add --store "$E/store" --testbed dev-2core "$E"/runs/run-* > "$E/add.txt" 2>&1 || true
tail -3 "$E/add.txt" | tee -a "$E/record.log"
/usr/bin/python3 tools/track analyze --store "$E/store" --repo "$E/scratch" --json "$E/analysis.json" \
  | tee "$E/analysis.txt"
log "history done"
