#!/usr/bin/env python3
"""rocprofv3 JSON: tbprof's import against Python's json.load of the same file.

  rocprof_vs_json.py TBPROF TBPROF_ROCPROF_BENCH FILE [--runs N]

Fastest of N runs each, in one go, CPU time (user + sys) and wall time:
  python json.load      gzip.open + json.load (the plain reading everyone has);
  tbprof import         tbprof_rocprof_bench's `total` (read + parse + map, in process);
  tbprof convert        `tbprof convert FILE --no-views` as a process (start-up,
                        import, steps, xplane.pb written);
and the ratios to json.load. Prints a Markdown table (docs/benchmarks.md).
"""

import argparse
import gzip
import json
import os
import resource
import subprocess
import tempfile
import time


def cpu_children():
  r = resource.getrusage(resource.RUSAGE_CHILDREN)
  return r.ru_utime + r.ru_stime


def time_json_load(path, runs):
  best_cpu = best_wall = float('inf')
  for _ in range(runs):
    wall, cpu = time.perf_counter(), time.process_time()
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rb') as f:
      json.load(f)
    best_wall = min(best_wall, time.perf_counter() - wall)
    best_cpu = min(best_cpu, time.process_time() - cpu)
  return best_cpu, best_wall


def time_bench(bench, path, runs):
  wall = time.perf_counter()
  out = subprocess.run([bench, path, '--repeat', str(runs)], check=True, capture_output=True,
                       text=True).stdout
  phases = {}
  for line in out.splitlines():
    fields = line.split()
    if len(fields) >= 2 and fields[0] in ('read', 'parse', 'map', 'total'):
      phases[fields[0]] = float(fields[1])
  return phases, (time.perf_counter() - wall) / (2 * runs)


def time_convert(tbprof, path, runs):
  best_cpu = best_wall = float('inf')
  for _ in range(runs):
    with tempfile.TemporaryDirectory() as logdir:
      before = cpu_children()
      wall = time.perf_counter()
      subprocess.run([tbprof, 'convert', path, '--logdir', logdir, '--quiet', '--no-views'],
                     check=True, capture_output=True)
      best_wall = min(best_wall, time.perf_counter() - wall)
      best_cpu = min(best_cpu, cpu_children() - before)
  return best_cpu, best_wall


def main():
  parser = argparse.ArgumentParser()
  parser.add_argument('tbprof')
  parser.add_argument('bench')
  parser.add_argument('file')
  parser.add_argument('--runs', type=int, default=5)
  a = parser.parse_args()
  json_cpu, json_wall = time_json_load(a.file, a.runs)
  phases, _ = time_bench(a.bench, a.file, a.runs)
  conv_cpu, conv_wall = time_convert(a.tbprof, a.file, a.runs)
  print(f'{os.path.basename(a.file)}, fastest of {a.runs}, load average '
        f'{os.getloadavg()[0]:.1f}\n')
  print('| | CPU s | wall s | CPU vs json.load |')
  print('|---|---:|---:|---:|')
  print(f'| Python gzip + json.load | {json_cpu:.3f} | {json_wall:.3f} | 1.00x |')
  for name in ('read', 'parse', 'map'):
    print(f'| tbprof import: {name} | {phases[name]:.3f} | | |')
  print(f'| tbprof import (read + parse + map) | {phases["total"]:.3f} | | '
        f'{json_cpu / phases["total"]:.2f}x faster |')
  print(f'| `tbprof convert --no-views` (process) | {conv_cpu:.3f} | {conv_wall:.3f} | '
        f'{json_cpu / conv_cpu:.2f}x faster |')


if __name__ == '__main__':
  main()
