"""Runs the tbprof binary for what a logdir does not hold yet, and caches it.

Contract: tbprof is run with an argument list (never a shell), from
tbprof.binary_path() ($TBPROF, else the packaged binary), with a time limit.
What it writes goes to a hidden temporary name in the run directory and is
renamed into place only when complete, so a reader never sees half a file;
nothing is written outside the run directory. Two requests for the same
file wait for one computation.
"""

import json
import os
import subprocess
import tempfile
import threading

from tbprof import _paths

TIMEOUT_S = 1800


class ComputeError(RuntimeError):
  """tbprof is missing or failed; `status` is the HTTP status to answer with."""

  def __init__(self, message, status=502):
    super().__init__(message)
    self.status = status


_locks = {}
_locks_guard = threading.Lock()


def _lock_for(path):
  with _locks_guard:
    return _locks.setdefault(path, threading.Lock())


def _binary():
  try:
    return _paths.binary_path()
  except _paths.TbprofError as error:
    raise ComputeError(str(error), status=503) from None


def _run(argv):
  try:
    done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                          timeout=TIMEOUT_S, check=False, shell=False)
  except subprocess.TimeoutExpired:
    raise ComputeError(f'{os.path.basename(argv[0])} {argv[1]} took more than '
                       f'{TIMEOUT_S} s', status=504) from None
  except OSError as error:
    raise ComputeError(f'cannot run {argv[0]}: {error}', status=503) from None
  return done


def _last_lines(text, n=3):
  lines = [l for l in text.decode('utf-8', 'replace').splitlines() if l.strip()]
  return ' / '.join(lines[-n:])


def _fresh(target, newer_than):
  try:
    return os.stat(target).st_mtime_ns >= newer_than
  except FileNotFoundError:
    return False


def ensure_views(target, inputs, newer_than=0):
  """Makes `target` (a views file in a run dir) with `tbprof report
  --views-out` of `inputs` unless it exists and was modified at or after
  `newer_than` (ns; e.g. the newest xplane.pb of the run, so that a run that
  gained hosts is computed again). Returns True when computed now."""
  if _fresh(target, newer_than):
    return False
  with _lock_for(target):
    if _fresh(target, newer_than):
      return False
    run_dir = os.path.dirname(target)
    base = os.path.basename(target)
    fd, tmp = tempfile.mkstemp(dir=run_dir, prefix='.' + base[:-len('.json.gz')] + '.',
                               suffix='.json.gz')
    os.close(fd)
    try:
      argv = [_binary(), 'report', '--quiet', '--views-out', tmp] + list(inputs)
      done = _run(argv)
      if done.returncode != 0:
        raise ComputeError(f'tbprof report --views-out failed (exit {done.returncode}): '
                           f'{_last_lines(done.stderr) or _last_lines(done.stdout)}')
      if os.path.getsize(tmp) == 0:
        raise ComputeError('tbprof report --views-out wrote nothing')
      os.replace(tmp, target)
      tmp = None
    finally:
      if tmp is not None:
        try:
          os.unlink(tmp)
        except OSError:
          pass
  return True


_diffs = {}
_diffs_guard = threading.Lock()


def diff(base_dir, new_dir, fail_if_slower_pct):
  """`tbprof diff --json --fail-if-slower PCT BASE NEW` (kept in memory only:
  the plugin writes nothing but views files, and only in run dirs)."""
  def stamp(d):
    return tuple(sorted((n, os.stat(os.path.join(d, n)).st_mtime_ns)
                        for n in os.listdir(d) if n.endswith('.xplane.pb')))
  key = (base_dir, new_dir, fail_if_slower_pct, stamp(base_dir), stamp(new_dir))
  with _diffs_guard:
    if key in _diffs:
      return _diffs[key]
  argv = [_binary(), 'diff', '--json', '--quiet', '--fail-if-slower', str(fail_if_slower_pct),
          base_dir, new_dir]
  done = _run(argv)
  gate_error = ''
  if done.returncode == 1:  # e.g. no steps on a side: compare without the gate
    gate_error = _last_lines(done.stderr)
    done = _run([a for a in argv if a not in ('--fail-if-slower', str(fail_if_slower_pct))])
  # Exit 3: compared, and slower than the gate: the JSON says so.
  if done.returncode not in (0, 3):
    message = _last_lines(done.stderr) or _last_lines(done.stdout)
    if 'nothing in common' in message:  # an answer, not a failure: 422
      raise ComputeError(f'these two runs cannot be compared: {message}', status=422)
    raise ComputeError(f'tbprof diff failed (exit {done.returncode}): {message}')
  try:
    result = json.loads(done.stdout)
    if gate_error:
      result['gateError'] = gate_error
  except ValueError as error:
    raise ComputeError(f'tbprof diff printed no JSON ({error})') from None
  with _diffs_guard:
    if len(_diffs) > 16:
      _diffs.clear()
    _diffs[key] = result
  return result
