#!/usr/bin/env bash
# The scaled-down path's error against direct runs (issue 35's direct
# check): for each target (nodes, pods = 30 a node, one CPU budget per
# member, 3 members in memory), `etcdlab size` searches the knee twice,
# directly (--lab-scale 1: the load and budgets as they are) and scaled
# down (--lab-scale K: the load times K, each member idle + K × the rest),
# in alternating order from target to target. The quota is 64 GiB so that
# the members' CPU, not the database, bounds both. Prints each search's
# knee and the ratio scaled/direct (the bar: within ±25%), and the
# median ratio.
#
#   perf/size-direct.sh [K=0.5] [PROBE=15s] [TARGETS="300:0.2 1000:0.3 2000:0.4"]
set -euo pipefail
cd "$(dirname "$0")/.."
k=${1:-0.5}
probe=${2:-15s}
targets=${3:-"300:0.2 1000:0.3 2000:0.4"}
work=$(mktemp -d /tmp/etcdlab-size-direct.XXXXXX)
trap 'rm -rf "$work"' EXIT
bin=$work/etcdlab
go build -o "$bin" ./cmd/etcdlab
cd "$work"
i=0
for t in $targets; do
  nodes=${t%%:*}; cpus=${t##*:}
  order="1 $k"; if (( i % 2 )); then order="$k 1"; fi
  for scale in $order; do
    "$bin" size --nodes "$nodes" --pods $((nodes * 30)) --cpus "$cpus" --disk tmpfs --quota 64GiB \
      --rtt-budget=false --probe-time "$probe" --lab-scale "$scale" -o json > "$work/$nodes-$scale.json" 2> "$work/$nodes-$scale.log" || {
      echo "size failed at $nodes nodes, scale $scale:"; tail -3 "$work/$nodes-$scale.log"; exit 1; }
  done
  i=$((i + 1))
done
python3 - "$work" "$k" $targets <<'PY'
import json, statistics, sys
work, k, targets = sys.argv[1], sys.argv[2], sys.argv[3:]
ratios = []
print(f"{'nodes':>6} {'cpus':>5} {'direct knee':>12} {'scaled knee':>12} {'ratio':>6}  broke first (direct / scaled)")
for t in targets:
    nodes, cpus = t.split(":")
    c = {}
    for s in ("1", k):
        c[s] = json.load(open(f"{work}/{nodes}-{s}.json"))["size"]["candidates"][0]
    def knee(x):
        b = "≥" if x.get("above") else ("≤" if x.get("below") else "")
        return f"{b}{x['knee_nodes']}"
    r = c[k]["knee"] / c["1"]["knee"] if c["1"]["knee"] else float("nan")
    ratios.append(r)
    print(f"{nodes:>6} {cpus:>5} {knee(c['1']):>12} {knee(c[k]):>12} {r:>6.2f}  {c['1'].get('broke_first','-')} / {c[k].get('broke_first','-')}")
print(f"median ratio {statistics.median(ratios):.2f}; worst {max(abs(r - 1) for r in ratios):.0%} off")
PY
