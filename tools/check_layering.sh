#!/usr/bin/env bash
# Checks that includes point one way: base <- xplane <- converters <- tools
# (src/ never includes converters/ or tools/; converters/ never includes
# tools/), that converters/output includes no views or report, that no view
# room includes converters/report, and that a room of converters/views
# includes only rooms listed before it in converters/views/CMakeLists.txt.
# Prints each violation as FILE:LINE: and exits 1 if there is any.
#
#   tools/check_layering.sh [REPO_ROOT]
set -uo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
fail=0
violation() { echo "$1: $2"; fail=1; }
includes() {  # includes DIR: FILE:LINE:PATH of every project include below DIR
  grep -rnoE '^#include "(src|converters|tools)/[^"]+"' --include='*.h' --include='*.cc' "$1" |
    sed -E 's/#include "([^"]+)"/\1/'
}
while IFS=: read -r file line path; do
  case $path in converters/*|tools/*) violation "$file:$line" "src/ includes $path" ;; esac
done < <(includes src)
while IFS=: read -r file line path; do
  case $path in tools/*) violation "$file:$line" "converters/ includes $path" ;; esac
done < <(includes converters)
while IFS=: read -r file line path; do
  case $path in converters/views/*|converters/report/*)
    violation "$file:$line" "converters/output includes $path" ;; esac
done < <(includes converters/output)
# Rooms in dependency order, as converters/views/CMakeLists.txt adds them.
mapfile -t rooms < <(sed -nE 's/^add_subdirectory\(([a-z_]+)\).*/\1/p' converters/views/CMakeLists.txt)
rank() { local i; for i in "${!rooms[@]}"; do [ "${rooms[$i]}" = "$1" ] && echo "$i" && return; done; echo -1; }
for room in "${rooms[@]}"; do
  mine=$(rank "$room")
  while IFS=: read -r file line path; do
    case $path in
      converters/report/*) violation "$file:$line" "views/$room includes $path" ;;
      converters/views/*)
        other=${path#converters/views/}; other=${other%%/*}
        theirs=$(rank "$other")
        if [ "$theirs" -lt 0 ] || [ "$theirs" -gt "$mine" ]; then
          violation "$file:$line" "views/$room includes $path (a room listed after it)"
        fi ;;
    esac
  done < <(includes "converters/views/$room")
done
# Nothing may sit in converters/views itself but the room list.
for f in converters/views/*; do
  [ -d "$f" ] || [ "$f" = converters/views/CMakeLists.txt ] || violation "$f" "not in a room"
done
if [ $fail -eq 0 ]; then echo "check_layering: ok (${#rooms[@]} view rooms)"; fi
exit $fail
