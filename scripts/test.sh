#!/usr/bin/env bash
# One command from a fresh clone: install what is missing, build, and run the whole test suite.
# GPU tests skip (with the reason) where no CUDA device is present. Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# Warnings are errors here (CI runs this script): the build was verified clean with -Wall -Wextra
# -Werror (nvcc: all warnings) on Debian 12's GCC 12, LibTorch 1.13 and CUDA 13. Another compiler
# or LibTorch may warn differently: ECGPIPE_WERROR=OFF scripts/test.sh builds without it.
scripts/build.sh -DECGPIPE_WERROR="${ECGPIPE_WERROR:-ON}"
# Each test runs with one CPU thread (CMakeLists.txt); the cores are used by running tests in parallel.
# -LE isolated: the in-process tests run once, all in one process (label unit), not again one
# process each (label isolated; CMakeLists.txt).
# wfdb-python and NeuroKit2 for the tests that compare with them (they skip without).
scripts/python-env.sh build/pyenv
cd build
ctest --output-on-failure --timeout 900 -j "${JOBS:-$(nproc)}" -LE isolated
