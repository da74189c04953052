#!/usr/bin/env bash
# What bench's server-side series costs (issue 14 bar: the 1 s scraper costs
# at most 2% of this machine's CPU with 3 members): one 3-member cluster
# from `etcdlab cluster up`, then ROUNDS pairs of the same fixed open-loop
# bench against it, one with --scrape-interval=1s and one with 0, in
# alternating order. For each bench it counts the CPU time of the etcdlab
# bench process (its rusage) and of the three members (utime + stime in
# /proc/PID/stat, before and after), and prints each round, the medians
# per arm, and the median of the paired differences (on - off) as a share
# of this machine's CPU over the measured duration. Before the rounds, it
# measures the members' CPU per /metrics request directly (the rounds'
# member figures carry the load's noise), in protobuf and in text.
#
#   perf/scraper-cost.sh [ROUNDS=5] [DURATION=20s] [RATE=500]
#
# The load: bench --endpoints=<the three> --metrics-urls=<theirs> --conns=10
# --clients=50 --duration=DURATION put --val-size=256 --rate=RATE.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
duration=${2:-20s}
rate=${3:-500}
. perf/lib/cluster.sh
perf_cluster_up scrape

python3 - "$bin" "$work" "$rounds" "$duration" "$rate" <<'EOF'
import json, os, statistics, subprocess, sys

binary, work, rounds, duration, rate = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
state = json.load(open(os.path.join(work, ".etcdlab/cluster.json")))
pids = [m["pid"] for m in state["members"]]
tick = os.sysconf("SC_CLK_TCK")
cpus = os.cpu_count()
secs = float(duration.rstrip("s"))

def members_cpu():
    total = 0.0
    for pid in pids:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return total

def bench(interval):
    args = [binary, "bench", "--quiet", "-o", "json", "--endpoints=" + ",".join(state["endpoints"]),
            "--metrics-urls=" + ",".join(state["metrics_urls"]), "--scrape-interval=" + interval,
            "--conns=10", "--clients=50", "--duration=" + duration, "put", "--val-size=256", "--rate=" + rate]
    before = members_cpu()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=work)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    members = members_cpu() - before
    if status != 0:
        sys.exit(f"bench --scrape-interval={interval} exited with {status}")
    doc = json.loads(out)
    run = doc["runs"][0]
    scraped = run.get("server") is not None
    if scraped != (interval != "0"):
        sys.exit(f"--scrape-interval={interval}: server series present: {scraped}")
    return ru.ru_utime + ru.ru_stime, members, run["throughput_rps"]

# The members' side alone, which the rounds below see through the noise of
# the load's own CPU: member CPU per /metrics request on a kept-alive
# connection without gzip, in the delimited protobuf format the scraper
# asks for and, for comparison, in text. 8 repetitions, each 50 requests
# to each member in either format (in turns, the order alternating) and
# an idle pause as long as the requests took; per repetition the idle rate
# is subtracted; medians.
import http.client, time, urllib.parse
PROTO = "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3"
def scrape_cost(reps=8, n=50):
    conns = []
    for u in state["metrics_urls"]:
        p = urllib.parse.urlparse(u)
        conns.append(http.client.HTTPConnection(p.hostname, p.port, timeout=5))
    per = {"protobuf": [], "text": []}
    for r in range(reps):
        took = {}
        for name in (["protobuf", "text"] if r % 2 == 0 else ["text", "protobuf"]):
            headers = {"Accept": PROTO} if name == "protobuf" else {}
            before, t0 = members_cpu(), time.monotonic()
            for _ in range(n):
                for c in conns:
                    c.request("GET", "/metrics", headers=headers)
                    c.getresponse().read()
            took[name] = (members_cpu() - before, time.monotonic() - t0)
        wall = max(w for _, w in took.values())
        before = members_cpu()
        time.sleep(wall)
        idle_rate = (members_cpu() - before) / wall
        for name, (busy, w) in took.items():
            per[name].append((busy - idle_rate * w) / (n * len(conns)))
    return {k: statistics.median(v) for k, v in per.items()}
for name, per in scrape_cost().items():
    print(f"member CPU per /metrics request, {name}: {per*1000:.2f} ms (median of 8 x 150 requests, idle subtracted); "
          f"at 1 s for 3 members: {3*per:.4f} cores = {3*per/cpus*100:.2f}% of {cpus} CPUs")

arms = {"1s": [], "0": []}
load = lambda: open("/proc/loadavg").read().split()[0]
print(f"{cpus} CPUs; 3 members; bench put --rate={rate} --duration={duration}, --conns=10 --clients=50; load average {load()}")
for r in range(rounds):
    order = ["1s", "0"] if r % 2 == 0 else ["0", "1s"]
    line = []
    for interval in order:
        etcdlab, members, rps = bench(interval)
        arms[interval].append((etcdlab, members))
        line.append(f"scrape {interval:>2}: etcdlab {etcdlab:6.2f} s, members {members:6.2f} s, {rps:6.1f} req/s")
    print(f"round {r+1}: " + " | ".join(line))

med = lambda xs: statistics.median(xs)
for interval in ["0", "1s"]:
    e = [x[0] for x in arms[interval]]; m = [x[1] for x in arms[interval]]
    print(f"median, scrape {interval:>2}: etcdlab {med(e):.2f} CPU-s, members {med(m):.2f} CPU-s, total {med([a+b for a, b in arms[interval]]):.2f} CPU-s")
de = [a[0] - b[0] for a, b in zip(arms["1s"], arms["0"])]
dm = [a[1] - b[1] for a, b in zip(arms["1s"], arms["0"])]
dt = [x + y for x, y in zip(de, dm)]
share = med(dt) / (secs * cpus) * 100
print(f"paired difference (1s - 0), median of {rounds}: etcdlab {med(de):+.3f} CPU-s, members {med(dm):+.3f} CPU-s, "
      f"total {med(dt):+.3f} CPU-s over {secs:g} s = {med(dt)/secs:+.4f} cores = {share:+.2f}% of {cpus} CPUs (bar: at most 2%)")
print(f"paired differences, total CPU-s: {', '.join(f'{x:+.2f}' for x in dt)}; load average at the end {load()}")
EOF
