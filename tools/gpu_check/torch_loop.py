"""A small PyTorch training loop for the GPU check (run_gpu_check.sh).

  torch_loop.py MODE OUT STEPS

Modes:
  plain            time the loop (no profiler)        -> prints "seconds_per_step S"
  nvtx             NVTX ProfilerStep#N ranges only (run under the collector)
  torch_profiler   torch.profiler around the whole process's CUDA work -> Chrome trace OUT
  memory           memory history + torch.profiler(profile_memory) on the same loop ->
                   OUT/memory_snapshot.pickle and OUT/kineto_trace.json.gz

nvtx and torch_profiler launch the very same CUDA work in the same order: the
model set-up, 5 warm-up steps and STEPS steps, all of it seen by both (the
profiler starts before the first CUDA call, as the collector does at cuInit),
so per-kernel counts must match exactly.
"""
import contextlib
import gzip
import os
import shutil
import sys
import time

import torch


def build():
  torch.manual_seed(0)
  model = torch.nn.Sequential(
      torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1024)).cuda()
  opt = torch.optim.SGD(model.parameters(), lr=0.01)
  x = torch.randn(256, 1024, device='cuda')

  def step():
    opt.zero_grad(set_to_none=True)
    loss = model(x).square().mean()
    loss.backward()
    opt.step()

  return step


def run(step, steps, nvtx, on_step=None):
  for _ in range(5):  # warm-up
    step()
  torch.cuda.synchronize()
  start = time.perf_counter()
  for i in range(steps):
    if nvtx:
      torch.cuda.nvtx.range_push(f'ProfilerStep#{i}')
    step()
    if nvtx:
      torch.cuda.nvtx.range_pop()
    if on_step:
      on_step()
  torch.cuda.synchronize()
  return (time.perf_counter() - start) / steps


def main():
  mode, out = sys.argv[1], sys.argv[2]
  steps = int(sys.argv[3]) if len(sys.argv) > 3 else 30
  acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
  if mode in ('plain', 'nvtx'):
    seconds = run(build(), steps, nvtx=(mode == 'nvtx'))
    print(f'seconds_per_step {seconds:.6f}')
  elif mode == 'torch_profiler':
    with torch.profiler.profile(activities=acts) as prof:
      run(build(), steps, nvtx=False, on_step=lambda: prof.step())
    prof.export_chrome_trace(out)
    print(f'torch_profiler: wrote {out}')
  elif mode == 'memory':
    torch.cuda.memory._record_memory_history(max_entries=100000)
    step = build()
    with torch.profiler.profile(activities=acts, profile_memory=True, record_shapes=True,
                                with_stack=True) as prof:
      run(step, steps, nvtx=False, on_step=lambda: prof.step())
    torch.cuda.memory._dump_snapshot(os.path.join(out, 'memory_snapshot.pickle'))
    torch.cuda.memory._record_memory_history(enabled=None)
    plain = os.path.join(out, 'kineto_trace.json')
    prof.export_chrome_trace(plain)
    with open(plain, 'rb') as src, gzip.open(plain + '.gz', 'wb') as dst:
      shutil.copyfileobj(src, dst)
    os.remove(plain)
    print(f'memory: wrote {out}/memory_snapshot.pickle and {plain}.gz')
  else:
    sys.exit(f'torch_loop.py: unknown mode {mode!r}')


if __name__ == '__main__':
  with contextlib.suppress(BrokenPipeError):
    main()
