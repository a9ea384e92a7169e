#!/usr/bin/env bash
# Beat-detection accuracy on a directory of MIT-BIH-style records (NNN.csv + NNN_beats.csv):
# runs `ecgpipe detect` on every record, scores it with `ecgpipe eval` (150 ms, one to one) and
# prints a per-record table and the gross Se / +P (TP, FN, FP summed over the records).
#
#   scripts/eval-mitdb.sh DIR [--preset robust|seed] [--fs HZ] [--exe PATH]
# Defaults: --preset robust, --fs 360, --exe build/ecgpipe (or $ECGPIPE).
set -euo pipefail

usage() { echo "usage: $0 DIR [--preset robust|seed] [--fs HZ] [--exe PATH]" >&2; exit 2; }
[[ $# -ge 1 ]] || usage
dir=$1; shift
preset=robust; fs=360; exe=${ECGPIPE:-build/ecgpipe}
while [[ $# -gt 0 ]]; do
  case $1 in
    --preset) preset=$2; shift 2 ;;
    --fs) fs=$2; shift 2 ;;
    --exe) exe=$2; shift 2 ;;
    *) usage ;;
  esac
done
[[ -d $dir ]] || { echo "$0: no directory $dir" >&2; exit 3; }
[[ -x $exe ]] || { echo "$0: no ecgpipe executable at $exe (build it, or pass --exe)" >&2; exit 3; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%-8s %8s %6s %6s %6s %8s %8s\n' record beats TP FN FP 'Se%' '+P%'
tp_all=0; fn_all=0; fp_all=0; n=0
for ref in "$dir"/*_beats.csv; do
  rec=$(basename "$ref" _beats.csv)
  sig=$dir/$rec.csv
  [[ -f $sig ]] || continue
  "$exe" detect "$sig" --fs "$fs" --preset "$preset" --out "$tmp/$rec.csv" -q
  # eval --json: pick the counts out with sed (no jq needed).
  json=$("$exe" eval --reference "$ref" "$tmp/$rec.csv" --fs "$fs" --json)
  get() { sed -n "s/.*\"$1\": *\([0-9]*\).*/\1/p" <<<"$json" | head -1; }
  tp=$(get tp); fn=$(get fn); fp=$(get fp)
  tp_all=$((tp_all + tp)); fn_all=$((fn_all + fn)); fp_all=$((fp_all + fp)); n=$((n + 1))
  awk -v r="$rec" -v tp="$tp" -v fn="$fn" -v fp="$fp" 'BEGIN {
    se = tp + fn ? 100 * tp / (tp + fn) : 0; pp = tp + fp ? 100 * tp / (tp + fp) : 0
    printf "%-8s %8d %6d %6d %6d %8.2f %8.2f\n", r, tp + fn, tp, fn, fp, se, pp }'
done
[[ $n -gt 0 ]] || { echo "$0: no NNN_beats.csv with its NNN.csv in $dir" >&2; exit 3; }
awk -v n="$n" -v tp="$tp_all" -v fn="$fn_all" -v fp="$fp_all" -v p="$preset" 'BEGIN {
  printf "%-8s %8d %6d %6d %6d %8.2f %8.2f   (%d records, preset %s)\n", "gross", tp + fn, tp, fn, fp,
         100 * tp / (tp + fn), 100 * tp / (tp + fp), n, p }'
