#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) in build-fuzz/ and runs
# each one for a while on its seed corpus, one target at a time.
#
#   ./scripts/fuzz.sh                 60 s per target, every target
#   ./scripts/fuzz.sh 600             10 minutes per target
#   ./scripts/fuzz.sh 300 xspace      one target
#
# Targets: chrome_json chrome_json_gzip chrome_json_threads xspace raw_capture
#          control_protocol rocprof memory_snapshot
# (tests/fuzz/).
# Seeds come from tests/fuzz/corpus/<target>/ and tests/fuzz/regressions/
# <target>/; what the fuzzer finds on the way goes to a scratch corpus in
# $FUZZ_WORK/<target>/ (default build-fuzz/fuzz-work), never into the repo.
# A crash, leak, timeout (-timeout, default 10 s) or out-of-memory
# (-rss_limit_mb, default 2048) stops that target; its reproducer is left in
# $FUZZ_WORK/artifacts/<target>/ and the script exits 1 at the end. Keep a
# fixed reproducer in tests/fuzz/regressions/<target>/ (fuzz_regression_test
# replays it in the normal build).
#
# Environment: BUILD_DIR (build-fuzz), FUZZ_WORK, JOBS (2), CC/CXX (clang),
# FUZZ_TIMEOUT (10), FUZZ_RSS_MB (2048), FUZZ_ENTROPIC (0), FUZZ_ARGS (extra
# libFuzzer flags, e.g. "-fork=1 -ignore_crashes=1" to collect every crash).
set -uo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_TARGET=${1:-60}
shift || true
ALL_TARGETS=(chrome_json chrome_json_gzip chrome_json_threads xspace raw_capture control_protocol
             rocprof memory_snapshot nsys_sqlite)
if [ $# -gt 0 ]; then TARGETS=("$@"); else TARGETS=("${ALL_TARGETS[@]}"); fi

BUILD_DIR=${BUILD_DIR:-build-fuzz}
FUZZ_WORK=${FUZZ_WORK:-$BUILD_DIR/fuzz-work}
JOBS=${JOBS:-2}
FUZZ_TIMEOUT=${FUZZ_TIMEOUT:-10}
FUZZ_RSS_MB=${FUZZ_RSS_MB:-2048}
export CC=${CC:-clang} CXX=${CXX:-clang++}

if ! command -v "$CXX" >/dev/null 2>&1; then
  echo "fuzz.sh: $CXX not found; libFuzzer needs clang (apt-get install clang libclang-rt-dev)" >&2
  exit 2
fi
case "$SECONDS_PER_TARGET" in
  ''|*[!0-9]*) echo "fuzz.sh: seconds must be a number, got '$SECONDS_PER_TARGET'" >&2; exit 2 ;;
esac

configure_args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DTBPROF_FUZZ=ON -DTBPROF_BUILD_TESTS=OFF
                -DTBPROF_BUILD_BENCHMARKS=OFF -DTBPROF_WITH_CUPTI=OFF)
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then
  configure_args+=(-G Ninja)
fi
if command -v ccache >/dev/null 2>&1; then
  configure_args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$BUILD_DIR" "${configure_args[@]}" >/dev/null || exit 2
fuzzers=()
for t in "${TARGETS[@]}"; do fuzzers+=("${t}_fuzzer"); done
cmake --build "$BUILD_DIR" -j"$JOBS" --target "${fuzzers[@]}" || exit 2

# Leaks are bugs; keep allocator errors loud; no symbolizer warnings noise.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0:handle_abort=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# Entropic scheduling costs more than half of each run here (libFuzzer's
# UpdateFeatureFrequency over ~40k features per input); without it the
# targets run 2-3x more inputs per second. FUZZ_ENTROPIC=1 turns it back on.
ENTROPIC=()
if [ "${FUZZ_ENTROPIC:-0}" = 0 ]; then ENTROPIC=(-entropic=0); fi

failed=()
for t in "${TARGETS[@]}"; do
  fuzzer="$BUILD_DIR/tests/fuzz/${t}_fuzzer"
  work="$FUZZ_WORK/$t"
  artifacts="$FUZZ_WORK/artifacts/$t"
  mkdir -p "$work" "$artifacts" "tests/fuzz/regressions/$t"
  dict=()
  case "$t" in
    chrome_json*) dict=(-dict=tests/fuzz/chrome_json.dict) ;;
    xspace) dict=(-dict=tests/fuzz/xspace.dict) ;;
    control_protocol) dict=(-dict=tests/fuzz/control_protocol.dict) ;;
    rocprof) dict=(-dict=tests/fuzz/rocprof.dict) ;;
    memory_snapshot) dict=(-dict=tests/fuzz/memory_snapshot.dict) ;;
  esac
  echo "=== fuzzing $t for ${SECONDS_PER_TARGET}s"
  # shellcheck disable=SC2086
  "$fuzzer" "$work" "tests/fuzz/corpus/$t" "tests/fuzz/regressions/$t" \
      -max_total_time="$SECONDS_PER_TARGET" -timeout="$FUZZ_TIMEOUT" \
      -rss_limit_mb="$FUZZ_RSS_MB" -max_len=200000 -print_final_stats=1 "${ENTROPIC[@]}" \
      -artifact_prefix="$artifacts/" "${dict[@]}" ${FUZZ_ARGS:-} \
      2>"$FUZZ_WORK/$t.log"
  rc=$?
  grep -E "^(stat::|Done|INFO: .*corpus)|#[0-9]+ *DONE" "$FUZZ_WORK/$t.log" | tail -8
  if [ $rc -ne 0 ]; then
    echo "!!! $t failed (exit $rc); last lines of $FUZZ_WORK/$t.log:" >&2
    tail -40 "$FUZZ_WORK/$t.log" >&2
    echo "!!! reproducer(s) in $artifacts:" >&2
    ls -1 "$artifacts" >&2
    failed+=("$t")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz.sh: findings in: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz.sh: no findings (${SECONDS_PER_TARGET}s per target: ${TARGETS[*]})"
