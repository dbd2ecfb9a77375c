#!/usr/bin/env bash
# One check of the GPU check, run by run_gpu_check.sh under its own timeout:
#   checks.sh NAME
# Environment (set by run_gpu_check.sh): OUT, TB (tbprof of the bundle),
# COLLECTOR (its libtbprof_cupti.so), DRY (1: against the fake libcupti),
# FAKE_JOB (dry run: fake_cuda_job), TORCH_PYTHON (real run: a Python with
# CUDA PyTorch, empty when there is none), HERE (tools/gpu_check).
# Each check writes $OUT/checks/NAME.json (verdict.py put) with its status,
# figures and a note; in a dry run the note says what the fake could and could
# not show. Logs of every command go to $OUT/logs/NAME.*.
set -uo pipefail
name=$1
W=$OUT/work/$name
L=$OUT/logs/$name
mkdir -p "$W" "$OUT/logs"
VERDICT=(python3 "$HERE/verdict.py")

put() {  # put STATUS NOTE [KEY=VALUE...]
  "${VERDICT[@]}" put "$OUT" "$name" "$@"
}
# put_figs STATUS NOTE FILE [KEY=VALUE...]: put, with the KEY=VALUE lines of
# FILE (verdict.py counts/kernels output; a value may hold spaces).
put_figs() {
  local status=$1 note=$2 file=$3
  shift 3
  local lines=()
  mapfile -t lines < "$file"
  put "$status" "$note" "${lines[@]}" "$@"
}
need_torch() {
  if [ "$DRY" = 1 ]; then
    put skipped "dry run: $1"
    exit 0
  fi
  if [ -z "${TORCH_PYTHON:-}" ]; then
    put skipped "no Python with CUDA PyTorch on this machine"
    exit 0
  fi
}
xplane_of() {  # the first xplane.pb of a run directory
  ls "$1"/*.xplane.pb 2> /dev/null | head -n1
}
# Seconds (float) that a command takes; its output goes to $L.<tag>.log.
timed() {
  local tag=$1
  shift
  local t0 t1
  t0=$(date +%s%N)
  "$@" > "$L.$tag.log" 2>&1 || return 1
  t1=$(date +%s%N)
  python3 -c "print(f'{($t1 - $t0) / 1e9:.4f}')"
}

# The CUDA program: kernels, memcpys, memsets and NVTX ranges exactly as
# launched. Real: vector_add.cu (20 steps of 10 Add + 1 Scale, 2 HtoD + 1 DtoH,
# 1 memset, one ProfilerStep#N range). Dry: fake_cuda_job (20 steps of 6
# kernels, 1 memcpy, 1 memset, 1 range).
check_cuda_program() {
  local steps=20 job want
  if [ "$DRY" = 1 ]; then
    job=("$FAKE_JOB" "$steps")
    want=(kernels=$((6 * steps)) memcpys=$steps memsets=$steps steps=$steps)
  else
    # Machine code for this GPU (sm_90 on H100/H200), else PTX the driver compiles.
    nvcc -O2 -arch=native -o "$W/vector_add" "$HERE/vector_add.cu" > "$L.nvcc.log" 2>&1 \
      || nvcc -O2 -o "$W/vector_add" "$HERE/vector_add.cu" >> "$L.nvcc.log" 2>&1 \
      || { put failed "nvcc vector_add.cu failed: $(tail -n1 "$L.nvcc.log")"; return; }
    job=("$W/vector_add" "$steps")
    want=(kernels=$((11 * steps)) memcpys=$((3 * steps)) memsets=$steps steps=$steps)
  fi
  "$TB" record --logdir "$W/tb" --run cuda --collector "$COLLECTOR" -- "${job[@]}" \
    > "$L.record.log" 2>&1 || { put failed "tbprof record failed: $(tail -n1 "$L.record.log")"; return; }
  local x
  x=$(xplane_of "$W/tb/plugins/profile/cuda")
  [ -n "$x" ] || { put failed "no xplane.pb in $W/tb/plugins/profile/cuda"; return; }
  "$TB" inspect --json "$x" > "$W/inspect.json" 2> "$L.inspect.log" \
    || { put failed "tbprof inspect failed: $(tail -n1 "$L.inspect.log")"; return; }
  "$TB" report --json "$W/tb/plugins/profile/cuda" > "$OUT/cuda_report.json" 2>> "$L.inspect.log" || true
  local note
  if [ "$DRY" = 1 ]; then
    note="fake: shows record -> capture -> convert -> counts for synthetic records of fake_cuda_job; cannot show that real CUPTI delivers every launch of a real program"
  else
    note="vector_add.cu, $steps steps: ${want[*]}"
  fi
  if "${VERDICT[@]}" counts "$W/inspect.json" "${want[@]}" > "$W/counts.txt"; then
    put_figs passed "$note" "$W/counts.txt"
  else
    put_figs failed "counts differ from the launches; $note" "$W/counts.txt"
  fi
}

# A PyTorch training loop: per-kernel counts exact and total kernel time within
# 2% between the collector and torch.profiler on the same loop.
check_torch_vs_profiler() {
  need_torch "the fake has no PyTorch CUDA loop and no torch.profiler CUPTI to compare with"
  local steps=30
  "$TB" record --logdir "$W/tb" --run ours --collector "$COLLECTOR" -- \
    "$TORCH_PYTHON" "$HERE/torch_loop.py" nvtx - "$steps" > "$L.ours.log" 2>&1 \
    || { put failed "collector run failed: $(tail -n1 "$L.ours.log")"; return; }
  "$TORCH_PYTHON" "$HERE/torch_loop.py" torch_profiler "$W/torch_trace.json" "$steps" \
    > "$L.theirs.log" 2>&1 || { put failed "torch.profiler run failed: $(tail -n1 "$L.theirs.log")"; return; }
  "$TB" report --json "$W/tb/plugins/profile/ours" > "$W/ours.json" 2>> "$L.ours.log" \
    || { put failed "tbprof report of the collector's run failed"; return; }
  "$TB" report --json "$W/torch_trace.json" > "$W/theirs.json" 2>> "$L.theirs.log" \
    || { put failed "tbprof report of torch.profiler's trace failed"; return; }
  python3 "$HERE/compare_kernels.py" "$W/ours.json" "$W/theirs.json" > "$OUT/compare_kernels.txt" || true
  if "${VERDICT[@]}" kernels "$W/ours.json" "$W/theirs.json" 0.02 > "$W/figs.txt"; then
    put_figs passed "$steps steps, whole process under both (compare_kernels.txt)" "$W/figs.txt"
  else
    put_figs failed "counts or total time differ (compare_kernels.txt)" "$W/figs.txt"
  fi
}

# Overhead: the same loop without the collector, with it capturing, and with it
# idle in control mode (TBPROF_CONTROL_DIR, never started).
check_overhead() {
  local base active idle ctl
  ctl=$(mktemp -d)
  if [ "$DRY" = 1 ]; then
    local steps=20000
    base=$(timed base "$FAKE_JOB" "$steps") || { put failed "fake job failed"; return; }
    active=$(CUDA_INJECTION64_PATH=$COLLECTOR TBPROF_LOGDIR=$W/tb TBPROF_RUN=active \
             timed active "$FAKE_JOB" "$steps") || { put failed "fake job with the collector failed"; return; }
    idle=$(CUDA_INJECTION64_PATH=$COLLECTOR TBPROF_CONTROL_DIR=$ctl \
           timed idle "$FAKE_JOB" "$steps") || { put failed "fake job with the idle collector failed"; return; }
    rm -rf "$ctl"
    local f
    f=$(python3 -c "b,a,i=$base,$active,$idle; print(f'base_s={b} active_s={a} idle_s={i} active_pct={100*(a-b)/b:.1f} idle_pct={100*(i-b)/b:.1f}')")
    put passed "fake: $steps synthetic steps per process (wall time incl. process start): shows the collector's CPU cost on fake records and that the idle collector runs; cannot show GPU-side overhead" $f
    return
  fi
  need_torch "overhead needs the PyTorch loop"
  local steps=200
  base=$("$TORCH_PYTHON" "$HERE/torch_loop.py" plain - "$steps" 2> "$L.base.log" | awk '{print $2}')
  active=$(CUDA_INJECTION64_PATH=$COLLECTOR TBPROF_LOGDIR=$W/tb TBPROF_RUN=active \
           "$TORCH_PYTHON" "$HERE/torch_loop.py" plain - "$steps" 2> "$L.active.log" | awk '{print $2}')
  idle=$(CUDA_INJECTION64_PATH=$COLLECTOR TBPROF_CONTROL_DIR=$ctl \
         "$TORCH_PYTHON" "$HERE/torch_loop.py" plain - "$steps" 2> "$L.idle.log" | awk '{print $2}')
  rm -rf "$ctl"
  [ -n "$base" ] && [ -n "$active" ] && [ -n "$idle" ] \
    || { put failed "a timing run failed (logs/overhead.*.log)"; return; }
  local f
  f=$(python3 -c "b,a,i=$base,$active,$idle; print(f'ms_per_step_base={b*1e3:.3f} ms_per_step_active={a*1e3:.3f} ms_per_step_idle={i*1e3:.3f} active_pct={100*(a-b)/b:.1f} idle_pct={100*(i-b)/b:.1f}')")
  # Limits: capturing every record of a launch-bound loop <= 25%, idle <= 3%.
  if python3 -c "import sys; b,a,i=$base,$active,$idle; sys.exit(0 if (a-b)/b <= 0.25 and (i-b)/b <= 0.03 else 1)"; then
    put passed "$steps steps of torch_loop.py; limits: active <= 25%, idle <= 3%" $f
  else
    put failed "over the limits (active <= 25%, idle <= 3%)" $f
  fi
}

pid=
stop_job() {
  [ -n "$pid" ] || return 0
  kill -TERM -- "-$pid" 2> /dev/null
  sleep 0.5
  kill -KILL -- "-$pid" 2> /dev/null
  wait "$pid" 2> /dev/null
  pid=
}

# The capture path of TensorBoard's "Capture profile": `tbprof record --serve`
# around a running job, `tbprof capture` against it.
check_capture() {
  local job port
  if [ "$DRY" = 1 ]; then
    job=("$FAKE_JOB" 99999 0 20)  # 99999: the dry-run test looks for leftovers by it
  else
    need_torch "the capture check runs the PyTorch loop"
    job=("$TORCH_PYTHON" "$HERE/torch_loop.py" nvtx - 200000)
  fi
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  setsid "$TB" record --serve "$port" --logdir "$W/tb" --collector "$COLLECTOR" -- "${job[@]}" \
    > "$L.job.log" 2>&1 &
  pid=$!
  # Its own session: the runner's timeout (a signal to this process group)
  # misses it, so stop it on any exit, a timeout's SIGTERM included.
  trap 'stop_job' EXIT
  trap 'exit 143' TERM
  local session
  session=$("$TB" capture "localhost:$port" --logdir "$W/tb" --session served --duration-ms 1000 \
            --attempts 40 2> "$L.capture.log")
  local rc=$?
  stop_job
  [ $rc -eq 0 ] || { put failed "tbprof capture exited $rc: $(tail -n1 "$L.capture.log")"; return; }
  local x
  x=$(xplane_of "$session")
  [ -n "$x" ] || { put failed "no xplane.pb in $session"; return; }
  "$TB" inspect --json "$x" > "$W/inspect.json" 2> "$L.inspect.log" \
    || { put failed "tbprof inspect of the captured session failed"; return; }
  "${VERDICT[@]}" counts "$W/inspect.json" > "$W/counts.txt"
  local note="1 s capture of a running job through record --serve and tbprof capture"
  [ "$DRY" = 1 ] && note="fake: shows the gRPC request -> control socket -> capture -> xplane.pb path with the fake job; cannot show a real CUDA job's records"
  if grep -q '^kernels=[1-9]' "$W/counts.txt"; then
    put_figs passed "$note" "$W/counts.txt"
  else
    put_figs failed "the captured session holds no kernels; $note" "$W/counts.txt"
  fi
}

# Two processes on one GPU, both under one `tbprof record`: a capture each,
# every launch of each counted.
check_two_processes() {
  local steps=20 job per
  if [ "$DRY" = 1 ]; then
    job=$FAKE_JOB per=$((6 * steps))
  else
    [ -x "$OUT/work/cuda_program/vector_add" ] \
      || { put skipped "needs vector_add from the cuda_program check"; return; }
    job=$OUT/work/cuda_program/vector_add per=$((11 * steps))
  fi
  "$TB" record --logdir "$W/tb" --run two --collector "$COLLECTOR" -- \
    bash -c '"$1" "$2" & "$1" "$2"; wait $!' _ "$job" "$steps" > "$L.record.log" 2>&1 \
    || { put failed "tbprof record failed: $(tail -n1 "$L.record.log")"; return; }
  local caps total=0 n=0
  caps=$(ls "$W/tb/plugins/profile/two"/*.tbcap 2> /dev/null | wc -l)
  for cap in "$W/tb/plugins/profile/two"/*.tbcap; do
    [ -f "$cap" ] || continue
    "$TB" inspect --json "$cap" > "$W/inspect.$n.json" 2>> "$L.inspect.log" || continue
    k=$("${VERDICT[@]}" counts "$W/inspect.$n.json" | sed -n 's/^kernels=//p')
    total=$((total + k))
    n=$((n + 1))
  done
  local note="two processes at once on one GPU"
  [ "$DRY" = 1 ] && note="fake: shows two processes writing separate captures into one run; the fake has no shared GPU, so cannot show interleaving on one device"
  if [ "$caps" -eq 2 ] && [ "$total" -eq $((2 * per)) ]; then
    put passed "$note" captures=$caps kernels=$total kernels_expected=$((2 * per))
  else
    put failed "$note" captures=$caps kernels=$total kernels_expected=$((2 * per))
  fi
}

# CUDA graphs: a graph of 11 kernels (10 Add + 1 Scale) replayed; every kernel
# of every replay recorded.
check_cuda_graphs() {
  if [ "$DRY" = 1 ]; then
    put skipped "dry run: the fake libcupti has no CUDA graphs (graph kernel records carry graph ids only on a real GPU)"
    return
  fi
  [ -x "$OUT/work/cuda_program/vector_add" ] \
    || { put skipped "needs vector_add from the cuda_program check"; return; }
  local replays=20
  "$TB" record --logdir "$W/tb" --run graphs --collector "$COLLECTOR" -- \
    "$OUT/work/cuda_program/vector_add" "$replays" graph > "$L.record.log" 2>&1 \
    || { put failed "tbprof record failed: $(tail -n1 "$L.record.log")"; return; }
  local x
  x=$(xplane_of "$W/tb/plugins/profile/graphs")
  [ -n "$x" ] || { put failed "no xplane.pb"; return; }
  "$TB" inspect --json "$x" > "$W/inspect.json" 2>> "$L.record.log"
  if "${VERDICT[@]}" counts "$W/inspect.json" kernels=$((11 * replays)) > "$W/counts.txt"; then
    put_figs passed "graph of 11 kernels replayed $replays times" "$W/counts.txt"
  else
    put_figs failed "graph of 11 kernels replayed $replays times" "$W/counts.txt"
  fi
}

# torch.profiler and the collector in one job: only one CUPTI subscriber; the
# job must finish unharmed and the loser say so in one line.
check_profiler_coexist() {
  if [ "$DRY" = 1 ]; then
    # The fake holds the subscriber for "torch.profiler" before the collector starts.
    FAKE_CUPTI_HOLD_SUBSCRIBER=torch.profiler CUDA_INJECTION64_PATH=$COLLECTOR \
      TBPROF_LOGDIR=$W/tb TBPROF_RUN=coexist "$FAKE_JOB" 5 > "$L.job.out" 2> "$L.job.err"
    local rc=$? lines
    lines=$(grep -c '^tbprof' "$L.job.err")
    local said
    said=$(grep -m1 '^tbprof' "$L.job.err" | cut -c1-160)
    if [ $rc -eq 0 ] && [ "$lines" -eq 1 ] && grep -q 'steps done' "$L.job.out"; then
      put passed "fake: another subscriber holds CUPTI; shows the collector losing with one line and the job finishing; cannot show torch.profiler's side" exit_code=$rc tbprof_lines=$lines "said=$said"
    else
      put failed "fake job with a held subscriber" exit_code=$rc tbprof_lines=$lines "said=$said"
    fi
    return
  fi
  need_torch "the coexistence check runs torch.profiler"
  CUDA_INJECTION64_PATH=$COLLECTOR TBPROF_LOGDIR=$W/tb TBPROF_RUN=coexist \
    "$TORCH_PYTHON" "$HERE/torch_loop.py" torch_profiler "$W/torch_trace.json" 10 \
    > "$L.job.out" 2> "$L.job.err"
  local rc=$? lines said theirs=0 ours=0
  lines=$(grep -c '^tbprof' "$L.job.err")
  said=$(grep -m1 -iE '^tbprof|cupti' "$L.job.err" | cut -c1-160)
  if [ -f "$W/torch_trace.json" ]; then
    "$TB" inspect --json "$W/torch_trace.json" > "$W/theirs.json" 2>> "$L.job.err" \
      && theirs=$("${VERDICT[@]}" counts "$W/theirs.json" | sed -n 's/^kernels=//p')
  fi
  local cap
  cap=$(ls "$W/tb/plugins/profile/coexist"/*.tbcap 2> /dev/null | head -n1)
  if [ -n "$cap" ]; then
    "$TB" inspect --json "$cap" > "$W/ours.json" 2>> "$L.job.err" \
      && ours=$("${VERDICT[@]}" counts "$W/ours.json" | sed -n 's/^kernels=//p')
  fi
  local f=(exit_code=$rc tbprof_lines=$lines kernels_torch=${theirs:-0} kernels_collector=${ours:-0} "said=$said")
  if [ $rc -eq 0 ] && [ -f "$W/torch_trace.json" ] && [ "$lines" -le 1 ]; then
    put passed "job finished; torch.profiler and the collector each report what they got" "${f[@]}"
  else
    put failed "the job must finish, write its trace, and tbprof say at most one line" "${f[@]}"
  fi
}

# A memory snapshot and a Kineto trace of the same loop, kept in $OUT for the
# importers' tests.
check_memory_and_kineto() {
  need_torch "the fake has no PyTorch allocator or Kineto"
  "$TORCH_PYTHON" "$HERE/torch_loop.py" memory "$OUT" 10 > "$L.log" 2>&1 \
    || { put failed "torch_loop.py memory failed: $(tail -n1 "$L.log")"; return; }
  local snap=$OUT/memory_snapshot.pickle kineto=$OUT/kineto_trace.json.gz
  [ -s "$snap" ] && [ -s "$kineto" ] || { put failed "missing $snap or $kineto"; return; }
  "$TB" inspect --json "$kineto" > "$W/inspect.json" 2> "$L.inspect.log" \
    || { put failed "tbprof inspect of the Kineto trace failed: $(tail -n1 "$L.inspect.log")"; return; }
  "${VERDICT[@]}" counts "$W/inspect.json" > "$W/counts.txt"
  put_figs passed "kept: memory_snapshot.pickle, kineto_trace.json.gz" "$W/counts.txt" \
    snapshot_bytes=$(stat -c %s "$snap") kineto_bytes=$(stat -c %s "$kineto")
}

case "$name" in
  cuda_program) check_cuda_program ;;
  torch_vs_profiler) check_torch_vs_profiler ;;
  overhead) check_overhead ;;
  capture) check_capture ;;
  two_processes) check_two_processes ;;
  cuda_graphs) check_cuda_graphs ;;
  profiler_coexist) check_profiler_coexist ;;
  memory_and_kineto) check_memory_and_kineto ;;
  *) echo "checks.sh: unknown check '$name'" >&2; exit 2 ;;
esac
