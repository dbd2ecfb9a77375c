#!/usr/bin/env bash
# Runs the real-plugin tests (tests/xprof, pytest) in the pinned xprof venv.
#   run_xprof_tests.sh VENV [pytest args...]
# Binaries and data come from the environment (see conftest.py): TBPROF,
# TBPROF_COLLECTOR, TBPROF_FAKE_CUPTI, TBPROF_FAKE_JOB, TBPROF_SHARED_TESTDATA.
#
# Without the venv: exit 77 (ctest: skipped) with a message, except in CI
# (CI=true), where a missing or broken plugin is a failure naming the package.
#
# Each test may take TBPROF_TEST_TIMEOUT_S (default 600 s, fixtures included):
# a test that hangs fails with its stack (pytest-timeout) and the others still
# run, well before ctest's limit on the whole file would kill it silently.
# Output is unbuffered and names each test as it ends, so even a file that
# ctest kills shows how far it got.
set -uo pipefail
venv=$1; shift
here="$(cd "$(dirname "$0")" && pwd)"
py="$venv/bin/python"
missing() {
  echo "xprof tests: $1" >&2
  echo "xprof tests: create it with scripts/python_envs.sh (README: set-up command)" >&2
  if [ "${CI:-}" = "true" ]; then exit 1; fi
  echo "xprof tests: SKIPPED (not in CI)" >&2
  exit 77
}
[ -x "$py" ] || missing "no virtual environment at $venv"
for pkg in xprof tensorboard pytest pytest_timeout; do
  "$py" -c "import $pkg" 2>/dev/null || missing "package '$pkg' cannot be imported in $venv"
done
cd "$here"
PYTHONUNBUFFERED=1 "$py" -m pytest -p no:cacheprovider -v -ra --durations=5 \
  --timeout="${TBPROF_TEST_TIMEOUT_S:-600}" "$@"
rc=$?
# pytest exit 5: no test collected -- a failure here, never a silent pass.
[ $rc -eq 5 ] && { echo "xprof tests: pytest collected no test" >&2; exit 1; }
exit $rc
