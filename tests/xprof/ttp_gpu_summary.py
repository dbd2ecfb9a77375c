"""Prints torch-tb-profiler's GPU summary of one Kineto trace as JSON.

Runs in the venv with torch-tb-profiler 0.4.3 (scripts/python_envs.sh peer):

  ttp_gpu_summary.py TRACE  ->  {"0": {"util": 63.61, "sm_eff": 62.65, "occ": 49.14}, ...}

(percent per GPU ordinal; a figure the plugin does not show is left out). It
loads the trace with the plugin's own RunLoader, as TensorBoard does, and
reads RunProfile.gpu_summary, the rows of its overview's "GPU Summary".
"""

import json
import re
import sys

from ttp_load import load_profile

TITLES = {'GPU Utilization': 'util', 'Est. SM Efficiency': 'sm_eff',
          'Est. Achieved Occupancy': 'occ'}


def main():
  rows = load_profile(sys.argv[1]).gpu_summary
  out, gpu = {}, None
  for row in rows:
    m = re.match(r'GPU (\d+):$', row['title'])
    if m:
      gpu = m.group(1)
      out[gpu] = {}
    elif gpu is not None and row['title'] in TITLES:
      out[gpu][TITLES[row['title']]] = float(str(row['value']).rstrip(' %'))
  print(json.dumps(out))


if __name__ == '__main__':
  main()
