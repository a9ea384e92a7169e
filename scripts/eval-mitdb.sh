#!/usr/bin/env bash
# Beat-detection accuracy on a directory of MIT-BIH-style records (NNN_beats.csv with the signal as
# NNN.csv or, without it, the WFDB record wfdb/NNN.hea; and wfdb/NNN.atr when present): runs
# `ecgpipe detect` on every record, scores it with `ecgpipe eval`
# (150 ms, one to one) and prints a per-record table and the gross Se / +P (TP, FN, FP summed
# over the records): against wfdb/NNN.atr with EC57's VF-episode exclusion (xref / xdet: reference
# beats and detections inside VF episodes, not counted), and raw against NNN_beats.csv.
#
# With --detections DDIR the detections are not made here but read from DDIR/NNN.csv or
# DDIR/NNN/beats.csv (e.g. the --out directories of `ecgpipe run`, one per record). When they
# carry a `class` column, the EC57 beat-classification statistics follow (as WFDB's bxb -S):
# per record VEB and SVEB Se / +P, then the gross figures and the gross confusion matrix, every
# count summed over the records (against wfdb/NNN.atr when present, else NNN_beats.csv).
#
#   scripts/eval-mitdb.sh DIR [--preset robust|seed] [--fs HZ] [--device cpu|cuda|auto] [--exe PATH]
#                             [--detections DDIR]
# Defaults: --preset robust, --fs 360, --device cpu, --exe build/ecgpipe (or $ECGPIPE).
# The detections are the same on either device (the GPU reproduces the CPU's arithmetic).
set -euo pipefail

usage() { echo "usage: $0 DIR [--preset robust|seed] [--fs HZ] [--device cpu|cuda|auto] [--exe PATH] [--detections DDIR]" >&2; exit 2; }
[[ $# -ge 1 ]] || usage
dir=$1; shift
preset=robust; fs=360; device=cpu; exe=${ECGPIPE:-build/ecgpipe}; ddir=
while [[ $# -gt 0 ]]; do
  case $1 in
    --preset) preset=$2; shift 2 ;;
    --fs) fs=$2; shift 2 ;;
    --device) device=$2; shift 2 ;;
    --exe) exe=$2; shift 2 ;;
    --detections) ddir=$2; shift 2 ;;
    *) usage ;;
  esac
