"""Loads one Kineto trace with torch-tb-profiler 0.4.3's own RunLoader, as
TensorBoard does, for the scripts that print what it shows
(ttp_breakdown.py, ttp_gpu_summary.py). Runs in the peer venv
(scripts/python_envs.sh peer).
"""

import os
import tempfile


def load_profile(trace):
  """torch-tb-profiler's RunProfile of `trace` (its only worker, span default)."""
  from torch_tb_profiler import io as tb_io  # pylint: disable=import-outside-toplevel
  from torch_tb_profiler.profiler import RunLoader  # pylint: disable=import-outside-toplevel
  trace = os.path.abspath(trace)
  with tempfile.TemporaryDirectory() as tmp:
    run_dir = os.path.join(tmp, 'run')
    os.makedirs(run_dir)
    name = 'worker.pt.trace.json' + ('.gz' if trace.endswith('.gz') else '')
    os.symlink(trace, os.path.join(run_dir, name))
    run = RunLoader('peer', run_dir, tb_io.Cache(os.path.join(tmp, 'cache'))).load()
    return run.get_profile('worker', 'default')
