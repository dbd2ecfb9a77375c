#!/usr/bin/env bash
# Link launcher (CMake RULE_LAUNCH_LINK) that links an executable against the
# static archives of its dependencies instead of their shared libraries:
#
#   link_static_deps.sh MODE -- <the link command CMake generated>
#
# Why: the tbprof CLI pulls in about 60 shared libraries (gRPC, OpenSSL,
# protobuf, 30 Abseil libraries, ...). Loading and relocating them cost every
# command about 10 ms of a 3 ms start and 13.8 MB of resident pages before a
# byte is read (docs/benchmarks.md, "A statically linked CLI"). Debian ships
# the static archive beside most of them.
#
# What: every library the command names by path (/dir/libX.so, /dir/libX.so.N)
# or as -lX is replaced by libX.a from the same directory (-lX: where the
# compiler driver finds it) when that archive exists. The C and C++ runtimes
# (libc, libm, libdl, libpthread, librt, libstdc++, libgcc_s) stay shared. A
# library without an archive stays shared too, which is safe only when it
# needs none of the libraries linked statically (else the process would hold
# two copies of, e.g., Abseil, with two sets of globals): that is checked on
# the result with ldd.
#
# MODE: ON   the static link must succeed and pass the check, else the link fails;
#       AUTO when it fails or the check finds a library both ways, the
#            original (shared) command is run instead, with one line saying why;
#       OFF  the original command, unchanged.
# Response files (@FILE) are rewritten the same way into a copy beside them.
set -uo pipefail

mode=${1:-}
[ "${2:-}" = "--" ] || { echo "link_static_deps.sh: usage: MODE -- LINK COMMAND" >&2; exit 2; }
shift 2
[ $# -gt 0 ] || { echo "link_static_deps.sh: no link command" >&2; exit 2; }
case "$mode" in
  OFF) exec "$@" ;;
  ON|AUTO) ;;
  *) echo "link_static_deps.sh: MODE must be ON, AUTO or OFF, not '$mode'" >&2; exit 2 ;;
esac

driver=$1
output=""
static_names=()  # Library names (X of libX) now linked from their archive.

# Runtime libraries that always stay shared.
is_runtime() {
  case "$1" in
    c|m|dl|pthread|rt|util|resolv|stdc++|gcc_s|gcc) return 0 ;;
  esac
  return 1
}

# Sets `rewritten` to the argument to link instead of $1.
rewrite() {
  local arg=$1 name archive dir
  case "$arg" in
    /*/lib*.so|/*/lib*.so.*)
      name=${arg##*/lib}
      name=${name%%.so*}
      archive=${arg%/*}/lib$name.a
      if ! is_runtime "$name" && [ -f "$archive" ]; then
        static_names+=("$name")
        arg=$archive
      fi
      ;;
    -l?*)
      name=${arg#-l}
      if ! is_runtime "$name"; then
        # Where the linker would look: the -L folders first, then the driver's.
        archive=""
        for dir in "${lib_dirs[@]}"; do
          if [ -f "$dir/lib$name.a" ]; then archive=$dir/lib$name.a; break; fi
        done
        [ -n "$archive" ] || archive=$("$driver" -print-file-name="lib$name.a" 2> /dev/null)
        if [ "${archive#/}" != "$archive" ] && [ -f "$archive" ]; then
          static_names+=("$name")
          arg=$archive
        fi
      fi
      ;;
  esac
  rewritten=$arg
}

# The -L folders of the command, searched for -lX's archive.
lib_dirs=()
prev=""
for arg in "$@"; do
  case "$arg" in
    -L) ;;
    -L*) lib_dirs+=("${arg#-L}") ;;
    *) [ "$prev" = "-L" ] && lib_dirs+=("$arg") ;;
  esac
  prev=$arg
done

static_cmd=()
rsp_copies=()
prev=""
for arg in "$@"; do
  if [ "$prev" = "-o" ]; then output=$arg; fi
  prev=$arg
  case "$arg" in
    @*)
      rsp=${arg#@}
      copy=$rsp.static
      : > "$copy" || exit 1
      # One token per line is what the linker reads from CMake's files as well.
      for token in $(cat "$rsp"); do
        rewrite "$token"
        printf '%s\n' "$rewritten" >> "$copy"
      done
      rsp_copies+=("$copy")
      static_cmd+=("@$copy")
      continue
      ;;
  esac
  rewrite "$arg"
  static_cmd+=("$rewritten")
done

shared_link() {  # WHY COMMAND...: runs the original COMMAND, or fails in mode ON.
  local why=$1
  shift
  if [ "$mode" = ON ]; then
    echo "link_static_deps.sh: ${output:-the output}: $why (TBPROF_STATIC_DEPS=ON)" >&2
    rm -f "${rsp_copies[@]}"
    exit 1
  fi
  echo "link_static_deps.sh: ${output:-the output}: $why; linking against the shared libraries" >&2
  rm -f "${rsp_copies[@]}"
  exec "$@"
}

if [ ${#static_names[@]} -eq 0 ]; then
  rm -f "${rsp_copies[@]}"
  exec "$@"
fi
log=$(mktemp) || exit 1
if ! "${static_cmd[@]}" > "$log" 2>&1; then
  why="the static link failed: $(grep -m1 -E 'error|undefined' "$log" | cut -c1-300)"
  rm -f "$log"
  shared_link "$why" "$@"
fi
cat "$log" >&2
rm -f "$log"

# No library may now be loaded as well: a shared library kept (no archive)
# that needs one of those linked statically would bring in a second copy.
if [ -n "$output" ] && [ -f "$output" ]; then
  loaded=$(ldd "$output" 2> /dev/null | awk '{print $1}')
  for name in $(printf '%s\n' "${static_names[@]}" | sort -u); do
    if printf '%s\n' "$loaded" | grep -q -E "^lib${name//+/\\+}\.so"; then
      shared_link "lib$name is linked statically and also loaded as a shared library" "$@"
    fi
  done
fi
rm -f "${rsp_copies[@]}"
exit 0
