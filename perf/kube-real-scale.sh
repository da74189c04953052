#!/usr/bin/env bash
# Issue 33, item 6: the largest manifest at which the real control plane
# leaves at least a third of this machine's cores idle. For each manifest
# (DEPLOYMENTSxREPLICAS/NODES), smallest first: a fresh multicloud-0
# cluster (peer TLS, m2 leading, as perf/kube-real.sh runs it), one real
# control plane run of bench kube, and the machine's CPU in use during it
# (the run's machine_cpu_cores: /proc/stat over the run, whoever used it).
# Prints one line per manifest and the largest under the bar; stops at the
# first manifest over it.
#
#   perf/kube-real-scale.sh [MANIFESTS="1x20/2 2x20/2 2x25/3 3x25/3 4x25/4 5x25/4"] [PRESET=multicloud-0] [KUBE_ARGS=]
#
# KUBE_ARGS are more bench kube flags for every run ("--apiservers=1").
#
# Needs the cached Kubernetes binaries (go run ./perf/kubebuild, about 10
# minutes once) and root. Run it on a quiet machine: the machine's CPU is
# what it measures.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=perf/lib/cluster.sh
. perf/lib/cluster.sh
manifests=${1:-1x20/2 2x20/2 2x25/3 3x25/3 4x25/4 5x25/4}
preset=${2:-multicloud-0}
args=${3:-}
bin=$(mktemp -d)/etcdlab
work=$(mktemp -d)
trap 'pkill -f "$work" 2>/dev/null || true; rm -rf "$(dirname "$bin")" "$work"' EXIT
go build -o "$bin" ./cmd/etcdlab
cores=$(nproc)
bar=$(echo "$cores * 2 / 3" | bc -l)
echo "etcdlab $(git rev-parse --short HEAD), $(date -u +%FT%TZ), $preset, bench kube ${args:-(default flags)}, $cores cores (bar: at most $(printf '%.2f' "$bar") in use), load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-12s %6s %10s %12s %s\n' manifest pods ready_s machine_cpu verdict
best=
for m in $manifests; do
  dep=${m%%x*}; rest=${m#*x}; rep=${rest%%/*}; nodes=${rest#*/}
  state=$work/$m/cluster.json
  mkdir -p "$(dirname "$state")"
  perf_preset_up "$bin" "$preset" "$state" "$work/up.log"
  up=$preset_up
  eps=$(perf_endpoints "$state")
  d=$(dirname "$state")
  # shellcheck disable=SC2086
  "$bin" bench --endpoints "$eps" --cacert "$d/ca.crt" --cert "$d/client.crt" --key "$d/client.key" \
    kube --deployments "$dep" --replicas "$rep" --nodes "$nodes" $args --control-plane real --state-file "$state" -o json >"$work/run.json" 2>"$work/run.log" || { tail -5 "$work/run.log"; }
  kill "$up"; wait "$up" || true
  read -r ready cpu < <(python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))["runs"][0]
print((r.get("kube") or {}).get("time_to_ready_seconds", 0), r.get("machine_cpu_cores", 0))' "$work/run.json")
  verdict=over
  if (( $(echo "$cpu > 0 && $cpu <= $bar" | bc -l) )); then verdict=under; best=$m; fi
  printf '%-12s %6d %10.1f %12.2f %s\n' "$m" $((dep * rep)) "$ready" "$cpu" "$verdict"
  [ "$verdict" = over ] && break
done
echo "largest manifest under the bar: ${best:-none}"
