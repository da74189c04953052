#!/usr/bin/env bash
# Issue 26: what building a real Kubernetes control plane costs the first
# time (lab/kubebuild: a scratch module requiring k8s.io/kubernetes at the
# release, its staging modules pinned at v0.MINOR.PATCH from its go.mod,
# `go mod tidy`, one `go build` per component). Builds into a fresh cache
# (ETCDLAB_CACHE_DIR) with an empty Go build cache (GOCACHE), so every
# package is compiled; the Go module cache is this machine's (downloads
# are not timed) unless COLD=1 gives it an empty one too. Prints each
# binary's build seconds and size (lab/kubebuild's build.json), then the
# cost of finding the cached binaries again.
#
#   [COLD=1] perf/kube-build.sh [VERSION=1.34.2] [KUBEMARK=true]
#
# Measured on this 2-core machine, idle, warm module cache, 1.34.2
# (docs/kube.md, "A real control plane"): kube-apiserver 440 s (98 MiB;
# first, it compiles most of what the others share),
# kube-controller-manager 117 s (89 MiB), kube-scheduler 11 s (69 MiB),
# kubemark 51 s (78 MiB); 627 s in all; 8 ms to find them again.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:-1.34.2}
kubemark=${2:-true}
work=$(mktemp -d /tmp/etcdlab-perf-kubebuild.XXXXXX)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
go build -o "$work/kubebuild" ./perf/kubebuild
envs=(ETCDLAB_CACHE_DIR="$work/cache" GOCACHE="$work/gocache")
if [ "${COLD:-0}" = 1 ]; then
	envs+=(GOMODCACHE="$work/gomod" GOFLAGS=-modcacherw)
fi
load=$(cut -d" " -f1-3 /proc/loadavg)
t0=$(date +%s)
env "${envs[@]}" "$work/kubebuild" -version "$version" -kubemark="$kubemark"
t1=$(date +%s)
echo "total: $((t1 - t0)) s (nproc $(nproc), load before: $load)"
t0=$(date +%s%N)
env ETCDLAB_CACHE_DIR="$work/cache" PATH=/usr/bin:/bin "$work/kubebuild" -version "$version" -kubemark="$kubemark" >/dev/null
t1=$(date +%s%N)
echo "cached: $(( (t1 - t0) / 1000000 )) ms (no Go in PATH)"
