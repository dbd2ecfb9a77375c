"""A small PyTorch training loop for the GPU check.

Modes:
  plain            time the loop (no profiler)       -> prints seconds per step
  torch_profiler   torch.profiler on the same loop   -> writes a Chrome trace
  nvtx             NVTX ProfilerStep#N ranges only (run under `tbprof record`)
"""
import sys
import time

import torch


def main():
    mode = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else "torch_trace.json"
    steps = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1024)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(256, 1024, device="cuda")

    def step():
        opt.zero_grad(set_to_none=True)
        loss = model(x).square().mean()
        loss.backward()
        opt.step()

    for _ in range(5):  # warm-up
        step()
    torch.cuda.synchronize()
    if mode == "torch_profiler":
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        with torch.profiler.profile(activities=acts) as prof:
            for _ in range(steps):
                step()
                prof.step()
            torch.cuda.synchronize()
        prof.export_chrome_trace(out)
        return
    start = time.perf_counter()
    for i in range(steps):
        if mode == "nvtx":
            torch.cuda.nvtx.range_push(f"ProfilerStep#{i}")
        step()
        if mode == "nvtx":
            torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    print(f"seconds_per_step {(time.perf_counter() - start) / steps:.6f}")


if __name__ == "__main__":
    main()
