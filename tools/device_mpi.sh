#!/usr/bin/env bash
# device_mpi.sh: ScaLAPACK strong scaling on a machine that has no MPI packages and no
# package registry (the GPU machine: Ubuntu 24.04, 16 cores), from Debian 12's Open MPI
# and ScaLAPACK .debs carried in .carry/mpi-debs/ (fetch them with `tools/device_mpi.sh
# fetch` where apt works). They are unpacked into a private prefix under build/, never
# into /, and used through PATH, LD_LIBRARY_PATH and OPAL_PREFIX; Debian 12's libraries
# need glibc >= 2.36, which Ubuntu 24.04 (2.39) has.
#
#   tools/device_mpi.sh fetch     apt-get download the .debs into .carry/mpi-debs (on Debian 12)
#   tools/device_mpi.sh setup     unpack, build solve_bench + solve_bench_mpi, run the MPI tests
#   tools/device_mpi.sh measure   solve_bench CPU rows + solve_bench_mpi at each rank count,
#                                 merged into $OUT/mpi-scaling-<host>-n<N>-nb<NB>.json (tools/mpi_scaling.py)
#   tools/device_mpi.sh all       setup, then measure (default)
#
# Settings (environment): RANKS (1,2,4,8,16), SIZES (8192), NB (64,256), PRECISIONS (d),
# REPETITIONS (3), OUT (the device's output folder, else ./out), BUILD (build/device-mpi).
# On the GPU machine, carrying .carry/mpi-debs: `tools/device_mpi.sh setup` (a few minutes),
# then `tools/device_mpi.sh measure` while the machine is still warm (setup's build is reused).
# Needs on the machine: cmake, g++, python3, dpkg-deb, and what solve_bench itself needs
# (libopenblas-dev, liblapacke-dev, libbenchmark-dev; libgtest-dev for the tests).
set -euo pipefail
cd "$(dirname "$0")/.."

step=${1:-all}
debs=.carry/mpi-debs
build=${BUILD:-build/device-mpi}
prefix=$PWD/$build/prefix
out=${OUT:-$PWD/out}
ranks=${RANKS:-1,2,4,8,16}
sizes=${SIZES:-8192}
nb=${NB:-64,256}
precisions=${PRECISIONS:-d}
repetitions=${REPETITIONS:-3}
arch=x86_64-linux-gnu

# Open MPI 4.1 and ScaLAPACK 2.2.1 from Debian 12, and what they need that an Ubuntu 24.04
# machine without MPI lacks. Left out: the fabric libraries (UCX, libfabric, PSM, verbs);
# their Open MPI components are removed from the prefix below, since one node talks
# through shared memory.
packages=(openmpi-bin openmpi-common libopenmpi3 libopenmpi-dev
          libscalapack-openmpi2.2 libscalapack-openmpi-dev
          libpmix2 libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7
          libmunge2 libnl-3-200 libnl-route-3-200 libudev1)

fetch() {
  mkdir -p "$debs"
  (cd "$debs" && apt-get download "${packages[@]}")
  du -sh "$debs"
}

mpi_env() {
  local usr=$prefix/usr
  export OPAL_PREFIX=$usr                                  # Open MPI finds its components, help and wrapper data here
  export PMIX_MCA_mca_base_component_path=$usr/lib/$arch/pmix2/lib/pmix
  export PATH=$prefix/bin:$usr/bin:$PATH
  export LD_LIBRARY_PATH=$usr/lib/$arch:$usr/lib/$arch/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export OMPI_MCA_mca_base_param_files=$prefix/etc/openmpi/openmpi-mca-params.conf  # Debian's defaults (sysconfdir is /etc)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader          # one node: shared memory
  export OMPI_MCA_btl_vader_single_copy_mechanism=none     # CMA may be forbidden in containers
  export OMPI_MCA_plm_rsh_agent=false                      # no ssh: everything is local
}

