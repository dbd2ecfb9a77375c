#!/usr/bin/env bash
# One-command set-up: installs the build dependencies that are missing
# (Debian/Ubuntu, apt-get; sudo only when not root), builds tbprof in build/,
# converts the bundled sample trace into ./tb_sample and says how to open it.
#
#   ./scripts/setup.sh              everything
#   ./scripts/setup.sh --deps-only  only install missing packages and the Python
#                                   test environments (used by CI)
#
# Environment: BUILD_DIR (default build), JOBS (default: number of CPUs).
set -euo pipefail
cd "$(dirname "$0")/.."

# Build: compilers, CMake, protobuf, abseil, zlib, ISA-L (fast gzip), simdjson,
# gRPC (the capture server of `tbprof serve`).
# Tests: GoogleTest/Benchmark, Chromium (renders the HTML report headless).
# The relocatable bundle (scripts/bundle.sh): patchelf; its bare-system test:
# debootstrap (tests/bundle).
PACKAGES=(libabsl-dev libprotobuf-dev protobuf-compiler libsimdjson-dev libgtest-dev
          libgmock-dev libbenchmark-dev zlib1g-dev libsqlite3-dev libisal-dev libgrpc++-dev protobuf-compiler-grpc
          cmake ninja-build g++ pkg-config patchelf debootstrap
          chromium chromium-driver clang libclang-rt-dev python3-venv)
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
DEPS_ONLY=0
for arg in "$@"; do
  case "$arg" in
    --deps-only) DEPS_ONLY=1 ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup.sh: unknown argument '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

install_missing_packages() {
  local missing=()
  for pkg in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$pkg")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    echo "setup: all build dependencies are installed"
    return
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: missing packages: ${missing[*]}" >&2
    echo "setup: no apt-get here; install the equivalents with your package manager" >&2
    exit 1
  fi
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
  echo "setup: installing ${missing[*]}"
  ${sudo[@]+"${sudo[@]}"} apt-get update
  DEBIAN_FRONTEND=noninteractive ${sudo[@]+"${sudo[@]}"} apt-get install -y --no-install-recommends \
    "${missing[@]}"
}

# Only when dpkg exists (Debian/Ubuntu); elsewhere assume the tools are there.
if command -v dpkg-query >/dev/null 2>&1; then
  install_missing_packages
fi
# The Python environments beside the product (pinned, PyPI): xprof and
# TensorBoard, which judge our files in the tests, and auditwheel, which tags
# the bundle's wheel, and torch-tb-profiler, which judges the tab's numbers
# (scripts/python_envs.sh).
./scripts/python_envs.sh xprof wheel peer
[ "$DEPS_ONLY" -eq 1 ] && exit 0

configure_args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then
  configure_args+=(-G Ninja)
fi
if command -v ccache >/dev/null 2>&1; then
  configure_args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$BUILD_DIR" "${configure_args[@]}"
cmake --build "$BUILD_DIR" --target tbprof -j"$JOBS"

TBPROF="$BUILD_DIR/tools/tbprof/tbprof"
SAMPLE=testdata/samples/h100_bert_small_inference.json.gz
"$TBPROF" convert "$SAMPLE" --logdir tb_sample --run bert_sample --force

cat <<MSG

Done. The tbprof binary is $TBPROF.
Open the sample in TensorBoard (PROFILE tab), with the pinned plugin set-up made:
  build/xprof-venv/bin/tensorboard --logdir tb_sample
See what each view will show, and why a view is empty:
  $TBPROF inspect $SAMPLE
Run the tests with ./scripts/test.sh
MSG
