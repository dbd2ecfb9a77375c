"""Prints the tool-by-tool table: every test trace x every xprof tool.

For each case of test_judge.CASES it converts the trace with tbprof, asks
xprof 2.24 (the real plugin's converter) for every tool it lists, and prints
one Markdown row: the tool results (ok + bytes, or the error) and the numbers
compared with `tbprof report --json --breakdown=device-only` (steps, kernel
rows and launches, memory peaks). Used for docs/xprof_tool_table.md.

  cd tests/xprof && TBPROF=... TBPROF_SHARED_TESTDATA=... \
      ../../build/xprof-venv/bin/python tool_table.py > ../../docs/xprof_tool_table.md
"""

import sys
import tempfile

import conftest
import test_judge

TOOLS = ['trace_viewer@', 'overview_page', 'input_pipeline_analyzer', 'framework_op_stats',
         'memory_profile', 'op_profile', 'hlo_stats', 'roofline_model', 'kernel_stats',
         'memory_viewer', 'graph_viewer']


def tool_cell(paths, tool, listed):
  if tool not in listed:
    return '-'
  if tool in ('memory_viewer', 'graph_viewer'):
    return 'listed'
  try:
    data, _ = conftest.xprof_tool(paths[:1] if tool == 'memory_profile' else paths, tool)
    return f'ok {len(data) // 1024} KB' if len(data) >= 1024 else f'ok {len(data)} B'
  except Exception as e:  # pylint: disable=broad-except
    return f'FAIL: {str(e)[:40]}'


def numbers(paths, ours):
  rows, _ = test_judge.xprof_steps(paths[:1])
  mine = ours['input_pipeline'].get('stepDetails', [])
  same_steps = len(rows) == len(mine) and all(
      abs(r['stepTimeMs'] - m.get('stepTimeMs', 0)) <= test_judge.MS_TOL
      for r, m in zip(rows, mine))
  kernels = test_judge.xprof_kernel_stats(paths[:1])
  my_kernels = ours['kernel_stats'].get('reports', [])
  mem = conftest.xprof_json(paths[:1], 'memory_profile').get('memoryProfilePerAllocator', {})
  my_mem = ours['memory_profile'].get('memoryProfilePerAllocator', {})
  same_mem = all(
      str(v['profileSummary'].get('peakStats', {}).get('peakBytesInUse')) ==
      str(my_mem.get(k, {}).get('profileSummary', {}).get('peakStats', {}).get('peakBytesInUse'))
      for k, v in mem.items())
  return (f'{len(rows)} / {len(mine)} {"=" if same_steps else "DIFF"}',
          f'{len(kernels)} rows, {int(sum(r["occurrences"] for r in kernels))} launches / '
          f'{len(my_kernels)} rows',
          f'{len(mem)} allocators {"=" if same_mem else "DIFF"}')


def main():
  print('| trace (host 1 of n) | ' + ' | '.join(TOOLS) +
        ' | steps xprof / tbprof | kernel stats xprof / tbprof | memory peaks |')
  print('|---' * (len(TOOLS) + 4) + '|')
  for case_id, inputs in test_judge.CASES:
    with tempfile.TemporaryDirectory() as tmp:
      try:
        converted = test_judge.Converted(case_id, inputs, tmp)
      except BaseException as e:  # pylint: disable=broad-except  (pytest.skip is BaseException)
        print(f'| {case_id} | skipped: {str(e)[:60]} |', file=sys.stdout)
        continue
      paths = converted.paths
      listed = conftest.xprof_tool_names(paths[:1])
      cells = [tool_cell(paths, t, listed) for t in TOOLS]
      steps, kernels, mem = numbers(paths, converted.ours(paths[0]))
      name = f'{case_id} (1 of {len(paths)})' if len(paths) > 1 else case_id
      print(f'| {name} | ' + ' | '.join(cells) + f' | {steps} | {kernels} | {mem} |')


if __name__ == '__main__':
  main()
