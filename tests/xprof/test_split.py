"""Files too large for TensorBoard are split into runs that xprof opens.

`tbprof convert --tensorboard-budget-mb N` splits a host whose xplane.pb
xprof would need more than N MiB for into runs <run>_part1, <run>_part2, ...
of whole steps (docs/tensorboard_limits.md). A tiny budget forces the split
on a small trace; xprof's own converter must then open every part (tool list,
overview_page, trace_viewer@, input_pipeline_analyzer), each part must show
its own steps, and the parts together must hold every event of the whole.
"""

import pathlib
import re

import pytest

import conftest
from conftest import SHARED

RESNET = SHARED / 'kineto' / 'resnet50_v100_dataloader_workers0.pt.trace.json.gz'


def _convert(trace, logdir, *extra):
  """`tbprof convert --quiet`; returns (paths printed, stderr)."""
  proc = conftest.run_tbprof('convert', trace, '--logdir', logdir, '--run', 'r', '--quiet',
                             *extra)
  return [pathlib.Path(p) for p in proc.stdout.split()], proc.stderr


def _events(path):
  """Events per plane name, from `tbprof inspect --json`."""
  planes = conftest.inspect_json(path)['planes']
  return {p['name']: p['events'] for p in planes}


def _step_roots(path):
  return conftest.inspect_json(path)['steps']['step_roots']


def _xprof_steps(path):
  """Rows of xprof's input_pipeline_analyzer step table, as {column: value}."""
  data = conftest.xprof_json([path], 'input_pipeline_analyzer')
  for table in data:
    cols = table.get('cols', [])
    if cols and cols[0]['id'] == 'stepnum':
      ids = [c['id'] for c in cols]
      return [dict(zip(ids, [cell.get('v') if cell else None for cell in row['c']]))
              for row in table.get('rows', [])]
  return []


def _trace_step_names(path):
  """Names of the ProfilerStep events in xprof's trace viewer data."""
  data = conftest.xprof_json([path], 'trace_viewer@')
  return sorted({e.get('name') for e in data.get('traceEvents', [])
                 if str(e.get('name', '')).startswith('ProfilerStep#')})


class Split:
  """The ResNet-50 sample (6 steps) converted whole and with a 1 MiB budget."""

  def __init__(self, work):
    self.whole, _ = _convert(RESNET, work / 'whole', '--no-views', '--tensorboard-budget-mb', '0')
    self.parts, self.stderr = _convert(RESNET, work / 'split', '--tensorboard-budget-mb', '1')
    self.logdir = work / 'split'
    # "split into N runs of K steps each (r_part1..N)"; the file is a few MB,
    # so K is 1 to 3 depending on how many bytes an event takes.
    match = re.search(r'split into (\d+) runs of (\d+) steps? each \(r_part1\.\.(\d+)\)',
                      self.stderr)
    assert match, self.stderr
    self.num_parts, self.steps_per_part = int(match.group(1)), int(match.group(2))
    assert int(match.group(3)) == self.num_parts


@pytest.fixture(scope='module')
def resnet_split(tmp_path_factory):
  if not RESNET.exists():
    pytest.skip(f'{RESNET} not found (../shared/testdata missing?)')
  return Split(tmp_path_factory.mktemp('split'))


def test_split_is_announced_and_laid_out(resnet_split):
  s = resnet_split
  assert len(s.whole) == 1
  assert s.num_parts >= 2 and s.num_parts == -(-6 // s.steps_per_part), s.stderr
  assert 'because one file would need ~' in s.stderr
  assert '--tensorboard-budget-mb 0 keeps one file' in s.stderr
  assert [p.parent.name for p in s.parts] == [f'r_part{k + 1}' for k in range(s.num_parts)]
  for path in s.parts:
    assert path.exists() and path.name == s.whole[0].name
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]
  # The whole trace's precomputed views stay in the run without _part; no
  # xplane.pb there, so the plugin never loads the whole trace.
  run = s.logdir / 'plugins' / 'profile' / 'r'
  names = sorted(p.name for p in run.iterdir())
  assert not [n for n in names if n.endswith('.xplane.pb')], names
  assert any(n.endswith('.overview_page.pb') for n in names), names


def _steps_of_part(s, k):
  return min(s.steps_per_part, 6 - k * s.steps_per_part)


def test_parts_hold_every_event_once_and_whole_steps(resnet_split):
  s = resnet_split
  total = {}
  for k, path in enumerate(s.parts):
    for plane, n in _events(path).items():
      total[plane] = total.get(plane, 0) + n
    assert _step_roots(path) == _steps_of_part(s, k)
  assert total == _events(s.whole[0])


def test_xprof_opens_every_part_with_its_steps(resnet_split):
  s = resnet_split
  rows, names = [], []
  for k, path in enumerate(s.parts):
    tools = conftest.xprof_tool_names([path])
    assert 'overview_page' in tools and 'trace_viewer@' in tools, tools
    overview = conftest.xprof_json([path], 'overview_page')
    assert overview, f'empty overview_page for {path}'
    steps = _xprof_steps(path)
    assert len(steps) == _steps_of_part(s, k), f'{path}: xprof shows steps {steps}'
    rows += steps
    part_names = _trace_step_names(path)
    assert len(part_names) == len(steps), f'{path}: trace viewer shows {part_names}'
    names += part_names
  # Every step once, in order.
  assert len(set(names)) == 6, names
  assert names == sorted(names), names
  # xprof shows the whole file's steps but the first and last (it drops them
  # when there are more than 5); the parts show the same steps with the same
  # times: a step's kernels stayed with it.
  whole_rows = _xprof_steps(s.whole[0])
  assert len(whole_rows) == 4
  for ours, theirs in zip(rows[1:5], whole_rows):
    for column, value in theirs.items():
      if column != 'stepnum' and isinstance(value, (int, float)):
        assert ours[column] == pytest.approx(value, abs=0.0015), (column, ours, theirs)


def test_trace_without_steps_is_split_by_time(tmp_path):
  if not RESNET.exists():
    pytest.skip(f'{RESNET} not found')
  parts, stderr = _convert(RESNET, tmp_path / 'tb', '--steps', 'none', '--no-views',
                           '--tensorboard-budget-mb', '1')
  assert 'split by time into' in stderr, stderr
  assert len(parts) >= 2
  # No views: no empty run without _part.
  assert not (tmp_path / 'tb' / 'plugins' / 'profile' / 'r').exists()
  for path in parts:
    tools = conftest.xprof_tool_names([path])
    assert 'trace_viewer@' in tools, tools
    trace = conftest.xprof_json([path], 'trace_viewer@')
    assert trace.get('traceEvents'), f'no trace events in {path}'
    conftest.xprof_json([path], 'overview_page')


def test_budget_zero_keeps_one_file(tmp_path):
  if not RESNET.exists():
    pytest.skip(f'{RESNET} not found')
  paths, stderr = _convert(RESNET, tmp_path / 'tb', '--no-views', '--tensorboard-budget-mb', '0')
  assert len(paths) == 1 and paths[0].parent.name == 'r'
  assert 'split' not in stderr
