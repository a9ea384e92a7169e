#!/usr/bin/env bash
# Benchmark (prints numbers; never a pass/fail test). On a GPU host after a build:
#   scripts/bench.sh [BUILD_DIR] [SAMPLES]
# 1. generates a SAMPLES-long (default 20 M, ~470 MB) CSV in the seed's format (17 significant
#    digits per line) with `ecgpipe synth`, unless $BENCH_FILE exists;
# 2. `ecgpipe bench`: per-stage times (median of 5 after a warm-up) and CSV GB/s, for run's
#    defaults (robust detector, rr rows) and the seed's pipeline (--preset seed --model seed);
# 3. the whole process `ecgpipe run FILE --epochs 30`: wall time, peak host RSS, peak GPU memory
#    (nvidia-smi sampled every 20 ms);
# 4. the peer (the seed in Python, $PEER_DIR/seed_baseline.py) on the same file, if present
#    (SKIP_PEER=1 skips it).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build-gpu}
SAMPLES=${2:-20000000}
EXE=$BUILD_DIR/ecgpipe
FILE=${BENCH_FILE:-/tmp/ecgpipe-bench-$SAMPLES.csv}
EPOCHS=${EPOCHS:-30}

if [[ ! -s $FILE ]]; then
  "$EXE" synth "$FILE" --samples "$SAMPLES" --digits 17 --seed 7
fi
ls -l "$FILE"
cat "$FILE" >/dev/null  # into the page cache: the target is parse speed, not disk speed

# "preset model": run's defaults (robust detector, R-centred rows) and the seed's pipeline (NMS
# gates, gate-to-gate rows: what the peer computes).
PIPELINES=("robust rr" "seed seed")
for pm in "${PIPELINES[@]}"; do
  read -r preset model <<<"$pm"
  echo "== ecgpipe bench (stages 1-4), --preset $preset --model $model"
  "$EXE" bench "$FILE" --repeat 5 --preset "$preset" --model "$model"
done

# Runs a command, prints wall seconds and peak RSS of the process tree; samples GPU memory.
measure() {
  local label=$1
  shift
  local smi_log
  smi_log=$(mktemp)
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 20 >"$smi_log" 2>/dev/null &
    local smi=$!
  fi
  python3 - "$label" "$@" <<'PY'
import resource, subprocess, sys, time
label, cmd = sys.argv[1], sys.argv[2:]
t0 = time.perf_counter()
rc = subprocess.call(cmd)
wall = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"{label}: exit {rc}, wall {wall:.2f} s, peak host RSS {rss:.0f} MiB")
PY
  if [[ -n ${smi:-} ]]; then
    kill "$smi" 2>/dev/null || true
    wait "$smi" 2>/dev/null || true
    echo "$label: peak GPU memory used $(sort -n "$smi_log" | tail -1) MiB (whole GPU, nvidia-smi)"
  fi
  rm -f "$smi_log"
}

for pm in "${PIPELINES[@]}"; do
  read -r preset model <<<"$pm"
  out=/tmp/ecgpipe-bench-out-$preset
  echo "== ecgpipe run, whole process, $EPOCHS epochs, --preset $preset --model $model"
  measure "ecgpipe run ($preset/$model)" "$EXE" run "$FILE" --epochs "$EPOCHS" --preset "$preset" --model "$model" --out "$out" -q
  python3 -c "import json,sys;r=json.load(open(sys.argv[1]));print('ecgpipe stages (s):', json.dumps(r['seconds']));print('counts:', r['counts'], 'batch', r['parameters']['batch_size'], 'cuda graph', r['training']['cuda_graph']);print('loss first/last/test:', r['loss']['train_per_epoch'][0], r['loss']['train_per_epoch'][-1], r['loss']['test'])" "$out/report.json"
done

PEER_DIR=${PEER_DIR:-.gpu/peer}
if [[ ${SKIP_PEER:-0} != 1 && -f $PEER_DIR/seed_baseline.py ]]; then
  echo "== peer (seed pipeline in Python) on the same file"
  measure "peer" python3 "$PEER_DIR/seed_baseline.py" "$FILE" "$EPOCHS"
fi
