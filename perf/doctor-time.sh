#!/usr/bin/env bash
# How long `etcdlab doctor` takes with its defaults (issue 16 bar: a
# diagnosis within 15 s with the default window against a 3-member
# cluster). One cluster from `etcdlab cluster up`, then ROUNDS runs of
# doctor against it, each timed from start to exit; prints each and the
# median, and the window it used. Then the same with --keyspace (the
# census of a cluster holding the few keys of a fresh one).
#
#   perf/doctor-time.sh [ROUNDS=5]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
. perf/lib/cluster.sh
perf_cluster_up doctor
python3 - "$bin" "$work" "$rounds" <<'PY'
import json, os, statistics, subprocess, sys, time
binary, work, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
eps = ",".join(json.load(open(os.path.join(work, ".etcdlab/cluster.json")))["endpoints"])
for label, extra in (("defaults", []), ("--keyspace", ["--keyspace"])):
    walls = []
    for i in range(rounds):
        t0 = time.time()
        p = subprocess.run([binary, "doctor", "--endpoints=" + eps, "-o", "json", *extra], capture_output=True, text=True)
        wall = time.time() - t0
        if p.returncode not in (0, 3):
            sys.exit(p.stderr)
        doc = json.loads(p.stdout)
        walls.append(wall)
        print(f"{label} round {i+1}: {wall:.2f} s (window {doc['doctor']['window_seconds']:.0f} s, overall {doc['overall']}, "
              f"{len(doc['doctor']['findings'] or [])} findings)", flush=True)
    print(f"{label}: median {statistics.median(walls):.2f} s, max {max(walls):.2f} s (bar 15 s)")
PY