done
[[ -d $dir ]] || { echo "$0: no directory $dir" >&2; exit 3; }
[[ -x $exe ]] || { echo "$0: no ecgpipe executable at $exe (build it, or pass --exe)" >&2; exit 3; }
[[ -z $ddir || -d $ddir ]] || { echo "$0: no directory $ddir" >&2; exit 3; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Per record: with wfdb/NNN.atr, the EC57 comparison (no beat-by-beat comparison inside the
# reference's VF episodes; see docs/accuracy.md "Detection accuracy") and, beside it, the raw comparison
# against NNN_beats.csv (every beat, no rhythm information); without the .atr, the raw one only.
printf '%-8s %8s %6s %6s %6s %8s %8s  %6s %6s  %8s %8s\n' record beats TP FN FP 'Se%' '+P%' 'xref' 'xdet' 'rawSe%' 'raw+P%'
declare -A all=()
n=0; n_atr=0; n_cls=0; cls_lines=()
cells=()
for r in N S V F Q O; do for c in n s v f q o; do [[ $r$c == Oo ]] || cells+=("$r$c"); done; done
add() { all[$1]=$(( ${all[$1]:-0} + $2 )); }
for ref in "$dir"/*_beats.csv; do
  rec=$(basename "$ref" _beats.csv)
  sig=$dir/$rec.csv
  # The WFDB record's MLII channel equals the CSV sample for sample (tests/io/test_wfdb.cpp); it is
  # a third of the size, which matters where the data has to be copied to a GPU host.
  [[ -f $sig ]] || sig=$dir/wfdb/$rec.hea
  [[ -f $sig ]] || continue
  # The CSVs hold lead MLII, which is not always a record's first signal (114 lists V5 first).
  lead=()
  [[ $sig == *.hea ]] && grep -qE '[[:space:]]MLII[[:space:]]*$' "$sig" && lead=(--column MLII)
  det=$tmp/$rec.csv
  if [[ -n $ddir ]]; then
    det=$ddir/$rec.csv
    [[ -f $det ]] || det=$ddir/$rec/beats.csv
    [[ -f $det ]] || { echo "$0: no $ddir/$rec.csv or $ddir/$rec/beats.csv" >&2; exit 3; }
  else
    "$exe" detect "$sig" "${lead[@]}" --fs "$fs" --preset "$preset" --device "$device" --out "$det" -q
  fi
  # eval --json: pick the counts out with sed (no jq needed).
  get() { sed -n "s/.*\"$1\": *\([0-9]*\).*/\1/p" <<<"$json" | head -1; }
  json=$("$exe" eval --reference "$ref" "$det" --fs "$fs" --json)
  rtp=$(get tp); rfn=$(get fn); rfp=$(get fp)
  add rtp "$rtp"; add rfn "$rfn"; add rfp "$rfp"
  atr=$dir/wfdb/$rec.atr
  if [[ -f $atr ]]; then
    json=$("$exe" eval --reference "$atr" "$det" --fs "$fs" --json)
    tp=$(get tp); fn=$(get fn); fp=$(get fp); xr=$(get excluded_reference_beats); xd=$(get excluded_detections)
    n_atr=$((n_atr + 1))
  else
    tp=$rtp; fn=$rfn; fp=$rfp; xr=-; xd=-
  fi
  add tp "$tp"; add fn "$fn"; add fp "$fp"; add xr "${xr/-/0}"; add xd "${xd/-/0}"
  # EC57 beat classes (eval --json "ec57", when the detections have a class column): the matrix
  # counts under bxb's names (Nn, Ns, ..., Oq), summed for the gross figures.
  if grep -q '"ec57": {' <<<"$json"; then
    n_cls=$((n_cls + 1))
    line="$rec"
    for k in "${cells[@]}"; do v=$(get "$k"); add "m$k" "$v"; line+=" $k=$v"; done
    cls_lines+=("$line")
  fi
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

# EC57 beat classes: bxb -S's rules (src/eval/ec57.cpp): VEB TP = Vv, FN = Vn+Vs+Vf+Vq+Vo,
# FP = Nv+Sv+Ov (a reference F or Q called V is not a FP); SVEB TP = Ss, FN = Sn+Sv+Sf+Sq+So,
# FP = Ns+Vs+Fs+Os. Per record, then gross (counts summed over the records).
[[ $n_cls -gt 0 ]] || exit 0
ec57() {  # reads "name k=v k=v ..." lines, prints VEB / SVEB Se and +P
  awk '
    function pct(a, b) { return b ? sprintf("%8.2f", 100 * a / b) : sprintf("%8s", "-") }
    { delete m; for (i = 2; i <= NF; i++) { split($i, kv, "="); m[kv[1]] = kv[2] }
      vtp = m["Vv"]; vfn = m["Vn"] + m["Vs"] + m["Vf"] + m["Vq"] + m["Vo"]; vfp = m["Nv"] + m["Sv"] + m["Ov"]
      stp = m["Ss"]; sfn = m["Sn"] + m["Sv"] + m["Sf"] + m["Sq"] + m["So"]; sfp = m["Ns"] + m["Vs"] + m["Fs"] + m["Os"]
      printf "%-8s %6d %6d %6d %s %s  %6d %6d %6d %s %s\n", $1, vtp, vfn, vfp, pct(vtp, vtp + vfn), pct(vtp, vtp + vfp),
             stp, sfn, sfp, pct(stp, stp + sfn), pct(stp, stp + sfp) }'
}
echo
printf '%-8s %6s %6s %6s %8s %8s  %6s %6s %6s %8s %8s\n' record VTP VFN VFP 'VSe%' 'V+P%' STP SFN SFP 'SSe%' 'S+P%'
printf '%s\n' "${cls_lines[@]}" | ec57
gross="gross"
for k in "${cells[@]}"; do gross+=" $k=${all[m$k]}"; done
echo "$gross" | ec57
echo "gross confusion matrix ($n_cls records; rows: reference, columns: detected class; O: no reference beat, o: missed)"
printf '     %7s %7s %7s %7s %7s %7s\n' n s v f q o
for r in N S V F Q O; do
  row=$(printf ' %s | ' "$r")
  for c in n s v f q o; do [[ $r$c == Oo ]] || row+=$(printf '%7d ' "${all[m$r$c]}"); done
  echo "$row"
done
