#!/usr/bin/env bash
# tools/gpu_check/run_gpu_check.sh --dry-run end to end, from the bundle, against
# the fake libcupti: the real script path, so that the GPU check cannot rot
# between the rare runs on a GPU.
#   gpu_check_dry_run_test.sh SOURCE_DIR BUNDLE_OUTDIR FAKE_CUPTI FAKE_JOB
# Checks $OUT/verdict.json: every check of the GPU verdict present once, in
# order, each passed or skipped (none failed), each with a note that says what
# the fake could and could not show, and the figures of the counted checks.
# Then again with the capture check given 1 s (GPU_CHECK_LIMITS): it must be
# failed as timed out, its job must not outlive it, and the checks after it
# must still run and pass.
set -uo pipefail
src=$1 outdir=$2 fake_cupti=$3 fake_job=$4
skip() {
  echo "gpu_check_dry_run_test: $*" >&2
  if [ "${CI:-}" = "true" ]; then echo "gpu_check_dry_run_test: FAILED (CI must run it)" >&2; exit 1; fi
  echo "gpu_check_dry_run_test: SKIPPED (not in CI)" >&2
  exit 77
}
[ -x "$outdir/tbprof/bin/tbprof" ] || skip "no bundle at $outdir/tbprof (bundle_make_test)"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bash "$src/tools/gpu_check/run_gpu_check.sh" --dry-run --bundle "$outdir/tbprof" \
  --fake-cupti "$fake_cupti" --fake-job "$fake_job" --out "$out/gpu"
rc=$?
[ -f "$out/gpu/verdict.json" ] || { echo "FAIL: no verdict.json (exit $rc)" >&2; exit 1; }
[ -s "$out/gpu/gpu_check.log" ] || { echo "FAIL: no gpu_check.log" >&2; exit 1; }
python3 - "$out/gpu/verdict.json" "$rc" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
rc = int(sys.argv[2])
want = ['cuda_program', 'torch_vs_profiler', 'overhead', 'capture', 'two_processes',
        'cuda_graphs', 'profiler_coexist', 'memory_and_kineto']
errors = []
names = [c['name'] for c in v['checks']]
if names != want:
  errors.append(f'checks {names}, want {want}')
if v.get('mode') != 'dry-run':
  errors.append(f"mode {v.get('mode')!r}")
for c in v['checks']:
  if c['status'] not in ('passed', 'skipped'):
    errors.append(f"{c['name']}: {c['status']}: {c['note']} {c['figures']}")
  if not (c['note'].startswith('fake:') or c['note'].startswith('dry run:')):
    errors.append(f"{c['name']}: the note does not say what the fake showed: {c['note']!r}")
by = {c['name']: c for c in v['checks']}
# What the fake can show, it must have shown (counts exactly as the fake launched).
expect = {'cuda_program': {'kernels': 120, 'memcpys': 20, 'memsets': 20, 'steps': 20},
          'two_processes': {'captures': 2, 'kernels': 240},
          'profiler_coexist': {'exit_code': 0, 'tbprof_lines': 1}}
for name, figs in expect.items():
  c = by.get(name, {})
  if c.get('status') != 'passed':
    errors.append(f'{name}: not passed in the dry run')
  for k, val in figs.items():
    if c.get('figures', {}).get(k) != val:
      errors.append(f"{name}: {k}={c.get('figures', {}).get(k)}, want {val}")
if by.get('capture', {}).get('status') != 'passed':
  errors.append('capture: not passed in the dry run')
if rc != 0:
  errors.append(f'run_gpu_check.sh exited {rc}')
if errors:
  print('FAIL:\n  ' + '\n  '.join(errors))
  sys.exit(1)
print(f"PASS: {len(names)} checks in verdict.json ({v['passed']} passed, {v['skipped']} skipped "
      f"by the fake), {v['seconds']} s")
PY
[ $? -eq 0 ] || exit 1

echo "== again, the capture check limited to 1 s"
GPU_CHECK_LIMITS="capture=1" bash "$src/tools/gpu_check/run_gpu_check.sh" --dry-run \
  --bundle "$outdir/tbprof" --fake-cupti "$fake_cupti" --fake-job "$fake_job" --out "$out/gpu2" \
  > "$out/gpu2.log" 2>&1
rc=$?
[ $rc -eq 1 ] || { echo "FAIL: a timed-out check must make the exit status 1, got $rc" >&2; exit 1; }
sleep 1
left=$(pgrep -f "fake_cuda_job 99999 0 20")
if [ -n "$left" ]; then
  kill $left  # The check's own job (a step count no other test uses).
  echo "FAIL: the timed-out capture check left its job running" >&2
  exit 1
fi
python3 - "$out/gpu2/verdict.json" <<'PY'
import json, sys
by = {c['name']: c for c in json.load(open(sys.argv[1]))['checks']}
errors = []
if by['capture']['status'] != 'failed' or 'timed out after 1 s' not in by['capture']['note']:
  errors.append(f"capture: {by['capture']}")
for later in ('two_processes', 'profiler_coexist'):
  if by[later]['status'] != 'passed':
    errors.append(f'{later} after the timeout: {by[later]}')
if errors:
  print('FAIL:\n  ' + '\n  '.join(errors))
  sys.exit(1)
print('PASS: a check over its limit is failed as timed out and costs only itself')
PY
