#!/usr/bin/env bash
# Conversion benchmark: tbprof convert vs Python's json.load on the same file.
#
# Builds tbprof and tbprof_scale_trace (Release), scales a real Kineto trace
# to >= TARGET MB of JSON, then in one run measures wall time and peak RSS of
#   python3 json.load(F)                      (the baseline)
#   tbprof convert F [--no-views]             (plain JSON input)
#   tbprof convert F.gz [--no-views]          (the same trace gzip-compressed)
#   tbprof convert F  (with views)            (when the CLI has --no-views)
# and prints a table with MB/s, seconds, peak RSS and the ratios the quality
# bars are stated in. Results also go to docs/benchmarks.md.
#
# Bars (docs/benchmarks.md): conversion >= 5x faster than json.load (goal
# 10x); peak RSS <= 0.6 x the uncompressed JSON size; computing all views
# adds <= 30% to conversion time. Only with --check does a failed bar make
# the script exit non-zero.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="$ROOT/build-release"
INPUT="$ROOT/../shared/testdata/kineto/resnet50_v100_dataloader_workers0.pt.trace.json.gz"
TARGET_MB=300
WORK_DIR="${TMPDIR:-/tmp}/tbprof-bench"
RUNS=1
CHECK=0
BUILD=1
WRITE_DOC=1
DOC="$ROOT/docs/benchmarks.md"
JOBS=2
CMAKE_ARGS=()
TBPROF=""
SCALER=""

usage() {
  cat <<EOF
usage: scripts/benchmark.sh [options] [BUILD_DIR]
  --build-dir DIR   build directory (default: build-release; configured as Release)
  --no-build        use the binaries already in the build directory
  --input FILE      trace to scale (default: the ResNet-50 Kineto sample)
  --target-mb N     size of the scaled JSON in MB (default: 300)
  --work-dir DIR    where the scaled trace and logdirs go (default: /tmp/tbprof-bench)
  --runs N          repeat each measurement N times, report the fastest (default: 1)
  --jobs N          build parallelism (default: 2)
  --cmake-arg ARG   extra argument for the cmake configure step (repeatable)
  --tbprof PATH     use this tbprof binary (implies --no-build unless --scaler is missing)
  --scaler PATH     use this tbprof_scale_trace binary
  --no-doc          do not update docs/benchmarks.md
  --check           exit 1 when a quality bar fails
EOF
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) BUILD_DIR="$2"; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    --input) INPUT="$2"; shift 2 ;;
    --target-mb) TARGET_MB="$2"; shift 2 ;;
    --work-dir) WORK_DIR="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    --jobs) JOBS="$2"; shift 2 ;;
    --cmake-arg) CMAKE_ARGS+=("$2"); shift 2 ;;
    --tbprof) TBPROF="$2"; shift 2 ;;
    --scaler) SCALER="$2"; shift 2 ;;
    --no-doc) WRITE_DOC=0; shift ;;
    --check) CHECK=1; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "benchmark.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) BUILD_DIR="$1"; shift ;;
  esac
