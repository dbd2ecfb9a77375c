#!/usr/bin/env bash
# The bundle and the wheel on a bare system: a minimal Debian root with Python
# and none of tbprof's -dev packages or libraries (make_bare_root.sh, cached).
#
#   bare_system_test.sh BUNDLE_OUTDIR SAMPLE_TRACE [TORCH_VENV]
#
# BUNDLE_OUTDIR is what scripts/bundle.sh made (tbprof/ and tbprof-*.whl).
# In a private mount namespace (unshare -m; the mounts vanish with it) the
# root gets a tmpfs at /t, and chroot runs in_bare_root.sh there:
#  1. the bundle, copied to another path than the one it was built in:
#     libraries resolve, convert + inspect a real trace, collector without
#     libcupti says one line;
#  2. the same bundle with one library removed must FAIL, naming that library
#     (proves that step 1 would catch a library missing from the bundle);
#  3. the wheel in a fresh venv: the tbprof command, collector_path(), and the
#     torch handler with the host's pinned torch (the site-packages of
#     TORCH_VENV, e.g. build/xprof-venv with torch 2.13.0+cpu, made with the
#     host's python3, bind-mounted read-only) under a real torch.profiler.
#  4. steps 1 and 3 (no torch) again on each newer Debian release of
#     TBPROF_BARE_NEWER_SUITES (default: trixie when the host is bookworm):
#     the bundle built here runs on later systems too.
# Needs root (chroot, mount), unshare and debootstrap (first run: network to
# Debian's mirror). Without them: exit 77 (ctest: skipped) with a message,
# except in CI (CI=true), where it fails. Environment: TBPROF_BARE_ROOT_CACHE
# (default ~/.cache/tbprof/bare-root).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
outdir=${1:?usage: bare_system_test.sh BUNDLE_OUTDIR SAMPLE [TORCH_SITE]}
sample=${2:?usage}
torch_venv=${3:-}
cache=${TBPROF_BARE_ROOT_CACHE:-$HOME/.cache/tbprof/bare-root}

skip() {
  echo "bare_system_test: $*" >&2
  if [ "${CI:-}" = "true" ]; then echo "bare_system_test: FAILED (CI must run it)" >&2; exit 1; fi
  echo "bare_system_test: SKIPPED (not in CI)" >&2
  exit 77
}
fail() { echo "bare_system_test: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || skip "needs root (chroot and mount in a private namespace)"
for tool in debootstrap unshare chroot mount; do
  command -v "$tool" > /dev/null || skip "$tool not found (Debian: apt-get install debootstrap; scripts/setup.sh)"
done
unshare -m true 2> /dev/null || skip "unshare -m is not permitted here (a container without CAP_SYS_ADMIN?)"
[ -x "$outdir/tbprof/bin/tbprof" ] || skip "no bundle at $outdir/tbprof (bundle_make_test, scripts/bundle.sh $outdir)"
whl=$(ls "$outdir"/tbprof-*.whl 2> /dev/null | head -n1)
[ -n "$whl" ] || fail "no tbprof-*.whl in $outdir"
[ -f "$sample" ] || fail "no sample trace at $sample"

root=$(bash "$here/make_bare_root.sh" "$cache") || fail "cannot make the bare root (above)"
echo "bare root: $root ($(. "$root/etc/os-release" && echo "$PRETTY_NAME"), $(chroot "$root" python3 --version 2>&1))"
for lib in libprotobuf libabsl_base libgrpc libisal; do
  ! compgen -G "$root/usr/lib/x86_64-linux-gnu/$lib.so*" > /dev/null || fail "the bare root has $lib"
done
# The torch of TORCH_VENV, for the root's Python (same version: same suite as the host).
torch_site=
if [ -n "$torch_venv" ]; then
  pyver=$(chroot "$root" python3 -c 'import sys; print("python%d.%d" % sys.version_info[:2])')
  torch_site="$torch_venv/lib/$pyver/site-packages"
  [ -d "$torch_site/torch" ] || skip "no torch for $pyver in $torch_venv (scripts/python_envs.sh xprof)"
fi

# One namespace per run of in_bare_root.sh: a fresh /t each time.
run_in_root() {  # run_in_root LABEL SETUP_COMMANDS MODE WHAT
  local label=$1 setup=$2 mode=$3 what=$4
  unshare -m --propagation private bash -c '
    set -e
    root=$1 outdir=$2 sample=$3 here=$4 torch_site=$5 setup=$6
    mkdir -p "$root/t" "$root/proc" "$root/dev"
    mount -t tmpfs -o size=2g tbprof-bare "$root/t"
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mkdir -p "$root/t/moved/to/elsewhere" "$root/t/wheel"
    cp -a "$outdir/tbprof" "$root/t/moved/to/elsewhere/"
    cp "$outdir"/tbprof-*.whl "$root/t/wheel/"
    cp "$sample" "$root/t/$(basename "$sample")"
    cp "$here/in_bare_root.sh" "$root/t/"
    if [ -n "$torch_site" ]; then
      mkdir -p "$root/t/torch-site"
      mount --bind "$torch_site" "$root/t/torch-site"
      mount -o remount,bind,ro "$root/t/torch-site"
    fi
    eval "$setup"
    shift 6
    exec chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root \
      LANG=C.UTF-8 TMPDIR=/t /bin/bash /t/in_bare_root.sh "$@"
  ' _ "$root" "$outdir" "$sample" "$here" "$torch_site" "$setup" "$mode" "$what" \
    "/t/$(basename "$sample")" 2>&1 | sed "s/^/  [$label] /"
  return "${PIPESTATUS[0]}"
}

B=/t/moved/to/elsewhere/tbprof
echo "1. the bundle at another path ($B)"
run_in_root bundle : bundle "$B" || fail "the bundle does not run on the bare system (above)"

# 2. The same check must catch a library missing from the bundle, by name.
victim=$(awk 'NR == 1 {print $1}' "$outdir/tbprof/share/tbprof/bundled-libraries.txt")
[ -n "$victim" ] || fail "bundled-libraries.txt lists no library"
echo "2. the bundle without $victim must fail, naming it"
log=$(run_in_root broken "rm \"\$root$B/lib/$victim\"" bundle "$B")
status=$?
echo "$log"
[ $status -ne 0 ] || fail "the check passed a bundle without $victim"
echo "$log" | grep -q "FAIL: the bundle lacks $victim" \
  || fail "the check failed without naming $victim"

echo "3. the wheel ($(basename "$whl")) in a fresh venv"
run_in_root wheel : wheel "/t/wheel/$(basename "$whl")" \
  || fail "the wheel does not work on the bare system (above)"
passed="$(. "$root/etc/os-release" && echo "$PRETTY_NAME")"

host_suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
newer=${TBPROF_BARE_NEWER_SUITES-$([ "$host_suite" = bookworm ] && echo trixie)}
for suite in $newer; do
  root=$(bash "$here/make_bare_root.sh" "$cache" "$suite") || fail "cannot make the $suite root (above)"
  name=$(. "$root/etc/os-release" && echo "$PRETTY_NAME")
  echo "4. $name: the bundle and the wheel (no torch: its Python is not the host's)"
  torch_site=
  run_in_root "$suite" : bundle "$B" || fail "the bundle does not run on $name (above)"
  run_in_root "$suite" : wheel "/t/wheel/$(basename "$whl")" || fail "the wheel does not work on $name (above)"
  passed="$passed, $name"
done
echo "PASS: bundle and wheel run on bare $passed"
