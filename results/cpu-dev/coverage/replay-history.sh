#!/bin/bash
# Replays the default set (runs-2026-12-06-default: d, the default; q, --span=0) with each run's
# ± held to a tools/track store of the 60 earlier coverage runs of the same VM that day
# (runs-2026-12-06 q, -span q and s, -span3 q, h and s; 02:15-04:31 UTC), the set itself not in
# it: tools/aa-coverage with and without --history. Usage: replay-history.sh WORKDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../../.." && pwd); w=$1
mkdir -p "$w" && cd "$w"
for t in runs-2026-12-06 runs-2026-12-06-span runs-2026-12-06-span3 runs-2026-12-06-default; do
  mkdir -p $t && tar xJf "$here/$t.tar.xz" -C $t
done
rm -rf store
"$root/tools/track" add --store store --testbed vm runs-2026-12-06/q*.json runs-2026-12-06-span/*.json \
  runs-2026-12-06-span3/*.json 2>&1 | tail -1 || true  # exit 2: the sidecars, refused by name
"$root/build/benchmarks/checks/solve_bench_checks" history --store=store --testbed=vm
cd runs-2026-12-06-default
for s in d q; do
  echo "== $s, own ±"; "$root/tools/aa-coverage" ${s}{1..10}.json | tail -1
  echo "== $s, held to the store"; "$root/tools/aa-coverage" --history ../store --testbed vm ${s}{1..10}.json
done