done
[[ "$BUILD_DIR" = /* ]] || BUILD_DIR="$PWD/$BUILD_DIR"
[[ -f "$INPUT" ]] || { echo "benchmark.sh: input $INPUT not found" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "benchmark.sh: needs GNU time at /usr/bin/time" >&2; exit 2; }
command -v python3 >/dev/null || { echo "benchmark.sh: needs python3" >&2; exit 2; }

log() { echo "[benchmark] $*" >&2; }

# ---------------------------------------------------------------- build
[[ -n "$TBPROF" && -n "$SCALER" ]] && BUILD=0
if [[ $BUILD -eq 1 ]]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  generator=()
  if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]] && command -v ninja >/dev/null; then
    generator=(-G Ninja)
  fi
  log "configuring $BUILD_DIR (Release)"
  mkdir -p "$BUILD_DIR"
  if ! CCACHE_NOHASHDIR=1 cmake -S "$ROOT" -B "$BUILD_DIR" "${generator[@]}" "${launcher[@]}" \
      -DCMAKE_BUILD_TYPE=Release -DTBPROF_BUILD_TESTS=OFF -DTBPROF_BUILD_BENCHMARKS=OFF \
      "${CMAKE_ARGS[@]}" >"$BUILD_DIR/benchmark-build.log" 2>&1; then
    tail -n 30 "$BUILD_DIR/benchmark-build.log" >&2; log "configure failed"; exit 2
  fi
  log "building tbprof tbprof_scale_trace"
  if ! CCACHE_NOHASHDIR=1 cmake --build "$BUILD_DIR" --target tbprof tbprof_scale_trace \
      -j "$JOBS" >>"$BUILD_DIR/benchmark-build.log" 2>&1; then
    grep -E 'error|FAILED' "$BUILD_DIR/benchmark-build.log" | head -n 20 >&2
    log "build failed (full log: $BUILD_DIR/benchmark-build.log)"; exit 2
  fi
fi
TBPROF="${TBPROF:-$BUILD_DIR/tools/tbprof/tbprof}"
SCALER="${SCALER:-$BUILD_DIR/tools/bench/tbprof_scale_trace}"
for bin in "$TBPROF" "$SCALER"; do
  [[ -x "$bin" ]] || { echo "benchmark.sh: $bin is missing (build it or drop --no-build)" >&2; exit 2; }
done

# ---------------------------------------------------------------- inputs
mkdir -p "$WORK_DIR"
base="$(basename "$INPUT")"; base="${base%%.*}"
JSON="$WORK_DIR/${base}_${TARGET_MB}mb.json"
JSON_GZ="$JSON.gz"
make_scaled() {  # output
  if [[ ! -s "$1" || "$1" -ot "$INPUT" || "$1" -ot "$SCALER" ]]; then
    log "scaling $(basename "$INPUT") to >= $TARGET_MB MB -> $1"
    "$SCALER" --target-mb "$TARGET_MB" --force "$INPUT" "$1"
  fi
}
make_scaled "$JSON"
make_scaled "$JSON_GZ"
JSON_BYTES=$(stat -c %s "$JSON")
GZ_BYTES=$(stat -c %s "$JSON_GZ")
JSON_MB=$(awk -v b="$JSON_BYTES" 'BEGIN { printf "%.1f", b / 1e6 }')
cat "$JSON" "$JSON_GZ" >/dev/null  # Same warm page cache for every contender.

# ---------------------------------------------------------------- measure
HELP="$("$TBPROF" convert --help 2>&1 || true)"
CONVERT_FLAGS=(--force)
grep -q -- '--run ' <<<"$HELP" && CONVERT_FLAGS+=(--run bench)
grep -q -- '--quiet' <<<"$HELP" && CONVERT_FLAGS+=(--quiet)
HAS_NO_VIEWS=0
grep -q -- '--no-views' <<<"$HELP" && HAS_NO_VIEWS=1

ROWS=()  # "name|input|wall_s|rss_kb|cpu_s"
measure() {  # name input_label command...
  local name="$1" label="$2"; shift 2
  local best_s="" best_cpu="" best_kb=0 r s kb user sys
  for ((r = 1; r <= RUNS; r++)); do
    if ! /usr/bin/time -f '%e %M %U %S' -o "$WORK_DIR/time.txt" "$@" >"$WORK_DIR/last.log" 2>&1; then
      log "FAILED: $*"; tail -n 20 "$WORK_DIR/last.log" >&2
      exit 1
    fi
    read -r s kb user sys < <(tail -n 1 "$WORK_DIR/time.txt")
    if [[ -z "$best_s" ]] || awk -v a="$s" -v b="$best_s" 'BEGIN { exit !(a < b) }'; then
      best_s="$s"
      best_cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    fi
    (( kb > best_kb )) && best_kb=$kb
  done
  log "$name ($label): ${best_s}s wall, ${best_cpu}s CPU, peak RSS $((best_kb * 1024 / 1000000)) MB"
  ROWS+=("$name|$label|$best_s|$best_kb|$best_cpu")
}

LOGDIR="$WORK_DIR/logdir"
rm -rf "$LOGDIR"
log "measuring ($RUNS run(s) each; JSON is $JSON_MB MB)"
measure "python3 json.load" "json" python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$JSON"
if [[ $HAS_NO_VIEWS -eq 1 ]]; then
  measure "tbprof convert --no-views" "json" "$TBPROF" convert "$JSON" --logdir "$LOGDIR" "${CONVERT_FLAGS[@]}" --no-views
  measure "tbprof convert --no-views" "json.gz" "$TBPROF" convert "$JSON_GZ" --logdir "$LOGDIR" "${CONVERT_FLAGS[@]}" --no-views
  measure "tbprof convert (all views)" "json" "$TBPROF" convert "$JSON" --logdir "$LOGDIR" "${CONVERT_FLAGS[@]}"
  measure "tbprof convert (all views)" "json.gz" "$TBPROF" convert "$JSON_GZ" --logdir "$LOGDIR" "${CONVERT_FLAGS[@]}"
else
  log "tbprof convert has no --no-views switch: measuring its default only"
  measure "tbprof convert" "json" "$TBPROF" convert "$JSON" --logdir "$LOGDIR" "${CONVERT_FLAGS[@]}"
  measure "tbprof convert" "json.gz" "$TBPROF" convert "$JSON_GZ" --logdir "$LOGDIR" "${CONVERT_FLAGS[@]}"
fi
XPLANE_BYTES=$(find "$LOGDIR" -name '*.xplane.pb' -printf '%s\n' 2>/dev/null | sort -n | tail -n 1)

# ---------------------------------------------------------------- report
REPORT="$(python3 - "$JSON_BYTES" "$GZ_BYTES" "$HAS_NO_VIEWS" "${XPLANE_BYTES:-0}" "${ROWS[@]}" \
  2>"$WORK_DIR/bars.txt" <<'EOF'
import sys
json_bytes, gz_bytes, has_no_views, xplane_bytes = (int(x) for x in sys.argv[1:5])
rows = [r.split("|") for r in sys.argv[5:]]
mb = json_bytes / 1e6
base_s, base_cpu = float(rows[0][2]), float(rows[0][4])
lines = ["| step | input | wall s | MB/s (of JSON) | peak RSS MB | speedup vs json.load | RSS / JSON size | CPU s (user+sys) | CPU-time speedup |",
         "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
by = {}
for name, label, s, kb, cpu in rows:
    s, rss_bytes, cpu = float(s), int(kb) * 1024, float(cpu)
    by[(name, label)] = (s, rss_bytes)
    python = name.startswith("python")
    speed = "1.0x" if python else "%.1fx" % (base_s / max(s, 0.005))
    cpu_speed = "1.0x" if python else "%.1fx" % (base_cpu / max(cpu, 0.005))
    lines.append("| %s | %s | %.2f | %.0f | %.0f | %s | %.2f | %.2f | %s |" % (
        name, label, s, mb / max(s, 0.005), rss_bytes / 1e6, speed, rss_bytes / json_bytes,
        cpu, cpu_speed))
convert = "tbprof convert --no-views" if has_no_views else "tbprof convert"
conv_s = by[(convert, "json")][0]
speedup = base_s / max(conv_s, 0.005)
rss_ratio = max(rss for (name, _), (_, rss) in by.items() if name.startswith("tbprof")) / json_bytes
bars = [("conversion speed vs json.load (>= 5x, goal 10x)", "%.1fx" % speedup, speedup >= 5)]
bars.append(("peak RSS / JSON size (<= 0.6)", "%.2f" % rss_ratio, rss_ratio <= 0.6))
if has_no_views:
    views_s = by[("tbprof convert (all views)", "json")][0]
    extra = views_s / max(conv_s, 0.005) - 1
    bars.append(("time added by all views (<= 30%)", "%.0f%%" % (100 * extra), extra <= 0.30))
else:
    bars.append(("time added by all views (<= 30%)", "not measured (no --no-views switch)", True))
lines += ["", "| bar | measured | result |", "|---|---:|---|"]
lines += ["| %s | %s | %s |" % (b, m, "pass" if ok else "**FAIL**") for b, m, ok in bars]
lines += ["", "JSON: %.1f MB (gzip %.1f MB); xplane.pb written: %.1f MB." % (
    mb, gz_bytes / 1e6, xplane_bytes / 1e6)]
print("\n".join(lines))
print("BARS_FAILED=%d" % sum(1 for _, _, ok in bars if not ok), file=sys.stderr)
EOF
)"
BARS_FAILED=$(sed -n 's/^BARS_FAILED=//p' "$WORK_DIR/bars.txt")

cpu="$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)"
mem="$(free -g | awk '/^Mem:/ { print $2 " GB total, " $7 " GB available" }')"
load="$(cut -d' ' -f1-3 /proc/loadavg)"
tbprof_build="$(cd "$(dirname "$TBPROF")/../.." && pwd)"
build_type="$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$tbprof_build/CMakeCache.txt" 2>/dev/null || true)"
commit="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
SNIPPET="### $(date '+%Y-%m-%d %H:%M %Z') — $(basename "$INPUT") scaled to $JSON_MB MB

Machine: $(nproc) cores (${cpu:-unknown CPU}), $mem; load average before the run: $load.
tbprof: ${TBPROF#$ROOT/} (${build_type:-unknown} build), commit $commit (plus uncommitted changes, if any). Runs per measurement: $RUNS (fastest kept).

$REPORT"

echo
echo "$SNIPPET"

if [[ $WRITE_DOC -eq 1 ]]; then
  python3 - "$DOC" "$SNIPPET" <<'EOF'
import os, sys
path, snippet = sys.argv[1], sys.argv[2]
begin, end = "<!-- BEGIN benchmark results (scripts/benchmark.sh) -->", "<!-- END benchmark results -->"
text = open(path).read() if os.path.exists(path) else "# Benchmarks\n"
block = "%s\n%s\n%s" % (begin, snippet.strip(), end)
if begin in text and end in text:
    head, rest = text.split(begin, 1)
    text = head + block + rest.split(end, 1)[1]
else:
    text = text.rstrip("\n") + "\n\n## Latest results\n\n" + block + "\n"
open(path, "w").write(text)
EOF
  log "updated $DOC"
fi

if [[ $CHECK -eq 1 && "${BARS_FAILED:-1}" -ne 0 ]]; then
  log "$BARS_FAILED quality bar(s) failed"
  exit 1
fi
exit 0
