#!/usr/bin/env bash
# Issue 24's bars on the experiments that ask the reports' questions:
# each updated built-in's --quick under 10 minutes, and its answer
# beside the article's. Runs each named experiment's quick profile once,
# timed from start to exit, and prints:
#   leader-vs-all: throughput all against leader in each setup (etcd
#     version and member budget), and 0.4 against 0.2 cores (8 against 4
#     vCPU) on 3.5 in each mode, ours beside the article's changes;
#   storage-sweep: per storage and client count, throughput, the latency
#     mean and the WAL fsync mean (_sum/_count);
#   multicloud: per scenario, put throughput and p50, and the seconds the
#     Kubernetes test took over scenario 0's, ours beside the article's;
#   distance-sweep: each workload's knee.
# Nothing else should run on the machine: the members' budgets hold their
# share only while the machine has it to give.
#
#   [OUT=DIR] perf/budget-experiments.sh [NAMES="leader-vs-all storage-sweep multicloud distance-sweep"]
#
# With OUT, each experiment's result and reports are kept in DIR/NAME.
set -euo pipefail
cd "$(dirname "$0")/.."
names=${1:-"leader-vs-all storage-sweep multicloud distance-sweep"}
work=$(mktemp -d "$PWD/.perf-budget-XXXXXX")
bin=$(mktemp -d)/etcdlab
trap 'rm -rf "$(dirname "$bin")" "$work"' EXIT
go build -o "$bin" ./cmd/etcdlab
for name in $names; do
	out="${OUT:-$work}/$name"
	start=$(date +%s)
	rc=0
	"$bin" experiment run "$name" --quick --quiet --out "$out" --data-dir "$work" >"$work/$name.log" 2>&1 || rc=$?
	wall=$(($(date +%s) - start))
	printf '%s --quick: %d min %02d s (exit %d), at %s\n' "$name" $((wall / 60)) $((wall % 60)) "$rc" "$(git rev-parse --short HEAD)"
	python3 - "$name" "$out/result.json" <<'PY'
import json, sys
name, path = sys.argv[1], sys.argv[2]
e = json.load(open(path))["experiment"]
cells = {c["id"]: c for c in e["cells"]}
def runs(c):
    return [r for r in c.get("runs") or [] if r.get("requests", 0) > 0]
def mean(xs):
    return sum(xs) / len(xs) if xs else 0
def tput(c):
    return mean([r["throughput_rps"] for r in runs(c)])
def lat(c, k):
    return mean([r["latency_seconds"][k] for r in runs(c)])
def fsync_mean(c):
    vals = []
    for r in runs(c):
        for m in (r.get("server") or {}).get("members", []):
            s = m["summary"]
            if s.get("wal_fsyncs") and s.get("wal_fsync_seconds"):
                vals.append(s["wal_fsync_seconds"] / s["wal_fsyncs"])
    return mean(vals)
def pub(match, metric, series=None):
    return [p for p in e.get("published", []) if p["match"] == match and p["metric"] == metric and (series is None or p.get("series") == series)]
def pct(a, b):
    return (b - a) / a * 100 if a else float("nan")
if name == "leader-vs-all":
    # Each setup (etcd version x member budget) that ran both modes: the
    # gain of writing to all members, beside the article's where it has
    # figures (3.5 at 0.2 and 0.4 cores: its 4 and 8 vCPU).
    setups = []
    for c in e["cells"]:
        if c["setup"] not in setups:
            setups.append(c["setup"])
    for st in setups:
        a, b = cells.get(f"{st}/leader"), cells.get(f"{st}/all")
        if not a or not b or not runs(a) or not runs(b):
            continue
        arts = ", ".join(f'{pct(pa["value"], pb["value"]):+.1f}% ({pa["series"]})' for pa in pub({"setup": st, "workload": "leader"}, "throughput_rps")
                         for pb in pub({"setup": st, "workload": "all"}, "throughput_rps", pa["series"]))
        print(f"  {st}: all against leader {tput(a):,.0f} -> {tput(b):,.0f} req/s, {pct(tput(a), tput(b)):+.1f}%; the article {arts or '-'}")
    for mode in ("leader", "all"):
        a, b = cells.get(f"etcd-3.5-0.2/{mode}"), cells.get(f"etcd-3.5-0.4/{mode}")
        if not a or not b or not runs(a) or not runs(b):
            continue
        arts = ", ".join(f'{pct(pa["value"], pb["value"]):+.1f}% ({pa["series"]})' for pa in pub({"setup": "etcd-3.5-0.2", "workload": mode}, "throughput_rps")
                         for pb in pub({"setup": "etcd-3.5-0.4", "workload": mode}, "throughput_rps", pa["series"]))
        print(f"  {mode}: 0.4 against 0.2 cores (8 against 4 vCPU) {tput(a):,.0f} -> {tput(b):,.0f} req/s, {pct(tput(a), tput(b)):+.1f}%; the article {arts}")
elif name == "storage-sweep":
    for c in e["cells"]:
        if runs(c):
            print(f'  {c["id"]}: {tput(c):,.0f} req/s, latency mean {lat(c, "mean")*1000:.1f} ms, WAL fsync mean {fsync_mean(c)*1e6:.0f} µs')
elif name == "multicloud":
    def ttr(c):
        return mean([r["kube"]["time_to_ready_seconds"] for r in c.get("runs") or [] if r.get("kube") and r["kube"].get("time_to_ready_seconds")])
    base = ttr(cells["multicloud-0/kube"])
    for i in range(4):
        s = f"multicloud-{i}"
        art = pub({"setup": s, "workload": "kube"}, "time_to_ready_seconds")
        art0 = pub({"setup": "multicloud-0", "workload": "kube"}, "time_to_ready_seconds")
        added = f'{art[0]["value"] - art0[0]["value"]:+.1f} s' if art and art0 else "-"
        p = cells[f"{s}/put"]
        leaders = {r.get("leader", "") + ("" if not r.get("leader_moved") else " (moved)") for r in runs(p)}
        print(f'  {s}: put {tput(p):,.1f} req/s, p50 {lat(p, "p50")*1000:.1f} ms, leader {",".join(sorted(leaders))}; kube {ttr(cells[s + "/kube"]):.1f} s, {ttr(cells[s + "/kube"]) - base:+.1f} s over scenario 0 (the article {added})')
elif name == "distance-sweep":
    for k in e.get("knees") or []:
        print("  knee:", k["statement"])
PY
done
