#!/usr/bin/env bash
# Builds the relocatable tbprof bundle and the wheel made from it:
#
#   scripts/bundle.sh OUTDIR
#
# OUTDIR/tbprof/                 the bundle, movable anywhere:
#   bin/tbprof                   the CLI (with the capture server: serve, record --serve)
#   lib/libtbprof_cupti.so       the CUPTI collector (CUDA_INJECTION64_PATH)
#   lib/lib*.so.*                every shared library they need except glibc,
#                                libstdc++/libgcc_s, the CUDA driver and libcupti
#   share/tbprof/                bundled-libraries.txt (soname and source of each),
#                                platform.txt (the manylinux tag of the wheel)
#   share/doc/tbprof/            README.md, collector.md, python.md
# OUTDIR/tbprof-<version>-py3-none-manylinux_2_NN_x86_64.whl
#                                the same files inside the Python package (scripts/make_wheel.py)
#
# bin/tbprof carries DT_RPATH $ORIGIN/../lib and every bundled library $ORIGIN
# (patchelf --force-rpath: RPATH, unlike RUNPATH, wins over LD_LIBRARY_PATH,
# so a conda env's own protobuf cannot replace ours). The collector keeps
# needing only libc, libstdc++, libgcc_s and libz (collector_exports_test.sh
# is run on the bundled copy).
#
# Environment: BUILD_DIR (default build; configured like scripts/test.sh when
# it has no CMakeCache.txt, and it must find the CUDA 13 CUPTI headers), JOBS
# (default 2), MAX_BUNDLE_MB (default 64), PYTHON (default python3),
# AUDITWHEEL (default build/wheel-venv/bin/auditwheel: scripts/python_envs.sh wheel).
# Needs: cmake, ninja, patchelf (Debian package), readelf, nm, ldd. Exit status 0 when OUTDIR
# holds both; 1 with one line naming what failed otherwise.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)

fail() { echo "bundle: $*" >&2; exit 1; }
[ $# -eq 1 ] || { sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
OUTDIR=$1
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
JOBS=${JOBS:-2}
MAX_BUNDLE_MB=${MAX_BUNDLE_MB:-64}
PYTHON=${PYTHON:-python3}
AUDITWHEEL=${AUDITWHEEL:-$ROOT/build/wheel-venv/bin/auditwheel}
for tool in cmake patchelf readelf nm ldd "$PYTHON" "$AUDITWHEEL"; do
  command -v "$tool" > /dev/null || fail "$tool not found (Debian: scripts/setup.sh --deps-only)"
done

# 1. Build (the project's own build directory: no second compile of the product).
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DTBPROF_WITH_CUPTI=ON)
  command -v ninja > /dev/null && args+=(-G Ninja)
  command -v ccache > /dev/null && args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S "$ROOT" -B "$BUILD_DIR" "${args[@]}" > /dev/null
fi
grep -q '^TBPROF_HAVE_CUPTI:INTERNAL=ON' "$BUILD_DIR/CMakeCache.txt" \
  || fail "$BUILD_DIR builds no collector: the CUDA 13 CUPTI headers were not found (set CUDA_HOME, reconfigure)"
cmake --build "$BUILD_DIR" --target tbprof tbprof_cupti -j"$JOBS" > "$BUILD_DIR/bundle-build.log" 2>&1 \
  || fail "build failed (log: $BUILD_DIR/bundle-build.log): $(grep -m1 -E 'error|FAILED' "$BUILD_DIR/bundle-build.log")"

