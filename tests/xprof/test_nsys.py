"""xprof 2.24 judges tbprof's conversion of the real Nsight Systems exports.

Each export in ../shared/testdata/nsys (nsys 2026.2.1 on 2x H100 with PyTorch
NVTX ranges; a 2023 legacy-schema MPI export) is converted with `tbprof
convert`, and the judge's checks run on it: xprof lists the tools inspect
predicts, every tool computes, steps and kernel stats equal ours. On top,
xprof's kernel stats per kernel name equal a plain SQL query of the export.
"""

import collections
import sqlite3

import pytest

import conftest
from conftest import SHARED
import test_judge
# The judge's checks, collected again here on the nsys cases (the
# `converted` fixture below shadows test_judge's for this module).
from test_judge import test_kernel_stats_match  # pylint: disable=unused-import
from test_judge import test_no_tool_fails  # pylint: disable=unused-import
from test_judge import test_steps_and_breakdown_match  # pylint: disable=unused-import
from test_judge import test_tool_list_is_what_inspect_predicts  # pylint: disable=unused-import

NSYS_EXPORTS = ['h100_2gpu_pytorch_nvtx.sqlite', 'saxpy_mpi_legacy_schema.sqlite']


@pytest.fixture(scope='module', params=NSYS_EXPORTS, ids=[n.split('.')[0] for n in NSYS_EXPORTS])
def converted(request, tmp_path_factory):
  path = SHARED / 'nsys' / request.param
  if not path.exists():
    pytest.skip(f'{path} not found (../shared/testdata missing?)')
  case_id = request.param.split('.')[0]
  return test_judge.Converted(case_id, [path], tmp_path_factory.mktemp(case_id))


def _sql_kernels(path):
  db = sqlite3.connect(f'file:{path}?mode=ro&immutable=1', uri=True)
  try:
    return {name: (count, total) for name, count, total in db.execute(
        'SELECT s.value, count(*), sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k '
        'JOIN StringIds s ON s.id = k.demangledName GROUP BY s.value')}
  finally:
    db.close()


def test_xprof_kernel_stats_equal_plain_sql(converted):
  """Per kernel name: xprof's occurrences exactly, total time to its 1 ns print precision."""
  expected = _sql_kernels(SHARED / 'nsys' / f'{converted.case_id}.sqlite')
  theirs = collections.defaultdict(lambda: [0, 0.0, 0])  # count, total us, rows
  for path in converted.paths:
    for row in test_judge.xprof_kernel_stats([path]):
      entry = theirs[row['kernel_name']]
      entry[0] += row['occurrences']
      entry[1] += row['total_duration_us']
      entry[2] += 1
  assert sorted(theirs) == sorted(expected)
  for name, (count, total_ns) in expected.items():
    assert theirs[name][0] == count, name
    assert theirs[name][1] == pytest.approx(total_ns / 1000.0, abs=0.0015 * theirs[name][2]), name
