#!/usr/bin/env bash
# Records each built-in's estimate beside its measured wall time: for each
# built-in, one at a time, `experiment run NAME --dry-run` (the plan's
# estimate, per cell and in all), then the run itself, timed from process
# start to exit; prints per cell the estimate, the cell's own time (its
# start to end in result.json, which leaves out the run's start and the
# report), and per built-in the estimate, the wall time and their ratio.
# The bar (docs/benchmarks.md): every quick profile's estimate within ±25%
# of its wall time.
#
#   perf/estimates.sh [PROFILE=quick|full] [BUILTIN...]   (default: every built-in)
#
# Run it on a quiet machine: the quick profiles take about 40 minutes in
# all, the full ones hours; needs root (cgroups, FUSE, network namespaces)
# as the built-ins do. Results stay in a temp dir it prints.
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${1:-quick}
shift || true
flag=()
[ "$profile" = quick ] && flag=(--quick)
[ "$profile" != quick ] && [ "$profile" != full ] && flag=(--profile "$profile")
work=$(mktemp -d "${TMPDIR:-/tmp}/etcdlab-estimates-XXXXXX")
bin=$work/etcdlab
go build -o "$bin" ./cmd/etcdlab
builtins=("$@")
if [ ${#builtins[@]} -eq 0 ]; then
  mapfile -t builtins < <("$bin" experiment list | awk 'NR > 1 && !NF { exit } NR > 1 { print $1 }')
fi
echo "etcdlab $(git rev-parse --short HEAD), $(date -u +%FT%TZ), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); results in $work"

# seconds converts Go durations (1h2m3.5s, 4.7s, 250ms) to seconds.
seconds() { python3 -c '
import re, sys
for d in sys.argv[1:]:
    t = 0.0
    for v, u in re.findall(r"([0-9.]+)(h|ms|m|s|µs|us)", d):
        t += float(v) * {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "µs": 1e-6, "us": 1e-6}[u]
    print(t)' "$@"; }

summary=()
for b in "${builtins[@]}"; do
  plan=$work/$b.plan.txt
  "$bin" experiment run "$b" "${flag[@]}" --dry-run >"$plan"
  est=$(sed -n 's/^estimated time: \([^ ]*\) .*/\1/p' "$plan")
  out=$work/$b
  t0=$(date +%s.%N)
  code=0
  (cd "$work" && "$bin" experiment run "$b" "${flag[@]}" --out "$out" >"$out.stdout" 2>"$out.stderr") || code=$?
  t1=$(date +%s.%N)
  wall=$(echo "$t1 - $t0" | bc)
  est_s=$(seconds "$est")
  ratio=$(echo "$est_s / $wall" | bc -l)
  echo
  echo "== $b ($profile): estimate $est, wall $(printf '%.0f' "$wall") s, ratio $(printf '%.2f' "$ratio"), exit $code"
  # per cell: the plan's "~EST" beside the cell's start..end
  if [ -s "$out/result.json" ]; then
    jq -r '.experiment.cells[] | [.id, .status, ((.end | sub("\\.[0-9]+";"") | fromdateiso8601) - (.start | sub("\\.[0-9]+";"") | fromdateiso8601))] | @tsv' "$out/result.json" >"$work/$b.cells.tsv" || true
    awk '$1 ~ /^[0-9]+$/ && $3 ~ /^~/ { print $2 "\t" substr($3, 2) }' "$plan" >"$work/$b.est.tsv"
    printf '  %-44s %9s %9s %6s  %s\n' cell estimate measured ratio status
    join -t $'\t' <(sort "$work/$b.est.tsv") <(sort "$work/$b.cells.tsv") | while IFS=$'\t' read -r id e st m; do
      es=$(seconds "$e")
      r=$( [ "$m" != 0 ] && echo "$es / $m" | bc -l || echo 0)
      printf '  %-44s %9s %8ss %6.2f  %s\n' "$id" "$e" "$m" "$r" "$st"
    done
  fi
  summary+=("$(printf '%-20s %10s %8.0f s %6.2f' "$b" "$est" "$wall" "$ratio")")
done
echo
printf '%-20s %10s %10s %6s   (%s profiles; bar: ratio 0.75 to 1.25)\n' built-in estimate wall ratio "$profile"
printf '%s\n' "${summary[@]}"
