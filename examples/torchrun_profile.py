"""Profiling a distributed job with torchrun: every rank converts its own trace.

    torchrun --nproc-per-node 2 examples/torchrun_profile.py --logdir tb
    tbprof report tb          # the whole job: every rank once, the distributed view
    tensorboard --logdir tb   # PROFILE tab: one host per rank

Each rank trains a small DistributedDataParallel model (gloo on CPU; use
backend nccl and .cuda() on GPUs), profiles a few steps with
tbprof.tensorboard_trace_handler, and at the end of each profiling cycle
converts its trace itself, in parallel with the other ranks, into one run
that all ranks share (`torchrun_<run id>`, or --run NAME): the job's own
launcher is the distributed engine, nothing gathers the traces. Under Slurm
(`srun python examples/torchrun_profile.py ...` with MASTER_ADDR/PORT set)
the run is `slurm_<job id>`. tests/xprof/test_torch_handler.py runs it.
"""

import argparse
import os
import sys

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'python'))
import tbprof  # pylint: disable=wrong-import-position


def main():
  parser = argparse.ArgumentParser(description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument('--logdir', required=True)
  parser.add_argument('--run', help='run name (default: one the ranks share)')
  parser.add_argument('--steps', type=int, default=6)
  args = parser.parse_args()

  if 'RANK' not in os.environ and 'SLURM_PROCID' in os.environ:  # srun without torchrun.
    os.environ['RANK'] = os.environ['SLURM_PROCID']
    os.environ['WORLD_SIZE'] = os.environ['SLURM_NTASKS']
  dist.init_process_group('gloo')
  torch.manual_seed(dist.get_rank())
  model = torch.nn.parallel.DistributedDataParallel(
      torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)))
  opt = torch.optim.SGD(model.parameters(), lr=0.01)
  data, target = torch.randn(32, 64), torch.randint(0, 10, (32,))

  P = torch.profiler
  handler = tbprof.tensorboard_trace_handler(args.logdir, run=args.run)
  with P.profile(activities=[P.ProfilerActivity.CPU],
                 schedule=P.schedule(wait=1, warmup=1, active=args.steps - 2, repeat=1),
                 on_trace_ready=handler) as prof:
    for _ in range(args.steps):
      opt.zero_grad()
      torch.nn.functional.cross_entropy(model(data), target).backward()
      opt.step()
      prof.step()
  dist.barrier()  # Every rank's files are published when rank 0 says so.
  if dist.get_rank() == 0:
    print(f'tbprof: ranks converted into {args.logdir}, run {handler.runs[0]}')
  dist.destroy_process_group()


if __name__ == '__main__':
  main()
