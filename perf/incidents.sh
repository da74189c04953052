#!/usr/bin/env bash
# The doctor's incident catalogue (issue 23 bars: `experiment run
# incidents --quick` under 10 minutes; every incident diagnosed right;
# each diagnosis within 15 s). Runs the catalogue ROUNDS times, each timed
# from start to exit, and prints per round the wall time, how many
# incidents were right (and which were not, with why), and the slowest
# diagnosis; then the medians.
#
#   perf/incidents.sh [ROUNDS=3]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
work=$(mktemp -d "$PWD/.perf-incidents-XXXXXX")
bin=$(mktemp -d)/etcdlab
trap 'rm -rf "$(dirname "$bin")" "$work"' EXIT
go build -o "$bin" ./cmd/etcdlab
python3 - "$bin" "$work" "$rounds" <<'PY'
import json, os, re, statistics, subprocess, sys, time
binary, work, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
walls, rights, slowest = [], [], []
for i in range(rounds):
    out = os.path.join(work, f"r{i}")
    t0 = time.time()
    p = subprocess.run([binary, "experiment", "run", "incidents", "--quick", "--out", out, "--data-dir", work],
                       capture_output=True, text=True)
    wall = time.time() - t0
    doc = json.load(open(os.path.join(out, "result.json")))
    cells = doc["experiment"]["cells"]
    right = [c for c in cells if (c.get("incident") or {}).get("outcome") == "right"]
    wrong = [f'{c["workload"]}: {c["status"]} {(c.get("incident") or {}).get("why", c.get("error", ""))}' for c in cells if c not in right]
    diag = [float(m.group(1)) for c in cells for n in c.get("notes", []) for m in [re.match(r"diagnosis took ([0-9.]+) s", n)] if m]
    walls.append(wall); rights.append(len(right)); slowest.append(max(diag) if diag else 0)
    print(f"round {i+1}: {wall/60:.1f} min, {len(right)} of {len(cells)} right, slowest diagnosis {slowest[-1]:.1f} s (exit {p.returncode})", flush=True)
    for w in wrong:
        print("   ", w)
print(f"median: {statistics.median(walls)/60:.1f} min, {statistics.median(rights)} right, slowest diagnosis {max(slowest):.1f} s")
PY
