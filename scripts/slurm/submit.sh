#!/usr/bin/env bash
# Runs ecgpipe over a manifest of recordings as a Slurm job array, then summarizes:
#   scripts/slurm/submit.sh [--tasks N] [--wait] [--ecgpipe PATH] MANIFEST OUT [-- run options...]
#   e.g. scripts/slurm/submit.sh --tasks 16 db.txt results -- --fs 360 --epochs 30
# N tasks (default: one per recording, at most 64) each take every N-th recording; a job that
# runs once all of them have ended, however they ended (afterany), writes OUT/summary.{csv,json}
# and OUT/index.html and reports the recordings that failed (exit 6 if any). Extra sbatch options
# (partition, account, GPUs) go in SBATCH_ARGS, e.g. SBATCH_ARGS="-p gpu --gres=gpu:1".
# --wait blocks until the summary job has ended and exits with its status. The run options after
# -- reach every task as they were quoted here (--column "heart beats" stays one argument).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tasks="" wait=0 ecgpipe=${ECGPIPE:-ecgpipe}
while (($#)); do
  case "$1" in
    --tasks) tasks=$2; shift 2 ;;
    --wait) wait=1; shift ;;
    --ecgpipe) ecgpipe=$2; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
(($# >= 2)) || { echo "usage: $0 [--tasks N] [--wait] [--ecgpipe PATH] MANIFEST OUT [-- run options]" >&2; exit 2; }
manifest=$(realpath "$1") out=$(realpath -m "$2"); shift 2
[[ ${1:-} == -- ]] && shift
# The tasks run in OUT: a relative --ecgpipe (build/ecgpipe) is made absolute here, and a bare
# name is looked up on this PATH now rather than failing in every task (exit 127).
if [[ $ecgpipe == */* ]]; then
  ecgpipe=$(realpath "$ecgpipe")
else
  ecgpipe=$(command -v -- "$ecgpipe") || { echo "submit: no ecgpipe on PATH; give --ecgpipe PATH" >&2; exit 2; }
fi
[[ -x $ecgpipe ]] || { echo "submit: $ecgpipe is not an executable" >&2; exit 2; }
[[ -r $manifest ]] || { echo "submit: cannot read manifest $manifest" >&2; exit 2; }
# Recordings = non-blank lines that are not comments (the manifest's own rule).
count=$(grep -cvE '^[[:space:]]*(#|$)' "$manifest" || true)
((count > 0)) || { echo "submit: $manifest lists no recording" >&2; exit 2; }
tasks=${tasks:-$((count < 64 ? count : 64))}
((tasks >= 1 && tasks <= count)) || { echo "submit: --tasks must be 1..$count" >&2; exit 2; }
mkdir -p "$out"
# The run options, NUL-separated in a file the tasks read into an array: each argument arrives as
# it was quoted here, and no task ever evaluates them as shell text.
args_file="$out/.ecgpipe-slurm-args"
printf '%s\0' "$@" >"$args_file"
# The tasks read these from their environment (--export=ALL): values may hold spaces and commas.
export MANIFEST=$manifest OUT=$out ECGPIPE=$ecgpipe ECGPIPE_ARGS_FILE=$args_file
# shellcheck disable=SC2086
array=$(sbatch --parsable ${SBATCH_ARGS:-} --array="0-$((tasks - 1))" --chdir="$out" \
  --export=ALL "$here/ecgpipe-array.sbatch")
array=${array%%;*}
wait_flag=()
((wait)) && wait_flag=(--wait)
# shellcheck disable=SC2086
summary=$(sbatch --parsable ${SBATCH_ARGS:-} "${wait_flag[@]}" --dependency="afterany:$array" --kill-on-invalid-dep=yes \
  --chdir="$out" --export=ALL "$here/ecgpipe-summarize.sbatch") || status=$?
echo "submit: array job $array ($tasks tasks over $count recordings), summary job ${summary%%;*} -> $out"
exit "${status:-0}"
