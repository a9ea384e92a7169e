#!/usr/bin/env bash
# One command from a fresh clone: install what is missing, build, and run the whole test suite.
# GPU tests skip (with the reason) where no CUDA device is present. Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
cd build
# Tests run in parallel, and each LibTorch process would start one OpenMP thread per core: on a
# 16-core host 8 tests x 16 spinning threads made a 1-second CPU training test take 5 minutes.
# Share the cores out instead.
jobs=${JOBS:-$(nproc)}
threads=$(( $(nproc) / jobs ))
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(( threads > 0 ? threads : 1 ))}
ctest --output-on-failure --timeout 900 -j "$jobs"
