# Sourced by the perf scripts that measure against one `etcdlab cluster
# up` (run from the checkout's root): perf_cluster_up NAME builds etcdlab,
# starts a 3-member cluster in a scratch directory .perf-NAME-* under the
# checkout (the disk under test) and waits for its state file; on exit the
# cluster is stopped and both scratch directories are removed. It sets
# $work (the cluster's directory) and $bin (the etcdlab binary).

perf_cluster_up() {
  work=$(mktemp -d "$PWD/.perf-$1-XXXXXX")
  bin=$(mktemp -d)/etcdlab
  up=
  trap perf_cluster_cleanup EXIT
  go build -o "$bin" ./cmd/etcdlab
  (cd "$work" && exec "$bin" cluster up --members 3 >up.out 2>up.err) &
  up=$!
  until [ -s "$work/.etcdlab/cluster.json" ]; do
    kill -0 "$up" 2>/dev/null || { cat "$work/up.err"; exit 1; }
    sleep 0.05
  done
}

perf_cluster_cleanup() {
  if [ -n "$up" ]; then kill "$up" 2>/dev/null || true; wait "$up" 2>/dev/null || true; fi
  rm -rf "$(dirname "$bin")" "$work"
}
