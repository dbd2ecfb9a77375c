#!/usr/bin/env bash
# Conversion benchmark: tbprof convert vs the floor, json.load and the peers.
#
# Builds tbprof, tbprof_scale_trace, tbprof_xplane_floor and tbprof_floor
# (Release), scales every
# real Kineto trace in ../shared/testdata/kineto (one rank of dlrm_8ranks;
# --input picks others) to >= TARGET MB of JSON (cached in the work
# directory), then in one run measures for each trace wall time,
# CPU time (user + sys) and peak RSS of
#   python3 json.load(F)                      (the Python baseline)
#   tbprof_floor F, F.gz                      (the floor: ISA-L inflate +
#                                              simdjson On-Demand visiting
#                                              every field, tools/bench/floor_main.cc)
#   tbprof convert F [--no-views]             (plain JSON input)
#   tbprof convert F.gz [--no-views]          (the same trace gzip-compressed)
#   tbprof convert F  (with views)            (when the CLI has --no-views)
#   HTA and torch-tb-profiler on F.gz         (tools/bench/peers.py, in the
#                                              bench venv; --no-peers skips)
#   tbprof inspect / report on the xplane.pb  (reading it back)
#   tbprof_xplane_floor on the xplane.pb      (its floor: open + wire-decode
#                                              only, tools/bench/xplane_floor_main.cc)
# on each scaled trace and again on the first trace's original (unscaled)
# input, and prints tables with every figure also as a ratio to the floor and
# to json.load, a per-trace summary, and the quality bars, the issue-23 bars
# taken on the worst trace. The peers run on the first trace only (minutes
# each). Results also go to docs/benchmarks.md.
#
# With --big: only the big-trace benchmark (part 5 of issue 11, not run in
# CI): the trace scaled to --big-gb GB of JSON (default 10), written once,
# gzip-compressed, into $TBPROF_BENCH_CACHE (default /tmp/tbprof-bench) after
# checking the free disk space, then converted once with all views, once
# with --no-views, reporting wall time, CPU time, peak RSS and the phases of
# `convert --timings`.
#
# When the CLI has --threads, the scaled-trace rows are measured with the
# default (automatic) threads and, for comparison in the same run, with
# --threads 1.
#
# Bars (docs/benchmarks.md, DESIGN.md "Speed"): conversion >= 5x faster than
# json.load (goal 10x); peak RSS <= 0.6 x the uncompressed JSON size;
# computing all views adds <= 30% to conversion time; the default convert
# (all views) within 2x of the floor; the default convert >= 30x faster than
# HTA. Only with --check does a failed bar make the script exit non-zero.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="$ROOT/build-release"
KINETO_DIR="$ROOT/../shared/testdata/kineto"
INPUTS=()
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
FLOOR=""
PEERS=1
PEER_TIMEOUT=600
PEER_RUNS=1
PEERS_VENV="$ROOT/build/bench-venv"
ORIGINAL=1
BIG=0
BIG_GB=10
BIG_CACHE="${TBPROF_BENCH_CACHE:-${TMPDIR:-/tmp}/tbprof-bench}"

usage() {
  cat <<EOF
usage: scripts/benchmark.sh [options] [BUILD_DIR]
  --build-dir DIR   build directory (default: build-release; configured as Release)
  --no-build        use the binaries already in the build directory
  --input FILE      trace to scale (repeatable; default: every trace in
                    ../shared/testdata/kineto, the ResNet-50 sample first, and
                    one rank of dlrm_8ranks)
  --target-mb N     size of the scaled JSON in MB (default: 300)
  --work-dir DIR    where the scaled trace and logdirs go (default: /tmp/tbprof-bench)
  --runs N          repeat each measurement N times, report the fastest (default: 1)
  --jobs N          build parallelism (default: 2)
  --cmake-arg ARG   extra argument for the cmake configure step (repeatable)
  --tbprof PATH     use this tbprof binary (implies --no-build unless --scaler is missing)
  --scaler PATH     use this tbprof_scale_trace binary
  --floor PATH      use this tbprof_floor binary
  --no-peers        do not run HTA and torch-tb-profiler
  --peer-timeout S  seconds each peer may take per trace and run (default: 600)
  --peer-runs N     run each peer N times, report the fastest (default: 1)
  --peers-venv DIR  venv with the peers (default: build/bench-venv, made by
                    scripts/python_envs.sh bench when missing)
  --no-original     measure only the scaled trace, not also the original input
  --no-doc          do not update docs/benchmarks.md
  --check           exit 1 when a quality bar fails
  --big             only the big-trace benchmark: scale to --big-gb GB of JSON
                    (gzip) once into \$TBPROF_BENCH_CACHE (default
                    /tmp/tbprof-bench), convert it, report time, RSS and phases,
                    then read the xplane.pb it wrote with inspect and report
  --big-gb N        size of the big trace in GB of JSON (default: 10)
EOF
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) BUILD_DIR="$2"; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    --input) INPUTS+=("$2"); shift 2 ;;
    --target-mb) TARGET_MB="$2"; shift 2 ;;
    --work-dir) WORK_DIR="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    --jobs) JOBS="$2"; shift 2 ;;
    --cmake-arg) CMAKE_ARGS+=("$2"); shift 2 ;;
    --tbprof) TBPROF="$2"; shift 2 ;;
    --scaler) SCALER="$2"; shift 2 ;;
    --floor) FLOOR="$2"; shift 2 ;;
    --no-peers) PEERS=0; shift ;;
    --peer-timeout) PEER_TIMEOUT="$2"; shift 2 ;;
    --peer-runs) PEER_RUNS="$2"; shift 2 ;;
    --peers-venv) PEERS_VENV="$2"; shift 2 ;;
    --no-original) ORIGINAL=0; shift ;;
    --no-doc) WRITE_DOC=0; shift ;;
    --check) CHECK=1; shift ;;
    --big) BIG=1; shift ;;
    --big-gb) BIG_GB="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "benchmark.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) BUILD_DIR="$1"; shift ;;
  esac
