#!/usr/bin/env bash
# One command from a fresh clone: install what is missing, build, and run the whole test suite.
# GPU tests skip (with the reason) where no CUDA device is present. Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
cd build
# Each test runs with one CPU thread (CMakeLists.txt); the cores are used by running tests in parallel.
# -LE isolated: the in-process tests run once, all in one process (label unit), not again one
# process each (label isolated; CMakeLists.txt).
ctest --output-on-failure --timeout 900 -j "${JOBS:-$(nproc)}" -LE isolated
