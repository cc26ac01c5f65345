#!/bin/bash
# Replays two sets of ten default sweeps held to a tools/track store of the earlier sets of the
# same VM that day (the set itself never in it): tools/aa-coverage with and without --history.
#   ac143b3's set (runs-2026-12-07-team) held to c15 + c16 (runs-2026-12-07-sweeps, -settle);
#   9f8b5dc's set (this tarball) held to c15 + c16 + c17 (the team set).
# Usage: replay-record.sh WORKDIR (run from a checkout with tools/track and a build/).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../../.." && pwd); w=$1
mkdir -p "$w" && cd "$w"
for t in runs-2026-12-07-sweeps runs-2026-12-07-settle runs-2026-12-07-team runs-2026-12-07-warmup; do
  mkdir -p $t && tar xJf "$here/$t.tar.xz" -C $t
done
rm -rf store2 store3
"$root/tools/track" add --store store2 --testbed vm runs-2026-12-07-sweeps/s*.json \
  runs-2026-12-07-settle/c16/s*.json > /dev/null 2>&1 || true  # exit 2: the sidecars, refused by name
"$root/tools/track" add --store store3 --testbed vm runs-2026-12-07-sweeps/s*.json \
  runs-2026-12-07-settle/c16/s*.json runs-2026-12-07-team/c17/s*.json > /dev/null 2>&1 || true
(cd runs-2026-12-07-team/c17 && "$root/tools/aa-coverage" --history ../../store2 --testbed vm s{1..10}.json | tail -1)
(cd runs-2026-12-07-warmup/c19 && "$root/tools/aa-coverage" --history ../../store3 --testbed vm s{1..10}.json | tail -1)
