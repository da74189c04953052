#!/usr/bin/env bash
# The worked example of docs/profiles.md, regenerated: a 3-member lab
# cluster (`etcdlab cluster up`) under the Kubernetes-shaped workload in
# steady state (bench kube --steady: 4 deployments of 10 pods on 3 nodes,
# 6 deployments re-created a minute), its emulated kube-apiserver's
# metrics served with --listen-metrics; after 40 s of it, `etcdlab
# profile` with the default 60 s window, the census and the apiserver's
# metrics, timed; then `bench replay` of that profile for 60 s on a fresh
# 3-member lab cluster. Writes OUT/profile.yaml, OUT/profile.txt (what
# profile printed, and its wall time) and OUT/replay.txt.
#
#   perf/profile-example.sh [OUT=docs/examples/replay]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/examples/replay}
mkdir -p "$out"
. perf/lib/cluster.sh
perf_cluster_up profile
eps=$(perf_endpoints "$work/.etcdlab/cluster.json")
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" bench --endpoints "$eps" --prefix / --duration 4m --listen-metrics "127.0.0.1:$port" --quiet \
  kube --steady --deployments 4 --replicas 10 --nodes 3 --churn-per-minute 6 --apiservers 1 >"$work/kube.out" 2>&1 &
kube=$!
trap 'kill $kube 2>/dev/null || true; wait $kube 2>/dev/null || true; perf_cluster_cleanup' EXIT
sleep 40
start=$(date +%s.%N)
"$bin" profile --endpoints "$eps" --apiserver-metrics "http://127.0.0.1:$port/metrics" --out "$out/profile.yaml" 2>"$out/profile.txt"
end=$(date +%s.%N)
printf 'wall time: %.1f s (default window 60 s, census, one kube-apiserver)\n' "$(echo "$end - $start" | bc)" >>"$out/profile.txt"
kill $kube 2>/dev/null || true
wait $kube 2>/dev/null || true
"$bin" bench --members 3 --duration 60s --quiet replay "$out/profile.yaml" >"$out/replay.txt" 2>&1
cat "$out/profile.txt"
sed -n '/^Replay of/,$p' "$out/replay.txt"
