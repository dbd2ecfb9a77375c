"""Shared fixtures of the real-plugin tests: xprof (PyPI) judges tbprof's files.

Paths come from the environment that ctest sets (tests/CMakeLists.txt):
  TBPROF                  the tbprof binary (required)
  TBPROF_SHARED_TESTDATA  ../shared/testdata (traces of real GPU jobs)
  TBPROF_COLLECTOR, TBPROF_FAKE_CUPTI, TBPROF_FAKE_JOB
                          the collector, the fake libcupti and a fake CUDA job,
                          to make a raw capture (optional: CUPTI headers needed)
"""

import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def _env_path(name, required=False):
  value = os.environ.get(name, '')
  if not value:
    if required:
      pytest.exit(f'{name} is not set (run through ctest or run_xprof_tests.sh)',
                  returncode=2)
    return None
  return pathlib.Path(value)


TBPROF = _env_path('TBPROF', required=True)
SHARED = _env_path('TBPROF_SHARED_TESTDATA') or (REPO.parent / 'shared' / 'testdata')


def run_tbprof(*args, check=True, timeout=600):
  """Runs the tbprof binary; returns CompletedProcess (text)."""
  proc = subprocess.run([str(TBPROF), *map(str, args)], capture_output=True, text=True,
                        timeout=timeout)
  if check and proc.returncode != 0:
    raise AssertionError(f'tbprof {" ".join(map(str, args))} exited {proc.returncode}:\n'
                         f'{proc.stderr[-4000:]}')
  return proc


def convert(inputs, logdir, run='run', extra=()):
  """`tbprof convert` into logdir; returns the sorted <host>.xplane.pb paths."""
  if not isinstance(inputs, (list, tuple)):
    inputs = [inputs]
  run_tbprof('convert', *inputs, '--logdir', logdir, '--run', run, '--quiet', *extra)
  run_dir = pathlib.Path(logdir) / 'plugins' / 'profile' / run
  paths = sorted(run_dir.glob('*.xplane.pb'))
  assert paths, f'no xplane.pb written in {run_dir}'
  return paths


def report_json(source, breakdown='device-only'):
  """`tbprof report --json` of a file or run directory, parsed."""
  proc = run_tbprof('report', source, '--json', f'--breakdown={breakdown}')
  return json.loads(proc.stdout)


def inspect_json(source):
  proc = run_tbprof('inspect', source, '--json')
  return json.loads(proc.stdout)


@pytest.fixture(scope='session')
def xprof_converter():
  """xprof's raw_to_tool_data module: what the plugin's Python layer calls."""
  from xprof.convert import raw_to_tool_data  # pylint: disable=import-outside-toplevel
  return raw_to_tool_data


def xprof_tool_names(paths):
  from xprof.convert import raw_to_tool_data  # pylint: disable=import-outside-toplevel
  return raw_to_tool_data.xspace_to_tool_names([str(p) for p in paths])


def xprof_tool(paths, tool, params=None):
  """Asks xprof's converter for one tool; returns (data bytes/str, content type).

  Raises AssertionError when the tool fails or returns nothing.
  """
  from xprof.convert import raw_to_tool_data  # pylint: disable=import-outside-toplevel
  params = dict(params or {})
  params.setdefault('use_saved_result', False)
  if tool.startswith('trace_viewer'):
    params.setdefault('trace_viewer_options', {})
  data, content_type = raw_to_tool_data.xspace_to_tool_data(
      [str(p) for p in paths], tool, params)
  assert data is not None, f'xprof returned no data for {tool} on {paths}'
  return data, content_type


def xprof_json(paths, tool, params=None):
  data, _ = xprof_tool(paths, tool, params)
  if isinstance(data, bytes):
    data = data.decode('utf-8')
  return json.loads(data)
