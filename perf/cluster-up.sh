#!/usr/bin/env bash
# Measures how long `etcdlab cluster up` takes to a healthy cluster (from
# process start until the state file is written, which happens only after
# every member answers and they agree on a leader), over N rounds, and the
# time for `cluster down` to leave nothing behind. Prints each round and the
# medians.
#
#   perf/cluster-up.sh [ROUNDS=5] [MEMBERS=3] [DIR=a new temp dir on this disk]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
members=${2:-3}
work=${3:-$(mktemp -d "$PWD/.perf-up-XXXXXX")}
bin=$(mktemp -d)/etcdlab
trap 'rm -rf "$(dirname "$bin")"; [ -z "${3:-}" ] && rm -rf "$work"' EXIT
go build -o "$bin" ./cmd/etcdlab

now() { date +%s.%N; }
ups=(); downs=()
for r in $(seq 1 "$rounds"); do
  (cd "$work" && exec "$bin" cluster up --members "$members" >up.out 2>up.err) &
  pid=$!
  t0=$(now)
  until [ -s "$work/.etcdlab/cluster.json" ]; do
    kill -0 "$pid" 2>/dev/null || { cat "$work/up.err"; exit 1; }
    sleep 0.02
  done
  t1=$(now)
  (cd "$work" && "$bin" cluster status >/dev/null)
  t2=$(now)
  (cd "$work" && "$bin" cluster down >/dev/null 2>&1)
  wait "$pid"
  t3=$(now)
  left=$(pgrep -fc "etcdlab member" || true)
  up=$(echo "$t1 - $t0" | bc); down=$(echo "$t3 - $t2" | bc)
  ups+=("$up"); downs+=("$down")
  printf 'round %d: up %.2fs  down %.2fs  leftover members %s  leftover files %s\n' "$r" "$up" "$down" "$left" "$(ls -A "$work/.etcdlab" 2>/dev/null | wc -l)"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
printf 'median over %d rounds, %d members: up %.2fs, down %.2fs (bar: up < 10 s)\n' "$rounds" "$members" "$(median "${ups[@]}")" "$(median "${downs[@]}")"
