#!/usr/bin/env bash
# What the Kubernetes-shaped workload's emulator costs (issue 15 bars: the
# emulator's own CPU at most 25% of the cluster members' CPU during the
# default workload; --nodes 5000 steady state, 500 lease renewals a second
# plus status updates, sustained by one process).
#
# One 3-member cluster from `etcdlab cluster up`, then ROUNDS rounds of
# `bench kube` against it, each round one run with its defaults (--cpus 1)
# and one with --cpus=0 (every core), interleaved; each run measured side
# by side:
# the etcdlab bench process's CPU (its rusage: the whole emulator, its
# scraping included) and the three members' (utime + stime from
# /proc/PID/stat, before and after). Prints each round and the median
# ratio. Then one steady run of STEADY_NODES nodes for STEADY seconds:
# lease renewals per second achieved against nodes/10, and the CPU of
# both sides.
#
#   perf/kube-cost.sh [ROUNDS=3] [STEADY_NODES=5000] [STEADY=60s]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
nodes=${2:-5000}
steady=${3:-60s}
. perf/lib/cluster.sh
perf_cluster_up kube

python3 - "$bin" "$work" "$rounds" "$nodes" "$steady" <<'EOF'
import json, os, resource, statistics, subprocess, sys, time

binary, work, rounds, nodes, steady = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
state = json.load(open(os.path.join(work, ".etcdlab/cluster.json")))
pids = [m["pid"] for m in state["members"]]
tick = os.sysconf("SC_CLK_TCK")
eps = ",".join(state["endpoints"])

def members_cpu():
    total = 0.0
    for pid in pids:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / tick
    return total

def bench(*args):
    before, ru0, t0 = members_cpu(), resource.getrusage(resource.RUSAGE_CHILDREN), time.time()
    glob = [a for a in args if a.startswith("--cpus")]
    sub = [a for a in args if not a.startswith("--cpus")]
    out = subprocess.run([binary, "bench", "--quiet", "-o", "json", "--endpoints=" + eps, *glob, "kube", *sub],
                         check=True, capture_output=True, text=True, cwd=work).stdout
    ru1, t1 = resource.getrusage(resource.RUSAGE_CHILDREN), time.time()
    emu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    return json.loads(out), emu, members_cpu() - before, t1 - t0

ratios = {"defaults": [], "--cpus=0": []}
for i in range(rounds):
    for name, args in (("defaults", []), ("--cpus=0", ["--cpus=0"])):
        doc, emu, mem, wall = bench(*args)
        k = doc["runs"][0]["kube"]
        ratios[name].append(emu / mem)
        print(f"round {i+1} {name}: {k['pods_ready']}/{k['pods']} pods Ready in {k['time_to_ready_seconds']:.1f} s; "
              f"emulator {emu:.2f} CPU-s, members {mem:.2f} CPU-s over {wall:.1f} s: ratio {emu/mem:.3f}", flush=True)
for name, v in ratios.items():
    print(f"default workload, {name}: median emulator/members CPU {statistics.median(v):.3f} (bar 0.25), "
          f"range {min(v):.3f}-{max(v):.3f}")

doc, emu, mem, wall = bench(f"--nodes={nodes}", "--steady", f"--duration={steady}")
run = doc["runs"][0]
secs = run["duration_seconds"]
ops = {o["name"]: o for o in run.get("ops", [])}
renew = sum(o["requests"] for n, o in ops.items() if n.startswith("update leases") or n.startswith("patch leases"))
status = sum(o["requests"] for n, o in ops.items() if "nodes/status" in n)
errors = sum(sum(o.get("errors", {}).values()) for o in ops.values())
# Renewals begin as each node registers (setup) and stop at teardown: the
# per-second series of the renewals gives the rate once every node runs.
series = [p["requests"] for n, o in ops.items() if n.startswith("update leases") for p in o.get("time_series", [])]
steady_s = int(steady.rstrip("s"))
window = sorted(series)[len(series) // 2] if series else 0
if len(series) >= steady_s:
    tail = series[-steady_s:]
    window = statistics.median(tail)
print(f"steady: median {window:.0f} lease renewals/s over the last {steady_s} s of the series (want {nodes/10:.0f})")
print(f"steady {nodes} nodes, {secs:.0f} s run (setup and teardown included): {renew/secs:.0f} lease renewals/s on average (want {nodes/10:.0f} once all run), "
      f"{status/secs:.0f} node status updates/s, {errors} errors; emulator {emu/wall:.2f} cores, members {mem/wall:.2f} cores over {wall:.0f} s wall")
EOF
