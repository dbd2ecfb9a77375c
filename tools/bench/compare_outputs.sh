#!/usr/bin/env bash
# Two tbprof binaries must write the same files, byte for byte (xplane.pb and
# every view), and the same messages, for every trace given: the check an
# optimisation of the converters must pass (docs/benchmarks.md).
#   tools/bench/compare_outputs.sh BASELINE_TBPROF NEW_TBPROF TRACE_OR_DIR... [-- CONVERT_FLAGS...]
# Directories are searched (recursively) for *.json and *.json.gz. Exit 0
# when every trace gives identical outputs, 1 otherwise.
set -euo pipefail
if (( $# < 3 )); then
  echo "usage: $0 BASELINE_TBPROF NEW_TBPROF TRACE_OR_DIR... [-- CONVERT_FLAGS...]" >&2
  exit 2
fi
bins=("$1" "$2"); shift 2
traces=() flags=()
while (( $# > 0 )); do
  if [[ "$1" == "--" ]]; then shift; flags=("$@"); break; fi
  if [[ -d "$1" ]]; then
    while IFS= read -r f; do traces+=("$f"); done < <(find "$1" -type f \( -name '*.json' -o -name '*.json.gz' \) | sort)
  elif [[ -f "$1" ]]; then
    traces+=("$1")
  fi
  shift
done
(( ${#traces[@]} > 0 )) || { echo "no traces found" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failed=0 compared=0
for trace in "${traces[@]}"; do
  for i in 0 1; do
    mkdir -p "$work/l$i"
    # A trace that does not convert must fail the same way with both.
    "${bins[$i]}" convert "$trace" --logdir "$work/l$i" --run r --host h --quiet "${flags[@]}" \
        >"$work/out$i" 2>"$work/err$i" || echo "exit $?" >>"$work/err$i"
    sed -i "s#$work/l$i#LOGDIR#g" "$work/out$i" "$work/err$i"
  done
  if ! diff -r "$work/l0" "$work/l1" >/dev/null 2>&1 || ! cmp -s "$work/err0" "$work/err1" ||
     ! cmp -s "$work/out0" "$work/out1"; then
    echo "DIFFERENT: $trace" >&2
    diff -r "$work/l0" "$work/l1" >&2 || true
    diff "$work/err0" "$work/err1" >&2 || true
    diff "$work/out0" "$work/out1" >&2 || true
    failed=1
  else
    echo "identical: $trace ($(find "$work/l1" -type f | wc -l) files)"
  fi
  compared=$((compared + 1))
  rm -rf "$work/l0" "$work/l1"
done
echo "$compared traces: outputs $([[ $failed -eq 0 ]] && echo identical || echo DIFFER)"
exit $failed
