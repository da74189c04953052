#!/usr/bin/env bash
# Issue 25's bars: `experiment run versions --quick` and `upgrade --quick`
# each under 10 minutes here, with their figures. Runs each once, timed
# from start to exit (builds included when the cache lacks a version),
# and prints:
#   versions: per workload and version, throughput, p50 and the % against
#     3.5, and each cell's bottleneck;
#   upgrade: per member replaced, its versions, down time, the cluster's
#     unavailability and the clients' errors inside its window.
# Nothing else should run on the machine.
#
#   [OUT=DIR] perf/version-experiments.sh [NAMES="versions upgrade"]
set -euo pipefail
cd "$(dirname "$0")/.."
names=${1:-"versions upgrade"}
work=$(mktemp -d "$PWD/.perf-versions-XXXXXX")
bin=$(mktemp -d)/etcdlab
trap 'rm -rf "$(dirname "$bin")" "$work"' EXIT
go build -o "$bin" ./cmd/etcdlab
for name in $names; do
	out="${OUT:-$work}/$name"
	start=$(date +%s)
	rc=0
	"$bin" experiment run "$name" --quick --quiet --out "$out" --data-dir "$work" >"$work/$name.log" 2>&1 || rc=$?
	echo "== $name --quick: $(($(date +%s) - start)) s, exit $rc (load average now: $(cut -d' ' -f1-3 /proc/loadavg))"
	python3 - "$out/result.json" "$name" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
exp = doc["experiment"]
cells = exp["cells"]
def tput(c):
    s = c.get("summaries") or [{}]
    return s[0].get("throughput_rps", {}).get("mean", 0)
def p50(c):
    s = c.get("summaries") or [{}]
    return s[0].get("p50_seconds", {}).get("mean", 0)
if sys.argv[2] == "versions":
    base = {c["workload"]: tput(c) for c in cells if c["setup"] == "etcd-3.5"}
    for c in cells:
        b = base.get(c["workload"]) or 0
        pct = f"{(tput(c) / b - 1) * 100:+.1f}%" if b and c["setup"] != "etcd-3.5" else ""
        print(f'{c["workload"]:10} {c["setup"]:9} {c["status"]:7} {tput(c):9.1f} req/s  p50 {p50(c)*1000:7.2f} ms  {pct:8} {(c.get("bottleneck") or {}).get("resource", "")}')
else:
    for c in cells:
        for f in c.get("faults") or []:
            up = f.get("upgrade")
            if not up:
                continue
            print(f'at {f["at_seconds"]:.0f} s: to {up["to"]} in {up.get("seconds", 0):.1f} s; client errors outside every window: {up.get("client_errors_outside", 0)}')
            for s in up["steps"]:
                cu = (s.get("cluster_unavailability") or {}).get("total_seconds", 0)
                lead = f' (led, handed to {s.get("handed_to")})' if s.get("was_leader") else ""
                print(f'  {s["member"]}{lead}: {s["from"]} -> {s["to"]}, down {s["down_seconds"]:.2f} s, cluster unavailable {cu:.2f} s, client errors {s.get("client_errors", 0)}, client unavailable {s.get("client_unavailable_seconds", 0):.2f} s')
PY
done
