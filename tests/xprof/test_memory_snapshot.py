"""xprof judges what tbprof writes for PyTorch CUDA memory snapshots.

No real snapshot is in ../shared (none found under a licence that allows
it); the fixtures of testdata/memory_snapshot (make_fixtures.py, the
structure PyTorch's torch/cuda/memory.py and _memory_viz.py read) are used,
in pickle protocols 2, 4 and 5. For each: xprof lists its tools and every
one computes; xprof's memory profile has tbprof's peak, which is the maximum
of the running sum of the events computed by an independent script
(running_peak.py, Python's own pickle module).
"""

import subprocess
import sys

import pytest

import conftest

FIXTURES = conftest.REPO / 'testdata' / 'memory_snapshot'
SNAPSHOTS = ['small.p2.pickle', 'small.p4.pickle', 'small.p5.pickle', 'small.p4.pickle.gz',
             'no_time.p4.pickle', 'random.p5.pickle', 'pytorch_keys.p4.pickle']


def independent_peaks(path):
  """{allocator name: peak bytes} from running_peak.py."""
  out = subprocess.run([sys.executable, str(FIXTURES / 'running_peak.py'), str(path)],
                       capture_output=True, text=True, check=True).stdout
  peaks = {}
  for line in out.split('\n'):
    if line.strip():
      device, _initial, peak, _final = (int(x) for x in line.split())
      peaks[f'GPU_{device}_caching'] = peak
  return peaks


@pytest.mark.parametrize('name', SNAPSHOTS)
def test_every_tool_computes_and_the_peak_is_the_running_sum_maximum(tmp_path, name):
  paths = conftest.convert(FIXTURES / name, tmp_path / 'logdir')
  assert len(paths) == 1
  tools = conftest.xprof_tool_names(paths)
  assert 'memory_profile' in tools, tools
  for tool in tools:
    if tool in ('graph_viewer', 'memory_viewer'):
      continue  # HLO tools: nothing to show for a memory snapshot.
    params = {}
    data, _ = conftest.xprof_tool(paths, tool, params)
    assert len(data) > 0, f'xprof {tool} returned nothing for {name}'

  theirs = conftest.xprof_json(paths, 'memory_profile')['memoryProfilePerAllocator']
  mine = conftest.report_json(paths[0])['memory_profile']['memoryProfilePerAllocator']
  expected = independent_peaks(FIXTURES / name)
  assert sorted(theirs) == sorted(expected), (sorted(theirs), expected)
  for allocator, peak in expected.items():
    t_summary = theirs[allocator]['profileSummary']
    m_summary = mine[allocator]['profileSummary']
    assert int(t_summary['peakStats']['peakBytesInUse']) == peak, (allocator, t_summary)
    assert int(m_summary['peakStats']['peakBytesInUse']) == peak, (allocator, m_summary)
    assert t_summary['peakStats'] == m_summary['peakStats']
