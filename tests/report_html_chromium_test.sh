#!/usr/bin/env bash
# Renders `tbprof report --html` pages of real traces in headless Chromium and
# checks that the page's script drew its charts without errors.
#
#   report_html_chromium_test.sh TBPROF SHARED_TESTDATA OUT_DIR
#
# For each case the page, opened as "page.html#selftest", reports
# "ok charts=<n> errors=0 sorted=<k>" in #render-status's data-status
# attribute (the element is hidden; window.onerror and
# per-section try/catch count errors; <k> kernel tables were sorted by
# clicking their headers and checked); the test checks that status in
# Chromium's --dump-dom output, that the expected number of SVG charts exist
# and have marks (rect/path), and takes a screenshot to OUT_DIR/<case>.png
# for a human to look at.
#
# Without a Chromium binary the test is skipped (exit 77), except in CI
# (CI=true), where it fails: CI must install it (Debian: apt-get install -y
# chromium).
set -u

if [[ $# -ne 3 ]]; then
  echo "usage: $0 TBPROF SHARED_TESTDATA OUT_DIR" >&2
  exit 2
fi
TBPROF=$1
TESTDATA=$2
OUT=$3

CHROMIUM=""
for candidate in "${CHROMIUM_BIN:-}" chromium chromium-browser google-chrome-stable google-chrome; do
  if [[ -n "$candidate" ]] && command -v "$candidate" >/dev/null 2>&1; then
    CHROMIUM=$(command -v "$candidate")
    break
  fi
done
if [[ -z "$CHROMIUM" ]]; then
  if [[ "${CI:-}" == "true" ]]; then
    echo "FAIL: no Chromium found (looked for chromium, chromium-browser, google-chrome);" \
         "CI must install it: apt-get install -y chromium" >&2
    exit 1
  fi
  echo "SKIP: no Chromium found (apt-get install -y chromium to run this test)" >&2
  exit 77
fi

mkdir -p "$OUT" || exit 1
PROFILE_DIR=$(mktemp -d)
trap 'rm -rf "$PROFILE_DIR"' EXIT

# Flags that keep Chromium off the network and quiet in a container.
CHROME_FLAGS=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
              --disable-background-networking --disable-component-update --disable-sync
              --disable-extensions --disable-default-apps --mute-audio --hide-scrollbars
              "--user-data-dir=$PROFILE_DIR")

failures=0
fail() {
  echo "FAIL [$1]: $2" >&2
  failures=$((failures + 1))
}

# check_case NAME MIN_CHARTS MIN_TABLES EXPECTED_TEXT INPUT...
check_case() {
  local name=$1 min_charts=$2 min_tables=$3 expected_text=$4
  shift 4
  local html="$OUT/$name.html" dom="$OUT/$name.dom.html" png="$OUT/$name.png"
  rm -f "$html" "$dom" "$png"
  if ! "$TBPROF" report --quiet "$@" --html "$html" >"$OUT/$name.txt" 2>"$OUT/$name.stderr"; then
    fail "$name" "tbprof report failed: $(tail -n 3 "$OUT/$name.stderr")"
    return
  fi
  # "#selftest" makes the page also click the kernel table headers and check
  # the row order after each click (see selfTest() in converters/report/assets/report.js).
  timeout 120 "$CHROMIUM" "${CHROME_FLAGS[@]}" --dump-dom "file://$html#selftest" >"$dom" \
      2>"$OUT/$name.chromium.log"
  local status
  # The status is in the hidden #render-status element's data-status
  # attribute (not shown to users).
  status=$(grep -o '<div id="render-status"[^>]*>' "$dom" | grep -o 'data-status="[^"]*"' |
           sed -e 's/^data-status="//' -e 's/"$//')
  if [[ -z "$status" ]]; then
    fail "$name" "no #render-status in the rendered DOM (did the page script run?); see $dom"
    return
  fi
  echo "[$name] render status: $status"
  if [[ ! "$status" =~ ^ok\ charts=([0-9]+)\ errors=0\ sorted=([0-9]+)$ ]]; then
    fail "$name" "page reported: $status"
    return
  fi
  local charts=${BASH_REMATCH[1]} sorted=${BASH_REMATCH[2]}
  if (( sorted < min_tables )); then
    fail "$name" "expected $min_tables sortable kernel tables checked, page checked $sorted"
  fi
  if (( charts < min_charts )); then
    fail "$name" "expected at least $min_charts charts, page drew $charts"
  fi
  local svgs marks
  svgs=$(grep -o '<svg[^>]*class="chart"' "$dom" | wc -l)
  if (( svgs != charts )); then
    fail "$name" "page counted $charts charts but the DOM holds $svgs chart SVGs"
  fi
  # Every chart SVG must contain marks: split the DOM at each chart's start
  # and look for a rect or path before the next closing </svg>.
  marks=$(awk 'BEGIN { RS = "<svg" } NR > 1 && /class="chart"/ {
                 body = substr($0, 1, index($0, "</svg>"))
                 if (body ~ /<(rect|path)[ >]/) n++ }
               END { print n + 0 }' "$dom")
  if (( marks != charts )); then
    fail "$name" "only $marks of $charts chart SVGs contain rect/path marks"
  fi
  if ! grep -q -- "$expected_text" "$dom"; then
    fail "$name" "rendered page lacks \"$expected_text\""
  fi
  # A table of contents at the top links to every section, the footer comes
  # last, and no debug status is visible.
  if ! grep -q '<nav class="toc"' "$dom"; then
    fail "$name" "no table of contents (nav.toc)"
  fi
  local target
  for target in $(grep -o '<nav class="toc".*</nav>' "$dom" | grep -o 'href="#[^"]*"' |
                  sed -e 's/^href="#//' -e 's/"$//'); do
    grep -q "id=\"$target\"" "$dom" || fail "$name" "contents link #$target has no target"
  done
  # (Script bodies are left out: their source may mention tags.)
  if [[ "$(perl -0pe 's/<script\b.*?<\/script>//gs' "$dom" | grep -o '<footer\|<main\|<section' |
          tail -n 1)" != "<footer" ]]; then
    fail "$name" "the footer is not the last section of the page"
  fi
  if grep -q '<div id="render-status"[^>]*>[^<]' "$dom"; then
    fail "$name" "#render-status shows text on the page"
  fi
  timeout 120 "$CHROMIUM" "${CHROME_FLAGS[@]}" --window-size=1280,2400 \
      "--screenshot=$png" "file://$html" >>"$OUT/$name.chromium.log" 2>&1
  if [[ ! -s "$png" ]] || (( $(stat -c %s "$png") < 10000 )); then
    fail "$name" "screenshot $png missing or nearly empty"
  else
    echo "[$name] screenshot: $png"
  fi
}

# Small BERT inference (no steps): kernel bars + two memory timelines.
check_case bert 3 1 "Kernels" "$TESTDATA/kineto/h100_bert_small_inference.json.gz"
# ResNet-50 training, input-bound: step bars, kernel bars, memory timelines.
check_case resnet50 4 1 "HIGHLY input-bound" \
    "$TESTDATA/kineto/resnet50_v100_dataloader_workers0.pt.trace.json.gz"
# Eight ranks of one job: a section per host plus the cross-host comparison.
check_case dlrm_8ranks 9 8 "Step time across hosts" "$TESTDATA/kineto/dlrm_8ranks"

if (( failures > 0 )); then
  echo "$failures check(s) failed; pages and DOM dumps are in $OUT" >&2
  exit 1
fi
echo "PASS: all pages rendered; screenshots in $OUT"
