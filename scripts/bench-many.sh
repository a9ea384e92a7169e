#!/usr/bin/env bash
# Benchmark (prints numbers; never a pass/fail test): many recordings in one call against one
# process per recording, on MIT-BIH DS1 (22 records, 360 Hz).
#   scripts/bench-many.sh [BUILD_DIR] [DATA_DIR]
# 1. `ecgpipe detect` over every NNN.csv: 22 separate calls, then one call (--jobs 1, then
#    --jobs $JOBS); checks that each record's R peaks are byte-identical both ways;
# 2. `ecgpipe run --epochs $EPOCHS` both ways (RUN=0 skips it), beats.csv compared.
# DEVICE (cpu) and THREADS (LibTorch threads, 0 = default) apply to both ways alike.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
DATA=${2:-../shared/data/mitdb-ds1}
EXE=$BUILD_DIR/ecgpipe
DEVICE=${DEVICE:-cpu}
EPOCHS=${EPOCHS:-2}
JOBS=${JOBS:-2}
RUN=${RUN:-1}
THREADS=${THREADS:-0}
OUT=$(mktemp -d /tmp/ecgpipe-bench-many.XXXXXX)
trap 'rm -rf "$OUT"' EXIT

records=()
for f in "$DATA"/[0-9][0-9][0-9].csv; do records+=("$f"); done
n=${#records[@]}
((n > 0)) || { echo "bench-many: no NNN.csv in $DATA" >&2; exit 3; }
cat "${records[@]}" >/dev/null  # page cache: compare process overhead, not disk reads
now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2 - $1:.2f}')"; }
per() { python3 -c "print(f'{($2 - $1) / $3:.3f}')"; }
common=(--threads "$THREADS")

echo "bench-many: $n records from $DATA, device $DEVICE, $(nproc) cores, $("$EXE" --version)"

# --- detect
mkdir -p "$OUT/sep"
t0=$(now)
for f in "${records[@]}"; do
  "$EXE" -q "${common[@]}" detect "$f" --fs 360 --device "$DEVICE" --out "$OUT/sep/$(basename "$f" .csv).csv"
done
t1=$(now)
"$EXE" -q "${common[@]}" detect "${records[@]}" --fs 360 --device "$DEVICE" --out "$OUT/one"
t2=$(now)
"$EXE" -q "${common[@]}" detect "${records[@]}" --fs 360 --device "$DEVICE" --jobs "$JOBS" --out "$OUT/par"
t3=$(now)
same=0
for f in "${records[@]}"; do
  r=$(basename "$f" .csv)
  cmp -s "$OUT/sep/$r.csv" "$OUT/one/$r/beats.csv" && cmp -s "$OUT/sep/$r.csv" "$OUT/par/$r/beats.csv" && same=$((same + 1))
done
sep=$(secs "$t0" "$t1")
one=$(secs "$t1" "$t2")
par=$(secs "$t2" "$t3")
echo "detect, $n separate calls:        $sep s ($(per "$t0" "$t1" "$n") s per record)"
echo "detect, one call (--jobs 1):       $one s ($(per "$t1" "$t2" "$n") s per record), $(python3 -c "print(f'{$sep / $one:.1f}')")x faster"
echo "detect, one call (--jobs $JOBS):       $par s ($(per "$t2" "$t3" "$n") s per record), $(python3 -c "print(f'{$sep / $par:.1f}')")x faster"
echo "detect: R peaks identical both ways for $same of $n records"

# --- run
((RUN)) || exit 0
mkdir -p "$OUT/rsep"
t0=$(now)
for f in "${records[@]}"; do
  "$EXE" -q "${common[@]}" run "$f" --fs 360 --device "$DEVICE" --epochs "$EPOCHS" --out "$OUT/rsep/$(basename "$f" .csv)"
done
t1=$(now)
"$EXE" -q "${common[@]}" run "${records[@]}" --fs 360 --device "$DEVICE" --epochs "$EPOCHS" --out "$OUT/rone"
t2=$(now)
same=0
for f in "${records[@]}"; do
  r=$(basename "$f" .csv)
  cmp -s "$OUT/rsep/$r/beats.csv" "$OUT/rone/$r/beats.csv" && same=$((same + 1))
done
rsep=$(secs "$t0" "$t1")
rone=$(secs "$t1" "$t2")
in_process=$(python3 -c "
import json, glob
print(f\"{sum(json.load(open(p))['seconds']['total'] for p in glob.glob('$OUT/rone/*/report.json')):.2f}\")")
echo "run --epochs $EPOCHS, $n separate calls: $rsep s ($(per "$t0" "$t1" "$n") s per record)"
echo "run --epochs $EPOCHS, one call:          $rone s ($(per "$t1" "$t2" "$n") s per record), $(python3 -c "print(f'{$rsep / $rone:.2f}')")x faster"
echo "run: in-process work (sum of report.json seconds.total) $in_process s; per-record overhead left in one call:" \
  "$(python3 -c "print(f'{($rone - $in_process) / $n:.3f}')") s; in separate calls: $(python3 -c "print(f'{($rsep - $in_process) / $n:.3f}')") s"
echo "run: beats.csv identical both ways for $same of $n records"
