#!/usr/bin/env bash
# Benchmark of the second lead (issue 24: "rhythm analysis and the second lead add <= 5 % to run";
# prints numbers, never a pass/fail test): `ecgpipe run` and `ecgpipe analyze` on a two-lead CSV
# (columns MLII,V1: an `ecgpipe synth` recording at 360 Hz, the second column its samples again,
# scaled, so both leads show the same beats) with the second lead (`--lead2 auto`, the default,
# which picks V1) and without it (`--lead2 none`), whole process each, the median of RUNS runs.
# Prints per recording, command and lead the wall time and the stage seconds of report.json
# (medians), then what the second lead adds to the wall time.
#   scripts/bench-lead2.sh [BUILD_DIR]
# DEVICE (auto: cpu, cuda or auto, passed as --device), RUNS (3), DATA (/tmp: the recordings are
# kept there and reused), EPOCHS (30, run's default), DURATIONS ("1800 86400": seconds, each a
# recording), COMMANDS ("run analyze").
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
EXE=$BUILD_DIR/ecgpipe
DEVICE=${DEVICE:-auto}
RUNS=${RUNS:-3}
DATA=${DATA:-/tmp}
EPOCHS=${EPOCHS:-30}
DURATIONS=${DURATIONS:-"1800 86400"}
COMMANDS=${COMMANDS:-"run analyze"}
[[ -x $EXE ]] || { echo "bench-lead2: no $EXE (build first, or pass the build directory)" >&2; exit 2; }
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "bench-lead2: RUNS must be a whole number >= 1, not '$RUNS'" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench-lead2: needs python3 (report.json, medians)" >&2; exit 3; }
mkdir -p "$DATA"
OUT=$(mktemp -d "${TMPDIR:-/tmp}/ecgpipe-bench-lead2.XXXXXX")
trap 'rm -rf "$OUT"' EXIT

printf '%-8s %-8s %-6s %8s %8s %8s %8s %8s %8s\n' seconds command lead2 wall csv peaks classify train total
for duration in $DURATIONS; do
  [[ $duration =~ ^[1-9][0-9]*$ ]] || { echo "bench-lead2: DURATIONS holds whole seconds, not '$duration'" >&2; exit 2; }
  csv=$DATA/ecgpipe-lead2-$duration.csv
  if [[ ! -s $csv ]]; then  # written once (synth's fixed seed: the same file every time)
    "$EXE" -q synth "$OUT/one.csv" --fs 360 --duration "$duration" --seed 1 --truth "$OUT/truth.csv"
    awk 'NR == 1 { print "MLII,V1"; next } { printf "%s,%.4f\n", $1, -0.6 * $1 }' "$OUT/one.csv" >"$csv.part"
    mv "$csv.part" "$csv"
  fi
  for command in $COMMANDS; do
    extra=()
    [[ $command == run ]] && extra=(--epochs "$EPOCHS")
    declare -A wall=()
    for lead in auto none; do
      for ((i = 1; i <= RUNS; i++)); do
        start=$(date +%s.%N)
        "$EXE" -q "$command" "$csv" --fs 360 --device "$DEVICE" --lead2 "$lead" --out "$OUT/o-$lead-$i" "${extra[@]}" >/dev/null
        end=$(date +%s.%N)
        echo "$start $end" >"$OUT/o-$lead-$i/wall"
      done
      wall[$lead]=$(python3 - "$OUT" "$lead" "$RUNS" "$duration" "$command" <<'EOF'
import json, statistics, sys
out, lead, runs, duration, command = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
walls, stages = [], {}
for i in range(1, runs + 1):
    a, b = open(f"{out}/o-{lead}-{i}/wall").read().split()
    walls.append(float(b) - float(a))
    seconds = json.load(open(f"{out}/o-{lead}-{i}/report.json"))["seconds"]
    for k in ("csv", "peaks", "classify", "train", "total"):
        stages.setdefault(k, []).append(seconds.get(k, 0.0))
med = {k: statistics.median(v) for k, v in stages.items()}
wall = statistics.median(walls)
print(f"{duration:<8} {command:<8} {lead:<6} {wall:8.3f} {med['csv']:8.3f} {med['peaks']:8.3f} {med['classify']:8.3f} "
      f"{med['train']:8.3f} {med['total']:8.3f}", file=sys.stderr)
print(f"{wall:.6f}")
EOF
      )
      rm -rf "$OUT"/o-*
    done
    python3 -c "import sys; a, n = float(sys.argv[1]), float(sys.argv[2]); print(f'  the second lead adds {a - n:+.3f} s ({100 * (a - n) / n:+.1f} %) to {sys.argv[3]}')" \
      "${wall[auto]}" "${wall[none]}" "$command"
  done
done 2>&1
