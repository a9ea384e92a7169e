#!/usr/bin/env bash
# Byte-for-byte comparison of two ecgpipe builds' outputs (a refactoring must not change them).
#
#   scripts/compare-outputs.sh capture EXE DIR      # run EXE on the cases below, outputs into DIR
#   scripts/compare-outputs.sh diff DIR_A DIR_B     # compare two captures (exit 1 on a difference)
#   scripts/compare-outputs.sh BEFORE_EXE AFTER_EXE [WORKDIR]   # both captures, then the diff
#
# Cases (CPU, fixed seed, OMP_NUM_THREADS=1 so LibTorch's reductions run in one fixed order):
#  - the bundled sample (data/sample.csv, 250 Hz): `run` with the defaults (robust, rr) and
#    --reference, `run --preset seed --model seed`, `score` of a copy of the sample with each
#    model, `detect` with each preset, `eval` (text and --json) of detect's and run's output;
#  - MIT-BIH DS1 (${DS1:-/work/shared/data/mitdb-ds1}, skipped when absent): `detect --fs 360`
#    and `eval` (text and --json) against wfdb/NNN.atr for every record; `run --fs 360
#    --epochs 2` on two records (${DS1_RUN_RECORDS:-100-less default: 101 208}).
# Every file is compared byte for byte except two, whose timings and version change by nature:
#  - report.json: compared after deleting "seconds", "versions" and "ecgpipe_version";
#  - report.html: compared after replacing each value of its "Seconds per stage" table by "T".
# stderr (log lines with timings) is not compared; exit codes are (file rc.txt).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DS1=${DS1:-/work/shared/data/mitdb-ds1}
DS1_RUN_RECORDS=${DS1_RUN_RECORDS:-"101 208"}
export OMP_NUM_THREADS=1

normalise() {  # DIR: strip timings/versions from report.json/html in place
  local f
  while IFS= read -r -d '' f; do
    python3 - "$f" <<'EOF'
import json, sys
p = sys.argv[1]
j = json.load(open(p))
for k in ("seconds", "versions", "ecgpipe_version"):
    j.pop(k, None)
open(p, "w").write(json.dumps(j, indent=1, sort_keys=True) + "\n")
EOF
  done < <(find "$1" -name report.json -print0)
  while IFS= read -r -d '' f; do
    sed -i '/<caption>Seconds per stage<\/caption>/,/<\/table>/ s#<td>[^<]*</td>#<td>T</td>#' "$f"
  done < <(find "$1" -name report.html -print0)
  # The --json stdout of run/score is report.json too.
  while IFS= read -r -d '' f; do
    python3 - "$f" <<'EOF'
import json, sys
p = sys.argv[1]
try:
    j = json.load(open(p))
except ValueError:
    sys.exit(0)
if isinstance(j, dict) and "seconds" in j:
    for k in ("seconds", "versions", "ecgpipe_version"):
        j.pop(k, None)
    open(p, "w").write(json.dumps(j, indent=1, sort_keys=True) + "\n")
EOF
  done < <(find "$1" -name '*.stdout.json' -print0)
}

step() {  # NAME CMD...: stdout to NAME.stdout(.json), rc appended to rc.txt
  local name=$1; shift
  local suffix=stdout
  [[ " $* " == *" --json "* ]] && suffix=stdout.json
  local rc=0
  "$@" > "$name.$suffix" 2> "$name.stderr" || rc=$?
  echo "$name $rc" >> rc.txt
}

capture() {  # EXE DIR
  local exe dir
  exe=$(realpath "$1"); dir=$2
  rm -rf "$dir"; mkdir -p "$dir"
  dir=$(realpath "$dir")
  cd "$dir"
  local sample=$ROOT/data/sample.csv ref=$ROOT/data/sample_beats.csv
  cp "$sample" copy.csv  # `score` input: a recording the model was not trained on (by name)
  step run_rr "$exe" run "$sample" --reference "$ref" --seed 7 --device cpu --out run_rr
  step run_rr_json "$exe" run "$sample" --seed 7 --epochs 3 --device cpu --out run_rr_json --json
  step run_seed "$exe" run "$sample" --preset seed --model seed --reference "$ref" --seed 7 --device cpu --out run_seed
  step score_rr "$exe" score copy.csv --model run_rr/model.safetensors --device cpu --reference "$ref" --out score_rr
  step score_seed "$exe" score copy.csv --model run_seed/model.safetensors --device cpu --out score_seed --json
  step detect_robust "$exe" detect "$sample" --device cpu --out detect_robust.csv
  step detect_seed "$exe" detect "$sample" --preset seed --device cpu --out detect_seed.csv
  step eval_detect "$exe" eval --reference "$ref" detect_robust.csv
  step eval_detect_json "$exe" eval --reference "$ref" detect_seed.csv --json
  step eval_run "$exe" eval --reference "$ref" run_rr/beats.csv
  step eval_run_json "$exe" eval --reference "$ref" run_seed/beats.csv --json
  if [[ -d $DS1/wfdb ]]; then
    mkdir -p ds1
    local rec
    for csv in "$DS1"/[0-9][0-9][0-9].csv; do
      rec=$(basename "$csv" .csv)
      step "ds1/detect_$rec" "$exe" detect "$csv" --fs 360 --device cpu --out "ds1/$rec.csv"
      step "ds1/eval_$rec" "$exe" eval --reference "$DS1/wfdb/$rec.atr" "ds1/$rec.csv"
      step "ds1/eval_${rec}_json" "$exe" eval --reference "$DS1/wfdb/$rec.atr" "ds1/$rec.csv" --json
    done
    for rec in $DS1_RUN_RECORDS; do
      step "ds1/run_$rec" "$exe" run "$DS1/$rec.csv" --fs 360 --epochs 2 --seed 7 --device cpu \
        --reference "$DS1/wfdb/$rec.atr" --out "ds1/run_$rec"
    done
  else
    echo "compare-outputs: $DS1 absent, DS1 cases skipped" >&2
  fi
  find . -name '*.stderr' -delete
  normalise .
  echo "compare-outputs: captured $(find . -type f | wc -l) files from $exe into $dir" >&2
}

compare() {  # DIR_A DIR_B
  if diff -r "$1" "$2" > /dev/null; then
    echo "compare-outputs: identical: $(find "$1" -type f | wc -l) files ($1 vs $2)"
  else
    echo "compare-outputs: DIFFERENT:"
    diff -rq "$1" "$2" || true
    return 1
  fi
}

case "${1:-}" in
  capture) capture "$2" "$3" ;;
  diff) compare "$2" "$3" ;;
  "" | -h | --help) sed -n '2,20p' "$0"; exit 2 ;;
  *)
    work=${3:-$(mktemp -d)}
    (capture "$1" "$work/before")
    (capture "$2" "$work/after")
    compare "$work/before" "$work/after"
    ;;
esac
