#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz (clang, -fsanitize=fuzzer,address,undefined, in
# their own build directory) and runs each for SECONDS (default 60), starting from the checked-in
# seed corpus (tests/fuzz/corpus/<harness>/). Prints the executions per harness; exits non-zero
# on any finding (a crash, a sanitizer report, an exception other than ecgpipe::Error, a leak, an
# input slower than 10 s or one needing more than 2 GiB); the input is saved as
# $FUZZ_OUT/<harness>-crash-* (reproduce: $FUZZ_BUILD_DIR/tests/fuzz/<harness> FILE).
#
#   scripts/fuzz.sh [SECONDS]      (0: build only)
#   env: FUZZ_BUILD_DIR (build-fuzz), FUZZ_OUT ($FUZZ_BUILD_DIR/fuzz-out), FUZZ_HARNESSES (all),
#        CXX_FUZZ (clang++), JOBS (nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-60}
BUILD_DIR=${FUZZ_BUILD_DIR:-build-fuzz}
OUT=${FUZZ_OUT:-$BUILD_DIR/fuzz-out}
CXX_FUZZ=${CXX_FUZZ:-clang++}
ALL="fuzz_csv_column fuzz_csv_cell fuzz_wfdb_header fuzz_wfdb_signal fuzz_wfdb_annotations fuzz_reference_csv fuzz_edf fuzz_model_meta fuzz_model_file fuzz_beat_classifier"
read -r -a HARNESSES <<< "${FUZZ_HARNESSES:-$ALL}"

if ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' |
     "$CXX_FUZZ" -fsanitize=fuzzer -x c++ - -o /dev/null 2>/dev/null; then
  echo "fuzz.sh: $CXX_FUZZ cannot link libFuzzer (Debian: apt-get install -y clang libclang-rt-14-dev)" >&2
  exit 2
fi

GEN=()
command -v ninja >/dev/null && GEN=(-G Ninja)
if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then
  # No CUDA (nvcc takes no -fsanitize; the readers are host code), no unit tests unless the
  # directory is shared with scripts/sanitize.sh (CI), which configures it with them.
  cmake -S . -B "$BUILD_DIR" "${GEN[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$CXX_FUZZ" \
    -DECGPIPE_CUDA=OFF -DECGPIPE_SANITIZE=ON -DECGPIPE_FUZZ=ON -DBUILD_TESTING=OFF >/dev/null
fi
cmake --build "$BUILD_DIR" --target "${HARNESSES[@]}" --parallel "${JOBS:-$(nproc)}"

if ((SECONDS_EACH <= 0)); then exit 0; fi  # 0: build only
mkdir -p "$OUT"
# ASan: every report fatal; LSan on (the harnesses free what they allocate; no harness links
# LibTorch, whose start-up leaks tests/fuzz/lsan.supp suppresses for scripts/sanitize.sh).
# No detect_stack_use_after_return: it made fuzz_csv_column 2.4 times slower (40000 runs: 3.6 vs
# 1.5 CPU seconds), and the readers return no pointers into their stack frames.
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:strict_string_checks=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0:${LSAN_OPTIONS:-}"
# Longest input per harness (libFuzzer's -max_len). Binary readers and the CSV column reader get
# 4 KiB (several 212 frames and annotation runs, EDF's 256-byte header plus a signal header and
# records). The line parsers get about four times their largest real file or a few dozen lines:
# a WFDB header of 12 signals with comments is under 1 KiB, the model's meta record under 300
# bytes, and a reference CSV's rows repeat one shape. The model file gets 8 KiB: a header of a few
# tensors and the meta record, and their floats; the beat classifier 8 KiB: a few small trees
# (three of the real one's trees and three of its lead2 model's are the seed; longer inputs repeat trees). Longer inputs only repeat what shorter ones
# cover and cost libFuzzer's instrumented comparisons per byte: at 4 KiB these harnesses ran at
# 9-16 k/s, at these limits 19-22 k/s over a whole 600 s run (this machine, one core each).
max_len_of() {
  case $1 in
    fuzz_wfdb_header) echo 2048 ;;
    fuzz_reference_csv | fuzz_model_meta) echo 1024 ;;
    fuzz_model_file | fuzz_beat_classifier) echo 8192 ;;
    *) echo 4096 ;;
  esac
}
# The harnesses run JOBS at a time: each is one process on one core (libFuzzer's default), so on
# CI's 2 cores the ten take half the wall time, each with the same CPU seconds as alone.
run_one() {
  local h=$1 corpus="$OUT/corpus/$1" rc=0  # the corpus grows across runs; the seeds stay read-only in tests/fuzz/corpus
  mkdir -p "$corpus"
  "$BUILD_DIR/tests/fuzz/$h" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -max_len="$(max_len_of "$h")" \
    -print_final_stats=1 -artifact_prefix="$OUT/$h-" "$corpus" "tests/fuzz/corpus/$h" >"$OUT/$h.log" 2>&1 || rc=$?
  echo "$rc" >"$OUT/$h.rc"
}
jobs_at_once=${JOBS:-$(nproc)}
# Ctrl-C reaches the harnesses too (one process group); each stops by itself after SECONDS anyway.
running=0
for h in "${HARNESSES[@]}"; do
  rm -f "$OUT/$h.rc"
  run_one "$h" &
  if ((++running >= jobs_at_once)); then
    wait -n || true
    ((running--))
  fi
done
wait
failed=()
printf '%-24s %8s %12s %10s %s\n' harness max_len executions per_second result
for h in "${HARNESSES[@]}"; do
  log="$OUT/$h.log"
  rc=$(cat "$OUT/$h.rc" 2>/dev/null || echo "none (the harness did not finish)")
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" 2>/dev/null | grep -o '[0-9]*$' | tail -1)
  execs=${execs:-0}
  result=ok
  if [[ $rc != 0 ]]; then
    result="FINDING (exit $rc, see $log)"
    failed+=("$h")
  fi
  printf '%-24s %8s %12s %10s %s\n' "$h" "$(max_len_of "$h")" "$execs" "$((execs / (SECONDS_EACH > 0 ? SECONDS_EACH : 1)))" "$result"
done
if ((${#failed[@]})); then
  echo "fuzz.sh: findings in: ${failed[*]}" >&2
  for h in "${failed[@]}"; do grep -m3 -E 'ERROR|FUZZ FINDING|runtime error|Test unit written' "$OUT/$h.log" >&2 || true; done
  exit 1
fi
