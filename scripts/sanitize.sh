#!/usr/bin/env bash
# The unit and CLI tests under AddressSanitizer + UndefinedBehaviorSanitizer (clang, host code
# only: ECGPIPE_CUDA=OFF, the GPU tests skip as on CI). Fails on any report: every check is fatal
# (-fno-sanitize-recover=all, halt_on_error), and every report is also written to
# $BUILD_DIR/sanitizer-logs/, which must stay empty -- so a report in a child process (the CLI
# tests run the sanitized ecgpipe) fails the job even where the test itself expected a failure.
# LeakSanitizer is on; only LibTorch's own never-freed registries are suppressed (tests/fuzz/lsan.supp).
# The build also holds the libFuzzer harnesses (ECGPIPE_FUZZ), so CI runs scripts/fuzz.sh on it
# with FUZZ_BUILD_DIR=$BUILD_DIR instead of a second sanitized build.
#
#   scripts/sanitize.sh [ctest arguments, e.g. -R Csv]
#   env: SANITIZE_BUILD_DIR (build-san), CXX_SANITIZE (clang++), JOBS (nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${SANITIZE_BUILD_DIR:-build-san}
CXX_SANITIZE=${CXX_SANITIZE:-clang++}
GEN=()
command -v ninja >/dev/null && GEN=(-G Ninja)
if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then
  # -O1 with line tables: quick to build, readable stacks, and ASan's usual optimisation level.
  cmake -S . -B "$BUILD_DIR" "${GEN[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DCMAKE_CXX_COMPILER="$CXX_SANITIZE" \
    -DECGPIPE_CUDA=OFF -DECGPIPE_SANITIZE=ON -DECGPIPE_FUZZ=ON -DBUILD_TESTING=ON >/dev/null
fi
cmake --build "$BUILD_DIR" --parallel "${JOBS:-$(nproc)}"

logs="$PWD/$BUILD_DIR/sanitizer-logs"
rm -rf "$logs" "$BUILD_DIR/sanitizer-tracer" && mkdir -p "$logs"
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:strict_string_checks=1:log_path=$logs/asan:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$logs/ubsan:${UBSAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0:${LSAN_OPTIONS:-}"
status=0
# --repeat until-pass:2: a test that fails is run once more, and fails the job only if it fails
# again (both outputs stay in the log), for LeakSanitizer's own crashes (below). The hangs once
# blamed on it (CI 2026-11-26: Issue11/CliBadOption..., "[ RUN ]" and then nothing for 600 s) were
# the test's own loop over its command's placeholders, fixed on 2026-11-27 (tests/test_util.hpp
# fill_placeholders). The plain test run (scripts/test.sh) runs every test once, without this.
(cd "$BUILD_DIR" && ctest --output-on-failure --timeout 900 --repeat until-pass:2 -j "${JOBS:-$(nproc)}" "$@") || status=$?
# LeakSanitizer's own failure is not a report on ecgpipe: its tracer (the ptrace helper that stops
# the threads for the leak check at exit) can crash, and the process then aborts after
# "LeakSanitizer has encountered a fatal error" without having checked anything (2026-11-26, CI's
# sanitizer stage: TorchModuleCli.ThreadsGivenBeforeTheLoadReachLibTorch, a run with LibTorch's
# threads, "Tracer caught signal 11", exit 134; its rerun above passed, leak-checked; at stop 39 the
# rerun crashed too, so that test's child now runs without the leak check). A log of only
# those lines is shown and set aside; the test's rerun decides. Any other
# line in a log (a leak, an ASan or UBSan report) still fails the job.
tracer_only() { ! grep -vqE "^(Tracer caught signal|==[0-9]+==(LeakSanitizer has encountered a fatal error|HINT: ))" "$1"; }
for f in "$logs"/*; do
  [[ -e $f ]] || continue
  if tracer_only "$f"; then
    echo "sanitize.sh: LeakSanitizer's tracer failed (no report on ecgpipe; the test's rerun decides): $f" >&2
    cat "$f" >&2
    mkdir -p "$BUILD_DIR/sanitizer-tracer" && mv "$f" "$BUILD_DIR/sanitizer-tracer/"
  fi
done
if compgen -G "$logs/*" >/dev/null; then
  echo "sanitize.sh: sanitizer reports:" >&2
  for f in "$logs"/*; do echo "== $f" >&2; head -40 "$f" >&2; done
  status=1
fi
exit "$status"
