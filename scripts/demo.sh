#!/usr/bin/env bash
# One command from a fresh clone: install what is missing, build, and run the pipeline on the
# bundled sample (data/sample.csv). Results land in ecgpipe-out/. Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
# The defaults (robust detector, rr model, automatic batch size); the sample's ground truth as
# --reference adds detection accuracy and the score's AUROC per beat class to report.json, and
# colours report.html's latent plot by class.
./build/ecgpipe run data/sample.csv --reference data/sample_beats.csv --epochs "${EPOCHS:-30}" --out ecgpipe-out "$@"
echo "demo: outputs in $(pwd)/ecgpipe-out: $(ls ecgpipe-out | tr '\n' ' ')(open report.html in a browser)"
