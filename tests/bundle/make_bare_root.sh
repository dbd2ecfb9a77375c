#!/usr/bin/env bash
# Makes (once) a minimal Debian root for the bare-system test: debootstrap's
# minbase variant of the host's own Debian release plus Python (python3,
# python3-venv) and nothing else: no compiler, no -dev package, none of the
# libraries tbprof links (protobuf, Abseil, gRPC, ISA-L, simdjson).
#
#   tests/bundle/make_bare_root.sh CACHE_DIR [SUITE]   prints the root's path
#
# SUITE defaults to the host's own release (its Python is then the host's).
#
# The root is made in CACHE_DIR/<suite>.tmp and renamed to CACHE_DIR/<suite>
# only when complete, so an interrupted run leaves nothing that looks usable;
# later calls reuse it. Needs root, debootstrap and access to Debian's mirror
# (DEBIAN_MIRROR, default http://deb.debian.org/debian).
# Exit status: 0 with the path on stdout, 1 with one line on stderr.
set -euo pipefail
cache=${1:?usage: make_bare_root.sh CACHE_DIR [SUITE]}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# By default the root's Python is the host's (the test makes the host's pinned
# torch visible inside it), so the suite is the host's.
suite=${2:-$(. /etc/os-release && echo "${VERSION_CODENAME:-}")}
if [ -z "$suite" ]; then
  echo "make_bare_root: /etc/os-release names no VERSION_CODENAME (not Debian?)" >&2
  exit 1
fi
packages=python3,python3-venv
root="$cache/$suite"
stamp="$root/.tbprof-bare-root"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$suite $packages" ]; then
  echo "$root"
  exit 0
fi
mkdir -p "$cache"
rm -rf "$root" "$root.tmp"
log="$cache/$suite.debootstrap.log"
if ! debootstrap --variant=minbase --include="$packages" "$suite" "$root.tmp" "$mirror" \
     > "$log" 2>&1; then
  echo "make_bare_root: debootstrap $suite from $mirror failed (log: $log): $(tail -n1 "$log")" >&2
  rm -rf "$root.tmp"
  exit 1
fi
# The root must really lack what the bundle brings: fail loudly if the mirror's
# dependencies ever pull one of tbprof's libraries in.
for lib in libprotobuf libabsl libgrpc libisal libsimdjson; do
  if compgen -G "$root.tmp/usr/lib/x86_64-linux-gnu/$lib*" > /dev/null; then
    echo "make_bare_root: the bare root unexpectedly holds $lib; cannot prove the bundle" >&2
    exit 1
  fi
done
echo "$suite $packages" > "$root.tmp/.tbprof-bare-root"
mv "$root.tmp" "$root"
echo "$root"
