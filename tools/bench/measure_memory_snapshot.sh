#!/usr/bin/env bash
# Whole-pipeline figures for a scaled memory snapshot (docs/benchmarks.md,
# "Memory snapshots"), in one run on one file:
#
#   tools/bench/measure_memory_snapshot.sh SNAPSHOT.pickle [TBPROF] [BASELINE_TBPROF]
#
# For `tbprof convert` (default views), `tbprof convert --no-views` and the
# read floor (Python's pickle.load of the same file, nothing built): wall
# time, CPU time (user + sys) and peak RSS from /usr/bin/time, the RSS as a
# ratio to the file size, and the load average when each started (the
# machine may be shared: compare CPU time and RSS, not wall time, across
# loads). With BASELINE_TBPROF (another build, e.g. of an older commit) its
# convert is measured first, in the same run. Scratch logdirs go to a
# temporary directory that is removed at the end.
set -uo pipefail
if [ $# -lt 1 ]; then
  sed -n 4p "$0" >&2
  exit 2
fi
file=$1
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tbprof=${2:-$root/build-release/tools/tbprof/tbprof}
baseline=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
size=$(stat -c %s "$file")

run() {  # LABEL COMMAND...
  local label=$1
  shift
  local load
  load=$(cut -d' ' -f1 /proc/loadavg)
  rm -rf "$work/logdir"
  if ! /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >/dev/null 2>"$work/err"; then
    echo "$label: FAILED: $(tail -n 1 "$work/err")"
    return
  fi
  read -r wall user sys rss <"$work/time"
  awk -v l="$label" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v f="$size" -v la="$load" \
    'BEGIN { printf "%-30s wall %6.2f s  CPU %6.2f s (user %.2f, sys %.2f)  peak RSS %5.0f MiB  RSS/file %.2f  load %s\n",
             l, w, u + s, u, s, r / 1024, r * 1024 / f, la }'
}

echo "file $file: $size bytes"
if [ -n "$baseline" ]; then
  run "convert (baseline)" "$baseline" convert "$file" --logdir "$work/logdir" --run m --quiet
fi
run "convert" "$tbprof" convert "$file" --logdir "$work/logdir" --run m --quiet
run "convert --no-views" "$tbprof" convert "$file" --logdir "$work/logdir" --run m --quiet --no-views
run "python3 pickle.load (floor)" python3 -c \
  'import pickle, sys; pickle.load(open(sys.argv[1], "rb"))' "$file"
