#!/usr/bin/env bash
# Benchmark (prints numbers; never a pass/fail test): peak host RSS and wall time of
# `ecgpipe detect` and `ecgpipe run` on the CPU for long synthetic recordings (250 Hz, written
# with 17 significant digits as the seed's files are: 151 M samples = 7 days = 3.5 GB of CSV),
# read in chunks (the default, --chunk-seconds 600) and, up to WHOLE_MAX samples, whole
# (--chunk-seconds 0) with the outputs compared byte for byte.
#   scripts/bench-memory.sh [BUILD_DIR]
# SIZES ("20000000 50000000 151000000"), EPOCHS (1: the matrix is what grows, not the epochs),
# THREADS (2), WHOLE_MAX (50000000; the whole path needs ~60 bytes a sample), DATA (where the
# recordings are written once and kept: /tmp/ecgpipe-bench-memory).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
EXE=$BUILD_DIR/ecgpipe
SIZES=${SIZES:-"20000000 50000000 151000000"}
EPOCHS=${EPOCHS:-1}
THREADS=${THREADS:-2}
WHOLE_MAX=${WHOLE_MAX:-50000000}
DATA=${DATA:-/tmp/ecgpipe-bench-memory}
command -v /usr/bin/time >/dev/null || { echo "bench-memory: needs /usr/bin/time (apt-get install time)" >&2; exit 3; }
mkdir -p "$DATA"
OUT=$(mktemp -d /tmp/ecgpipe-bench-memory-out.XXXXXX)
trap 'rm -rf "$OUT"' EXIT

# Peak RSS (MiB) and wall seconds of one command: "RSS WALL".
measure() {
  /usr/bin/time -f "%M %e" -o "$OUT/time" "$@" >/dev/null 2>"$OUT/err" || { cat "$OUT/err" >&2; exit 1; }
  awk '{printf "%.0f %.1f\n", $1 / 1024, $2}' "$OUT/time"
}

printf '%-11s %-6s %-7s %12s %9s %s\n' samples cmd chunks "peak RSS MiB" "wall s" "same outputs"
for n in $SIZES; do
  csv=$DATA/s$n.csv
  [[ -s $csv ]] || "$EXE" -q synth "$csv" --samples "$n" --fs 250 --seed 3 --digits 17
  cat "$csv" >/dev/null  # page cache: time the work, not the disk
  modes=(600)
  ((n <= WHOLE_MAX)) && modes+=(0)
  for chunk in "${modes[@]}"; do
    read -r rss wall < <(measure "$EXE" -q --threads "$THREADS" detect "$csv" --device cpu --chunk-seconds "$chunk" \
      --out "$OUT/detect$chunk.csv")
    same=""
    [[ $chunk == 0 ]] && { cmp -s "$OUT/detect600.csv" "$OUT/detect0.csv" && same=yes || same=NO; }
    label=$([[ $chunk == 0 ]] && echo whole || echo "${chunk} s")
    printf '%-11s %-6s %-7s %12s %9s %s\n' "$n" detect "$label" "$rss" "$wall" "$same"
    read -r rss wall < <(measure "$EXE" -q --threads "$THREADS" run "$csv" --device cpu --epochs "$EPOCHS" \
      --chunk-seconds "$chunk" --out "$OUT/run$chunk")
    same=""
    if [[ $chunk == 0 ]]; then
      same=yes
      for f in beats.csv outliers.csv; do cmp -s "$OUT/run600/$f" "$OUT/run0/$f" || same=NO; done
    fi
    printf '%-11s %-6s %-7s %12s %9s %s\n' "$n" run "$label" "$rss" "$wall" "$same"
  done
  rm -rf "$OUT"/run* "$OUT"/detect*
done
