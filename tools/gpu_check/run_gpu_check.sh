#!/usr/bin/env bash
# Validates the CUPTI collector on a real GPU (run it on a machine with one):
#  1. builds tbprof with the collector;
#  2. a small CUDA program under `tbprof record`: capture -> xplane.pb -> report;
#  3. a PyTorch training loop: per-kernel counts and times from the collector
#     vs torch.profiler on the same loop (compare_kernels.py);
#  4. overhead: loop time with and without the collector (and with it idle
#     in control mode);
#  5. a capture of the running loop through `tbprof record --serve` and
#     `tbprof capture` (the path of TensorBoard's "Capture profile");
#  6. a real CUDA memory snapshot: convert, report, and its peak against the
#     independent running sum of testdata/memory_snapshot/running_peak.py.
# Results go to $OUT (default ./gpu_check_out) and are printed.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu_check_out}
mkdir -p "$OUT"
nvidia-smi -L | tee "$OUT/gpu.txt"
if [ ! -x build/tools/tbprof/tbprof ] || [ ! -f build/src/collector/libtbprof_cupti.so ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DTBPROF_WITH_CUPTI=ON >/dev/null
  cmake --build build -j"$(nproc)" --target tbprof tbprof_cupti
fi
TB=build/tools/tbprof/tbprof

echo "== CUDA program"
nvcc -O2 -o "$OUT/vector_add" tools/gpu_check/vector_add.cu
"$TB" record --logdir "$OUT/tb" --run cuda -- "$OUT/vector_add" 20
"$TB" report "$OUT/tb/plugins/profile/cuda" | tee "$OUT/cuda_report.txt"

if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  echo "== PyTorch loop: collector vs torch.profiler"
  "$TB" record --logdir "$OUT/tb" --run torch_collector -- python3 tools/gpu_check/torch_loop.py nvtx - 30
  "$TB" report --json "$OUT/tb/plugins/profile/torch_collector" > "$OUT/ours.json"
  python3 tools/gpu_check/torch_loop.py torch_profiler "$OUT/torch_trace.json" 30
  "$TB" report --json "$OUT/torch_trace.json" > "$OUT/theirs.json"
  python3 tools/gpu_check/compare_kernels.py "$OUT/ours.json" "$OUT/theirs.json" | tee "$OUT/compare.txt"
  echo "== overhead (seconds per step, 200 steps)"
  base=$(python3 tools/gpu_check/torch_loop.py plain - 200 | awk '{print $2}')
  with=$(CUDA_INJECTION64_PATH=$PWD/build/src/collector/libtbprof_cupti.so TBPROF_LOGDIR="$OUT/tb" \
         TBPROF_RUN=overhead python3 tools/gpu_check/torch_loop.py plain - 200 | awk '{print $2}')
  python3 -c "b=$base; w=$with; print(f'without {b*1e3:.3f} ms/step, with collector {w*1e3:.3f} ms/step, overhead {100*(w-b)/b:.1f}%')" \
    | tee "$OUT/overhead.txt"
  ctl=$(mktemp -d)
  idle=$(CUDA_INJECTION64_PATH=$PWD/build/src/collector/libtbprof_cupti.so TBPROF_CONTROL_DIR="$ctl" \
         python3 tools/gpu_check/torch_loop.py plain - 200 | awk '{print $2}')
  rm -rf "$ctl"
  python3 -c "b=$base; i=$idle; print(f'idle collector (control mode, never started) {i*1e3:.3f} ms/step, overhead {100*(i-b)/b:.1f}%')" \
    | tee -a "$OUT/overhead.txt"
  echo "== capture of a running PyTorch job through the capture server (TensorBoard's path)"
  port=18466
  # Own process group: `record` leaves SIGTERM to its child, so the group gets it.
  setsid "$TB" record --serve "$port" --logdir "$OUT/tb" -- \
    python3 tools/gpu_check/torch_loop.py nvtx - 200000 > "$OUT/served_job.log" 2>&1 &
  job=$!
  "$TB" capture "localhost:$port" --logdir "$OUT/tb" --session served --duration-ms 2000 \
    --attempts 60 2>&1 | tee "$OUT/served_capture.txt" || true
  kill -TERM -- "-$job" 2>/dev/null || true
  wait "$job" 2>/dev/null || true
  "$TB" report "$OUT/tb/plugins/profile/served" | tee "$OUT/served_report.txt"
  echo "== CUDA memory snapshot (torch.cuda.memory._dump_snapshot)"
  python3 tools/gpu_check/memory_snapshot.py "$OUT/memory_snapshot.pickle" 5 | tee "$OUT/memory_snapshot.txt"
  "$TB" convert "$OUT/memory_snapshot.pickle" --logdir "$OUT/tb" --run memory_snapshot
  "$TB" report "$OUT/memory_snapshot.pickle" | tee -a "$OUT/memory_snapshot.txt"
  echo "independent running sum (device initial peak final):" | tee -a "$OUT/memory_snapshot.txt"
  python3 testdata/memory_snapshot/running_peak.py "$OUT/memory_snapshot.pickle" | tee -a "$OUT/memory_snapshot.txt"
else
  echo "PyTorch with CUDA not available: skipped the PyTorch comparison and overhead" | tee "$OUT/torch_skipped.txt"
fi
