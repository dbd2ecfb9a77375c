#!/usr/bin/env bash
# ctest fixture: scripts/bundle.sh OUTDIR from the test build itself (no second
# compile). Without auditwheel's venv (scripts/python_envs.sh wheel) or
# patchelf: exit 77 (ctest: skipped) with a message, except in CI (CI=true),
# where it fails.
#   make_bundle_test.sh SOURCE_DIR BUILD_DIR OUTDIR AUDITWHEEL
set -uo pipefail
src=$1 build=$2 outdir=$3 auditwheel=$4
skip() {
  echo "make_bundle_test: $*" >&2
  if [ "${CI:-}" = "true" ]; then echo "make_bundle_test: FAILED (CI must run it)" >&2; exit 1; fi
  echo "make_bundle_test: SKIPPED (not in CI)" >&2
  exit 77
}
[ -x "$auditwheel" ] || skip "no $auditwheel (scripts/python_envs.sh wheel)"
command -v patchelf > /dev/null || skip "patchelf not found (apt-get install patchelf; scripts/setup.sh)"
rm -rf "$outdir"
BUILD_DIR=$build AUDITWHEEL=$auditwheel bash "$src/scripts/bundle.sh" "$outdir" || exit 1
# Moved bundle, host side: runs from another path with the build tree out of reach.
moved=$(mktemp -d)
trap 'rm -rf "$moved"' EXIT
cp -a "$outdir/tbprof" "$moved/"
out=$(env -i PATH=/usr/bin:/bin "$moved/tbprof/bin/tbprof" convert \
        "$src/testdata/samples/h100_bert_small_inference.json.gz" --logdir "$moved/tb" --quiet 2>&1) \
  || { echo "make_bundle_test: the moved bundle failed: $out" >&2; exit 1; }
libs=$(ldd "$moved/tbprof/bin/tbprof" | awk -v m="$moved/" '$3 ~ /^\// && index($3, m) != 1 {print $1}' \
       | grep -Ev '^(libc|libm|libstdc\+\+|libgcc_s)\.so' || true)
[ -z "$libs" ] || { echo "make_bundle_test: bin/tbprof resolves outside the bundle: $libs" >&2; exit 1; }
echo "make_bundle_test: PASS ($(du -sh "$outdir/tbprof" | cut -f1) bundle, moved copy converts)"
