#!/usr/bin/env bash
# Tests cmake/link_static_deps.sh:
#
#   link_static_deps_test.sh WORKDIR [TBPROF MODE]
#
# 1. With small libraries built here: an archive replaces its shared library;
#    a shared library without an archive that needs one linked statically
#    makes AUTO fall back to the shared link and ON fail; a broken archive
#    makes AUTO fall back and ON fail; OFF changes nothing; response files
#    are rewritten too.
# 2. With TBPROF (the CLI built with TBPROF_STATIC_DEPS=MODE): on a system
#    that has the archives of protobuf, gRPC and Abseil, AUTO and ON gave a
#    binary that loads none of them; OFF one that loads them.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
LAUNCHER=$HERE/link_static_deps.sh
WORK=${1:?usage: link_static_deps_test.sh WORKDIR [TBPROF MODE]}
TBPROF=${2:-}
if [ -n "$TBPROF" ]; then TBPROF=$(cd "$(dirname "$TBPROF")" && pwd)/$(basename "$TBPROF"); fi
MODE=${3:-}
CC=${CC:-cc}
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }

rm -rf "$WORK"
mkdir -p "$WORK/lib" "$WORK/broken"
cd "$WORK" || exit 1
cat > foo.c << 'EOF'
int foo(void) { return 40; }
EOF
cat > bar.c << 'EOF'
int foo(void);
int bar(void) { return foo() + 1; }
EOF
cat > main_foo.c << 'EOF'
int foo(void);
int main(void) { return foo() == 40 ? 0 : 1; }
EOF
cat > main_bar.c << 'EOF'
int foo(void);
int bar(void);
int main(void) { return foo() + bar() == 81 ? 0 : 1; }
EOF
$CC -fPIC -c foo.c -o foo.o && $CC -fPIC -c bar.c -o bar.o || { echo "FAIL: cannot compile" >&2; exit 1; }
$CC -shared foo.o -o lib/libfoo.so
ar rcs lib/libfoo.a foo.o
$CC -shared bar.o -o lib/libbar.so -Llib -lfoo  # libbar.so needs libfoo.so; no libbar.a.
cp lib/libfoo.so broken/libfoo.so
echo "not an archive" > broken/libfoo.a

# An archive replaces the shared library, by path and by -l.
for how in path dash-l; do
  if [ $how = path ]; then libs=("$WORK/lib/libfoo.so"); else libs=(-L"$WORK/lib" -lfoo); fi
  rm -f out
  bash "$LAUNCHER" AUTO -- $CC main_foo.c -o out "${libs[@]}" 2> err || fail "AUTO ($how) failed: $(cat err)"
  ./out || fail "AUTO ($how): the program does not run"
  needed out | grep -q libfoo && fail "AUTO ($how): out still needs libfoo.so"
done

# OFF: unchanged.
rm -f out
bash "$LAUNCHER" OFF -- $CC main_foo.c -o out "$WORK/lib/libfoo.so" || fail "OFF failed"
needed out | grep -q libfoo.so || fail "OFF: out does not need libfoo.so"

# libbar.so (no archive) needs libfoo.so: foo would be there twice.
rm -f out
bash "$LAUNCHER" AUTO -- $CC main_bar.c -o out "$WORK/lib/libbar.so" "$WORK/lib/libfoo.so" 2> err \
  || fail "AUTO with a mixed set failed: $(cat err)"
grep -q "libfoo is linked statically and also loaded" err || fail "AUTO with a mixed set said: $(cat err)"
needed out | grep -q libfoo.so || fail "AUTO with a mixed set: out does not need libfoo.so (no fallback)"
if bash "$LAUNCHER" ON -- $CC main_bar.c -o out "$WORK/lib/libbar.so" "$WORK/lib/libfoo.so" 2> err; then
  fail "ON with a mixed set succeeded"
fi
grep -q "TBPROF_STATIC_DEPS=ON" err || fail "ON with a mixed set said: $(cat err)"

# A broken archive.
rm -f out
bash "$LAUNCHER" AUTO -- $CC main_foo.c -o out "$WORK/broken/libfoo.so" 2> err \
  || fail "AUTO with a broken archive failed: $(cat err)"
grep -q "the static link failed" err || fail "AUTO with a broken archive said: $(cat err)"
needed out | grep -q libfoo.so || fail "AUTO with a broken archive: out does not need libfoo.so"
bash "$LAUNCHER" ON -- $CC main_foo.c -o out "$WORK/broken/libfoo.so" 2> /dev/null \
  && fail "ON with a broken archive succeeded"

# A response file.
rm -f out
echo "$WORK/lib/libfoo.so" > libs.rsp
bash "$LAUNCHER" ON -- $CC main_foo.c -o out @libs.rsp 2> err || fail "ON with @libs.rsp failed: $(cat err)"
needed out | grep -q libfoo && fail "ON with @libs.rsp: out still needs libfoo.so"
[ -f libs.rsp.static ] && fail "the rewritten response file was left behind"

# Bad usage.
bash "$LAUNCHER" MAYBE -- true 2> /dev/null && fail "MODE MAYBE accepted"

# The CLI itself.
if [ -n "$TBPROF" ]; then
  loaded=$(ldd "$TBPROF" | awk '{print $1}')
  heavy=$(printf '%s\n' "$loaded" | grep -E '^lib(protobuf|grpc|gpr|absl_)' || true)
  archives=yes
  for a in protobuf grpc++ grpc gpr absl_strings; do
    [ -n "$($CC -print-file-name=lib$a.a | grep '^/')" ] || archives=no
  done
  case "$MODE" in
    ON) [ -z "$heavy" ] || fail "tbprof built with ON loads: $heavy" ;;
    AUTO)
      if [ $archives = yes ]; then
        [ -z "$heavy" ] || fail "tbprof built with AUTO on a system with the archives loads: $heavy"
      else
        echo "note: this system lacks some archives; tbprof loads $(echo "$heavy" | wc -w) of them shared"
      fi
      ;;
    OFF) [ -n "$heavy" ] || fail "tbprof built with OFF loads no protobuf/gRPC/Abseil library" ;;
  esac
  "$TBPROF" --version > /dev/null || fail "tbprof --version failed"
fi

if [ $failures -gt 0 ]; then
  echo "link_static_deps_test: $failures failed" >&2
  exit 1
fi
echo "link_static_deps_test: all passed"
