#!/usr/bin/env bash
# etcdlab disk vs fio 3.33 on the same directory, interleaved: fio's etcd
# job (--rw=write --ioengine=sync --fdatasync=1 --size=22m --bs=2300) and
# `etcdlab disk` (the same job natively), ROUNDS rounds each, alternating
# which goes first. Prints fdatasync p50 and p99 and write IOPS per round,
# then the medians and their ratios (etcdlab / fio).
#
#   bench/vs-fio.sh [ROUNDS=3] [DIR...]     (default DIRs: the repo's disk and /dev/shm)
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
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

for d in "${dirs[@]}"; do
  w=$(mktemp -d "$d/.bench-fio-XXXXXX"); work+=("$w")
  fs=$(stat -f -c %T "$w")
  declare -a f50=() f99=() fio_iops=() e50=() e99=() e_iops=()
  for r in $(seq 1 "$rounds"); do
    if (( r % 2 )); then order="fio etcdlab"; else order="etcdlab fio"; fi
    for tool in $order; do
      read -r p50 p99 iops <<<"$(run_"$tool" "$w")"
      if [ "$tool" = fio ]; then f50+=("$p50"); f99+=("$p99"); fio_iops+=("$iops"); else e50+=("$p50"); e99+=("$p99"); e_iops+=("$iops"); fi
      printf '%s (%s) round %d %-8s p50 %10.1f µs  p99 %10.1f µs  IOPS %9.0f\n' "$d" "$fs" "$r" "$tool" \
        "$(echo "$p50*1000000" | bc -l)" "$(echo "$p99*1000000" | bc -l)" "$iops"
    done
  done
  m=( "$(median "${e50[@]}")" "$(median "${f50[@]}")" "$(median "${e99[@]}")" "$(median "${f99[@]}")" "$(median "${e_iops[@]}")" "$(median "${fio_iops[@]}")" )
  printf '%s (%s) medians etcdlab/fio: p50 %.1f/%.1f µs (ratio %.3f) | p99 %.1f/%.1f µs (ratio %.3f) | IOPS %.0f/%.0f (ratio %.3f)\n' "$d" "$fs" \
    "$(echo "${m[0]}*1000000" | bc -l)" "$(echo "${m[1]}*1000000" | bc -l)" "$(echo "${m[0]}/${m[1]}" | bc -l)" \
    "$(echo "${m[2]}*1000000" | bc -l)" "$(echo "${m[3]}*1000000" | bc -l)" "$(echo "${m[2]}/${m[3]}" | bc -l)" \
    "${m[4]}" "${m[5]}" "$(echo "${m[4]}/${m[5]}" | bc -l)"
  unset f50 f99 fio_iops e50 e99 e_iops
done
