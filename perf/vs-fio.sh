#!/usr/bin/env bash
# etcdlab disk vs fio 3.33 on the same directory, interleaved: fio's etcd
# job (--rw=write --ioengine=sync --fdatasync=1 --size=22m --bs=2300) and
# `etcdlab disk` (the same job natively), ROUNDS rounds each, alternating
# which goes first. Prints fdatasync p50 and p99 and write IOPS per round,
# then the medians and their ratios (etcdlab / fio).
#
#   perf/vs-fio.sh [ROUNDS=3] [DIR...]     (default DIRs: the repo's disk and /dev/shm)
#
# Bars (issue 4): p50 and p99 fdatasync within ±15% of fio's, IOPS within ±10%.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
shift || true
dirs=("$@")
[ ${#dirs[@]} -eq 0 ] && dirs=("$PWD" /dev/shm)
if ! command -v fio >/dev/null; then
  echo "installing fio from Debian..." >&2
  apt-get update -qq && apt-get install -y -qq fio >/dev/null
fi
fio --version | grep -q '^fio-3\.33' || echo "warning: $(fio --version) is not fio 3.33" >&2
bin=$(mktemp -d)/etcdlab
trap 'rm -rf "$(dirname "$bin")"; rm -rf "${work[@]:-}"' EXIT
go build -o "$bin" ./cmd/etcdlab
work=()

# each prints "p50_seconds p99_seconds iops"
run_fio() {
  fio --name=etcd --directory="$1" --rw=write --ioengine=sync --fdatasync=1 --size=22m --bs=2300 --output-format=json |
    python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]; p=j["sync"]["lat_ns"]["percentile"]; print("%.9f %.9f %.3f" % (p["50.000000"]/1e9, p["99.000000"]/1e9, j["write"]["iops"]))'
  rm -f "$1"/etcd.0.0
}
run_etcdlab() {
  "$bin" disk --dir "$1" -o json 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin)["disk"]["jobs"][0]; p={q["p"]:q["seconds"] for q in d["sync_latency"]["percentiles"]}; print("%.9f %.9f %.3f" % (p[50], p[99], d["iops"]))' || true
}
for d in "${dirs[@]}"; do
  w=$(mktemp -d "$d/.perf-fio-XXXXXX"); work+=("$w")
  fs=$(stat -f -c %T "$w")
  rows=$(mktemp); work+=("$rows")
  for r in $(seq 1 "$rounds"); do
    if (( r % 2 )); then order="fio etcdlab"; else order="etcdlab fio"; fi
    for tool in $order; do
      read -r p50 p99 iops <<<"$(run_"$tool" "$w")"
      echo "$r $tool $p50 $p99 $iops" >>"$rows"
      printf '%s (%s) round %d %-8s p50 %10.1f µs  p99 %10.1f µs  IOPS %9.0f\n' "$d" "$fs" "$r" "$tool" \
        "$(echo "$p50*1000000" | bc -l)" "$(echo "$p99*1000000" | bc -l)" "$iops"
    done
  done
  # Ratios of the medians (the bars), the median of the per-round ratios
  # (each round's two runs are adjacent, so slow drift of the machine
  # cancels), and each tool's IOPS range (how much the anchor itself moves).
  python3 - "$d ($fs)" "$rows" <<'EOF'
import statistics as st, sys
label, path = sys.argv[1], sys.argv[2]
runs = {}
for line in open(path):
    r, tool, *v = line.split()
    runs.setdefault(tool, {})[int(r)] = [float(x) for x in v]
e, f = runs["etcdlab"], runs["fio"]
names = ("p50", "p99", "IOPS")
for i, n in enumerate(names):
    me, mf = st.median(x[i] for x in e.values()), st.median(x[i] for x in f.values())
    paired = st.median(e[r][i] / f[r][i] for r in e if r in f)
    scale, unit = (1e6, " µs") if i < 2 else (1, "")
    fmt = "%.2f" if i < 2 else "%.0f"
    print(("%s median %-4s etcdlab/fio " + fmt + "/" + fmt + "%s = ratio %.3f | median per-round ratio %.3f") % (label, n, me * scale, mf * scale, unit, me / mf, paired))
print("%s IOPS range: etcdlab %.0f..%.0f, fio %.0f..%.0f" % (label, min(x[2] for x in e.values()), max(x[2] for x in e.values()), min(x[2] for x in f.values()), max(x[2] for x in f.values())))
EOF
done