done
[[ "$BUILD_DIR" = /* ]] || BUILD_DIR="$PWD/$BUILD_DIR"
if [[ ${#INPUTS[@]} -eq 0 ]]; then
  # The benchmark's own trace first (the peers and the original-size table use
  # the first input), then the other real traces, one rank of each directory.
  first="$KINETO_DIR/resnet50_v100_dataloader_workers0.pt.trace.json.gz"
  [[ -f "$first" ]] && INPUTS+=("$first")
  while IFS= read -r f; do
    [[ "$f" == "$first" ]] || INPUTS+=("$f")
  done < <(find "$KINETO_DIR" -maxdepth 1 -type f \( -name '*.json' -o -name '*.json.gz' \) 2>/dev/null | sort)
  while IFS= read -r d; do
    f="$(find "$d" -maxdepth 1 -type f \( -name '*.json' -o -name '*.json.gz' \) | sort | head -n 1)"
    [[ -n "$f" ]] && INPUTS+=("$f")
  done < <(find "$KINETO_DIR" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | sort)
fi
[[ ${#INPUTS[@]} -gt 0 ]] || { echo "benchmark.sh: no input traces (none in $KINETO_DIR)" >&2; exit 2; }
for f in "${INPUTS[@]}"; do
  [[ -f "$f" ]] || { echo "benchmark.sh: input $f not found" >&2; exit 2; }
done
INPUT="${INPUTS[0]}"
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
  log "building tbprof tbprof_scale_trace tbprof_floor"
  if ! CCACHE_NOHASHDIR=1 cmake --build "$BUILD_DIR" --target tbprof tbprof_scale_trace tbprof_xplane_floor \
      -j "$JOBS" >>"$BUILD_DIR/benchmark-build.log" 2>&1; then
    grep -E 'error|FAILED' "$BUILD_DIR/benchmark-build.log" | head -n 20 >&2
    log "build failed (full log: $BUILD_DIR/benchmark-build.log)"; exit 2
  fi
  # Optional: needs libisal-dev and libsimdjson-dev (tools/bench/CMakeLists.txt).
  if ! CCACHE_NOHASHDIR=1 cmake --build "$BUILD_DIR" --target tbprof_floor \
      -j "$JOBS" >>"$BUILD_DIR/benchmark-build.log" 2>&1; then
    log "tbprof_floor not built (needs libisal-dev and libsimdjson-dev): no floor rows"
  fi
fi
TBPROF="${TBPROF:-$BUILD_DIR/tools/tbprof/tbprof}"
SCALER="${SCALER:-$BUILD_DIR/tools/bench/tbprof_scale_trace}"
FLOOR="${FLOOR:-$BUILD_DIR/tools/bench/tbprof_floor}"
# The floor of reading an xplane.pb (open + wire-decode only); optional.
XPLANE_FLOOR="$BUILD_DIR/tools/bench/tbprof_xplane_floor"
[[ -x "$XPLANE_FLOOR" ]] || XPLANE_FLOOR=""
for bin in "$TBPROF" "$SCALER"; do
  [[ -x "$bin" ]] || { echo "benchmark.sh: $bin is missing (build it or drop --no-build)" >&2; exit 2; }
done
[[ -x "$FLOOR" ]] || { log "no $FLOOR: the floor is not measured"; FLOOR=""; }

# ---------------------------------------------------------------- big trace
if [[ $BIG -eq 1 ]]; then
  mkdir -p "$BIG_CACHE"
  base="$(basename "$INPUT")"; base="${base%%.*}"
  BIG_GZ="$BIG_CACHE/${base}_${BIG_GB}gb.json.gz"
  if [[ ! -s "$BIG_GZ" ]]; then
    # gzip level 1 is ~8% of the JSON for this trace; keep room for the
    # temporary file, the logdir (~7% of the JSON) and a margin.
    need_mb=$((BIG_GB * 1000 * 25 / 100 + 2000))
    avail_mb=$(df -Pm "$BIG_CACHE" | awk 'NR == 2 { print $4 }')
    if (( avail_mb < need_mb )); then
      echo "benchmark.sh: --big needs about $need_mb MB free in $BIG_CACHE, only $avail_mb MB" \
           "available; use a smaller --big-gb or point TBPROF_BENCH_CACHE elsewhere" >&2
      exit 2
    fi
    log "scaling $(basename "$INPUT") to >= $BIG_GB GB of JSON -> $BIG_GZ (once)"
    /usr/bin/time -f '%e s wall' "$SCALER" --target-mb $((BIG_GB * 1000)) --gzip-level 1 --force \
        "$INPUT" "$BIG_GZ"
  fi
  # gzip -l reports the size modulo 4 GiB: count the real size once.
  if [[ ! -s "$BIG_GZ.size" || "$BIG_GZ.size" -ot "$BIG_GZ" ]]; then
    log "measuring the inflated size of $(basename "$BIG_GZ")"
    gzip -dc "$BIG_GZ" | wc -c >"$BIG_GZ.size"
  fi
  json_bytes=$(cat "$BIG_GZ.size")
  logdir="$BIG_CACHE/logdir-big"
  LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
  log "converting $(basename "$BIG_GZ") ($((json_bytes / 1000000)) MB of JSON, gzip $(( $(stat -c %s "$BIG_GZ") / 1000000)) MB); load average $LOAD_BEFORE"
  for mode in views no-views; do
    rm -rf "$logdir"
    flags=(--logdir "$logdir" --run big --host big --quiet --timings --tensorboard-budget-mb 0)
    [[ $mode == no-views ]] && flags+=(--no-views)
    cat "$BIG_GZ" >/dev/null
    if ! /usr/bin/time -f '%e %M %U %S' -o "$BIG_CACHE/time.txt" "$TBPROF" convert "$BIG_GZ" \
        "${flags[@]}" >"$BIG_CACHE/big.log" 2>"$BIG_CACHE/timings.txt"; then
      cat "$BIG_CACHE/timings.txt" >&2; log "FAILED"; exit 1
    fi
    read -r s kb user sys < <(tail -n 1 "$BIG_CACHE/time.txt")
    echo
    echo "tbprof convert ($mode) of $((json_bytes / 1000000)) MB of JSON (gzip input):"
    awk -v s="$s" -v kb="$kb" -v u="$user" -v y="$sys" -v b="$json_bytes" 'BEGIN {
      printf "  wall %.2f s, CPU %.2f s (user %.2f + sys %.2f), peak RSS %.0f MB = %.2fx the JSON, %.0f MB/s of JSON\n",
             s, u + y, u, y, kb * 1024 / 1e6, kb * 1024 / b, b / 1e6 / s }'
    # Per-phase throughput (MB of JSON per wall second of the phase).
    grep -E '^ +[a-z]' "$BIG_CACHE/timings.txt" | awk -v b="$json_bytes" '{
      line = $0; wall = ""
      for (i = 1; i <= NF; ++i) if ($(i + 1) == "s" && $(i + 2) == "wall") { wall = $i; break }
      if (wall != "" && wall > 0) printf "  %s   (%.0f MB/s of JSON)\n", line, b / 1e6 / wall
      else printf "  %s\n", line }'
  done
  du -sh "$logdir" | awk '{ print "  logdir: " $1 }'
  # Reading that xplane.pb back (issue 11's goal: >= 300 MB/s, RSS <= 1.5x
  # the file): inspect (reading + diagnosis) and report (reading + all views).
  xplane="$(find "$logdir" -name '*.xplane.pb' | head -n 1)"
  if [[ -n "$xplane" ]]; then
    xplane_bytes=$(stat -c %s "$xplane")
    echo
    echo "reading the written xplane.pb ($((xplane_bytes / 1000000)) MB):"
    for cmd in inspect report; do
      args=("$xplane")
      [[ $cmd == report ]] && args+=(--json --quiet --timings)
      best=""
      for ((r = 0; r < RUNS; ++r)); do
        cat "$xplane" >/dev/null
        /usr/bin/time -f '%e %M %U %S' -o "$BIG_CACHE/time.txt" "$TBPROF" "$cmd" "${args[@]}" \
            >/dev/null 2>"$BIG_CACHE/timings.txt" || { cat "$BIG_CACHE/timings.txt" >&2; exit 1; }
        line="$(tail -n 1 "$BIG_CACHE/time.txt")"
        if [[ -z "$best" ]] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
          best="$line"
          cp "$BIG_CACHE/timings.txt" "$BIG_CACHE/timings-best.txt"
        fi
      done
      read -r s kb user sys <<<"$best"
      awk -v c="$cmd" -v s="$s" -v kb="$kb" -v u="$user" -v y="$sys" -v b="$xplane_bytes" 'BEGIN {
        printf "  %-8s wall %.2f s, CPU %.2f s, %.0f MB/s, peak RSS %.0f MB = %.2fx the file\n",
               c, s, u + y, b / 1e6 / s, kb * 1024 / 1e6, kb * 1024 / b }'
      [[ $cmd == report ]] && grep -E '^ +[a-z]' "$BIG_CACHE/timings-best.txt" | sed 's/^/  /'
    done
  fi
  rm -rf "$logdir"
  exit 0
fi

# ---------------------------------------------------------------- peers' venv
PEERS_PY=""
if [[ $PEERS -eq 1 ]]; then
  if [[ ! -x "$PEERS_VENV/bin/python" ]]; then
    log "making the peers' venv $PEERS_VENV (scripts/python_envs.sh bench)"
    venv_build="$(dirname "$PEERS_VENV")"
    if [[ "$(basename "$PEERS_VENV")" != bench-venv ]] ||
        ! BUILD_DIR="$venv_build" "$ROOT/scripts/python_envs.sh" bench >&2; then
      log "no peers' venv at $PEERS_VENV: peers not measured"
    fi
  fi
  [[ -x "$PEERS_VENV/bin/python" ]] && PEERS_PY="$PEERS_VENV/bin/python"
fi

# ---------------------------------------------------------------- inputs
mkdir -p "$WORK_DIR"
make_scaled() {  # input output
  if [[ ! -s "$2" || "$2" -ot "$1" || "$2" -ot "$SCALER" ]]; then
    log "scaling $(basename "$1") to >= $TARGET_MB MB -> $2"
    "$SCALER" --target-mb "$TARGET_MB" --force "$1" "$2" >&2
  fi
}
trace_base() {  # input -> name without suffixes
  local b; b="$(basename "$1")"; echo "${b%%.*}"
}
# The original of the first input, plain and gzip, for the original-size table.
base="$(trace_base "$INPUT")"
if [[ "$(head -c 2 "$INPUT" | od -An -tx1 | tr -d ' \n')" == 1f8b ]]; then
  ORIG_GZ="$INPUT"; ORIG_JSON="$WORK_DIR/${base}_original.json"
  if [[ $ORIGINAL -eq 1 && ( ! -s "$ORIG_JSON" || "$ORIG_JSON" -ot "$INPUT" ) ]]; then
    gzip -dc "$INPUT" >"$ORIG_JSON.tmp" && mv "$ORIG_JSON.tmp" "$ORIG_JSON"
  fi
else
  ORIG_JSON="$INPUT"; ORIG_GZ="$WORK_DIR/${base}_original.json.gz"
  if [[ $ORIGINAL -eq 1 && ( ! -s "$ORIG_GZ" || "$ORIG_GZ" -ot "$INPUT" ) ]]; then
    gzip -6 -c "$INPUT" >"$ORIG_GZ.tmp" && mv "$ORIG_GZ.tmp" "$ORIG_GZ"
  fi
fi
# Every input scaled, plain and gzip (cached: made again only when the input
# or the scaler is newer).
for f in "${INPUTS[@]}"; do
  json="$WORK_DIR/$(trace_base "$f")_${TARGET_MB}mb.json"
  make_scaled "$f" "$json"
  make_scaled "$f" "$json.gz"
done

# ---------------------------------------------------------------- measure
HELP="$("$TBPROF" convert --help 2>&1 || true)"
CONVERT_FLAGS=(--force)
grep -q -- '--run ' <<<"$HELP" && CONVERT_FLAGS+=(--run bench)
grep -q -- '--quiet' <<<"$HELP" && CONVERT_FLAGS+=(--quiet)
HAS_NO_VIEWS=0
grep -q -- '--no-views' <<<"$HELP" && HAS_NO_VIEWS=1
HAS_THREADS=0
grep -q -- '--threads' <<<"$HELP" && HAS_THREADS=1

ROWS="$WORK_DIR/rows.jsonl"  # One JSON object per measured row.
: >"$ROWS"
TABLE=""                     # Which table the rows go to: scaled or original.
TRACE=""                     # The input trace the rows are of (its base name).
add_row() {  # JSON object text (without table), appended with "table" and "trace"
  python3 -c 'import json, sys; r = json.loads(sys.argv[1]); r["table"] = sys.argv[2]; r["trace"] = sys.argv[3]; print(json.dumps(r))' \
    "$1" "$TABLE" "$TRACE" >>"$ROWS"
}

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
  add_row "{\"name\": \"$name\", \"input\": \"$label\", \"status\": \"ok\", \"wall_s\": $best_s, \"cpu_s\": $best_cpu, \"peak_rss_bytes\": $((best_kb * 1024))}"
}

measure_floor() {  # input_label file
  [[ -n "$FLOOR" ]] || return 0
  local out
  if ! out="$("$FLOOR" "$2" --json --repeat "$RUNS" 2>"$WORK_DIR/last.log")"; then
    log "FAILED: $FLOOR $2"; cat "$WORK_DIR/last.log" >&2; exit 1
  fi
  add_row "$(python3 -c 'import json, sys
r = json.loads(sys.argv[1])
print(json.dumps(dict(r, name="floor", input=sys.argv[2], status="ok",
                      wall_s=r["floor_s"], cpu_s=r["floor_cpu_s"])))' "$out" "$1")"
  log "floor ($1): $(python3 -c 'import json, sys; r = json.loads(sys.argv[1]); print("%.3fs (inflate %s, parse %.3fs, 2-core bound %.3fs)" % (r["floor_s"], "%.3fs" % r["inflate_s"] if "inflate_s" in r else "-", r["parse_s"], r["bound_s"]))' "$out")"
}

measure_peers() {  # gzip file
  [[ $PEERS -eq 1 ]] || return 0
  if [[ -z "$PEERS_PY" ]]; then
    add_row '{"name": "HTA", "input": "json.gz", "status": "not run", "message": "no bench venv"}'
    return 0
  fi
  local line
  log "peers on $(basename "$1") (timeout ${PEER_TIMEOUT}s each)"
  while IFS= read -r line; do
    [[ "$line" == "{"* ]] || continue
    add_row "$(python3 -c 'import json, sys
r = json.loads(sys.argv[1])
r["name"] = {"hta": "HTA", "tb_profiler": "torch-tb-profiler"}[r["tool"]]
r["input"] = "json.gz"
print(json.dumps(r))' "$line")"
    log "  $line"
  done < <("$PEERS_PY" "$ROOT/tools/bench/peers.py" --json --tools hta,tb_profiler \
             --timeout "$PEER_TIMEOUT" --runs "$PEER_RUNS" "$1")
}

bench_trace() {  # table json json_gz with_peers
  TABLE="$1"
  local json="$2" gz="$3" with_peers="$4" logdir="$WORK_DIR/logdir"
  rm -rf "$logdir"
  cat "$json" "$gz" >/dev/null
  log "[$TABLE $TRACE] measuring ($RUNS run(s) each; JSON is $(awk -v b="$(stat -c %s "$json")" 'BEGIN { printf "%.1f", b / 1e6 }') MB)"
  measure "python3 json.load" "json" python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$json"
  measure_floor "json" "$json"
  measure_floor "json.gz" "$gz"
  if [[ $HAS_NO_VIEWS -eq 1 ]]; then
    measure "tbprof convert --no-views" "json" "$TBPROF" convert "$json" --logdir "$logdir" "${CONVERT_FLAGS[@]}" --no-views
    measure "tbprof convert --no-views" "json.gz" "$TBPROF" convert "$gz" --logdir "$logdir" "${CONVERT_FLAGS[@]}" --no-views
    measure "tbprof convert (all views)" "json" "$TBPROF" convert "$json" --logdir "$logdir" "${CONVERT_FLAGS[@]}"
    measure "tbprof convert (all views)" "json.gz" "$TBPROF" convert "$gz" --logdir "$logdir" "${CONVERT_FLAGS[@]}"
    if [[ $HAS_THREADS -eq 1 && $TABLE == scaled ]]; then
      measure "tbprof convert (all views) --threads 1" "json" "$TBPROF" convert "$json" --logdir "$logdir" "${CONVERT_FLAGS[@]}" --threads 1
      measure "tbprof convert (all views) --threads 1" "json.gz" "$TBPROF" convert "$gz" --logdir "$logdir" "${CONVERT_FLAGS[@]}" --threads 1
    fi
  else
    log "tbprof convert has no --no-views switch: measuring its default only"
    measure "tbprof convert" "json" "$TBPROF" convert "$json" --logdir "$logdir" "${CONVERT_FLAGS[@]}"
    measure "tbprof convert" "json.gz" "$TBPROF" convert "$gz" --logdir "$logdir" "${CONVERT_FLAGS[@]}"
  fi
  local xplane xplane_file
  xplane_file=$(find "$logdir" -name '*.xplane.pb' 2>/dev/null | head -n 1)
  xplane=$([[ -n "$xplane_file" ]] && stat -c %s "$xplane_file" || echo 0)
  add_row "{\"name\": \"_files\", \"json_bytes\": $(stat -c %s "$json"), \"gz_bytes\": $(stat -c %s "$gz"), \"xplane_bytes\": ${xplane:-0}, \"file\": \"$(basename "$json")\"}"
  # Reading that xplane.pb back: inspect (read + diagnose) and report (read +
  # every view), issue 23 part 3.
  if [[ -n "$xplane_file" ]]; then
    cat "$xplane_file" >/dev/null
    [[ -n "$XPLANE_FLOOR" ]] && measure "xplane floor" "xplane.pb" "$XPLANE_FLOOR" "$xplane_file"
    measure "tbprof inspect" "xplane.pb" "$TBPROF" inspect "$xplane_file"
    measure "tbprof report" "xplane.pb" "$TBPROF" report "$xplane_file" --json --quiet
  fi
  [[ $with_peers -eq 1 ]] && measure_peers "$gz"
  return 0
}

# The peak RSS of each binary doing nothing (mostly the pages of its shared
# libraries), to tell what reading an xplane.pb adds from what any run costs.
rss_kb_of() { /usr/bin/time -f '%M' -o "$WORK_DIR/time.txt" "$@" >/dev/null 2>&1; tail -n 1 "$WORK_DIR/time.txt"; }
export TBPROF_BASE_RSS_KB="$(rss_kb_of "$TBPROF" --version)"
export XPLANE_FLOOR_BASE_RSS_KB="$([[ -n "$XPLANE_FLOOR" ]] && rss_kb_of "$XPLANE_FLOOR" --help || echo 0)"
LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
first=1
for f in "${INPUTS[@]}"; do
  TRACE="$(trace_base "$f")"
  json="$WORK_DIR/${TRACE}_${TARGET_MB}mb.json"
  bench_trace scaled "$json" "$json.gz" "$first"
  first=0
done
TRACE="$(trace_base "$INPUT")"
[[ $ORIGINAL -eq 1 ]] && bench_trace original "$ORIG_JSON" "$ORIG_GZ" 0

# ---------------------------------------------------------------- report
REPORT="$(python3 - "$ROWS" "$HAS_NO_VIEWS" "$PEER_TIMEOUT" 2>"$WORK_DIR/bars.txt" <<'EOF'
import json, os, sys
rows_path, has_no_views, peer_timeout = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
BASE_RSS = {"tbprof": int(os.environ.get("TBPROF_BASE_RSS_KB") or 0) * 1024,
            "xplane floor": int(os.environ.get("XPLANE_FLOOR_BASE_RSS_KB") or 0) * 1024}
rows = [json.loads(l) for l in open(rows_path) if l.strip()]
convert = "tbprof convert --no-views" if has_no_views else "tbprof convert"
default = "tbprof convert (all views)" if has_no_views else "tbprof convert"
READERS = ("tbprof inspect", "tbprof report", "xplane floor")

def ratio(x):
    return "%.1fx" % x if x >= 0.95 else "%.2fx" % x

groups = []  # (table, trace) in the order measured.
for r in rows:
    key = (r["table"], r.get("trace", ""))
    if key not in groups:
        groups.append(key)

out, failed, summary = [], 0, []
for table, trace in groups:
    trows = [r for r in rows if r["table"] == table and r.get("trace", "") == trace]
    files = next(r for r in trows if r["name"] == "_files")
    trows = [r for r in trows if r["name"] != "_files"]
    json_bytes = files["json_bytes"]; mb = json_bytes / 1e6
    xplane_bytes = files["xplane_bytes"]
    by = {(r["name"], r["input"]): r for r in trows}
    base = by[("python3 json.load", "json")]
    floors = {k[1]: r for k, r in by.items() if k[0] == "floor"}
    title = ("scaled trace, %.1f MB of JSON" if table == "scaled" else "original trace, %.1f MB of JSON") % mb
    out += ["#### %s: %s (%s; gzip %.1f MB)" % (trace, title, files["file"], files["gz_bytes"] / 1e6), ""]
    out += ["| step | input | wall s | CPU s | peak RSS MB | MB/s (of JSON) | wall / floor | CPU / floor | speedup vs json.load | CPU speedup vs json.load | RSS / JSON |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in trows:
        name = {"floor": "floor: ISA-L inflate + simdjson On-Demand",
                "HTA": "HTA: load + temporal + kernel breakdown",
                "torch-tb-profiler": "torch-tb-profiler: loader + overview",
                "xplane floor": "xplane floor: open + wire-decode only (tbprof_xplane_floor)"}.get(r["name"], r["name"])
        if r["status"] != "ok":
            msg = r.get("message", "").replace("|", "/")
            out.append("| %s | %s | %s | | | | | | | | |" % (name, r["input"], "**%s**: %s" % (r["status"], msg)))
            continue
        s, cpu, rss = r["wall_s"], r["cpu_s"], r["peak_rss_bytes"]
        if r["name"] in READERS:  # Reading the xplane.pb: MB/s and RSS of that file.
            out.append("| %s | xplane.pb (%.1f MB) | %.2f | %.2f | %.0f | %.0f of xplane.pb | | | | | %.2f of xplane.pb |" % (
                name, xplane_bytes / 1e6, s, cpu, rss / 1e6, xplane_bytes / 1e6 / max(s, 0.005),
                rss / max(xplane_bytes, 1)))
            continue
        f = floors.get(r["input"])
        fw = ratio(s / f["wall_s"]) if f else "-"
        fc = ratio(cpu / f["cpu_s"]) if f else "-"
        out.append("| %s | %s | %.2f | %.2f | %.0f | %.0f | %s | %s | %s | %s | %.2f |" % (
            name, r["input"], s, cpu, rss / 1e6, mb / max(s, 0.005), fw, fc,
            ratio(base["wall_s"] / max(s, 0.005)), ratio(base["cpu_s"] / max(cpu, 0.005)),
            rss / json_bytes))
    notes = []
    for label, f in sorted(floors.items()):
        parts = ["%s: read %.3f s" % (label, f["read_s"])] if "read_s" in f else [
            "%s: inflate alone %.3f s, inflate into buffer %.3f s" % (label, f["inflate_s"], f["inflate_to_buffer_s"])]
        parts.append("parse %.3f s (%d events, %d fields)" % (f["parse_s"], f["events"], f["fields"]))
        if "scan_s" in f:
            parts.append("tbprof's scanner on the same buffer %.3f s" % f["scan_s"])
        parts.append("2-core bound %.3f s" % f["bound_s"])
        notes.append(", ".join(parts))
    for r in trows:
        if r["name"] in ("HTA", "torch-tb-profiler") and r["status"] == "ok":
            notes.append("%s: %s (work only; interpreter start and imports, %.2f s, not counted)" % (
                r["name"], r["summary"], r["setup_s"]))
    out += [""] + ["- " + n for n in notes]

    bars = []
    conv_s = by[(convert, "json")]["wall_s"]
    conv_rss = max(r["peak_rss_bytes"] for (n, _), r in by.items() if n.startswith("tbprof convert"))
    if table == "scaled":
        speedup = base["wall_s"] / max(conv_s, 0.005)
        bars.append(("conversion speed vs json.load (>= 5x, goal 10x)", "%.1fx" % speedup, speedup >= 5))
        rss_ratio = conv_rss / json_bytes
        bars.append(("peak RSS / JSON size (<= 0.6)", "%.2f" % rss_ratio, rss_ratio <= 0.6))
        if has_no_views:
            extra = by[(default, "json")]["wall_s"] / max(conv_s, 0.005) - 1
            bars.append(("time added by all views (<= 30%)", "%.0f%%" % (100 * extra), extra <= 0.30))
        else:
            bars.append(("time added by all views (<= 30%)", "not measured (no --no-views switch)", True))
    for label in ("json", "json.gz"):
        f = floors.get(label)
        if f:
            x = by[(default, label)]["wall_s"] / f["wall_s"]
            b = by[(default, label)]["wall_s"] / f["bound_s"]
            bars.append(("default convert (%s) within 2x of the floor" % label,
                         "%.1fx (%.1fx the 2-core bound)" % (x, b), x <= 2))
    hta = by.get(("HTA", "json.gz"))
    if hta:
        mine = by[(default, "json.gz")]["wall_s"]
        if hta["status"] == "ok":
            x = hta["wall_s"] / mine
            xc = hta["cpu_s"] / by[(default, "json.gz")]["cpu_s"]
            bars.append(("default convert (json.gz) >= 30x faster than HTA",
                         "%.1fx (CPU time: %.1fx)" % (x, xc), x >= 30))
        elif hta["status"] == "timed out":
            x = peer_timeout / mine
            bars.append(("default convert (json.gz) >= 30x faster than HTA",
                         "> %.0fx (HTA timed out)" % x, x >= 30))
        else:
            bars.append(("default convert (json.gz) >= 30x faster than HTA",
                         "not measured (HTA %s)" % hta["status"], False))
    out += ["", "| bar (%s, %s trace) | measured | result |" % (trace, table), "|---|---:|---|"]
    out += ["| %s | %s | %s |" % (b, m, "pass" if ok else "**FAIL**") for b, m, ok in bars]
    failed += sum(1 for _, _, ok in bars if not ok)
    out += ["", "xplane.pb written: %.1f MB." % (xplane_bytes / 1e6), ""]

    if table == "scaled":
        d = by[(default, "json")]
        dg = by.get((default, "json.gz"))
        row = {"trace": trace, "mb": mb,
               "wall_x": base["wall_s"] / max(d["wall_s"], 0.005),
               "cpu_x": base["cpu_s"] / max(d["cpu_s"], 0.005),
               "floor_json": d["wall_s"] / floors["json"]["wall_s"] if "json" in floors else None,
               "floor_gz": dg["wall_s"] / floors["json.gz"]["wall_s"] if dg and "json.gz" in floors else None,
               "rss": max(r["peak_rss_bytes"] for (n, _), r in by.items() if n.startswith(default)) / json_bytes,
               "xplane_mb": xplane_bytes / 1e6}
        for n in READERS:
            r = by.get((n, "xplane.pb"))
            if r and r["status"] == "ok" and xplane_bytes:
                row[n] = (xplane_bytes / 1e6 / max(r["wall_s"], 0.005), r["peak_rss_bytes"] / xplane_bytes,
                          r["wall_s"], r["cpu_s"])
        summary.append(row)

# Per trace, and the issue-23 bars on the worst of them.
if summary:
    def fmt(x):
        return "-" if x is None else "%.2fx" % x
    out += ["#### Per trace (scaled, default convert with all views)", "",
            "| trace | JSON MB | wall vs json.load | CPU vs json.load's CPU | wall / floor (json) | wall / floor (json.gz) | peak RSS / JSON (largest default-convert row) | xplane.pb MB | inspect MB/s (RSS / file) | report MB/s (RSS / file) |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in summary:
        reads = ["%.0f (%.2fx)" % r[n][:2] if n in r else "-" for n in READERS]
        out.append("| %s | %.0f | %.1fx | %.1fx | %s | %s | %.2f | %.1f | %s | %s |" % (
            r["trace"], r["mb"], r["wall_x"], r["cpu_x"], fmt(r["floor_json"]), fmt(r["floor_gz"]),
            r["rss"], r["xplane_mb"], reads[0], reads[1]))
    # Reading the xplane.pb back (issue 23, part 3): per trace, every figure.
    out += ["", "#### Per trace: reading the xplane.pb written from the scaled trace", "",
            "| trace | xplane.pb MB | command | MB/s of xplane.pb | wall s | CPU s | MB/s of CPU | peak RSS / file | (RSS - idle RSS) / file | wall / floor | CPU / floor |",
            "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in summary:
        fl = r.get("xplane floor")
        for n in READERS:
            if n not in r:
                continue
            mbs, rss, wall, cpu = r[n]
            idle = BASE_RSS["xplane floor" if n == "xplane floor" else "tbprof"]
            out.append("| %s | %.1f | %s | %.0f | %.2f | %.2f | %.0f | %.2fx | %.2fx | %s | %s |" % (
                r["trace"], r["xplane_mb"], n.replace("tbprof ", "") if n != "xplane floor" else "floor (open + wire-decode)",
                mbs, wall, cpu, r["xplane_mb"] / max(cpu, 0.005), rss,
                rss - (idle / (r["xplane_mb"] * 1e6)),
                ratio(wall / max(fl[2], 0.005)) if fl and n != "xplane floor" else "",
                ratio(cpu / max(fl[3], 0.005)) if fl and n != "xplane floor" else ""))
    out += ["", "Idle RSS (the binary run with --version / --help: the pages of its code and libraries): "
            "tbprof %.1f MB, tbprof_xplane_floor %.1f MB." % (BASE_RSS["tbprof"] / 1e6, BASE_RSS["xplane floor"] / 1e6)]
    bars = []
    w = min(summary, key=lambda r: r["wall_x"])
    bars.append(("default convert >= 12x json.load (wall)", "%.1fx (%s)" % (w["wall_x"], w["trace"]), w["wall_x"] >= 12))
    for key, label in (("floor_json", "json"), ("floor_gz", "json.gz")):
        have = [r for r in summary if r[key] is not None]
        if have:
            w = max(have, key=lambda r: r[key])
            bars.append(("default convert (%s) within 1.5x of the floor" % label,
                         "%.2fx (%s)" % (w[key], w["trace"]), w[key] <= 1.5))
    w = max(summary, key=lambda r: r["rss"])
    bars.append(("default convert peak RSS <= 0.35x the JSON", "%.2fx (%s)" % (w["rss"], w["trace"]), w["rss"] <= 0.35))
    for n in READERS[:2]:
        have = [r for r in summary if n in r]
        if have:
            w = min(have, key=lambda r: r[n][0])
            bars.append(("`%s` of the xplane.pb >= 300 MB/s" % n, "%.0f MB/s (%s)" % (w[n][0], w["trace"]), w[n][0] >= 300))
            w = max(have, key=lambda r: r[n][1])
            bars.append(("`%s` peak RSS <= 1.5x the xplane.pb" % n, "%.2fx (%s)" % (w[n][1], w["trace"]), w[n][1] <= 1.5))
    out += ["", "| bar (issue 23, worst trace) | measured (worst trace) | result |", "|---|---:|---|"]
    out += ["| %s | %s | %s |" % (b, m, "pass" if ok else "**FAIL**") for b, m, ok in bars]
    failed += sum(1 for _, _, ok in bars if not ok)
print("\n".join(out).rstrip())
print("BARS_FAILED=%d" % failed, file=sys.stderr)
EOF
)"
BARS_FAILED=$(sed -n 's/^BARS_FAILED=//p' "$WORK_DIR/bars.txt")
[[ -n "$BARS_FAILED" ]] || { cat "$WORK_DIR/bars.txt" >&2; log "report failed"; exit 1; }

cpu="$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)"
mem="$(free -g | awk '/^Mem:/ { print $2 " GB total, " $7 " GB available" }')"
tbprof_build="$(cd "$(dirname "$TBPROF")/../.." && pwd)"
build_type="$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$tbprof_build/CMakeCache.txt" 2>/dev/null || true)"
commit="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
SNIPPET="### $(date '+%Y-%m-%d %H:%M %Z') — ${#INPUTS[@]} Kineto traces, each scaled to >= $TARGET_MB MB

Machine: $(nproc) cores (${cpu:-unknown CPU}), $mem; load average before the run: $LOAD_BEFORE.
tbprof: ${TBPROF#$ROOT/} (${build_type:-unknown} build), commit $commit (plus uncommitted changes, if any). Runs per measurement: $RUNS (fastest kept; peers: $PEER_RUNS, timeout ${PEER_TIMEOUT} s each).

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
