#!/usr/bin/env bash
# One command from a fresh clone: install what is missing, build, and run the pipeline on the
# bundled sample (data/sample.csv). Results land in ecgpipe-out/. Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
./build/ecgpipe run data/sample.csv --epochs "${EPOCHS:-30}" --out ecgpipe-out "$@"
echo "demo: outputs in $(pwd)/ecgpipe-out: $(ls ecgpipe-out | tr '\n' ' ')"
