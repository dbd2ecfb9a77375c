#!/usr/bin/env bash
# Runs two tbprof binaries over every trace in testdata/ and ../shared/testdata
# and compares what users see: the logdir `convert` writes (every file, byte
# for byte), `report --json`, `report --html`, report text, `inspect --json`,
# and `diff --json` / `diff --html` / diff text on pairs of traces; for each
# command also its exit status, stdout and stderr; and the help texts and
# usage errors of the commands.
#
#   tools/compare_outputs.sh [--keep] OLD_TBPROF NEW_TBPROF [INPUT...]
#
# Without INPUTs: every *.json, *.json.gz, *.xplane.pb and *.sqlite file under
# testdata/ and ../shared/testdata (failing inputs count too: their error
# messages and exit status are compared), plus the multi-rank directories
# (report and diff of a whole run). Prints one line per difference and a
# summary; exits 0 when everything is identical, 1 on any difference, 2 on a
# usage error. --keep leaves the outputs in the printed work directory.
#
# Normalised before comparing (and only this): each binary writes into its
# own temporary directory, so that directory's path is replaced by "<TMP>" in
# stdout/stderr (the two paths differ by construction). Runs are fixed with
# --run cmp --host host, and progress displays are off (--quiet).
set -uo pipefail

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
keep=0
while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --keep) keep=1; shift ;;
    *) break ;;
  esac
