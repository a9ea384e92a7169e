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
# intercept_tls_get_addr=0: the cause of LeakSanitizer's tracer crashes (below). Up to LLVM 16
# (Debian's clang is 14) the runtime's __tls_get_addr interceptor takes a dynamic TLS block that
# starts 16 bytes into a page for a glibc 2.19 block with a header, and reads the two words before
# it as the block's address and size. Since glibc 2.25 there is no such header: the block is
# malloc'd (dlopen'd LibTorch's thread-locals), lands at that offset by chance of the heap layout,
# and the tracer then scans a range made of whatever was there ("Tracer caught signal 11:
# addr=0x3570": a small number read as an address) and dies. A property of the heap layout, not of
# timing: both times CI met it (stop 39: TorchModuleCli.ThreadsGivenBeforeTheLoadReachLibTorch,
# then Cli.NoHeaderAndColumnByName) the test crashed again on its rerun; here, six minutes of runs
# of the second one's command in folders of other name lengths never did. With verbosity=2 a `run` shows
# 5 such blocks in ASan's heap, each through that guess ("Can't guess glibc version": not at the
# offset this time); with the flag, none, and no leak reported. LLVM 17 asks the allocator instead.
# Without the interceptor LeakSanitizer does not take those blocks for roots; they are heap blocks
# that glibc's thread vector points to, so what they point to is still reached.
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:strict_string_checks=1:intercept_tls_get_addr=0:log_path=$logs/asan:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$logs/ubsan:${UBSAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0:${LSAN_OPTIONS:-}"
status=0
# --repeat until-pass:2: a test that fails is run once more, and fails the job only if it fails
# again (both outputs stay in the log), for LeakSanitizer's own crashes (below; a rerun seldom
# helps them, as their cause is the heap layout, but costs nothing when none fails). The hangs once
# blamed on it (CI 2026-11-26: Issue11/CliBadOption..., "[ RUN ]" and then nothing for 600 s) were
# the test's own loop over its command's placeholders, fixed on 2026-11-27 (tests/test_util.hpp
# fill_placeholders). The plain test run (scripts/test.sh) runs every test once, without this.
(cd "$BUILD_DIR" && ctest --output-on-failure --timeout 900 --repeat until-pass:2 -j "${JOBS:-$(nproc)}" "$@") || status=$?
# LeakSanitizer's own failure is not a report on ecgpipe: its tracer (the ptrace helper that stops
# the threads for the leak check at exit) can crash, and the process then aborts after
# "LeakSanitizer has encountered a fatal error" without having checked anything (CI 2026-11-26 and
# 2026-11-27, exit 134; the cause and its fix: intercept_tls_get_addr=0 above). Should it happen
# again, a log of only those lines is shown and set aside, and the test's rerun decides. Any other
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
