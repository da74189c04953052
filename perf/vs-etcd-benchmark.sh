#!/usr/bin/env bash
# etcdlab bench vs etcd's own benchmark tool (v3.6, built from the separate
# tools module in perf/tools), interleaved, against one local 3-member
# cluster started by `etcdlab cluster up`. For each configuration and round,
# both tools run the same command line; client CPU (user+sys) and peak RSS
# come from GNU time, throughput and p50 from each tool's report.
#
#   perf/vs-etcd-benchmark.sh [ROUNDS=3] [CONFIGS="A B C"]
#   BASE=REV perf/vs-etcd-benchmark.sh ...   also runs etcdlab built at git
#        revision REV ("base") in the same interleaved rounds and prints the
#        working tree's ratios to it: the regression check for engine changes.
#
#   A  --conns=100 --clients=1000 put --key-size=8 --val-size=256 --total=100000 --key-space-size=100000
#   B  --conns=1 --clients=1 put --key-size=8 --val-size=256 --total=10000 --key-space-size=10000
#   C  --conns=50 --clients=50000 put --key-size=8 --val-size=256 --total=100000 --key-space-size=100000
#
# Bars (issue 3): A: CPU/request <= 0.5x, throughput >= 1.1x; B: throughput
# >= 1.0x, p50 within +-10%; C: peak RSS <= 0.5x.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
configs=${2:-"A B C"}
work=$(mktemp -d "$PWD/.perf-vs-XXXXXX")
bin=$work/bin; mkdir -p "$bin"
cleanup() {
  [ -n "${up:-}" ] && kill "$up" 2>/dev/null && wait "$up" 2>/dev/null || true
  git worktree remove --force "$work/base-src" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
echo "building etcdlab and etcd benchmark (tools module)..." >&2
go build -o "$bin/etcdlab" ./cmd/etcdlab
tools="benchmark etcdlab"
if [ -n "${BASE:-}" ]; then
  git worktree add -q --detach "$work/base-src" "$BASE"
  (cd "$work/base-src" && go build -o "$bin/base" ./cmd/etcdlab)
  git worktree remove --force "$work/base-src"
  tools="benchmark etcdlab base"
fi
(cd perf/tools && go build -o "$bin/benchmark" go.etcd.io/etcd/v3/tools/benchmark)

# 8 GiB quota and revision compaction: the anchor never deletes its keys.
(cd "$work" && exec "$bin/etcdlab" cluster up --quota-backend-bytes 8589934592 \
   --auto-compaction-mode revision --auto-compaction-retention 10000 >up.out 2>up.err) &
up=$!
until [ -s "$work/.etcdlab/cluster.json" ]; do kill -0 "$up" || { cat "$work/up.err"; exit 1; }; sleep 0.1; done
eps=$(python3 -c "import json,sys;print(','.join(json.load(open(sys.argv[1]))['endpoints']))" "$work/.etcdlab/cluster.json")

args_for() {
  case $1 in
    A) echo "--conns=100 --clients=1000 put --key-size=8 --val-size=256 --total=100000 --key-space-size=100000" ;;
    B) echo "--conns=1 --clients=1 put --key-size=8 --val-size=256 --total=10000 --key-space-size=10000" ;;
    C) echo "--conns=50 --clients=50000 put --key-size=8 --val-size=256 --total=100000 --key-space-size=100000" ;;
  esac
}
total_for() { case $1 in B) echo 10000 ;; *) echo 100000 ;; esac; }

# run TOOL CONFIG -> "rps p50 cpu_seconds maxrss_kb"
run() {
  local tool=$1 cfg=$2 out
  if [ "$tool" = etcdlab ] || [ "$tool" = base ]; then
    out=$( { /usr/bin/time -f "TIME %U %S %M" "$bin/$tool" bench --quiet --endpoints="$eps" $(args_for "$cfg") ; } 2>&1 )
  else
    out=$( { /usr/bin/time -f "TIME %U %S %M" "$bin/benchmark" --endpoints="$eps" $(args_for "$cfg") ; } 2>&1 )
  fi
  local rps p50 t
  rps=$(echo "$out" | awk '/Requests\/sec:/ {print $2; exit}')
  p50=$(echo "$out" | awk '/^ *50% in/ {print $3; exit}')
  t=$(echo "$out" | awk '/^TIME/ {print $2+$3, $4}' | tail -1)
  echo "$rps $p50 $t"
}

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

for cfg in $configs; do
  total=$(total_for "$cfg")
  declare -A rps=() p50=() cpu=() rss=()
  for r in $(seq 1 "$rounds"); do
    # rotate which tool goes first
    order=$(echo $tools | awk -v r="$r" '{for (i = 0; i < NF; i++) printf "%s ", $((i + r - 1) % NF + 1)}')
    for tool in $order; do
      read -r q p c m <<<"$(run "$tool" "$cfg")"
      rps[$tool]+="$q "; p50[$tool]+="$p "; cpu[$tool]+="$c "; rss[$tool]+="$m "
      printf '%s round %d %-9s  %9.1f req/s  p50 %.4fs  cpu %.2fs (%.1f µs/req)  maxrss %d MiB\n' \
        "$cfg" "$r" "$tool" "$q" "$p" "$c" "$(echo "$c*1000000/$total" | bc -l)" "$((m/1024))"
    done
  done
  mq_e=$(median ${rps[etcdlab]}); mq_b=$(median ${rps[benchmark]})
  mp_e=$(median ${p50[etcdlab]}); mp_b=$(median ${p50[benchmark]})
  mc_e=$(median ${cpu[etcdlab]}); mc_b=$(median ${cpu[benchmark]})
  mm_e=$(median ${rss[etcdlab]}); mm_b=$(median ${rss[benchmark]})
  printf '%s medians: throughput %.1f vs %.1f (ratio %.2f) | p50 %.4f vs %.4f (ratio %.2f) | cpu/req %.1f vs %.1f µs (ratio %.2f) | maxrss %d vs %d MiB (ratio %.2f)\n' \
    "$cfg" "$mq_e" "$mq_b" "$(echo "$mq_e/$mq_b" | bc -l)" "$mp_e" "$mp_b" "$(echo "$mp_e/$mp_b" | bc -l)" \
    "$(echo "$mc_e*1000000/$total" | bc -l)" "$(echo "$mc_b*1000000/$total" | bc -l)" "$(echo "$mc_e/$mc_b" | bc -l)" \
    "$((${mm_e%.*}/1024))" "$((${mm_b%.*}/1024))" "$(echo "$mm_e/$mm_b" | bc -l)"
  if [ -n "${BASE:-}" ]; then
    mq_x=$(median ${rps[base]}); mp_x=$(median ${p50[base]}); mc_x=$(median ${cpu[base]})
    printf '%s vs base %s: throughput %.1f vs %.1f (ratio %.3f) | p50 ratio %.3f | cpu/req %.1f vs %.1f µs (ratio %.3f)\n' \
      "$cfg" "$BASE" "$mq_e" "$mq_x" "$(echo "$mq_e/$mq_x" | bc -l)" "$(echo "$mp_e/$mp_x" | bc -l)" \
      "$(echo "$mc_e*1000000/$total" | bc -l)" "$(echo "$mc_x*1000000/$total" | bc -l)" "$(echo "$mc_e/$mc_x" | bc -l)"
  fi
  unset rps p50 cpu rss
done
