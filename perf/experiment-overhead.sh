#!/usr/bin/env bash
# Measures an experiment's per-cell overhead: everything a cell costs besides
# its measured runs (a fresh 3-member cluster started and ready, the bench's
# setup, scraping, teardown). Runs an experiment of CELLS cells, each a
# 101 to 109-put bench on a fresh cluster, and prints per cell the cell's wall time,
# its runs' time, the overhead (the difference), and the cluster start and
# teardown the result records; then the medians. Bar (issue 14): median
# overhead at most 3 s.
#
#   perf/experiment-overhead.sh [CELLS=7]
set -euo pipefail
cd "$(dirname "$0")/.."
cells=${1:-7}
work=$(mktemp -d "$PWD/.perf-xo-XXXXXX")
trap 'rm -rf "$work"' EXIT
go build -o "$work/etcdlab" ./cmd/etcdlab
seq_list=$(seq -s, 1 "$cells")
cat >"$work/overhead.yaml" <<YAML
name: overhead
setups:
  - {name: fresh, members: 3}
workloads:
  - name: put
    bench: --conns=1 --clients=1 put --total=10{n} --key-size=8 --val-size=64
sweep:
  n: [$seq_list]   # distinct cells: 101, 102, ... puts each
YAML
"$work/etcdlab" experiment run "$work/overhead.yaml" --out "$work/out" --data-dir "$work" --quiet >/dev/null 2>"$work/err" || { cat "$work/err"; exit 1; }
python3 - "$work/out/result.json" <<'PY'
import json, sys
from datetime import datetime
def t(s):
    return datetime.fromisoformat(s.replace("Z", "+00:00"))
d = json.load(open(sys.argv[1]))["experiment"]
rows = []
for c in d["cells"]:
    wall = (t(c["end"]) - t(c["start"])).total_seconds()
    runs = sum((t(r["end"]) - t(r["start"])).total_seconds() for r in c.get("runs", []))
    o = c.get("overhead", {})
    rows.append((c["id"], c["status"], wall, runs, wall - runs, o.get("cluster_start_seconds", 0), o.get("teardown_seconds", 0)))
print("%-22s %-6s %8s %8s %9s %8s %9s" % ("cell", "status", "wall", "runs", "overhead", "start", "teardown"))
for r in rows:
    print("%-22s %-6s %7.2fs %7.2fs %8.2fs %7.2fs %8.2fs" % r)
def med(xs):
    xs = sorted(xs); n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2
print("median over %d cells: overhead %.2fs (start %.2fs, teardown %.2fs); bar: at most 3 s" %
      (len(rows), med([r[4] for r in rows]), med([r[5] for r in rows]), med([r[6] for r in rows])))
PY
