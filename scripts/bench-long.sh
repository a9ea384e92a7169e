#!/usr/bin/env bash
# Benchmark of long recordings (issue 29; prints numbers, never a pass/fail test): `ecgpipe run`
# and `ecgpipe detect` on a 24-hour recording at 250 Hz (21.6 M samples, ~160 MB of CSV) and a
# 14-day one at 200 Hz (241.9 M samples, ~1.8 GB: two 7-day `ecgpipe synth` files joined, synth
# writes at most 200 M samples), whole process each, the median of RUNS runs. Prints per
# recording and command the wall time, the stage seconds of `run` from its report.json (medians),
# peak host RSS, peak GPU memory (nvidia-smi polled every 100 ms, less what was in use before the
# run; "-" without nvidia-smi), then the ratio of time per sample, 14 days / 24 hours (1.0 is
# linear), of the wall and of `run`'s in-process total (no start-up).
#   scripts/bench-long.sh [BUILD_DIR]
# DEVICE (auto: cpu, cuda or auto, passed as --device), RUNS (3), DATA (/tmp: a local disk with
# ~2.1 GB free; the recordings are kept there and reused), EPOCHS (30, run's default),
# THREADS (all cores), RECORDINGS ("24h 14d": either or both).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
EXE=$BUILD_DIR/ecgpipe
DEVICE=${DEVICE:-auto}
RUNS=${RUNS:-3}
DATA=${DATA:-/tmp}
EPOCHS=${EPOCHS:-30}
THREADS=${THREADS:-}
RECORDINGS=${RECORDINGS:-"24h 14d"}
[[ -x $EXE ]] || { echo "bench-long: no $EXE (build first, or pass the build directory)" >&2; exit 2; }
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "bench-long: RUNS must be a whole number >= 1, not '$RUNS'" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench-long: needs python3 (report.json, medians)" >&2; exit 3; }
HAVE_TIME=0
/usr/bin/time -f %e true 2>/dev/null && HAVE_TIME=1
HAVE_SMI=0
[[ $DEVICE != cpu ]] && command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && HAVE_SMI=1
mkdir -p "$DATA"
OUT=$(mktemp -d "${TMPDIR:-/tmp}/ecgpipe-bench-long.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
THREAD_ARGS=()
[[ -n $THREADS ]] && THREAD_ARGS=(--threads "$THREADS")

# The recordings, written once (synth's fixed seeds: the same files every time).
synth() {  # NAME FS SECONDS SEED -> $DATA/ecgpipe-long-NAME.csv
  local csv=$DATA/ecgpipe-long-$1.csv
  [[ -s $csv ]] || "$EXE" -q synth "$csv" --fs "$2" --duration "$3" --seed "$4" --truth "$OUT/truth.csv"
}
declare -A FS SAMPLES
for rec in $RECORDINGS; do
  case $rec in
    24h)
      synth 24h 250 86400 1
      FS[$rec]=250 SAMPLES[$rec]=$((86400 * 250)) ;;
    14d)
      csv=$DATA/ecgpipe-long-14d.csv
      if [[ ! -s $csv ]]; then
        synth 7d-a 200 604800 2
        synth 7d-b 200 604800 3
        { cat "$DATA/ecgpipe-long-7d-a.csv"; tail -n +2 "$DATA/ecgpipe-long-7d-b.csv"; } >"$csv.part"
        mv "$csv.part" "$csv"
        rm -f "$DATA/ecgpipe-long-7d-a.csv" "$DATA/ecgpipe-long-7d-b.csv"
      fi
      FS[$rec]=200 SAMPLES[$rec]=$((2 * 604800 * 200)) ;;
    *) echo "bench-long: RECORDINGS holds 24h and/or 14d, not '$rec'" >&2; exit 2 ;;
  esac
  csv=$DATA/ecgpipe-long-$rec.csv
  echo "recording $rec: $csv, $(stat -c %s "$csv" | awk '{printf "%.0f MB", $1 / 1e6}'), ${SAMPLES[$rec]} samples at ${FS[$rec]} Hz"
done

# Peak GPU memory (MiB) of the command that runs while the poller runs: the highest memory.used
# of GPU 0 less the value before.
smi_used() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -i 0 | head -1; }

