#!/usr/bin/env bash
# Checks that the page scripts in this folder parse as JavaScript, put together
# as the pages put them: page_prelude.js + <page>.js + page_epilogue.js for the
# report and diff pages (and with lib_epilogue.js, as tbprof's TensorBoard
# tab loads them); distributed.js on its own. Also checks that every CSS
# file has balanced braces. Exit 77 (skipped) when node is not installed.
#
#   lint_assets.sh [ASSETS_DIR]
set -euo pipefail
dir=${1:-$(dirname "$0")}
if ! command -v node >/dev/null 2>&1; then
  echo "node not found: skipping the JavaScript syntax check"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() {  # check NAME FILE...
  local name=$1; shift
  cat "$@" > "$tmp/$name"
  if node --check "$tmp/$name"; then echo "ok   $name"; else echo "FAIL $name"; fail=1; fi
}
check report.page.js "$dir/page_prelude.js" "$dir/report.js" "$dir/report_ops.js" \
  "$dir/page_epilogue.js"
check report.lib.js "$dir/page_prelude.js" "$dir/report.js" "$dir/report_ops.js" \
  "$dir/lib_epilogue.js"
check diff.page.js "$dir/page_prelude.js" "$dir/diff.js" "$dir/page_epilogue.js"
check diff.lib.js "$dir/page_prelude.js" "$dir/diff.js" "$dir/lib_epilogue.js"
check distributed.js "$dir/distributed.js"
for css in "$dir"/*.css; do
  open=$(tr -cd '{' < "$css" | wc -c); close=$(tr -cd '}' < "$css" | wc -c)
  if [ "$open" -eq "$close" ]; then echo "ok   $(basename "$css")"; else
    echo "FAIL $(basename "$css"): $open '{' vs $close '}'"; fail=1; fi
done
# Every .js file here is one of the pieces above.
for js in "$dir"/*.js; do
  case $(basename "$js") in page_prelude.js|page_epilogue.js|lib_epilogue.js|report.js|report_ops.js|diff.js|distributed.js) ;;
    *) echo "FAIL $(basename "$js"): not checked by this script"; fail=1 ;; esac
done
exit $fail
