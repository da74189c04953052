#!/usr/bin/env bash
# Wall-clock time of `etcdlab check` with no flags (issue 6 bar: < 60 s),
# over N rounds, on a new directory of the repo's disk each time. Prints
# each round's time, exit code, highest level passed, and the median.
#
#   perf/check-wall.sh [ROUNDS=3]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
bin=$(mktemp -d)/etcdlab
trap 'rm -rf "$(dirname "$bin")" "${work:-}"' EXIT
go build -o "$bin" ./cmd/etcdlab
times=()
for r in $(seq 1 "$rounds"); do
  work=$(mktemp -d "$PWD/.perf-check-XXXXXX")
  t0=$(date +%s.%N)
  set +e
  (cd "$work" && "$bin" check --out out >stdout.txt 2>stderr.txt)
  code=$?
  set -e
  t=$(echo "$(date +%s.%N) - $t0" | bc)
  times+=("$t")
  level=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["check"]["highest_level_passed"] or "none")' "$work/out/result.json" 2>/dev/null || echo "?")
  overall=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["overall"])' "$work/out/result.json" 2>/dev/null || echo "?")
  printf 'round %d: %.1f s, exit %d, overall %s, highest level passed %s\n' "$r" "$t" "$code" "$overall" "$level"
  rm -rf "$work"
done
printf 'median wall time over %d rounds: %.1f s (bar: < 60 s)\n' "$rounds" "$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')"
