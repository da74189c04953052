#!/usr/bin/env bash
# Issue 26's comparison: bench kube's emulated control plane against a real
# one (kube-apiserver per member, controller manager, scheduler, kubemark
# hollow nodes; Kubernetes built from k8s.io/kubernetes and cached) on the
# same lab cluster, for each preset: the etcd requests per verb and
# resource (the real apiservers' etcd_requests_total against the emulator's
# requests named as the apiserver's storage layer names them), time to
# every pod Ready, and the seconds distance adds (the last preset minus the
# first). The emulation runs with --hollow-kubelets, as the real nodes are
# kubemark's hollow ones (10/20 QPS, no events). Interleaved: each round runs every preset, emulated then real on
# one fresh cluster per preset.
#
#   perf/kube-real.sh [ROUNDS=1] [PRESETS="multicloud-0 multicloud-1 multicloud-2 multicloud-3"] [BENCH_ARGS=]
#
# BENCH_ARGS are bench kube's flags for both (say "--deployments=4
# --replicas=25"). Prints the table and writes every result under
# perf/out/kube-real-DATE/ (not committed).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=perf/lib/cluster.sh
. perf/lib/cluster.sh
rounds=${1:-1}
presets=${2:-multicloud-0 multicloud-1 multicloud-2 multicloud-3}
args=${3:-}
out=perf/out/kube-real-$(date +%Y%m%dT%H%M%S)
mkdir -p "$out"
bin=$(mktemp -d)/etcdlab
work=$(mktemp -d)
trap 'pkill -f "$work" 2>/dev/null || true; rm -rf "$(dirname "$bin")" "$work"' EXIT
go build -o "$bin" ./cmd/etcdlab
for r in $(seq "$rounds"); do
  for p in $presets; do
    state=$work/$p/cluster.json
    perf_preset_up "$bin" "$p" "$state" "$work/$p.up"
    up=$preset_up
    eps=$(perf_endpoints "$state")
    d=$(dirname "$state")
    tls=(--cacert "$d/ca.crt" --cert "$d/client.crt" --key "$d/client.key")
    # shellcheck disable=SC2086
    "$bin" bench --endpoints "$eps" "${tls[@]}" kube --hollow-kubelets $args -o json >"$out/$p-r$r-emulated.json" 2>"$out/$p-r$r-emulated.log"
    # shellcheck disable=SC2086
    "$bin" bench --endpoints "$eps" "${tls[@]}" kube $args --control-plane real --state-file "$state" -o json >"$out/$p-r$r-real.json" 2>"$out/$p-r$r-real.log"
    kill "$up"; wait "$up" || true
    echo "round $r $p done" >&2
  done
done
python3 perf/kube-real-table.py "$out" $presets | tee "$out/table.md"
