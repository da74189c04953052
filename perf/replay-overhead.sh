#!/usr/bin/env bash
# What the replay engine costs per request beside bench put's (issue 34's
# bar: within 10%): one 3-member cluster from `etcdlab cluster up`, then
# ROUNDS pairs, in alternating order, of the same open-loop put load at
# RATE/s for DURATION: `bench put --rate` and `bench replay` of a profile
# holding one put row at RATE/s (values of 256 bytes on a preloaded
# keyspace of 10,000 keys, as put's --key-space-size). Both with 64 clients
# on 4 connections and no server scraping. CPU per request is the etcdlab
# process's own CPU over the run (load_cpu_cores × duration) over the
# requests sent; the script prints each round, the medians per arm and the
# median of the paired ratios replay/put.
#
#   perf/replay-overhead.sh [ROUNDS=5] [DURATION=20s] [RATE=2000]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
duration=${2:-20s}
rate=${3:-2000}
. perf/lib/cluster.sh
perf_cluster_up replay

python3 - "$bin" "$work" "$rounds" "$duration" "$rate" <<'PY'
import json, os, statistics, subprocess, sys

binary, work, rounds, duration, rate = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], float(sys.argv[5])
state = json.load(open(os.path.join(work, ".etcdlab/cluster.json")))
eps = ",".join(state["endpoints"])
profile = os.path.join(work, "put.yaml")
with open(profile, "w") as f:
    f.write(f"""kind: etcdlab-profile
version: 1
source: {{taken: "2026-11-28T00:00:00Z", sources: [hand]}}
operations:
  - {{op: put, prefix: /p/, rate: {rate}, valueBytes: 256}}
keyspace:
  keys: 10000
  prefixes:
    - {{prefix: /p/, keys: 10000, keyBytes: 12, valueBytes: 256}}
totals: {{requestsPerSecond: {rate}}}
""")
common = ["--endpoints", eps, "--conns=4", "--clients=64", "--scrape-interval=0", "--duration", duration, "-o", "json", "--quiet"]
arms = {
    "put": common + ["put", "--key-size=8", "--val-size=256", "--key-space-size=10000", f"--rate={rate}"],
    "replay": common + ["replay", profile],
}

def once(arm):
    out = subprocess.run([binary, "bench"] + arms[arm], capture_output=True, text=True, cwd=work)
    if out.returncode != 0:
        sys.exit(f"{arm}: exit {out.returncode}: {out.stderr.strip()}")
    run = json.loads(out.stdout)["runs"][-1]
    reqs = run["requests"]
    cpu = run.get("load_cpu_cores", 0) * run["duration_seconds"]
    return reqs / run["duration_seconds"], 1e6 * cpu / reqs

per = {"put": [], "replay": []}
ratios = []
for r in range(rounds):
    order = ["put", "replay"] if r % 2 == 0 else ["replay", "put"]
    got = {}
    for arm in order:
        rps, us = once(arm)
        got[arm] = us
        per[arm].append(us)
        print(f"round {r+1} {arm:6s} {rps:8.1f} req/s  {us:6.1f} µs CPU/request", flush=True)
    ratios.append(got["replay"] / got["put"])
for arm in ("put", "replay"):
    print(f"median {arm:6s} {statistics.median(per[arm]):6.1f} µs CPU/request")
print(f"median paired ratio replay/put: {statistics.median(ratios):.3f} (bar: at most 1.10)")
PY
