#!/usr/bin/env bash
# One command from a fresh clone: install what is missing, build, and run the pipeline on the
# bundled sample (data/sample.csv). Results land in ecgpipe-out/. Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
# The sample is 10 minutes (~700 beats): the robust detector finds every beat of it (the seed's
# gates miss ~2 %), and batches of 64 give the VAE ~9 steps an epoch instead of the single step
# that the seed's batch of 1024 would leave it with.
./build/ecgpipe run data/sample.csv --preset robust --batch-size 64 --epochs "${EPOCHS:-30}" --out ecgpipe-out "$@"
echo "demo: outputs in $(pwd)/ecgpipe-out: $(ls ecgpipe-out | tr '\n' ' ')(open report.html in a browser)"
