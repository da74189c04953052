#!/usr/bin/env bash
# Issue 25: how long `--etcd VERSION` takes the first time (lab/etcdbuild:
# a scratch module, go get go.etcd.io/etcd/server/v3@VERSION, go build),
# and how big the cached binary is. Each version is built into a fresh
# cache (ETCDLAB_CACHE_DIR) twice per round, interleaved:
#   warm: with this machine's Go module and build caches (a second version,
#         or a machine that built etcdlab);
#   cold: with empty module and build caches of its own (GOMODCACHE,
#         GOCACHE): every module downloaded from the proxy, everything
#         compiled (a fresh machine).
# then looks a cached version up again (the cost of every later run).
# Prints each build's seconds and the medians.
#
#   [COLD=0] perf/etcd-build.sh [VERSIONS="3.5.35 3.7.3"] [ROUNDS=2]
#
# COLD=0 skips the cold builds (minutes each).
set -euo pipefail
cd "$(dirname "$0")/.."
versions=${1:-"3.5.35 3.7.3"}
rounds=${2:-2}
work=$(mktemp -d /tmp/etcdlab-perf-build.XXXXXX)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
bin=$work/etcdlab
go build -o "$bin" ./cmd/etcdlab
# One build through the product's path: `cluster up --etcd V` builds, then
# starts a 1-member cluster; the build's own line gives its seconds.
build() { # NAME VERSION [ENV...]
	local name=$1 v=$2
	shift 2
	local cache
	cache=$(mktemp -d "$work/cache.XXXXXX")
	local dir
	dir=$(mktemp -d "$work/run.XXXXXX")
	(cd "$dir" && env ETCDLAB_CACHE_DIR="$cache" "$@" timeout 900 "$bin" cluster up --members 1 --etcd "$v" >"$dir/log" 2>&1 &
		echo $! >"$dir/pid")
	local s=""
	for _ in $(seq 1 900); do
		s=$(grep -o 'built etcd [^ ]* in [0-9]* s ([0-9]* MB)' "$dir/log" 2>/dev/null || true)
		[ -n "$s" ] && break
		if grep -q "etcdlab:" "$dir/log" 2>/dev/null; then cat "$dir/log" >&2; break; fi
		sleep 1
	done
	for _ in $(seq 1 120); do grep -q "ready in" "$dir/log" 2>/dev/null && break; sleep 0.5; done
	(cd "$dir" && "$bin" cluster down >/dev/null 2>&1 || true)
	wait_down "$dir"
	echo "$name $v: $s"
	# the cached binary, found again without a toolchain
	local t0 t1
	t0=$(date +%s%N)
	(cd "$dir" && env ETCDLAB_CACHE_DIR="$cache" PATH=/usr/bin:/bin timeout 60 "$bin" cluster up --members 1 --etcd "$v" >"$dir/log2" 2>&1 &)
	for _ in $(seq 1 60); do grep -q "ready in" "$dir/log2" 2>/dev/null && break; sleep 0.2; done
	t1=$(date +%s%N)
	(cd "$dir" && "$bin" cluster down >/dev/null 2>&1 || true)
	wait_down "$dir"
	echo "$name $v cached: $(grep -o 'ready in [0-9.]*s' "$dir/log2" || echo 'not ready:' "$(tail -1 "$dir/log2")"), $(( (t1 - t0) / 1000000 )) ms after the command (no Go in PATH)"
}
# wait_down waits until the cluster of run dir DIR is gone (its state file).
wait_down() {
	for _ in $(seq 1 60); do [ -e "$1/.etcdlab/cluster.json" ] || return 0; sleep 0.5; done
}
for r in $(seq 1 "$rounds"); do
	for v in $versions; do
		build warm "$v"
		[ "${COLD:-1}" = 0 ] && continue
		mc=$(mktemp -d "$work/gomod.XXXXXX")
		gc=$(mktemp -d "$work/gocache.XXXXXX")
		build cold "$v" GOMODCACHE="$mc" GOCACHE="$gc" GOFLAGS=-modcacherw
		chmod -R u+w "$mc"; rm -rf "$mc" "$gc"
	done
done