# One whole-process run: "WALL_S RSS_MIB GPU_MIB"; stdout to /dev/null, stderr kept for errors.
measure() {
  local gpu="-" poller="" before=0
  if ((HAVE_SMI)); then
    before=$(smi_used)
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -i 0 -lms 100 >"$OUT/smi" 2>/dev/null &
    poller=$!
  fi
  local wall rss="-"
  if ((HAVE_TIME)); then
    /usr/bin/time -f "%e %M" -o "$OUT/time" "$@" >/dev/null 2>"$OUT/err" || { cat "$OUT/err" >&2; [[ -n $poller ]] && kill "$poller"; exit 1; }
    read -r wall rss < <(awk '{printf "%s %.0f\n", $1, $2 / 1024}' "$OUT/time")
  else
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>"$OUT/err" || { cat "$OUT/err" >&2; [[ -n $poller ]] && kill "$poller"; exit 1; }
    t1=$(date +%s.%N)
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b - a}')
  fi
  if [[ -n $poller ]]; then
    kill "$poller" 2>/dev/null || true
    wait "$poller" 2>/dev/null || true
    gpu=$(awk -v b="$before" 'BEGIN{m=b} $1+0>m{m=$1+0} END{print m-b}' "$OUT/smi")
  fi
  echo "$wall $rss $gpu"
}

cat "$DATA"/ecgpipe-long-*.csv >/dev/null  # page cache: time the work, not the disk
echo "device $DEVICE, $RUNS runs each (medians; RSS and GPU memory: the highest), $EPOCHS epochs"
printf '%-4s %-7s %9s %10s %9s  %s\n' rec command "wall s" "RSS MiB" "GPU MiB" "run's stages (s, medians; report.json)"
declare -A WALL TOTAL
for rec in $RECORDINGS; do
  csv=$DATA/ecgpipe-long-$rec.csv
  for cmd in run detect; do
    rm -f "$OUT"/m.*
    for ((i = 0; i < RUNS; ++i)); do
      if [[ $cmd == run ]]; then
        measure "$EXE" -q "${THREAD_ARGS[@]}" run "$csv" --fs "${FS[$rec]}" --device "$DEVICE" --epochs "$EPOCHS" \
          --out "$OUT/run$i" >>"$OUT/m.$cmd"
      else
        measure "$EXE" -q "${THREAD_ARGS[@]}" detect "$csv" --fs "${FS[$rec]}" --device "$DEVICE" \
          --out "$OUT/detect$i.csv" >>"$OUT/m.$cmd"
      fi
    done
    # Medians of the walls (and of each stage), highest RSS and GPU memory; the device from report.json.
    line=$(python3 - "$OUT" "$cmd" "$RUNS" <<'PY'
import json, statistics, sys
out, cmd, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = [l.split() for l in open(f"{out}/m.{cmd}") if l.strip()]
wall = statistics.median(float(r[0]) for r in rows)
def peak(k):
    v = [r[k] for r in rows if r[k] != "-"]
    return str(max(int(float(x)) for x in v)) if v else "-"
stages, total, device = "", "-", ""
if cmd == "run":
    reps = [json.load(open(f"{out}/run{i}/report.json")) for i in range(runs)]
    order = ["csv", "bandpass", "peaks", "beats", "classify", "rhythm", "train", "score", "write"]  # the pipeline's
    keys = [k for k in order if k in reps[0]["seconds"]] + sorted(set(reps[0]["seconds"]) - set(order) - {"total"})
    med = {k: statistics.median(r["seconds"][k] for r in reps) for k in keys + ["total"]}
    total = f"{med['total']:.3f}"
    device = reps[0].get("device", "")
    # Which training ran: the GPU's without LibTorch, or LibTorch's (report.json training.libtorch).
    if device and not reps[0].get("training", {}).get("libtorch", True): device += ", without LibTorch"
    stages = f"total {med['total']:.2f}: " + ", ".join(f"{k} {med[k]:.2f}" for k in keys) + (f" [{device}]" if device else "")
print(f"{wall:.3f} {peak(1)} {peak(2)} {total} {stages}")
PY
)
    read -r wall rss gpu total stages <<<"$line"
    WALL[$rec.$cmd]=$wall
    TOTAL[$rec.$cmd]=$total
    printf '%-4s %-7s %9s %10s %9s  %s\n' "$rec" "$cmd" "$wall" "$rss" "$gpu" "$stages"
    rm -rf "$OUT"/run* "$OUT"/detect*
  done
done

# Linearity: time per sample of 14 days over that of 24 hours.
if [[ -n ${WALL[14d.run]:-} && -n ${WALL[24h.run]:-} ]]; then
  for cmd in run detect; do
    awk -v a="${WALL[14d.$cmd]}" -v b="${WALL[24h.$cmd]}" -v na="${SAMPLES[14d]}" -v nb="${SAMPLES[24h]}" -v c="$cmd" \
      'BEGIN{printf "time per sample, 14 d / 24 h, %s wall: %.2f\n", c, (a / na) / (b / nb)}'
  done
  awk -v a="${TOTAL[14d.run]}" -v b="${TOTAL[24h.run]}" -v na="${SAMPLES[14d]}" -v nb="${SAMPLES[24h]}" \
    'BEGIN{printf "time per sample, 14 d / 24 h, run in-process total (no start-up): %.2f\n", (a / na) / (b / nb)}'
fi
