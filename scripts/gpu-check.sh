#!/usr/bin/env bash
# On a GPU host: build (offline prefix from .deps/), run the whole test suite, `ecgpipe selftest`,
# the GPU tests under compute-sanitizer (memcheck, racecheck, initcheck, synccheck), then the
# benchmark. Each part can be left out:
#   STEPS="build test selftest sanitize bench" scripts/gpu-check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
STEPS=${STEPS:-build test selftest sanitize bench}
BUILD_DIR=${BUILD_DIR:-build-gpu}
GPU_FILTER='*Gpu*:*Cuda*:*GPU*:*CUDA*'
status=0
has() { [[ " $STEPS " == *" $1 "* ]]; }

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
if has build; then
  time BUILD_DIR=$BUILD_DIR scripts/offline-deps.sh build >"${OUT:-/tmp}/build.log" 2>&1 || { tail -60 "${OUT:-/tmp}/build.log"; exit 1; }
  grep -E "ecgpipe:|warning" "${OUT:-/tmp}/build.log" | head -20
fi
if has test; then
  echo "== ctest"
  # One CPU thread per test (CMakeLists.txt), 8 tests at a time.
  (cd "$BUILD_DIR" && ctest --output-on-failure -j "${JOBS:-8}" --timeout 300 -LE isolated) >"${OUT:-/tmp}/ctest.log" 2>&1 || status=1
  grep -vE "^ *(Start|[0-9]+/[0-9]+ Test .*(Passed|Skipped))" "${OUT:-/tmp}/ctest.log" | tail -40
  echo "slowest:"; grep -E "Test +#" "${OUT:-/tmp}/ctest.log" | awk '{print $(NF-1), $4}' | sort -rn | head -5
  echo "== GPU tests alone"
  "$BUILD_DIR/ecgpipe_tests" --gtest_filter="$GPU_FILTER" --gtest_brief=1 2>&1 | tail -25 || status=1
fi
if has selftest; then
  echo "== ecgpipe selftest"
  "$BUILD_DIR/ecgpipe" -q selftest --junit "${OUT:-/tmp}/selftest.xml" || status=1
fi
if has sanitize; then
  for tool in memcheck racecheck initcheck synccheck; do
    echo "== compute-sanitizer --tool $tool"
    compute-sanitizer --tool "$tool" --error-exitcode 9 "$BUILD_DIR/ecgpipe_tests" --gtest_filter="$GPU_FILTER" --gtest_brief=1 2>&1 | tail -12 || status=1
  done
fi
if has bench; then
  echo "== benchmark"
  scripts/bench.sh "$BUILD_DIR" "${BENCH_SAMPLES:-20000000}" 2>&1 || status=1
fi
exit $status
