"""xprof's input-pipeline analyzer lists PyTorch's host input ops.

tbprof puts `_ipl_stage_name`, `_ipl_stage_cat` ("preprocessing") and
`_ipl_stage_id` (the event's metadata id) on `enumerate(DataLoader)#...`
host events (converters/common/input_pipeline_stages.h). xprof's host op
metrics then count them as input-pipeline ops, and the analyzer's table of
input ops on the host shows them; no host-to-device copy is an "Enqueue" op.
"""

import pytest

import conftest
from conftest import SHARED

TRACES = {
    'workers0': SHARED / 'kineto' / 'resnet50_v100_dataloader_workers0.pt.trace.json.gz',
    'workers4': SHARED / 'kineto' / 'resnet50_v100_dataloader_workers4.pt.trace.json.gz',
}


def _input_op_rows(paths):
  """Rows of xprof's host input-op table as {column id: value}."""
  data = conftest.xprof_json(paths, 'input_pipeline_analyzer')
  tables = data if isinstance(data, list) else [data]
  for table in tables:
    if not isinstance(table, dict) or 'cols' not in table:
      continue
    ids = [c.get('id') for c in table['cols']]
    if 'opName' in ids and 'selfTimeInMs' in ids:
      return [dict(zip(ids, (c.get('v') for c in row['c']))) for row in table['rows']]
  raise AssertionError('xprof input_pipeline_analyzer has no input-op table')


@pytest.mark.parametrize('name', sorted(TRACES))
def test_dataloader_iterations_are_host_input_ops(tmp_path, name):
  trace = TRACES[name]
  if not trace.exists():
    pytest.skip(f'{trace} missing')
  paths = conftest.convert(trace, tmp_path / 'logdir', run='r')
  rows = _input_op_rows(paths)
  loader = [r for r in rows if str(r['opName']).startswith('enumerate(DataLoader)#')]
  assert loader, f'{name}: no DataLoader op in xprof input-op table: {rows}'
  assert all(r['category'] == 'Preprocessing' for r in loader), loader
  assert sum(r['count'] for r in loader) >= 6  # One per iteration (6 profiled steps or more).
  assert all(r['timeInMs'] > 0 for r in loader), loader
  assert not [r for r in rows if r['category'] == 'Enqueue'], rows
  # Our own view lists the same op with the same total time.
  ours = conftest.report_json(paths[0])['input_pipeline'].get('inputOpDetails', [])
  mine = {d['opName']: d for d in ours}
  for r in loader:
    assert r['opName'] in mine, (r['opName'], list(mine))
    assert mine[r['opName']]['timeInMs'] == pytest.approx(r['timeInMs'], rel=0.01)
