#!/usr/bin/env bash
# Defragmentation time against the data in use per disk class (issue
# 36): runs the maintenance built-in's curve profile (one follower
# defragmented under the Kubernetes-shaped load, 128 MiB to 2 GiB of
# 16 KiB values half deleted, on memory, an SSD class, this machine's
# disk and an HDD class, in the file's order) and prints every point and
# each class's least-squares line as the report draws it
# (result.DefragCurves): seconds per GiB in use (what a defragmentation
# copies) ± the slope's standard error, the fixed cost, the residuals'
# RMS, the worst point's relative error, the median rate, and the
# member's blocked window per GiB.
#
#   perf/defrag-curve.sh [PROFILE=curve] [OUT=/tmp/etcdlab-defrag-curve] [SETUPS=memory,ssd,disk,hdd]
#   FROM=result.json perf/defrag-curve.sh      # only the table, from a run's result (the full profile's too)
#
# SETUPS limits the curve profile to some of the classes (the HDD class's
# 2 GiB fill alone takes a quarter of an hour here).
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${1:-curve}
out=${2:-/tmp/etcdlab-defrag-curve}
setups=${3:-}
result=${FROM:-}
work=$(mktemp -d /tmp/etcdlab-defrag-curve-bin.XXXXXX)
trap 'rm -rf "$work"' EXIT
go build -o "$work/etcdlab" ./cmd/etcdlab
if [ -z "$result" ]; then
  file=maintenance
  if [ -n "$setups" ]; then
    # The built-in with the profile's setups replaced.
    python3 - "$profile" "$setups" measure/experiment/builtin/maintenance.yaml > "$work/maintenance.yaml" <<'PY'
import re, sys
profile, setups = sys.argv[1], sys.argv[2]
text = open(sys.argv[3]).read()
block = re.search(r"(?m)^  " + re.escape(profile) + r":\n(?:    .*\n)+", text)
if not block:
    sys.exit(f"no profile {profile} in the built-in")
new = re.sub(r"(?m)^    setups: \[.*\]$", "    setups: [" + setups.replace(",", ", ") + "]", block.group(0))
sys.stdout.write(text[:block.start()] + new + text[block.end():])
PY
    file=$work/maintenance.yaml
  fi
  rm -rf "$out"
  start=$(date +%s)
  (cd "$work" && ./etcdlab experiment run "$file" --profile "$profile" --quiet --out "$out" > "$work/run.log" 2>&1) || {
    echo "the experiment failed:"; tail -5 "$work/run.log"; exit 1; }
  echo "wall time: $(( $(date +%s) - start )) s; result: $out/result.json"
  result=$out/result.json
fi
python3 - "$result" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
cells = d["experiment"]["cells"]
by = {}
for c in cells:
    m = c.get("maintenance")
    if not m or m.get("order") != "follower" or m.get("op") != "defragment":
        continue
    for r in m["rounds"]:
        for o in r.get("ops", []):
            if o["op"] != "defragment" or o.get("error"):
                continue
            gib = (o.get("db_in_use_before") or o["db_bytes_before"]) / 2**30
            blocked = (o.get("blocked") or {}).get("longest_seconds", 0)
            by.setdefault(c["setup"], []).append((gib, o["seconds"], blocked, c["id"]))
print(f"{'class':<8} {'in use':>6} {'seconds':>8} {'blocked':>8}  cell (GiB in use: what a defragmentation copies)")
for s, pts in by.items():
    for g, y, b, cid in sorted(pts):
        print(f"{s:<8} {g:6.3f} {y:8.3f} {b:8.3f}  {cid}")
PY
# The fit per class, as the report draws it (result.DefragCurves).
"$work/etcdlab" report "$result" -o - | awk '/^### /{on = /^### Defragmentation time/} on && /^\|/'
