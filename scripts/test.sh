#!/usr/bin/env bash
# Builds everything in build/ and runs all tests (unit and end-to-end).
#
#   ./scripts/test.sh                    configure if needed, build, ctest
#   ./scripts/test.sh -R cli_test        extra arguments go to ctest
#
# Environment: BUILD_DIR (default build), JOBS (default 2). End-to-end tests
# read the real traces in ../shared/testdata and skip when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-2}

configure_args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DTBPROF_BUILD_TESTS=ON)
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then
  configure_args+=(-G Ninja)
fi
if command -v ccache >/dev/null 2>&1; then
  configure_args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$BUILD_DIR" "${configure_args[@]}"
cmake --build "$BUILD_DIR" -j"$JOBS"
cd "$BUILD_DIR"
ctest --output-on-failure -j"$JOBS" "$@"
