#!/usr/bin/env bash
# AF from beat times (`ecgpipe rhythm`) against expert rhythm annotations, per record and gross
# (EC57 / epicmp -a: episode and duration Se / +P), on
#   - the MIT-BIH AF database's beat times (../shared/data/afdb-beats: NNNNN_beats.csv, the .qrs
#     detector's beats, unreviewed; NNNNN_rhythm.csv), and
#   - MIT-BIH DS1 (../shared/data/mitdb-ds1: the .atr's reference beats and rhythm changes), and
#   - MIT-BIH DS1's signals through `ecgpipe run` (ds1-run: detected beats, predicted V beats and
#     the P-wave context; its report.json evaluation.af against the .atr).
# The detector's numbers were chosen by leave-one-record-out cross-validation on the AF
# database (docs/accuracy.md, "Rhythm"); these figures are of the chosen defaults.
#
#   scripts/eval-af.sh [--ecgpipe build/ecgpipe] [--data ../shared/data] [--out DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
EXE=build/ecgpipe
DATA=../shared/data
OUT=${TMPDIR:-/tmp}/ecgpipe-eval-af
while (($#)); do
  case $1 in
    --ecgpipe) EXE=$2; shift 2 ;;
    --data) DATA=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) echo "eval-af.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$OUT"
jsons=()
if [[ -d $DATA/afdb-beats ]]; then
  for b in "$DATA"/afdb-beats/*_beats.csv; do
    rec=$(basename "$b" _beats.csv)
    "$EXE" -q rhythm "$b" --fs 250 --reference "$DATA/afdb-beats/${rec}_rhythm.csv" --out "$OUT/afdb-$rec" --json \
      > "$OUT/afdb-$rec.json"
    jsons+=("afdb:$rec:$OUT/afdb-$rec.json")
  done
fi
if [[ -d $DATA/mitdb-ds1 ]]; then
  for a in "$DATA"/mitdb-ds1/wfdb/*.atr; do
    rec=$(basename "$a" .atr)
    "$EXE" -q rhythm "$a" --reference "$a" --out "$OUT/ds1-$rec" --json > "$OUT/ds1-$rec.json"
    jsons+=("ds1:$rec:$OUT/ds1-$rec.json")
  done
fi
if [[ -d $DATA/mitdb-ds1 ]]; then
  for a in "$DATA"/mitdb-ds1/wfdb/*.atr; do
    rec=$(basename "$a" .atr)
    [[ -f $DATA/mitdb-ds1/$rec.csv ]] || continue
    "$EXE" -q run "$DATA/mitdb-ds1/$rec.csv" --fs 360 --epochs 1 --reference "$a" --out "$OUT/run-$rec"
    python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); a=j["holter"]["af"]; a["af"]=j["evaluation"]["af"]; print(json.dumps(a))' \
      "$OUT/run-$rec/report.json" > "$OUT/run-$rec.json"
    jsons+=("ds1-run:$rec:$OUT/run-$rec.json")
  done
fi
if ((${#jsons[@]} == 0)); then echo "eval-af.sh: no data under $DATA" >&2; exit 3; fi
python3 - "${jsons[@]}" <<'PY'
import json, sys
rows = {}
for arg in sys.argv[1:]:
    db, rec, path = arg.split(':', 2)
    rows.setdefault(db, []).append((rec, json.load(open(path))))
keys = ['reference_episodes', 'detected_reference_episodes', 'test_episodes', 'true_test_episodes',
        'reference_af_s', 'overlap_of_reference_s', 'test_af_s', 'overlap_of_test_s']
def pct(a, b): return f'{100 * a / b:5.1f}' if b > 0 else '    -'
print(f"{'record':>10} {'ref AF h':>8} {'det AF h':>8} {'ep Se':>6} {'ep +P':>6} {'dur Se':>6} {'dur +P':>6} {'false AF % of non-AF':>21}")
for db, rs in rows.items():
    g = {k: 0.0 for k in keys}
    analysed = non_af_false = 0.0
    for rec, j in rs:
        a = j['af']
        for k in keys: g[k] += a[k]
        false_s = a['test_af_s'] - a['overlap_of_test_s']
        non_af = j['analysed_s'] - a['reference_af_s']
        analysed += non_af; non_af_false += false_s
        print(f"{db + ' ' + rec:>10} {a['reference_af_s'] / 3600:8.2f} {a['test_af_s'] / 3600:8.2f} "
              f"{pct(a['detected_reference_episodes'], a['reference_episodes']):>6} {pct(a['true_test_episodes'], a['test_episodes']):>6} "
              f"{pct(a['overlap_of_reference_s'], a['reference_af_s']):>6} {pct(a['overlap_of_test_s'], a['test_af_s']):>6} {pct(false_s, non_af):>21}")
    print(f"{db + ' gross':>10} {g['reference_af_s'] / 3600:8.2f} {g['test_af_s'] / 3600:8.2f} "
          f"{pct(g['detected_reference_episodes'], g['reference_episodes']):>6} {pct(g['true_test_episodes'], g['test_episodes']):>6} "
          f"{pct(g['overlap_of_reference_s'], g['reference_af_s']):>6} {pct(g['overlap_of_test_s'], g['test_af_s']):>6} {pct(non_af_false, analysed):>21}")
PY
