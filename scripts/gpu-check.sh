#!/usr/bin/env bash
# On a GPU host: build (offline prefix from .deps/), run the whole test suite, `ecgpipe selftest`,
# the GPU tests under compute-sanitizer (memcheck, racecheck, initcheck, synccheck), then the
# benchmark. Each part can be left out:
#   STEPS="build test selftest sanitize bench python" scripts/gpu-check.sh
# python: the Python package (issue 28) built into the host's PyTorch environment from wheels
# carried in .deps/wheels (no network there: scripts/offline-deps.sh wheels), its tests, and
# python/benchmarks/bench_detect.py.
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
if has python; then
  echo "== Python package"
  python3 -m pip install -q --no-index --find-links .deps/wheels scikit-build-core nanobind pytest || status=1
  start=$SECONDS
  # The same prefix of Debian packages as the build; one GPU architecture, as above.
  python3 -m pip install -q --no-build-isolation --no-deps ./python \
    --config-settings=build-dir="$PWD/$BUILD_DIR-python" \
    --config-settings=cmake.define.CMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" \
    --config-settings=cmake.define.CMAKE_PREFIX_PATH="${DEPS_PREFIX:-/opt/ecgpipe-deps}/usr" \
    >"${OUT:-/tmp}/pip.log" 2>&1 || { tail -40 "${OUT:-/tmp}/pip.log"; status=1; }
  echo "pip install ./python: $((SECONDS - start)) s"
  python3 -c 'import ecgpipe, torch; print("ecgpipe", ecgpipe.__version__, "CUDA", ecgpipe.cuda_available(), "torch", torch.__version__)' || status=1
  python3 python/tests/run.py "$BUILD_DIR/ecgpipe" -rs 2>&1 | tail -25 || status=1
  python3 python/benchmarks/bench_detect.py "$BUILD_DIR/ecgpipe" 2>&1 || status=1
fi
exit $status
