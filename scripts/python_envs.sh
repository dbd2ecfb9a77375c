#!/usr/bin/env bash
# Creates the Python virtual environments that tbprof's tests and benchmarks
# use beside the C++ product, each from a pinned requirements file in
# scripts/requirements/ (PyPI only). An environment whose requirements did not
# change since it was made is left as it is.
#
#   scripts/python_envs.sh            the test environment (xprof)
#   scripts/python_envs.sh xprof ...  the named environments
#   scripts/python_envs.sh --list     the known environments
#
# Environments (folder under VENV_DIR, default build/):
#   xprof   build/xprof-venv: xprof 2.24 + tensorboard 2.21 (the real profile
#           plugin that judges our files, tests/xprof), pytest, selenium.
#   wheel   build/wheel-venv: auditwheel, which finds the manylinux tag of
#           the wheel that scripts/bundle.sh makes.
#   peer    build/peer-venv: torch-tb-profiler 0.4.3, the second judge of
#           the TensorBoard tab's numbers (tests/xprof/test_tab_peer.py).
#   bench   build/bench-venv: the benchmark's peers (HTA, torch-tb-profiler).
#
# Environment: VENV_DIR (default build), PYTHON (default python3).
# Exit status: 0 when every named environment is ready, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV_DIR=${VENV_DIR:-build}
PYTHON=${PYTHON:-python3}
REQ_DIR=scripts/requirements
KNOWN=()
for f in "$REQ_DIR"/*.txt; do KNOWN+=("$(basename "$f" .txt)"); done

names=()
for arg in "$@"; do
  case "$arg" in
    --list) printf '%s\n' "${KNOWN[@]}"; exit 0 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "python_envs.sh: unknown option '$arg' (try --help)" >&2; exit 2 ;;
    *) names+=("$arg") ;;
  esac
done
[ ${#names[@]} -eq 0 ] && names=(xprof)

make_env() {
  local name=$1
  local req="$REQ_DIR/$name.txt"
  local venv="$VENV_DIR/$name-venv"
  if [ ! -f "$req" ]; then
    echo "python_envs: no environment '$name' (known: ${KNOWN[*]})" >&2
    return 1
  fi
  local want
  want=$(sha256sum "$req" | cut -d' ' -f1)
  if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.tbprof-requirements" 2>/dev/null)" = "$want" ]; then
    echo "python_envs: $venv is up to date"
    return 0
  fi
  if ! "$PYTHON" -c 'import venv, ensurepip' 2>/dev/null; then
    echo "python_envs: $PYTHON cannot make virtual environments (Debian: apt-get install python3-venv)" >&2
    return 1
  fi
  echo "python_envs: creating $venv from $req"
  rm -rf "$venv"
  mkdir -p "$VENV_DIR"
  "$PYTHON" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
  echo "$want" > "$venv/.tbprof-requirements"
  echo "python_envs: $venv ready ($("$venv/bin/python" --version 2>&1))"
}

status=0
for n in "${names[@]}"; do make_env "$n" || status=1; done
exit $status
