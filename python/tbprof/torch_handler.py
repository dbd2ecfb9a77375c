"""A drop-in replacement for torch.profiler.tensorboard_trace_handler.

    import torch
    import tbprof

    with torch.profiler.profile(
        schedule=torch.profiler.schedule(wait=1, warmup=1, active=3, repeat=2),
        on_trace_ready=tbprof.tensorboard_trace_handler('./tb'),
        record_shapes=True, profile_memory=True, with_stack=True) as prof:
      for batch in loader:
        train_step(batch)
        prof.step()

    # tensorboard --logdir ./tb   (PROFILE tab; pip install tensorboard xprof)

torch's handler writes `<dir>/<worker>.<ns>.pt.trace.json`, which today's
profile plugin (xprof) cannot read. This one exports the same Kineto trace to a
temporary file and runs `tbprof convert` on it (the C++ does all the work), so
each profiling cycle appears as one run, `<dir>/plugins/profile/<run>/`, with
`<worker>.xplane.pb` and the precomputed views beside it. The temporary trace
is removed afterwards (keep_trace=True keeps it where torch's handler would
have put it). On failure the logdir is left as it was and TbprofError names it.

In a distributed job (torchrun, Slurm: RANK or SLURM_PROCID set) every rank
converts its own trace at the end of each cycle, in parallel, into one shared
run: the default worker name is `<hostname>_rank<RANK>` and the default run
is $TBPROF_RUN, else one the ranks share (`slurm_<SLURM_JOB_ID>`, or
`torchrun_<TORCHELASTIC_RUN_ID>`), else the local time. Each rank is split
for TensorBoard by its own size, so the run is what `tbprof convert` of all
ranks' traces in one process would write (examples/torchrun_profile.py,
docs/python.md).

This module does not import torch; the profiler hands the handler its `prof`.
"""

import os
import pathlib
import shutil
import socket
import subprocess
import tempfile
import time

from tbprof._paths import TbprofError, binary_path


def _job_rank():
  """The rank of this process in a torchrun or Slurm job, else None."""
  for var in ('RANK', 'SLURM_PROCID'):
    value = os.environ.get(var, '')
    if value.isdigit():
      return int(value)
  return None


def _job_run():
  """A run name every rank of this job computes alike, else None."""
  if os.environ.get('TBPROF_RUN'):
    return os.environ['TBPROF_RUN']
  if os.environ.get('SLURM_JOB_ID', '').isdigit():
    return f"slurm_{os.environ['SLURM_JOB_ID']}"
  run_id = os.environ.get('TORCHELASTIC_RUN_ID', '')
  if run_id and run_id != 'none' and _job_rank() is not None:
    safe = ''.join(c if c.isalnum() or c in '-_.' else '_' for c in run_id)
    return f'torchrun_{safe}'
  return None


def _last_error_line(stderr):
  lines = [line.strip() for line in stderr.splitlines() if line.strip()]
  for line in reversed(lines):
    if line.startswith('tbprof: error:'):
      return line
  return lines[-1] if lines else '(no message)'


class TensorboardTraceHandler:
  """Callable for torch.profiler.profile(on_trace_ready=...); one call per cycle.

  After each call, `runs` lists the run names written, `written` the
  `<host>.xplane.pb` paths (what `tbprof convert --quiet` prints) and
  `kept_traces` the Kineto traces kept (keep_trace=True), in order.
  """

  def __init__(self, dir_name, worker_name=None, use_gzip=False, *, run=None,
               keep_trace=False, tbprof=None):
    self.logdir = os.fspath(dir_name)
    self.worker_name = worker_name
    self.use_gzip = use_gzip
    self.run = run if run is not None else _job_run()
    self.keep_trace = keep_trace
    self.tbprof = os.fspath(tbprof) if tbprof is not None else None
    self.runs = []
    self.written = []
    self.kept_traces = []

  def _run_name(self):
    """The run name of the next cycle.

    With `run`: `run` for the first cycle, then `run_1`, `run_2`, ... (the
    same names on every rank, so the ranks of a job share runs). Without: the
    local time, YYYY_MM_DD_HH_MM_SS as `tbprof convert` and TensorFlow name
    runs, with `_1`, `_2`, ... when this handler already used that second.
    """
    cycle = len(self.runs)
    if self.run is not None:
      return str(self.run) if cycle == 0 else f'{self.run}_{cycle}'
    base = time.strftime('%Y_%m_%d_%H_%M_%S', time.localtime())
    name, n = base, 0
    while name in self.runs:
      n += 1
      name = f'{base}_{n}'
    return name

  def __call__(self, prof):
    if not self.worker_name:
      rank = _job_rank()
      self.worker_name = (f'{socket.gethostname()}_rank{rank}' if rank is not None else
                          f'{socket.gethostname()}_{os.getpid()}')
    tbprof = self.tbprof or binary_path()
    run = self._run_name()
    suffix = '.pt.trace.json.gz' if self.use_gzip else '.pt.trace.json'
    fd, trace = tempfile.mkstemp(prefix='tbprof-', suffix=suffix)
    os.close(fd)
    try:
      prof.export_chrome_trace(trace)
      cmd = [tbprof, 'convert', trace, '--logdir', self.logdir, '--run', run,
             '--host', self.worker_name, '--quiet']
      try:
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
      except OSError as e:
        raise TbprofError(f'cannot run {tbprof}: {e}') from e
      if proc.returncode != 0:
        raise TbprofError(f'tbprof convert into logdir {self.logdir} (run {run}) failed: '
                          f'{_last_error_line(proc.stderr)}')
      self.runs.append(run)
      self.written.extend(line.strip() for line in proc.stdout.splitlines() if line.strip())
      if self.keep_trace:
        # Where torch's own handler puts it, once the conversion has succeeded.
        kept = pathlib.Path(self.logdir) / f'{self.worker_name}.{time.time_ns()}{suffix}'
        shutil.move(trace, kept)
        self.kept_traces.append(str(kept))
    finally:
      if os.path.exists(trace):
        os.remove(trace)


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False, *, run=None,
                              keep_trace=False, tbprof=None):
  """Drop-in for torch.profiler.tensorboard_trace_handler writing TensorBoard's
  profile-plugin layout with tbprof.

  Args:
    dir_name: the TensorBoard log directory (created if missing).
    worker_name: host name of the files, `<worker>.xplane.pb`; default
      `<hostname>_rank<RANK>` in a torchrun or Slurm job, else
      `<hostname>_<pid>`, as torch's handler names its files.
    use_gzip: export the intermediate Kineto trace gzip-compressed (and keep it
      so with keep_trace).
    run: base run name (see TensorboardTraceHandler._run_name); default:
      $TBPROF_RUN, else in a Slurm or torchrun job a name its ranks share
      (`slurm_<job id>`, `torchrun_<run id>`), else the local time of each
      cycle. The ranks of a job that share `run` are side by side in one run.
    keep_trace: also keep the Kineto trace as
      `<dir_name>/<worker>.<ns>.pt.trace.json[.gz]`, as torch's handler would.
    tbprof: the tbprof executable (default: $TBPROF, else the packaged one).

  Returns:
    a TensorboardTraceHandler, to pass as on_trace_ready. It raises TbprofError
    (a RuntimeError) naming the logdir when the conversion fails, and then
    leaves nothing behind: neither in the logdir nor a temporary file.
  """
  return TensorboardTraceHandler(dir_name, worker_name, use_gzip, run=run,
                                 keep_trace=keep_trace, tbprof=tbprof)
