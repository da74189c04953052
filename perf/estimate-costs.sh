#!/usr/bin/env bash
# Measures the fixed costs the experiment estimator adds to a cell's work
# (measure/experiment/job/costs.go holds them, each with the figure this
# script printed): a 3-member cluster's start to healthy and its teardown,
# on this disk, in memory (tmpfs), behind a slow disk (FUSE), behind an
# emulated WAN (network namespace, delay lines), with TLS, with member CPU
# budgets (cgroups), with the leader handed over at start, with a cached
# etcd build (3.5); then, against a running cluster, what a bench run adds
# over its requests: an iteration, and a run whose load is in a child agent
# (--agents=1, as a load budget runs it). Prints each round and the medians.
#
#   perf/estimate-costs.sh [ROUNDS=3] [PART=all|clusters|bench]
#
# Needs root (FUSE, network namespace, cgroups). One variant at a time;
# run it on a quiet machine: on a shared one the figures include the
# other work's delays.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
part=${2:-all}
work=$(mktemp -d "$PWD/.perf-costs-XXXXXX")
shm=$(mktemp -d /dev/shm/etcdlab-costs-XXXXXX)
bin=$(mktemp -d)/etcdlab
trap 'rm -rf "$(dirname "$bin")" "$work" "$shm"' EXIT
go build -o "$bin" ./cmd/etcdlab

now() { date +%s.%N; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# up NAME ARGS...: start `cluster up ARGS` ROUNDS times, timing process
# start to the state file (written once every member is healthy and they
# agree on a leader) and `cluster down` to exit.
up() {
  local name=$1; shift
  local ups=() downs=()
  for r in $(seq 1 "$rounds"); do
    rm -rf "$work/.etcdlab"
    (cd "$work" && exec "$bin" cluster up "$@" >up.out 2>up.err) &
    local pid=$! t0 t1 t2 t3
    t0=$(now)
    until [ -s "$work/.etcdlab/cluster.json" ]; do
      kill -0 "$pid" 2>/dev/null || { echo "$name: cluster up failed:"; tail -3 "$work/up.err"; return 0; }
      sleep 0.02
    done
    t1=$(now)
    t2=$(now)
    (cd "$work" && "$bin" cluster down >/dev/null 2>&1)
    wait "$pid" || true
    t3=$(now)
    ups+=("$(echo "$t1 - $t0" | bc)"); downs+=("$(echo "$t3 - $t2" | bc)")
  done
  printf '%-28s start %5.2f s  teardown %5.2f s  (median of %d; starts: %s)\n' "$name" "$(median "${ups[@]}")" "$(median "${downs[@]}")" "$rounds" "${ups[*]}"
}

if [ "$part" != bench ]; then
echo "cluster start and teardown, 3 members"
up "this disk"
up "tmpfs" --data-dir "$shm/d"
up "slow disk (fsync +1ms)" --fsync-delay 1ms
up "emulated WAN (rtt 20ms)" --rtt 20ms
up "TLS" --tls
up "member budgets (0.2 cores)" --member-cpus 0.2
up "leader handed to m2" --leader m2
up "etcd 3.5.35 (cached build)" --etcd 3.5.35
up "hdd preset" --topology hdd
fi
[ "$part" = clusters ] && exit 0

echo
echo "a bench run's fixed costs: a local cluster's bench with 1 request, its load in process or in a child agent in a load budget (--load-cpus: cgroup and agent), and each further iteration"
timed() { local t0 t1; t0=$(now); (cd "$work" && "$@" >/dev/null 2>&1) || echo "failed: $*" >&2; t1=$(now); echo "$t1 - $t0" | bc; }
one=(); six=(); agent=()
for r in $(seq 1 "$rounds"); do
  one+=("$(timed "$bin" bench --clients 1 --conns 1 put --total 1)")
  agent+=("$(timed "$bin" bench --clients 1 --conns 1 --load-cpus 0.8 put --total 1)")
  six+=("$(timed "$bin" bench --clients 1 --conns 1 --iterations 6 put --total 1)")
done
m1=$(median "${one[@]}"); m6=$(median "${six[@]}"); ma=$(median "${agent[@]}")
printf 'bench with its own cluster, 1 request:  %5.2f s (process start to exit; runs: %s)\n' "$m1" "${one[*]}"
printf 'the load in a child agent in a budget:  %+5.2f s (runs: %s)\n' "$(echo "$ma - $m1" | bc -l)" "${agent[*]}"
printf 'each further iteration:                 %5.2f s ((6 iterations - 1) / 5)\n' "$(echo "($m6 - $m1) / 5" | bc -l)"
