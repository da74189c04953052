#!/usr/bin/env bash
# Fidelity of the emulated fsync delay, both mechanisms side by side: for
# each round, a 1-member cluster with its data in memory (tmpfs) and no
# delay (the baseline), then for each target delay one cluster whose fsyncs
# are delayed through seccomp user notification (storage fsync_by: seccomp,
# emulate/syscalldelay) and one through the FUSE slow disk (slowfs), in
# that interleaved order. Each runs a light put load (1 client, 1
# connection, one put after the other, about 2 s) and the member's WAL
# fsync mean is read from etcd_disk_wal_fsync_duration_seconds _sum and
# _count around it. The added delay is the mean minus the round's
# baseline; its ratio to the target is printed per round, then the median
# ratio and the median mean per mechanism and target; first, per round, the
# seccomp mechanism at a 0 s delay: its own cost, which lab/cluster takes
# off each drawn delay (seccompLead). Needs root (seccomp
# is a user's right, FUSE is root's) and /dev/fuse for the slowfs column.
#
#   perf/fsyncdelay.sh [ROUNDS=3] [DELAYS="50us 100us 250us 500us 1ms 4ms"]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
delays=${2:-"50us 100us 250us 500us 1ms 4ms"}
work=$(mktemp -d "$PWD/.perf-fsyncdelay-XXXXXX")
bin=$work/etcdlab
up=
trap 'if [ -n "$up" ]; then kill "$up" 2>/dev/null; wait "$up" 2>/dev/null; fi; rm -rf "$work"' EXIT
go build -o "$bin" ./cmd/etcdlab

# walfsync URL: "SUM COUNT" of the member's WAL fsync histogram.
walfsync() {
  curl -s "$1" | awk '$1=="etcd_disk_wal_fsync_duration_seconds_sum"{s=$2} $1=="etcd_disk_wal_fsync_duration_seconds_count"{c=$2} END{print s, c}'
}

# cell NAME STORAGE PUTS: start the cluster, run the load, print "NAME mean_seconds".
cell() {
  local name=$1 storage=$2 puts=$3
  printf 'members: 1\nstorage: {tmpfs: true%s}\n' "$storage" > "$work/topo.yaml"
  rm -f "$work/.etcdlab/cluster.json"
  (cd "$work" && exec "$bin" cluster up --topology "$work/topo.yaml" >up.out 2>up.err) &
  up=$!
  until [ -s "$work/.etcdlab/cluster.json" ]; do kill -0 "$up" 2>/dev/null || { cat "$work/up.err" >&2; exit 1; }; sleep 0.1; done
  local ep url
  ep=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['members'][0]['client_url'])" "$work/.etcdlab/cluster.json")
  url=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['members'][0]['metrics_url'].rstrip('/')+'/metrics')" "$work/.etcdlab/cluster.json")
  "$bin" bench --endpoints "$ep" --conns=1 --clients=1 --total=20 put --val-size=256 >/dev/null 2>&1 || true # warm-up
  read -r s0 c0 < <(walfsync "$url")
  "$bin" bench --endpoints "$ep" --conns=1 --clients=1 --total="$puts" put --val-size=256 >/dev/null 2>"$work/bench.err" || { cat "$work/bench.err" >&2; exit 1; }
  read -r s1 c1 < <(walfsync "$url")
  kill -INT "$up"; wait "$up" || true; up=
  python3 -c "import sys; s0,c0,s1,c1=map(float,sys.argv[2:]); print(sys.argv[1], (s1-s0)/(c1-c0), int(c1-c0))" "$name" "$s0" "$c0" "$s1" "$c1"
}

seconds() { python3 -c "import sys; v=sys.argv[1]; print(float(v[:-2])/1e6 if v.endswith('us') else float(v[:-2])/1e3 if v.endswith('ms') else float(v[:-1]))" "$1"; }

out=$work/cells.txt
for r in $(seq "$rounds"); do
  cell "r$r/memory/-" "" 300 >> "$out"; tail -n 1 "$out"
  cell "r$r/cost/-" ", fsync_delay: 0s, fsync_by: seccomp" 300 >> "$out"; tail -n 1 "$out"
  for d in $delays; do
    t=$(seconds "$d")
    n=$(python3 -c "print(max(100, min(1000, int(2/($t+0.0005)))))")
    cell "r$r/seccomp/$d" ", fsync_delay: $d, fsync_by: seccomp" "$n" >> "$out"; tail -n 1 "$out"
    cell "r$r/slowfs/$d" ", fsync_delay: $d" "$n" >> "$out"; tail -n 1 "$out"
  done
done

python3 - "$out" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
base = {}
cells = {}
def secs(v):
    return float(v[:-2]) / 1e6 if v.endswith("us") else float(v[:-2]) / 1e3
for name, mean, n in rows:
    r, mech, d = name.split("/")
    if mech == "memory":
        base[r] = float(mean)
    elif mech == "cost":
        cost = cells.setdefault("cost", [])
        cost.append((r, float(mean)))
    else:
        cells.setdefault((mech, d), []).append((r, float(mean)))
print("baseline (tmpfs, no delay) WAL fsync mean per round: " + ", ".join("%.1f us" % (v * 1e6) for v in base.values()))
print("seccomp at a 0 s delay (the mechanism's own cost; no lead is taken off a 0 s draw), added per round: " + ", ".join("%.1f us" % ((m - base[r]) * 1e6) for r, m in cells.pop("cost", [])))
print("%-8s %-7s %14s %16s %12s  %s" % ("target", "mech", "median mean", "median added", "added/target", "ratios per round"))
for (mech, d), vs in sorted(cells.items(), key=lambda kv: (secs(kv[0][1]), kv[0][0])):
    t = secs(d)
    ratios = [(m - base[r]) / t for r, m in vs]
    print("%-8s %-7s %11.3f ms %13.3f ms %12.2f  %s" % (d, mech, statistics.median(m for _, m in vs) * 1e3,
          statistics.median(m - base[r] for r, m in vs) * 1e3, statistics.median(ratios), " ".join("%.2f" % x for x in ratios)))
PY
