#!/usr/bin/env bash
# Issue 17 bar: the throughput and p50/p99 of 4 agents at rate R/4 each
# (bench --agents 4, merged) match one process at rate R, within the
# run-to-run spread. One cluster from `etcdlab cluster up`; ROUNDS rounds,
# each running both in alternating order (interleaved); each run is open
# loop at RATE writes/s for DURATION with CLIENTS clients over 4
# connections in total. Prints every run, then per mode the median and
# range of throughput, p50 and p99, and the ratio of medians
# (agents / one process) beside the one-process spread (max/min).
#
#   perf/agents.sh [ROUNDS=5] [RATE=2000] [DURATION=20s] [CLIENTS=40]
#
# AGENT_GOMAXPROCS=N sets the agents' GOMAXPROCS (the one process keeps
# the default).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5} rate=${2:-2000} duration=${3:-20s} clients=${4:-40}
. perf/lib/cluster.sh
perf_cluster_up agents
python3 - "$bin" "$work" "$rounds" "$rate" "$duration" "$clients" <<'PY'
import json, os, statistics, subprocess, sys
binary, work, rounds, rate, duration, clients = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
eps = ",".join(json.load(open(os.path.join(work, ".etcdlab/cluster.json")))["endpoints"])
base = [binary, "bench", "--endpoints=" + eps, "--conns=4", "--clients=" + clients, "--quiet", "-o", "json"]
modes = {"one process": [], "4 agents": ["--agents=4"]}
env4 = dict(os.environ, **({"GOMAXPROCS": os.environ["AGENT_GOMAXPROCS"]} if os.environ.get("AGENT_GOMAXPROCS") else {}))
got = {m: [] for m in modes}
for i in range(rounds):
    order = list(modes) if i % 2 == 0 else list(reversed(modes))
    for m in order:
        p = subprocess.run(base + modes[m] + ["put", "--rate=" + rate, "--duration=" + duration], capture_output=True, text=True, env=env4 if m == "4 agents" else None)
        if p.returncode != 0:
            sys.exit(m + ": " + p.stderr[-2000:])
        r = json.loads(p.stdout)["runs"][0]
        row = (r["throughput_rps"], r["latency_seconds"]["p50"] * 1e3, r["latency_seconds"]["p99"] * 1e3)
        got[m].append(row)
        print(f"round {i+1} {m:12s}: {row[0]:8.1f} req/s  p50 {row[1]:7.3f} ms  p99 {row[2]:7.3f} ms  errors {sum(r['errors'].values())}", flush=True)
for k, name in enumerate(("throughput", "p50", "p99")):
    one = [r[k] for r in got["one process"]]
    ag = [r[k] for r in got["4 agents"]]
    print(f"{name:10s}: one process median {statistics.median(one):9.3f} (range {min(one):.3f}..{max(one):.3f}, spread {max(one)/min(one):.3f}x); "
          f"4 agents median {statistics.median(ag):9.3f} (range {min(ag):.3f}..{max(ag):.3f}); ratio of medians {statistics.median(ag)/statistics.median(one):.3f}")
PY
