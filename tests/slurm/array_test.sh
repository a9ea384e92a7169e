#!/usr/bin/env bash
# A Slurm job array gives the same cohort summary as one local call.
#   tests/slurm/array_test.sh ECGPIPE_BINARY
# Starts a one-node Slurm on localhost (scripts/slurm/local-cluster.sh), writes four synthetic
# recordings and a manifest, runs them (1) in one `ecgpipe run --manifest` call and (2) as a
# 2-task array through scripts/slurm/submit.sh with its dependent summarize job, and compares the
# two summary.csv files without their timing column. Exit 77 (ctest: skipped) where slurm-wlm and
# munge are not installed or the daemons cannot start here.
set -euo pipefail
ecgpipe=$(realpath "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/ecgpipe-slurm-test.XXXXXX)
export ECGPIPE_SLURM_DIR=$work/cluster
cleanup() { "$root/scripts/slurm/local-cluster.sh" stop || true; rm -rf "$work"; }
trap cleanup EXIT

set +e
env_line=$("$root/scripts/slurm/local-cluster.sh" start)
rc=$?
set -e
if ((rc == 77)); then echo "SKIP: no local Slurm here"; exit 77; fi
((rc == 0)) || exit "$rc"
eval "$env_line"  # SLURM_CONF

# The signal column is called "heart beats": the option that names it must reach every task as one
# argument (issue 25: submit.sh split it and "beats" became a recording).
for i in 1 2 3 4; do
  "$ecgpipe" -q synth "$work/gen$i.csv" --duration 60 --seed "$i"
  sed '1s/^heartbeats/heart beats/' "$work/gen$i.csv" >"$work/rec$i.csv"
done
printf '# four synthetic recordings\n' >"$work/manifest.txt"
for i in 1 2 3 4; do echo "$work/rec$i.csv" >>"$work/manifest.txt"; done
opts=(--epochs 2 --device cpu --column "heart beats")

"$ecgpipe" -q --threads 1 run --manifest "$work/manifest.txt" --out "$work/local" "${opts[@]}"
# One CPU thread per task, as the local call: LibTorch's sums, and so the scores, depend on it.
# --ecgpipe relative to where submit.sh is called (issue 25: every task failed with exit 127).
(cd "$(dirname "$ecgpipe")" && SBATCH_ARGS="--cpus-per-task=1" "$root/scripts/slurm/submit.sh" --tasks 2 --wait \
  --ecgpipe "./$(basename "$ecgpipe")" "$work/manifest.txt" "$work/array" -- "${opts[@]}")

# Same rows, same values, but for the seconds each recording took.
strip() { python3 - "$1" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    for k in list(r):
        if k.startswith("seconds"):
            del r[k]
    print(sorted(r.items()))
PY
}
diff <(strip "$work/local/summary.csv") <(strip "$work/array/summary.csv")
n=$(($(wc -l <"$work/array/summary.csv") - 2))  # less the header and the GROSS row
((n == 4)) || { echo "FAIL: the array's summary has $n rows, not 4"; exit 1; }
ls "$work/array"/ecgpipe-*_*.log >/dev/null  # each array task ran under Slurm and logged

# A recording that fails (issue 25: its task's exit 6 blocked the afterok summary job: no summary at
# all): the summary job runs anyway, has the failed row and ends with exit 6.
printf 'heart beats\nnot a number\n' >"$work/bad.csv"
{ cat "$work/manifest.txt"; echo "$work/bad.csv"; } >"$work/with-bad.txt"
set +e
SBATCH_ARGS="--cpus-per-task=1" "$root/scripts/slurm/submit.sh" --tasks 2 --wait --ecgpipe "$ecgpipe" \
  "$work/with-bad.txt" "$work/array-bad" -- "${opts[@]}"
rc=$?
set -e
((rc == 6)) || { echo "FAIL: the summary job with a failed recording ended with $rc, not 6"; exit 1; }
grep -q '^bad,failed,3,' "$work/array-bad/summary.csv" || { echo "FAIL: no failed row for bad.csv"; cat "$work/array-bad/summary.csv"; exit 1; }
n=$(($(wc -l <"$work/array-bad/summary.csv") - 2))
((n == 5)) || { echo "FAIL: the summary with a failure has $n rows, not 5"; exit 1; }
echo "PASS: array of 2 tasks == one call (4 recordings, a quoted option, a relative --ecgpipe); a failed recording still gets its summary"
