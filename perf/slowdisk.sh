#!/usr/bin/env bash
# Fidelity of the emulated slow disk: for each target fsync delay, start a
# 1-member cluster with `cluster up --fsync-delay D` and run `etcdlab disk`
# (4 KiB writes, fdatasync each) inside the member's mounted directory, so
# the syncs go through the slow file system. Prints target, measured p50 and
# p99, and the overhead over the target. Needs root and /dev/fuse.
#
#   perf/slowdisk.sh [DELAYS="1ms 10ms 50ms 200ms"]
set -euo pipefail
cd "$(dirname "$0")/.."
delays=${1:-"1ms 10ms 50ms 200ms"}
work=$(mktemp -d "$PWD/.perf-slow-XXXXXX")
bin=$work/etcdlab
trap 'kill "${up:-0}" 2>/dev/null; wait "${up:-0}" 2>/dev/null; rm -rf "$work"' EXIT
go build -o "$bin" ./cmd/etcdlab
for d in $delays; do
  (cd "$work" && exec "$bin" cluster up --members 1 --fsync-delay "$d" --data-dir "$work/data" >up.out 2>up.err) &
  up=$!
  until [ -s "$work/.etcdlab/cluster.json" ]; do kill -0 "$up" || { cat "$work/up.err"; exit 1; }; sleep 0.1; done
  n=$(python3 -c "print(max(20, min(400, int(4000/float('$d'.rstrip('ms') or 1)))))")
  "$bin" disk --dir "$work/data/m1" --bs 4096 --size $((n * 4096)) -o json 2>/dev/null > "$work/disk.json" || true
  python3 - "$d" "$work/disk.json" <<'PY'
import json, sys
d = sys.argv[1]; target = float(d.rstrip("ms")) / 1000
j = json.load(open(sys.argv[2]))["disk"]["jobs"][0]
p = {q["p"]: q["seconds"] for q in j["sync_latency"]["percentiles"]}
print("target %-6s syncs %4d  p50 %8.2f ms (+%.2f ms)  p99 %8.2f ms (+%.2f ms)" % (d, j["ops"], p[50]*1e3, (p[50]-target)*1e3, p[99]*1e3, (p[99]-target)*1e3))
PY
  kill -INT "$up"; wait "$up" || true
  rm -f "$work/.etcdlab/cluster.json"
done
