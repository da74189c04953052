#!/usr/bin/env bash
# Fidelity and results of the topology lab (issue 7). Needs root (network
# namespaces, FUSE). Sections, all by default, or the ones named:
#
#   oneway      go run ./perf/wanfidelity: one-way delay through the link
#               proxy vs the direct path, 1..200 ms; probes through a real
#               emulated cluster (set METRIC_WINDOW=2m to also compare etcd's
#               peer RTT metric after METRIC_WARMUP, default 3m)
#   putmodel    --rtt 40ms --fsync-delay 20ms: put p50 (--target-leader,
#               1 conn, 1 client) vs the model max(fsync, RTT + fsync) = 60 ms,
#               with the delay on every fsync and on the WAL only, ROUNDS times
#   throughput  zero delay: emulated (--rtt 0ms) vs direct cluster, 1000
#               clients on 100 conns, interleaved, ROUNDS rounds
#   multicloud  the multi-cloud article's benchmark command on the presets
#               multicloud-0..3 (TLS, as the article), TOTAL requests each
#   partition   an open-loop bench (200 puts/s) while the leader is
#               partitioned away and healed: election time, cluster and client-observed unavailability
#
#   perf/topology.sh [SECTION...]      env: ROUNDS=3 TOTAL=2000
set -euo pipefail
cd "$(dirname "$0")/.."
sections=("$@")
[ ${#sections[@]} -eq 0 ] && sections=(oneway putmodel throughput multicloud partition)
rounds=${ROUNDS:-3}
total=${TOTAL:-2000}
work=$(mktemp -d "$PWD/.perf-topo-XXXXXX")
bin=$work/etcdlab
trap 'kill "${up:-0}" 2>/dev/null; wait "${up:-0}" 2>/dev/null; rm -rf "$work"' EXIT
go build -o "$bin" ./cmd/etcdlab

# up ARGS...: start `cluster up` in $work and wait for its state file.
up() {
  rm -f "$work/.etcdlab/cluster.json"
  (cd "$work" && exec "$bin" cluster up "$@" >"$work/up.out" 2>"$work/up.err") &
  up=$!
  until [ -s "$work/.etcdlab/cluster.json" ]; do kill -0 "$up" 2>/dev/null || { cat "$work/up.err"; exit 1; }; sleep 0.1; done
  EP=$(python3 -c 'import json,sys;print(",".join(json.load(open(sys.argv[1]))["endpoints"]))' "$work/.etcdlab/cluster.json")
}
down() { kill -INT "$up"; wait "$up" || true; }
# field JSONFILE EXPR: a value from a bench result (d = the first run's stats)
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["runs"][0]; print(eval(sys.argv[2]))' "$1" "$2"; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
tls=(--cacert "$work/.etcdlab/ca.crt" --cert "$work/.etcdlab/client.crt" --key "$work/.etcdlab/client.key")

for s in "${sections[@]}"; do
  case $s in
  oneway)
    echo "== one-way delay"
    go run ./perf/wanfidelity -etcdlab "$bin" -metric-window "${METRIC_WINDOW:-0}" -metric-warmup "${METRIC_WARMUP:-3m}"
    ;;
  putmodel)
    echo "== put p50 with --rtt 40ms --fsync-delay 20ms vs the 60 ms model"
    # all: every fsync of the data dir (on this repo's disk) is delayed;
    # wal-only: only the WAL's (the model's) syncs; tmpfs: every fsync, the
    # backing data on /dev/shm so an emulated sync is the delay alone, not
    # the delay plus this machine's disk.
    for mode in all wal-only tmpfs; do
      extra=()
      [ "$mode" = wal-only ] && extra=(--fsync-delay-wal-only)
      [ "$mode" = tmpfs ] && extra=(--data-dir "/dev/shm/etcdlab-putmodel-$$")
      p50s=()
      for r in $(seq 1 "$rounds"); do
        up --rtt 40ms --fsync-delay 20ms "${extra[@]}"
        "$bin" bench --endpoints="$EP" --target-leader --conns=1 --clients=1 put --total=300 -o json >"$work/b.json" 2>/dev/null
        p50s+=("$(field "$work/b.json" 'd["latency_seconds"]["p50"]')")
        down
      done
      m=$(median "${p50s[@]}")
      printf 'fsync delay on %-8s p50s %s ms  median %.1f ms  vs model 60 ms: %+.1f%%\n' "$mode" \
        "$(printf '%.1f ' $(for p in "${p50s[@]}"; do echo "$p*1000" | bc -l; done))" "$(echo "$m*1000" | bc -l)" "$(echo "($m/0.060-1)*100" | bc -l)"
    done
    ;;
  throughput)
    echo "== throughput at zero delay, 1000 clients on 100 conns: emulated (--rtt 0ms) vs direct"
    d=(); e=()
    for r in $(seq 1 "$rounds"); do
      if (( r % 2 )); then order="direct emulated"; else order="emulated direct"; fi
      for mode in $order; do
        if [ "$mode" = emulated ]; then up --rtt 0ms; else up; fi
        "$bin" bench --endpoints="$EP" --conns=100 --clients=1000 put --total=50000 --key-size=8 --val-size=256 -o json >"$work/b.json" 2>/dev/null
        t=$(field "$work/b.json" 'd["throughput_rps"]')
        down
        if [ "$mode" = emulated ]; then e+=("$t"); else d+=("$t"); fi
        printf 'round %d %-8s %8.0f req/s\n' "$r" "$mode" "$t"
      done
    done
    printf 'median emulated/direct: %.0f / %.0f req/s = %.3f\n' "$(median "${e[@]}")" "$(median "${d[@]}")" "$(echo "$(median "${e[@]}")/$(median "${d[@]}")" | bc -l)"
    ;;
  multicloud)
    echo "== the multi-cloud article's benchmark on its four scenarios ($total requests each, TLS)"
    for n in 0 1 2 3; do
      up --topology "multicloud-$n" --tls
      "$bin" bench --endpoints="$EP" --target-leader --conns=1 --clients=1 put --key-size=8 --sequential-keys \
        --total="$total" --val-size=256 "${tls[@]}" -o json >"$work/b.json" 2>/dev/null
      leader=$("$bin" cluster status -o json --probe=false --state-file "$work/.etcdlab/cluster.json" | python3 -c 'import json,sys; print([m["name"] for m in json.load(sys.stdin)["members"] if m["role"]=="leader"][0])')
      printf 'multicloud-%d  leader %s  %8.1f req/s  p50 %6.1f ms  p99 %6.1f ms\n' "$n" "$leader" \
        "$(field "$work/b.json" 'd["throughput_rps"]')" "$(field "$work/b.json" 'd["latency_seconds"]["p50"]*1000')" "$(field "$work/b.json" 'd["latency_seconds"]["p99"]*1000')"
      down
    done
    ;;
  partition)
    echo "== partition the leader away under load (--rtt 10ms, election timeout 1000 ms)"
    up --rtt 10ms
    "$bin" bench --endpoints="$EP" --conns=1 --clients=50 --request-timeout=2s put --rate=200 --total=4000 -o json >"$work/b.json" 2>/dev/null &
    b=$!
    sleep 6
    leader=$("$bin" cluster status -o json --probe=false --state-file "$work/.etcdlab/cluster.json" | python3 -c 'import json,sys; print([m["name"] for m in json.load(sys.stdin)["members"] if m["role"]=="leader"][0])')
    (cd "$work" && "$bin" cluster fault partition "$leader" --wait-leader 15s)
    sleep 5
    (cd "$work" && "$bin" cluster fault heal "$leader")
    wait "$b" || true
    python3 - "$work/b.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["runs"][0]
print("bench: %d ok, errors %s" % (s["requests"], s["errors"]))
for label, key in (("cluster unavailable", "cluster_unavailability"), ("client-observed unavailable", "client_unavailability")):
    u = s.get(key)
    if u:
        print("%s: longest %.2f s, %d window(s), %.2f s in all" % (label, u["longest_seconds"], len(u["windows"]), u["total_seconds"]))
    else:
        print("%s: never" % label)
PY
    down
    ;;
  *) echo "unknown section $s" >&2; exit 2 ;;
  esac
done
