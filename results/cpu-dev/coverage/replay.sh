#!/usr/bin/env bash
# usage: results/cpu-dev/coverage/replay.sh CHECKS
# Every recorded A/A set of ten runs (this folder's runs-*.tar.xz, the GPU machines'
# results/h200/ and results/h100/ coverage/default-3x1*/runs.tar.xz) judged again by the
# solve_bench_checks at CHECKS:
# one tools/aa-coverage line a set (pairs covered, rows below 90%). A change to how the ± is
# computed replays here on the same samples, before and after.
set -euo pipefail
checks=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in "$here"/runs-*.tar.xz "$repo"/results/h[0-9]*/coverage/default-3x1*/runs.tar.xz; do
  # Its path under results/, machine folder first: an H200 and an H100 set of one commit differ.
  name=${t#"$repo"/results/}
  name=${name%.tar.xz}
  d="$tmp/${name//\//_}"
  mkdir -p "$d" && tar xJf "$t" -C "$d"
  # A set: ten or more runs PREFIX1.json ... PREFIX10.json of one folder (more: sets of ten).
  find "$d" -name '*[0-9].json' | sed -E 's/[0-9]+\.json$//' | sort -u | while read -r prefix; do
    runs=()
    for i in $(seq 1 20); do [ -f "$prefix$i.json" ] && runs+=("$prefix$i.json"); done
    for ((k = 0; k + 10 <= ${#runs[@]}; k += 10)); do
      line=$("$repo/tools/aa-coverage" --checks "$checks" "${runs[@]:k:10}" | tail -1)
      printf '%-60s %s\n' "$name:${prefix##*/}$((k + 1))-$((k + 10))" "$line"
    done
  done
done
