#!/usr/bin/env bash
# Issue 26, item 6: which emulated factor makes the distance cost the
# article's +62.8 s (scenario 3 against 0) in bench kube's time to every
# pod Ready? For each factor, the default manifest (emulated control plane)
# on multicloud-0 and on multicloud-3 with the factor added to both, and
# the seconds scenario 3 adds. Factors: none; a slow disk (the hdd
# preset's fsync); 0.1% loss on every link (a 200 ms RTO each); jitter of
# a quarter of each link's round trip; members on 0.3 cores each (a 4-vCPU
# node shared with its control-plane components); FACTOR+FACTOR combines them.
#
#   perf/kube-article-factors.sh [ROUNDS=1] [FACTORS="none hdd loss jitter cpu"]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-1}
factors=${2:-none hdd loss jitter cpu}
bin=$(mktemp -d)/etcdlab
work=$(mktemp -d)
trap 'pkill -f "$work" 2>/dev/null || true; rm -rf "$(dirname "$bin")" "$work"' EXIT
go build -o "$bin" ./cmd/etcdlab
topo() { # preset factor -> a topology file
  local p=$1 f=$2 out=$work/$1-$2.yaml
  python3 - "lab/topology/presets/$p.yaml" "$f" "$out" <<'PY'
import sys, yaml, re
src, factor, out = sys.argv[1:]
parts = set(factor.split("+"))  # "hdd+loss": both
t = yaml.safe_load(open(src))
def ms(s): return float(re.match(r"([0-9.]+)ms", s).group(1))
links = t.setdefault("links", [])
if "rtt" in t:  # multicloud-0: one rtt for every pair: spell the pairs out
    r = t.pop("rtt")
    links[:0] = [{"between": [a, b], "rtt": r} for a, b in (("m1", "m2"), ("m1", "m3"), ("m2", "m3"))]
for l in links:
    if "loss" in parts:
        l["loss"] = 0.001
    if "jitter" in parts:
        half = ms(l["rtt"]) / 2
        l["jitter"] = f"{half/2:g}ms"
if "hdd" in parts:
    t["storage"] = {"fsync_delay": "lognormal:p50=23ms,p99=268ms"}
if "cpu" in parts:
    t["cpus"] = 0.3
t["name"] = f"{t['name']}-{factor}"
yaml.safe_dump(t, open(out, "w"))
PY
  echo "$out"
}
printf "%-8s %-14s %8s\n" factor preset ready_s
for r in $(seq "$rounds"); do
  for f in $factors; do
    for p in multicloud-0 multicloud-3; do
      file=$(topo "$p" "$f")
      state=$work/$p-$f/cluster.json
      "$bin" cluster up --topology "$file" --tls --leader m2 --state-file "$state" >"$work/$p-$f.up" 2>&1 &
      up=$!
      for _ in $(seq 240); do [ -s "$state" ] && break; sleep 0.5; done
      [ -s "$state" ] || { cat "$work/$p-$f.up"; exit 1; }
      eps=$(python3 -c 'import json,sys; print(",".join(json.load(open(sys.argv[1]))["endpoints"]))' "$state")
      d=$(dirname "$state")
      "$bin" bench --endpoints "$eps" --cacert "$d/ca.crt" --cert "$d/client.crt" --key "$d/client.key" kube --ready-timeout=5m -o json >"$work/r.json" 2>/dev/null || true
      python3 - "$work/r.json" "$f" "$p" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))["runs"][0]
    k = r["kube"]
    slow = sum(m["summary"].get("slow_applies", 0) for m in (r.get("server") or {}).get("members", []))
    print(f"{sys.argv[2]:8s} {sys.argv[3]:14s} {k.get('time_to_ready_seconds', 0):8.1f}  ({k['pods_ready']}/{k['pods']} Ready, {slow:.0f} slow applies)")
except Exception as e:
    print(f"{sys.argv[2]:8s} {sys.argv[3]:14s}   failed: {e}")
PY
      kill "$up"; wait "$up" || true
    done
  done
done
