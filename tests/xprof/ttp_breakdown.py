"""Prints torch-tb-profiler's per-step breakdown of one Kineto trace as JSON.

Runs in the venv with torch-tb-profiler 0.4.3 (scripts/python_envs.sh peer):

  ttp_breakdown.py TRACE   ->  {"steps": [{"step": N, "totalUs": T, "Kernel": us, ...}],
                                "average": {"totalUs": T, "Kernel": us, ...}}

Categories are the plugin's: Kernel, Memcpy, Memset, Communication (only in
traces with NCCL), Runtime, DataLoader, CPU Exec, Other. It loads the trace
with the plugin's own RunLoader, as TensorBoard does.
"""

import json
import sys

from ttp_load import load_profile


def main():
  overview = load_profile(sys.argv[1]).overview
  cols = overview['steps']['columns']
  names = [c['name'] for c in cols[1:] if c.get('type') == 'number']
  steps = []
  for row in overview['steps']['rows']:
    values = [v for v in row[1:] if not isinstance(v, str)]
    step = dict(zip(names, values))
    step['step'] = int(row[0])
    step['totalUs'] = sum(values)
    steps.append(step)
  average = {c['name']: c['value'] for c in overview['performance'][0]['children']}
  average['totalUs'] = overview['performance'][0]['value']
  print(json.dumps({'steps': steps, 'average': average}))


if __name__ == '__main__':
  main()
