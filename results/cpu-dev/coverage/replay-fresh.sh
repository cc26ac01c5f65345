#!/bin/bash
# Judges the fresh set (runs-2026-12-06-fresh, d3102e8, 22:55-23:27 UTC: d, ten default runs; p,
# five of them with CPU/dgetrf/n:1024 planted 10% slower, turn about with d6-10) on its own and
# held to a tools/track store of the 80 earlier coverage runs of the VM that day (the 60 of
# replay-history.sh and the restless set's d and q): tools/aa-coverage, five A/A pairs and the
# planted pair with tools/regress, each with and without --history, and A/A pools that took turns
# (odd against even runs). Usage: replay-fresh.sh WORKDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../../.." && pwd); w=$1
mkdir -p "$w" && cd "$w"
for t in runs-2026-12-06 runs-2026-12-06-span runs-2026-12-06-span3 runs-2026-12-06-default runs-2026-12-06-fresh; do
  mkdir -p $t && tar xJf "$here/$t.tar.xz" -C $t
done
rm -rf store
"$root/tools/track" add --store store --testbed vm runs-2026-12-06/q*.json runs-2026-12-06-span/*.json \
  runs-2026-12-06-span3/*.json runs-2026-12-06-default/[dq]*.json 2>&1 | tail -1 || true  # sidecars refused
cd runs-2026-12-06-fresh
held=(--history ../store --testbed vm)
echo "== own ±"; "$root/tools/aa-coverage" d{1..10}.json | tail -1
echo "== held to the store"; "$root/tools/aa-coverage" "${held[@]}" d{1..10}.json | tail -1
for i in 1 2 3 4 5; do
  for h in own held; do
    if [ $h = own ]; then args=(); else args=("${held[@]}"); fi
    rc=0; "$root/tools/regress" "${args[@]}" d$i.json d$((i + 5)).json > /dev/null 2>&1 || rc=$?
    echo "A/A d$i d$((i + 5)), $h ±: exit $rc"
  done
done
for h in own held; do
  if [ $h = own ]; then args=(); else args=("${held[@]}"); fi
  echo "== A/A pools that took turns, d1 d3 d5 d7 d9 -- d2 d4 d6 d8 d10, $h ±"
  "$root/tools/regress" "${args[@]}" d{1,3,5,7,9}.json -- d{2,4,6,8,10}.json 2>&1 | grep -E "^(SLOWER|FASTER) |^regress:" | cut -c1-125 || true
done
for h in own held; do
  if [ $h = own ]; then args=(); else args=("${held[@]}"); fi
  echo "== planted, d6-10 -- p1-5, $h ±"
  "$root/tools/regress" "${args[@]}" d{6..10}.json -- p{1..5}.json 2>&1 | grep -E "CPU/dgetrf/n:1024 |^regress:" || true
done
