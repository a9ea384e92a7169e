#!/usr/bin/env bash
# Beat-detection accuracy on a directory of MIT-BIH-style records (NNN_beats.csv with the signal as
# NNN.csv or, without it, the WFDB record wfdb/NNN.hea; and wfdb/NNN.atr when present): runs
# `ecgpipe detect` on every record, scores it with `ecgpipe eval`
# (150 ms, one to one) and prints a per-record table and the gross Se / +P (TP, FN, FP summed
# over the records): against wfdb/NNN.atr with EC57's VF-episode exclusion (xref / xdet: reference
# beats and detections inside VF episodes, not counted), and raw against NNN_beats.csv.
#
#   scripts/eval-mitdb.sh DIR [--preset robust|seed] [--fs HZ] [--device cpu|cuda|auto] [--exe PATH]
# Defaults: --preset robust, --fs 360, --device cpu, --exe build/ecgpipe (or $ECGPIPE).
# The detections are the same on either device (the GPU reproduces the CPU's arithmetic).
set -euo pipefail

usage() { echo "usage: $0 DIR [--preset robust|seed] [--fs HZ] [--device cpu|cuda|auto] [--exe PATH]" >&2; exit 2; }
[[ $# -ge 1 ]] || usage
dir=$1; shift
preset=robust; fs=360; device=cpu; exe=${ECGPIPE:-build/ecgpipe}
while [[ $# -gt 0 ]]; do
  case $1 in
    --preset) preset=$2; shift 2 ;;
    --fs) fs=$2; shift 2 ;;
    --device) device=$2; shift 2 ;;
    --exe) exe=$2; shift 2 ;;
    *) usage ;;
  esac
done
[[ -d $dir ]] || { echo "$0: no directory $dir" >&2; exit 3; }
[[ -x $exe ]] || { echo "$0: no ecgpipe executable at $exe (build it, or pass --exe)" >&2; exit 3; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Per record: with wfdb/NNN.atr, the EC57 comparison (no beat-by-beat comparison inside the
# reference's VF episodes; see README "Detection accuracy") and, beside it, the raw comparison
# against NNN_beats.csv (every beat, no rhythm information); without the .atr, the raw one only.
printf '%-8s %8s %6s %6s %6s %8s %8s  %6s %6s  %8s %8s\n' record beats TP FN FP 'Se%' '+P%' 'xref' 'xdet' 'rawSe%' 'raw+P%'
declare -A all=()
n=0; n_atr=0
add() { all[$1]=$(( ${all[$1]:-0} + $2 )); }
for ref in "$dir"/*_beats.csv; do
  rec=$(basename "$ref" _beats.csv)
  sig=$dir/$rec.csv
  # The WFDB record's MLII channel equals the CSV sample for sample (tests/test_wfdb.cpp); it is
  # a third of the size, which matters where the data has to be copied to a GPU host.
  [[ -f $sig ]] || sig=$dir/wfdb/$rec.hea
  [[ -f $sig ]] || continue
  # The CSVs hold lead MLII, which is not always a record's first signal (114 lists V5 first).
  lead=()
  [[ $sig == *.hea ]] && grep -qE '[[:space:]]MLII[[:space:]]*$' "$sig" && lead=(--column MLII)
  "$exe" detect "$sig" "${lead[@]}" --fs "$fs" --preset "$preset" --device "$device" --out "$tmp/$rec.csv" -q
  # eval --json: pick the counts out with sed (no jq needed).
  get() { sed -n "s/.*\"$1\": *\([0-9]*\).*/\1/p" <<<"$json" | head -1; }
  json=$("$exe" eval --reference "$ref" "$tmp/$rec.csv" --fs "$fs" --json)
  rtp=$(get tp); rfn=$(get fn); rfp=$(get fp)
  add rtp "$rtp"; add rfn "$rfn"; add rfp "$rfp"
  atr=$dir/wfdb/$rec.atr
  if [[ -f $atr ]]; then
    json=$("$exe" eval --reference "$atr" "$tmp/$rec.csv" --fs "$fs" --json)
    tp=$(get tp); fn=$(get fn); fp=$(get fp); xr=$(get excluded_reference_beats); xd=$(get excluded_detections)
    n_atr=$((n_atr + 1))
  else
    tp=$rtp; fn=$rfn; fp=$rfp; xr=-; xd=-
  fi
  add tp "$tp"; add fn "$fn"; add fp "$fp"; add xr "${xr/-/0}"; add xd "${xd/-/0}"
  n=$((n + 1))
  awk -v r="$rec" -v tp="$tp" -v fn="$fn" -v fp="$fp" -v xr="$xr" -v xd="$xd" -v rtp="$rtp" -v rfn="$rfn" -v rfp="$rfp" '
    function pct(a, b) { return b ? 100 * a / b : 0 }
    BEGIN { printf "%-8s %8d %6d %6d %6d %8.2f %8.2f  %6s %6s  %8.2f %8.2f\n", r, tp + fn, tp, fn, fp,
            pct(tp, tp + fn), pct(tp, tp + fp), xr, xd, pct(rtp, rtp + rfn), pct(rtp, rtp + rfp) }'
done
[[ $n -gt 0 ]] || { echo "$0: no NNN_beats.csv with its NNN.csv or wfdb/NNN.hea in $dir" >&2; exit 3; }
awk -v n="$n" -v na="$n_atr" -v tp="${all[tp]}" -v fn="${all[fn]}" -v fp="${all[fp]}" -v xr="${all[xr]}" -v xd="${all[xd]}" \
    -v rtp="${all[rtp]}" -v rfn="${all[rfn]}" -v rfp="${all[rfp]}" -v p="$preset" -v d="$device" '
  function pct(a, b) { return b ? 100 * a / b : 0 }
  BEGIN {
    printf "%-8s %8d %6d %6d %6d %8.2f %8.2f  %6d %6d  %8.2f %8.2f   (%d records, %d with .atr, preset %s, device %s)\n", "gross",
           tp + fn, tp, fn, fp, pct(tp, tp + fn), pct(tp, tp + fp), xr, xd, pct(rtp, rtp + rfn), pct(rtp, rtp + rfp), n, na, p, d
    printf "%-8s %8d %6d %6d %6d %8.2f %8.2f   (raw: every beat of NNN_beats.csv, no VF exclusion)\n", "raw",
           rtp + rfn, rtp, rfn, rfp, pct(rtp, rtp + rfn), pct(rtp, rtp + rfp) }'
