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

# perf_preset_up BIN PRESET STATE LOG: starts `BIN cluster up --topology
# PRESET --tls --leader m2` in the background, writing its state to STATE
# and its output to LOG, sets $preset_up to its PID and waits up to 60 s
# for the state file (exits with LOG shown if it never comes). The caller
# stops it: kill "$preset_up"; wait "$preset_up".
perf_preset_up() {
  "$1" cluster up --topology "$2" --tls --leader m2 --state-file "$3" >"$4" 2>&1 &
  preset_up=$!
  for _ in $(seq 120); do [ -s "$3" ] && return 0; sleep 0.5; done
  cat "$4"
  exit 1
}

# perf_endpoints STATE prints the client URLs of the cluster whose state
# file is STATE, comma-separated.
perf_endpoints() {
  python3 -c 'import json,sys; print(",".join(json.load(open(sys.argv[1]))["endpoints"]))' "$1"
}
