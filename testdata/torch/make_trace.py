"""Makes testdata/torch/tiny_mlp_cpu.pt.trace.json.gz, a real Kineto trace of
torch 2.13.0 (CPU build): the model of tests/xprof/test_torch_handler.py
(Linear-ReLU-Linear, SGD) under torch.profiler with
schedule(wait=1, warmup=1, active=2), record_shapes, profile_memory and
with_stack, exported with export_chrome_trace.

  build/xprof-venv/bin/python testdata/torch/make_trace.py [OUT]
"""

import pathlib
import sys

import torch
from torch import nn


def train(steps, prof=None):
  torch.manual_seed(0)
  model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
  opt = torch.optim.SGD(model.parameters(), lr=0.01)
  data = torch.randn(32, 64)
  target = torch.randint(0, 10, (32,))
  for _ in range(steps):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(data), target)
    loss.backward()
    opt.step()
    if prof is not None:
      prof.step()


def main():
  out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else
                     pathlib.Path(__file__).parent / 'tiny_mlp_cpu.pt.trace.json.gz')
  with torch.profiler.profile(
      activities=[torch.profiler.ProfilerActivity.CPU],
      schedule=torch.profiler.schedule(wait=1, warmup=1, active=2, repeat=1),
      on_trace_ready=lambda p: p.export_chrome_trace(str(out)),
      record_shapes=True, profile_memory=True, with_stack=True) as prof:
    train(4, prof)
  print(out, out.stat().st_size, 'bytes')


if __name__ == '__main__':
  main()
