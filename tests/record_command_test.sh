#!/usr/bin/env bash
# `tbprof record -- CMD` end to end with the fake libcupti (no GPU): the
# collector is injected, the job's capture is converted into the run, and
# the job's exit status is passed through.
#   record_command_test.sh TBPROF FAKE_JOB COLLECTOR
set -euo pipefail
tbprof=$1 job=$2 collector=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 1. A job of 4 steps: one host's xplane.pb with steps, kernels and views.
"$tbprof" record --logdir "$work/tb" --run r1 --collector "$collector" -- "$job" 4 \
  > "$work/out1" 2> "$work/err1" || fail "record exited $? ($(cat "$work/err1"))"
run="$work/tb/plugins/profile/r1"
ls "$run"/*.tbcap > /dev/null || fail "no capture in $run"
xplane=$(ls "$run"/*.xplane.pb) || fail "no xplane.pb in $run"
ls "$run"/*.kernel_stats.pb > /dev/null || fail "no precomputed kernel stats"
"$tbprof" inspect "$xplane" > "$work/inspect" || fail "inspect failed"
grep -q '/device:GPU:0' "$work/inspect" || fail "no GPU plane: $(cat "$work/inspect")"
grep -Eq 'kernel_stats +data' "$work/inspect" || fail "no kernel stats: $(cat "$work/inspect")"
grep -Eq 'overview_page +data' "$work/inspect" || fail "no steps: $(cat "$work/inspect")"

# 2. The job's exit status is tbprof's, and its capture is still converted.
set +e
"$tbprof" record --logdir "$work/tb" --run r2 --collector "$collector" -- "$job" 2 7 \
  > /dev/null 2> "$work/err2"
rc=$?
set -e
[ "$rc" -eq 7 ] || fail "expected exit status 7, got $rc"
ls "$work/tb/plugins/profile/r2/"*.xplane.pb > /dev/null || fail "r2 not converted"

# 3. Usage errors exit 2; a job that never initialises CUDA is explained.
set +e
"$tbprof" record --logdir "$work/tb" > /dev/null 2>&1; [ $? -eq 2 ] || fail "no command: not 2"
"$tbprof" record -- true > /dev/null 2>&1; [ $? -eq 2 ] || fail "no logdir: not 2"
"$tbprof" record --logdir "$work/tb" --run r3 --collector "$collector" -- true \
  > /dev/null 2> "$work/err3"
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "a job without CUDA reported success"
grep -q "no capture was written" "$work/err3" || fail "unclear message: $(cat "$work/err3")"
echo "record_command_test: all checks passed"