setup() {
  ls "$debs"/*.deb >/dev/null 2>&1 || { echo "device_mpi: no .debs in $debs (run 'tools/device_mpi.sh fetch' where apt works, then carry $debs)" >&2; exit 1; }
  rm -rf "$prefix" && mkdir -p "$prefix/bin"
  for d in "$debs"/*.deb; do dpkg-deb -x "$d" "$prefix"; done
  for c in mtl_ofi btl_ofi mtl_psm mtl_psm2 btl_openib pml_ucx osc_ucx spml_ucx sshmem_ucx atomic_ucx; do
    rm -f "$prefix/usr/lib/$arch/openmpi/lib/openmpi3/mca_$c.so"
  done
  # dpkg -x runs no maintainer scripts: make the names update-alternatives would have made.
  for t in mpirun mpiexec mpicc mpicxx; do ln -sf "$prefix/usr/bin/$t.openmpi" "$prefix/bin/$t"; done
  mpi_env

  local missing
  missing=$(for f in "$prefix"/usr/bin/orterun "$prefix"/usr/bin/orted "$prefix"/usr/lib/$arch/libscalapack-openmpi.so.2.2 \
                     "$prefix"/usr/lib/$arch/openmpi/lib/openmpi3/*.so "$prefix"/usr/lib/$arch/pmix2/lib/pmix/*.so; do
              ldd "$f" 2>/dev/null | grep "not found" | sed "s|^|$(basename "$f"): |" || true; done | sort -u)
  if [ -n "$missing" ]; then echo "device_mpi: libraries missing on this machine:" >&2; echo "$missing" >&2; exit 1; fi
  mpirun --version | head -1
  mpirun -n 2 --oversubscribe hostname

  local tests=ON
  [ -e /usr/include/gtest/gtest.h ] || tests=OFF
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DSOLVE_BENCH_CUDA=OFF -DSOLVE_BENCH_MPI=ON \
        -DSOLVE_BENCH_TESTS=$tests \
        -DMPI_C_COMPILER="$prefix/bin/mpicc" -DMPI_CXX_COMPILER="$prefix/bin/mpicxx" \
        -DMPIEXEC_EXECUTABLE="$prefix/bin/mpirun" \
        -DScaLAPACK_LIBRARY="$prefix/usr/lib/$arch/libscalapack-openmpi.so"
  cmake --build "$build" -j "$(nproc)"
  if [ "$tests" = ON ]; then ctest --test-dir "$build" -L mpi --output-on-failure -j 4; fi
}

measure() {
  [ -x "$build/benchmarks/solve_bench_mpi" ] && [ -d "$prefix/usr" ] ||
    { echo "device_mpi: no build in $build (run 'tools/device_mpi.sh setup' first, on this machine)" >&2; exit 1; }
  mpi_env
  mkdir -p "$out"
  local name cores
  name=mpi-scaling-$(hostname)-n${sizes//,/_}-nb${nb//,/_}
  cores=$(lscpu -p=CORE,SOCKET 2>/dev/null | grep -v '^#' | sort -u | wc -l)
  echo "device_mpi: $(nproc) CPUs, $cores physical cores; ranks $ranks, n $sizes, nb $nb"
  # One rank per core, pinned; more ranks than physical cores share cores (hyperthreads).
  python3 tools/mpi_scaling.py --build "$build" --out "$out/$name.json" \
    --ranks "$ranks" --sizes "$sizes" --nb "$nb" --precisions "$precisions" --repetitions "$repetitions" \
    --mpiexec "mpirun --map-by core --bind-to core:overload-allowed --oversubscribe --report-bindings" \
    2>&1 | tee "$out/$name.log"
  return "${PIPESTATUS[0]}"
}

case "$step" in
  fetch) fetch ;;
  setup) setup ;;
  measure) measure ;;
  all) setup && measure ;;
  *) echo "usage: tools/device_mpi.sh [fetch|setup|measure|all]" >&2; exit 2 ;;
esac
