#!/usr/bin/env bash
# Benchmark (prints numbers; never a pass/fail test). On a GPU host after a build:
#   scripts/bench.sh [BUILD_DIR] [SAMPLES]
# 1. generates a SAMPLES-long (default 20 M, ~470 MB) CSV in the seed's format (17 significant
#    digits per line) with `ecgpipe synth`, unless $BENCH_FILE exists;
# 2. `ecgpipe bench`: per-stage times (median of 5 after a warm-up) and CSV GB/s, for run's
#    defaults (robust detector, rr rows) and the seed's pipeline (--preset seed --model seed);
# 3. the whole process `ecgpipe run FILE --epochs 30`, $RUNS times (default 5): each run's wall
#    time, peak host RSS and stages (report.json), then the medians; peak GPU memory (nvidia-smi
#    sampled every 20 ms, whole GPU);
# 4. the peer (the seed in Python, $PEER_DIR/seed_baseline.py) on the same file, $RUNS times, if
#    present (SKIP_PEER=1 skips it): its first run fills Numba's disk cache, so the median is over
#    the runs after it as well as over all; then ecgpipe's speed-up against both.
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

# measure LABEL N CMD...: runs CMD N times; prints each run's wall seconds and peak RSS (its own,
# from wait4), the median wall, and the peak GPU memory over the runs; the walls go to $WALLS/LABEL.
WALLS=$(mktemp -d)
measure() {
  local label=$1 runs=$2
  shift 2
  local smi_log
  smi_log=$(mktemp)
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 20 >"$smi_log" 2>/dev/null &
    local smi=$!
  fi
  python3 - "$label" "$runs" "$WALLS/$label" "$@" <<'PY'
import os, statistics, subprocess, sys, time
label, runs, out, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
walls = []
for run in range(runs):
    t0 = time.perf_counter()
    child = subprocess.Popen(cmd)
    _, status, usage = os.wait4(child.pid, 0)
    walls.append(time.perf_counter() - t0)
    print(f"{label} run {run + 1}: exit {os.waitstatus_to_exitcode(status)}, wall {walls[-1]:.2f} s, "
          f"peak host RSS {usage.ru_maxrss / 1024:.0f} MiB", flush=True)
print(f"{label}: median wall {statistics.median(walls):.2f} s of {runs} (min {min(walls):.2f}, max {max(walls):.2f})")
with open(out, "w") as f:
    f.write(" ".join(f"{w:.4f}" for w in walls))
PY
  if [[ -n ${smi:-} ]]; then
    kill "$smi" 2>/dev/null || true
    wait "$smi" 2>/dev/null || true
    echo "$label: peak GPU memory used $(sort -n "$smi_log" | tail -1) MiB (whole GPU, nvidia-smi)"
  fi
  rm -f "$smi_log"
}

RUNS=${RUNS:-5}
for pm in "${PIPELINES[@]}"; do
  read -r preset model <<<"$pm"
  out=/tmp/ecgpipe-bench-out-$preset
  echo "== ecgpipe run, whole process, $EPOCHS epochs, --preset $preset --model $model, $RUNS runs"
  # Each run's report.json is kept (report.1.json ...) for the stage medians below.
  measure "ecgpipe-$preset" "$RUNS" bash -c 'n=$(( $(ls "$1"/report.*.json 2>/dev/null | wc -l) + 1 )); "${@:2}" && cp "$1/report.json" "$1/report.$n.json"' _ \
    "$out" "$EXE" run "$FILE" --epochs "$EPOCHS" --preset "$preset" --model "$model" --out "$out" -q
  python3 - "$out" <<'PY'
import glob, json, statistics, sys
reports = [json.load(open(p)) for p in sorted(glob.glob(sys.argv[1] + "/report.*.json"))]
stages = reports[0]["seconds"].keys()
print("ecgpipe stages, median s:", json.dumps({k: round(statistics.median(r["seconds"][k] for r in reports), 4) for k in stages}))
r = reports[-1]
t = r["training"]
print("counts:", r["counts"], "batch", r["parameters"]["batch_size"], "training:",
      "LibTorch" + (" (CUDA graph)" if t["cuda_graph"] else "") if t.get("libtorch", True) else "without LibTorch")
print("loss first/last/test:", r["loss"]["train_per_epoch"][0], r["loss"]["train_per_epoch"][-1], r["loss"]["test"])
PY
  rm -f "$out"/report.*.json
done

PEER_DIR=${PEER_DIR:-.gpu/peer}
if [[ ${SKIP_PEER:-0} != 1 && -f $PEER_DIR/seed_baseline.py ]]; then
  echo "== peer (seed pipeline in Python) on the same file, $RUNS runs"
  measure "peer" "$RUNS" python3 "$PEER_DIR/seed_baseline.py" "$FILE" "$EPOCHS"
  python3 - "$WALLS" <<'PY'
import statistics, sys
walls = lambda label: [float(w) for w in open(f"{sys.argv[1]}/{label}").read().split()]
ours, peer = statistics.median(walls("ecgpipe-robust")), walls("peer")
print(f"speed-up, ecgpipe run (defaults) median {ours:.2f} s: against the peer's median of all runs "
      f"{statistics.median(peer):.1f} s: {statistics.median(peer) / ours:.1f}x; against its first run "
      f"{peer[0]:.1f} s: {peer[0] / ours:.1f}x; against its median after the first (Numba's cache warm) "
      f"{statistics.median(peer[1:] or peer):.1f} s: {statistics.median(peer[1:] or peer) / ours:.1f}x")
PY
fi
rm -rf "$WALLS"