done
if [ $# -lt 2 ]; then usage >&2; exit 2; fi
old=$(realpath "$1"); new=$(realpath "$2"); shift 2
for bin in "$old" "$new"; do
  [ -x "$bin" ] || { echo "compare_outputs: not an executable: $bin" >&2; exit 2; }
done
root=$(cd "$(dirname "$0")/.." && pwd)
shared=$(realpath -m "$root/../shared/testdata")

inputs=()
for input in "$@"; do inputs+=("$(realpath "$input")"); done
if [ ${#inputs[@]} -eq 0 ]; then
  while IFS= read -r f; do inputs+=("$f"); done < <(
    for d in "$root/testdata" "$shared"; do
      [ -d "$d" ] && find -L "$d" -type f \( -name '*.json' -o -name '*.json.gz' \
          -o -name '*.xplane.pb' -o -name '*.sqlite' \)
    done | sort)
  for d in "$root/testdata/chrome_json/distributed" "$shared/kineto/dlrm_8ranks"; do
    [ -d "$d" ] && inputs+=("$d")
  done
fi
pairs=()
add_pair() { [ -e "$1" ] && [ -e "$2" ] && pairs+=("$(realpath "$1")|$(realpath "$2")"); }
add_pair "$shared/kineto/resnet50_v100_dataloader_workers0.pt.trace.json.gz" \
         "$shared/kineto/resnet50_v100_dataloader_workers4.pt.trace.json.gz"
add_pair "$root/testdata/chrome_json/kineto_small.json" "$root/testdata/chrome_json/operators_small.json"
add_pair "$root/testdata/chrome_json/distributed/rank0.json" "$root/testdata/chrome_json/distributed/rank1.json"
add_pair "$root/testdata/chrome_json/distributed" "$shared/kineto/dlrm_8ranks"

work=$(mktemp -d "${TMPDIR:-/tmp}/tbprof_compare.XXXXXX")
[ $keep -eq 1 ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work/old" "$work/new"

# run SIDE NAME CMD...: runs one binary's command in its own directory,
# keeping exit status, stdout and stderr with that directory's path
# normalised.
run() {
  local side=$1 name=$2; shift 2
  local dir="$work/$side" bin
  [ "$side" = old ] && bin=$old || bin=$new
  local out="$dir/$name"
  mkdir -p "$(dirname "$out")"
  (cd "$dir" && "$bin" "$@" >"$out.stdout" 2>"$out.stderr"; echo $? >"$out.status")
  sed -i "s|$dir|<TMP>|g" "$out.stdout" "$out.stderr"
}

checks=0
for input in "${inputs[@]}"; do
  case $input in
    "$shared"/*) id=shared_${input#"$shared"/} ;;
    "$root"/*) id=${input#"$root"/} ;;
    *) id=$input ;;
  esac
  id=$(echo "$id" | tr '/' '_')
  for side in old new; do
    dir="$work/$side"
    run $side "$id/convert" convert "$input" --logdir "$dir/$id/logdir" --run cmp \
        $( [ -f "$input" ] && echo --host host ) --quiet
    run $side "$id/report_json" report "$input" --json --quiet
    run $side "$id/report_html" report "$input" --html "$dir/$id/report.html" --quiet
    run $side "$id/report_text" report "$input" --width 100 --quiet
    run $side "$id/inspect_json" inspect "$input" --json --quiet
  done
  checks=$((checks + 5))
done
n=0
for pair in "${pairs[@]}"; do
  a=${pair%%|*}; b=${pair##*|}; n=$((n + 1))
  for side in old new; do
    dir="$work/$side"
    run $side "diff$n/diff_json" diff "$a" "$b" --json --quiet
    run $side "diff$n/diff_html" diff "$a" "$b" --html "$dir/diff$n/diff.html" --quiet
    run $side "diff$n/diff_text" diff "$a" "$b" --width 100 --quiet
  done
  checks=$((checks + 3))
done

# Help texts and usage errors of the commands whose flags are shared.
small="$root/testdata/chrome_json/kineto_small.json"
usage_cases=(
  "--help" "convert --help" "inspect --help" "report --help" "diff --help" "watch --help"
  "convert $small" "convert $small --logdir <L> --steps sometimes"
  "inspect $small --steps sometimes" "inspect $small --max-events x" "inspect"
  "report $small --breakdown sideways --steps sometimes" "report $small --steps sometimes"
  "report $small --width 59 --steps sometimes" "report $small --no-such-flag" "report"
  "diff $small --width 59 --breakdown sideways" "diff $small $small --breakdown sideways"
  "diff $small $small --steps sometimes" "diff $small $small --ignore-noise"
  "diff $small $small --fail-if-slower x" "diff $small"
  "watch <L> --logdir <L>x --steps sometimes --once" "report $small --max-inflated-bytes 1Q"
)
n=0
for args in "${usage_cases[@]}"; do
  n=$((n + 1))
  for side in old new; do
    # shellcheck disable=SC2086  # The cases are word lists.
    run $side "usage/case$n" ${args//<L>/$work/$side/usage/logdir$n}
  done
  checks=$((checks + 1))
done

# Every file either side wrote, compared byte for byte.
differences=0
files=0
while IFS= read -r rel; do
  files=$((files + 1))
  if [ ! -f "$work/old/$rel" ]; then
    echo "DIFF only new: $rel"; differences=$((differences + 1))
  elif [ ! -f "$work/new/$rel" ]; then
    echo "DIFF only old: $rel"; differences=$((differences + 1))
  elif ! cmp -s "$work/old/$rel" "$work/new/$rel"; then
    echo "DIFF $rel: $(cmp "$work/old/$rel" "$work/new/$rel" 2>&1 | head -1)"
    differences=$((differences + 1))
  fi
done < <( (cd "$work/old" && find . -type f; cd "$work/new" && find . -type f) | sed 's|^\./||' | sort -u)

failed_inputs=$(grep -L '^0$' "$work"/old/*/convert.status 2>/dev/null | wc -l)
echo "compare_outputs: ${#inputs[@]} inputs, ${#pairs[@]} diff pairs, $checks commands per binary,"
echo "  $files files compared (exit status, stdout, stderr, logdir files, HTML pages);"
echo "  $failed_inputs inputs that convert rejects (their errors compared too)."
[ $keep -eq 1 ] && echo "  outputs kept in $work"
if [ $differences -eq 0 ]; then
  echo "compare_outputs: IDENTICAL"
  exit 0
fi
echo "compare_outputs: $differences files DIFFER"
exit 1