# 2. Install (stripped) into a staging folder beside OUTDIR; published at the end.
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
stage=$(mktemp -d "$OUTDIR/.tbprof-stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
B=$stage/tbprof
cmake --install "$BUILD_DIR" --prefix "$B" --strip > /dev/null
[ -x "$B/bin/tbprof" ] || fail "the install put no bin/tbprof under $B"
[ -f "$B/lib/libtbprof_cupti.so" ] || fail "the install put no lib/libtbprof_cupti.so under $B"
# Only the product travels (tests install nothing, but be sure).
find "$B" -mindepth 1 -maxdepth 1 ! -name bin ! -name lib ! -name assets -exec rm -rf {} +
[ -f "$B/assets/report.js" ] || fail "the install put no assets/report.js under $B (the TensorBoard tab needs it)"

# 3. The libraries: what ldd resolves for the product, minus the system's own.
# Left to the system: glibc, libstdc++/libgcc_s (every Linux has them; a job's
# newer libstdc++ must win), the CUDA driver and libcupti (they match the driver).
is_system_lib() {
  case "$1" in
    linux-vdso.so.*|ld-linux*.so.*|libc.so.*|libm.so.*|libmvec.so.*|libpthread.so.*|libdl.so.*|\
    librt.so.*|libutil.so.*|libresolv.so.*|libanl.so.*|libnsl.so.*|libBrokenLocale.so.*|\
    libstdc++.so.*|libgcc_s.so.*|libcuda.so.*|libcupti.so.*|libnvidia-*) return 0 ;;
  esac
  return 1
}
mkdir -p "$B/share/tbprof" "$B/share/doc/tbprof"
manifest=$B/share/tbprof/bundled-libraries.txt
: > "$manifest"
for elf in "$B/bin/tbprof" "$B/lib/libtbprof_cupti.so"; do
  while read -r soname arrow path _; do
    is_system_lib "$soname" && continue
    [ "$arrow" = "=>" ] || continue
    [ "$path" != "not" ] || fail "$elf needs $soname, which this build machine does not have"
    if [ ! -f "$B/lib/$soname" ]; then
      cp -L "$path" "$B/lib/$soname"
      chmod 0755 "$B/lib/$soname"
      echo "$soname $(readlink -f "$path")" >> "$manifest"
    fi
  done < <(ldd "$elf")
done
sort -o "$manifest" "$manifest"

# 4. Relative RPATHs, strip the copies, and check: every bundled ELF resolves
# all its non-system needs inside lib/.
patchelf --force-rpath --set-rpath '$ORIGIN/../lib' "$B/bin/tbprof"
for lib in "$B"/lib/*.so*; do
  strip --strip-unneeded "$lib" 2> /dev/null || true
  patchelf --force-rpath --set-rpath '$ORIGIN' "$lib"
done
for elf in "$B/bin/tbprof" "$B"/lib/*.so*; do
  while read -r needed; do
    is_system_lib "$needed" && continue
    [ -f "$B/lib/$needed" ] || fail "$(basename "$elf") needs $needed, which is not in the bundle"
  done < <(readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
done
bash "$ROOT/src/collector/collector_exports_test.sh" "$B/lib/libtbprof_cupti.so" > /dev/null \
  || fail "the bundled collector exports or needs gRPC/protobuf/Abseil (collector_exports_test.sh)"

# 5. Size, then the wheel from the same files, tagged with the manylinux
# platform that `auditwheel show` finds its files consistent with (the newest
# glibc and libstdc++ symbol versions they use).
size_kb=$(du -sk "$B" | cut -f1)
[ "$size_kb" -le $((MAX_BUNDLE_MB * 1024)) ] \
  || fail "the bundle is $((size_kb / 1024)) MiB, over the $MAX_BUNDLE_MB MiB limit"
cp "$ROOT/README.md" "$ROOT/docs/collector.md" "$ROOT/docs/python.md" "$B/share/doc/tbprof/"
version=$(sed -n 's/^project(tbprof VERSION \([0-9.]*\).*/\1/p' "$ROOT/CMakeLists.txt")
make_wheel() {
  "$PYTHON" "$ROOT/scripts/make_wheel.py" --bundle "$B" --python "$ROOT/python/tbprof" \
    --version "$version" --plat "$1" --out "$2"
}
mkdir -p "$stage/probe"
probe=$(make_wheel manylinux_2_17_x86_64 "$stage/probe") || fail "make_wheel.py failed"
shown=$("$AUDITWHEEL" show "$probe" 2>&1 | tr '\n' ' ' || true)
plat=$(echo "$shown" | sed -n 's/.*consistent with[ a-z]*platform tag: *"\(manylinux_2_[0-9]*_x86_64\)".*/\1/p')
[ -n "$plat" ] || fail "auditwheel show gave no manylinux tag for the wheel: ${shown:0:300}"
echo "$plat" > "$B/share/tbprof/platform.txt"
rm -rf "$stage/probe"
make_wheel "$plat" "$stage" > /dev/null || fail "make_wheel.py failed"

# 7. Publish: replace OUTDIR's previous bundle and wheel.
rm -rf "$OUTDIR/tbprof" "$OUTDIR"/tbprof-*.whl
mv "$B" "$OUTDIR/tbprof"
mv "$stage"/tbprof-*.whl "$OUTDIR/"
echo "bundle: $OUTDIR/tbprof ($((size_kb / 1024)) MiB, $(wc -l < "$OUTDIR/tbprof/share/tbprof/bundled-libraries.txt") bundled libraries, $plat)"
echo "bundle: $(ls "$OUTDIR"/tbprof-*.whl)"
