#!/usr/bin/env bash
# The GPU verdict: validates the CUPTI collector of a tbprof bundle on a real
# GPU, building nothing of tbprof (scripts/bundle.sh made the bundle; only the
# small CUDA test program is compiled, with the machine's nvcc).
#
#   tools/gpu_check/run_gpu_check.sh [--bundle DIR] [--out DIR]
#   tools/gpu_check/run_gpu_check.sh --dry-run --fake-cupti LIB --fake-job EXE [--bundle DIR] [--out DIR]
#
# --bundle DIR   the bundle folder (default <repo>/out/bundle/tbprof): bin/tbprof, lib/
# --out DIR      results (default $OUT, else ./gpu_check_out)
# --dry-run      no GPU: the same checks against the fake libcupti (--fake-cupti,
#                tests/fake_cupti's libcupti.so.13) and fake_cuda_job (--fake-job);
#                every check still gets an entry that says what the fake could
#                and could not show. CI runs this (gpu_check_dry_run_test).
# --python PY    the Python with CUDA PyTorch (default python3)
#
# Checks, each under its own timeout (seconds) so one hang costs only itself;
# all together stay under 5 minutes:
#   cuda_program (45)       vector_add.cu: kernels, memcpys, memsets, NVTX ranges exactly as launched
#   torch_vs_profiler (65)  PyTorch loop: per-kernel counts exact, total kernel time within 2% of torch.profiler
#   overhead (45)           ms/step without, with (capturing) and with the idle collector (control mode)
#   capture (35)            `tbprof record --serve` + `tbprof capture` on a running job
#   two_processes (25)      two CUDA processes on one GPU, one capture each, every kernel
#   cuda_graphs (20)        a CUDA graph replayed: every kernel of every replay
#   profiler_coexist (30)   torch.profiler and the collector in one job: job unharmed, loser says one line
#   memory_and_kineto (25)  a memory snapshot and a Kineto trace of the loop, kept in OUT
# GPU_CHECK_LIMITS="capture=10 ..." overrides limits.
# Writes OUT/verdict.json (every check: passed, failed or skipped, figures,
# note, seconds), OUT/gpu_check.log (this run's log), OUT/logs/ (each command's output)
# and the kept files. Exit status: 0 when no check failed, 1 otherwise, 2 on
# bad arguments.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

BUNDLE=$REPO/out/bundle/tbprof
OUT=${OUT:-$PWD/gpu_check_out}
DRY=0
FAKE_CUPTI= FAKE_JOB_ARG= PY=python3
usage() { sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) BUNDLE=${2:?}; shift 2 ;;
    --out) OUT=${2:?}; shift 2 ;;
    --dry-run) DRY=1; shift ;;
    --fake-cupti) FAKE_CUPTI=${2:?}; shift 2 ;;
    --fake-job) FAKE_JOB_ARG=${2:?}; shift 2 ;;
    --python) PY=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    *) echo "run_gpu_check: unknown argument '$1'" >&2; usage ;;
  esac
done
mkdir -p "$OUT" || { echo "run_gpu_check: cannot create $OUT" >&2; exit 2; }
OUT=$(cd "$OUT" && pwd)
BUNDLE=$(cd "$BUNDLE" 2> /dev/null && pwd) \
  || { echo "run_gpu_check: no bundle folder at $BUNDLE (scripts/bundle.sh out/bundle)" >&2; exit 2; }
TB=$BUNDLE/bin/tbprof
COLLECTOR=$BUNDLE/lib/libtbprof_cupti.so
for f in "$TB" "$COLLECTOR"; do
  [ -f "$f" ] || { echo "run_gpu_check: the bundle lacks $f" >&2; exit 2; }
done
rm -rf "$OUT/checks" "$OUT/work" "$OUT/logs" "$OUT/verdict.json"
mkdir -p "$OUT/checks" "$OUT/logs"
exec > >(tee "$OUT/gpu_check.log") 2>&1

TORCH_PYTHON=
if [ "$DRY" = 1 ]; then
  [ -f "$FAKE_CUPTI" ] && [ -x "$FAKE_JOB_ARG" ] \
    || { echo "run_gpu_check: --dry-run needs --fake-cupti LIB and --fake-job EXE" >&2; exit 2; }
  # The collector loads the fake in place of libcupti.so.13.
  export TBPROF_CUPTI_LIBRARY=$FAKE_CUPTI
  export FAKE_JOB=$FAKE_JOB_ARG
  device="fake libcupti ($FAKE_CUPTI), no GPU"
  mode=dry-run
else
  device=$(nvidia-smi -L 2> /dev/null | head -n1)
  driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2> /dev/null | head -n1)
  [ -n "$device" ] && device="$device, driver ${driver:-?}" || device="no GPU found by nvidia-smi"
  if "$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2> /dev/null; then
    TORCH_PYTHON=$(command -v "$PY")
  fi
  # libcupti.so.13 where the loader may not look: the toolkit's CUPTI folder,
  # or the nvidia-cuda-cupti wheel beside PyTorch.
  if [ -z "${TBPROF_CUPTI_LIBRARY:-}" ]; then
    for c in /usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13 /usr/local/cuda/lib64/libcupti.so.13 \
             /usr/local/cuda/targets/x86_64-linux/lib/libcupti.so.13 \
             $("$PY" -c 'import nvidia, os; [print(os.path.join(p, "cu13/lib/libcupti.so.13"), os.path.join(p, "cuda_cupti/lib/libcupti.so.13")) for p in nvidia.__path__]' 2> /dev/null); do
      if [ -f "$c" ]; then export TBPROF_CUPTI_LIBRARY=$c; break; fi
    done
  fi
  mode=gpu
fi
export OUT TB COLLECTOR DRY HERE TORCH_PYTHON
echo "run_gpu_check: $mode on $device; bundle $BUNDLE; torch: ${TORCH_PYTHON:-none}; libcupti: ${TBPROF_CUPTI_LIBRARY:-by soname}"
"$TB" --version

CHECKS=(cuda_program:45 torch_vs_profiler:65 overhead:45 capture:35 two_processes:25
        cuda_graphs:20 profiler_coexist:30 memory_and_kineto:25)
start=$(date +%s)
names=()
for entry in "${CHECKS[@]}"; do
  name=${entry%%:*} limit=${entry##*:}
  # GPU_CHECK_LIMITS="name=seconds ...": another limit for a check (the tests
  # prove with it that a check over its limit costs only itself).
  for o in ${GPU_CHECK_LIMITS:-}; do [ "${o%%=*}" = "$name" ] && limit=${o#*=}; done
  names+=("$name")
  echo "== $name (at most ${limit} s)"
  t0=$(date +%s)
  timeout -k 5 "$limit" bash "$HERE/checks.sh" "$name"
  rc=$?
  took=$(( $(date +%s) - t0 ))
  echo "$took $limit" > "$OUT/checks/$name.seconds"
  if [ ! -f "$OUT/checks/$name.json" ]; then
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
      echo "timed out after ${limit} s (logs/$name.*)" > "$OUT/checks/$name.runner"
    else
      echo "exited $rc without a result (logs/$name.*)" > "$OUT/checks/$name.runner"
    fi
  fi
  echo "   ${took} s"
done
elapsed=$(( $(date +%s) - start ))
echo "== verdict ($elapsed s): $OUT/verdict.json"
python3 "$HERE/verdict.py" assemble "$OUT" "$mode" "$device" "$elapsed" "${names[@]}"
python3 -c 'import json,sys; sys.exit(1 if json.load(open(sys.argv[1]))["failed"] else 0)' \
  "$OUT/verdict.json"
