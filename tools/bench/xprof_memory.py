#!/usr/bin/env python3
"""Peak memory and time of xprof (TensorBoard's profile plugin) on xplane.pb files.

For each file and each tool, xprof's converter (the function the plugin's HTTP
layer calls, xprof.convert.raw_to_tool_data.xspace_to_tool_data) runs in a
fresh child process of the pinned venv's Python, on a copy of the file in a
fresh directory (xprof writes caches beside the file). The parent records the
child's wall time and peak RSS (os.wait4) and guards the machine: the child
runs under RLIMIT_AS and a watchdog that kills it when its RSS passes
--limit-gb; such a run is reported as 'over limit', never left to take the
machine down.

  # Measure existing files:
  xprof_memory.py --python build/xprof-venv/bin/python a.xplane.pb b.xplane.pb

  # Make the ResNet-50 sample 1x, 10x, 100x (tbprof_scale_trace), convert each
  # (tbprof convert --no-views) and measure:
  xprof_memory.py --python build/xprof-venv/bin/python \
      --scale-trace build/tools/bench/tbprof_scale_trace --tbprof build/tools/tbprof/tbprof \
      --trace ../shared/testdata/kineto/resnet50_v100_dataloader_workers0.pt.trace.json.gz \
      --scales 1,10,100 --workdir /tmp/tbprof-xprof-mem --json /tmp/xprof_mem.json

  # A run of N hosts (N links to the file, hosts h0..h(N-1)): what a tool
  # request for ALL_HOSTS (every file) and for one host (one file) needs:
  xprof_memory.py --hosts 1,4,16 --request all,one a.xplane.pb

Prints a Markdown table (docs/tensorboard_limits.md holds the figures); --json
writes the raw records.
"""

import argparse
import json
import os
import pathlib
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

DEFAULT_TOOLS = ('overview_page', 'trace_viewer@')

# What the child runs: import xprof, then one tool on one file. Prints one JSON
# line with its own timings; the parent measures memory.
CHILD = r'''
import json, resource, sys, time
t0 = time.monotonic()
from xprof.convert import raw_to_tool_data as r
t1 = time.monotonic()
rss_import_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
paths, tool = sys.argv[1].split('\n'), sys.argv[2]
params = {'use_saved_result': False}
if tool.startswith('trace_viewer'):
  params['trace_viewer_options'] = {}
data, _ = r.xspace_to_tool_data(paths, tool, params)
t2 = time.monotonic()
print(json.dumps({'import_s': t1 - t0, 'tool_s': t2 - t1, 'rss_import_kb': rss_import_kb,
                  'output_bytes': len(data) if data is not None else -1}))
'''


def _rss_kb(pid):
  try:
    with open(f'/proc/{pid}/status') as f:
      for line in f:
        if line.startswith('VmRSS:'):
          return int(line.split()[1])
  except OSError:
    pass
  return 0


def measure(python, xplane, tool, limit_gb, timeout_s, hosts=1, request='all'):
  """Runs one tool on a private copy of `xplane` (`hosts` copies in one run,
  all of them given to the tool when `request` is 'all', the first when
  'one'); returns a record dict."""
  limit_kb = int(limit_gb * 1024 * 1024)
  record = {'file': str(xplane), 'tool': tool, 'xplane_bytes': os.path.getsize(xplane),
            'hosts': hosts, 'request': request}
  with tempfile.TemporaryDirectory(prefix='xprof-mem-') as tmp:
    run_dir = pathlib.Path(tmp) / 'plugins' / 'profile' / 'run'
    run_dir.mkdir(parents=True)
    copies = []
    for h in range(hosts):
      copy = run_dir / (pathlib.Path(xplane).name if hosts == 1 else f'h{h}.xplane.pb')
      try:
        os.link(xplane, copy)  # xprof only reads it; caches go beside it.
      except OSError:
        shutil.copyfile(xplane, copy)
      copies.append(str(copy))
    if request == 'one':
      copies = copies[:1]

    def limit_child():
      # Address space: generous (virtual reservations exceed RSS), the
      # watchdog below enforces the RSS limit.
      as_bytes = int(limit_gb * 1.5 * (1 << 30))
      resource.setrlimit(resource.RLIMIT_AS, (as_bytes, as_bytes))
      os.setsid()

    out_path = pathlib.Path(tmp) / 'child.out'
    start = time.monotonic()
    with open(out_path, 'w') as out:
      proc = subprocess.Popen([python, '-c', CHILD, '\n'.join(copies), tool], stdout=out,
                              stderr=subprocess.STDOUT, preexec_fn=limit_child)
    killed = {'why': None, 'max_polled_kb': 0}

    def watchdog():
      while proc.returncode is None:
        rss = _rss_kb(proc.pid)
        killed['max_polled_kb'] = max(killed['max_polled_kb'], rss)
        elapsed = time.monotonic() - start
        why = ('over limit' if rss > limit_kb else
               'timeout' if elapsed > timeout_s else None)
        if why:
          killed['why'] = why
          try:
            os.killpg(proc.pid, signal.SIGKILL)
          except OSError:
            pass
          return
        time.sleep(0.05)

    thread = threading.Thread(target=watchdog, daemon=True)
    thread.start()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    thread.join()
    wall = time.monotonic() - start
    text = out_path.read_text(errors='replace')
    record.update(wall_s=round(wall, 2), peak_rss_kb=usage.ru_maxrss,
                  exit=proc.returncode)
    if killed['why']:
      record['result'] = killed['why']
    elif proc.returncode != 0:
      # RLIMIT_AS hit shows as MemoryError / bad_alloc / abort.
      low = text.lower()
      oom = 'memoryerror' in low or 'bad_alloc' in low or 'cannot allocate' in low
      record['result'] = 'over limit' if oom else f'failed (exit {proc.returncode})'
      record['tail'] = text[-2000:]
    else:
      try:
        child = json.loads(text.strip().splitlines()[-1])
      except (ValueError, IndexError):
        child = {}
      record.update(child)
      record['result'] = 'ok' if child.get('output_bytes', -1) > 0 else 'no data'
      if record['result'] != 'ok':
        record['tail'] = text[-2000:]
  return record


def count_events(tbprof, xplane):
  """Events on host and device planes, from `tbprof inspect --json`."""
  if not tbprof:
    return None
  proc = subprocess.run([tbprof, 'inspect', str(xplane), '--json'], capture_output=True,
                        text=True, check=False)
  if proc.returncode != 0:
    return None
  return sum(p['events'] for p in json.loads(proc.stdout)['planes'])


def prepare(args):
  """Scaled traces -> logdirs; returns the xplane.pb paths in scale order."""
  work = pathlib.Path(args.workdir)
  work.mkdir(parents=True, exist_ok=True)
  paths = []
  for scale in [int(s) for s in args.scales.split(',')]:
    trace = work / f'resnet50_x{scale}.json'
    if not trace.exists():
      t = time.monotonic()
      subprocess.run([args.scale_trace, '--copies', str(scale), args.trace, str(trace)],
                     check=True, stdout=subprocess.DEVNULL)
      print(f'# scaled x{scale}: {trace.stat().st_size / 1e6:.0f} MB JSON in '
            f'{time.monotonic() - t:.1f} s', file=sys.stderr)
    logdir = work / f'logdir_x{scale}'
    xplane = logdir / 'plugins' / 'profile' / 'r' / 'resnet50.xplane.pb'
    if not xplane.exists():
      t = time.monotonic()
      subprocess.run([args.tbprof, 'convert', str(trace), '--logdir', str(logdir), '--run', 'r',
                      '--host', 'resnet50', '--no-views', '--quiet',
                      '--tensorboard-budget-mb', '0'],
                     check=True, stdout=subprocess.DEVNULL)
      print(f'# converted x{scale} in {time.monotonic() - t:.1f} s', file=sys.stderr)
    paths.append(xplane)
  return paths


def main():
  parser = argparse.ArgumentParser(description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument('xplanes', nargs='*', help='xplane.pb files to measure')
  parser.add_argument('--python', default='build/xprof-venv/bin/python',
                      help='Python of the venv with xprof (default: %(default)s)')
  parser.add_argument('--tools', default=','.join(DEFAULT_TOOLS))
  parser.add_argument('--limit-gb', type=float, default=16.0,
                      help='kill a child whose RSS passes this (default: %(default)s)')
  parser.add_argument('--timeout-s', type=float, default=1800.0)
  parser.add_argument('--tbprof', help='tbprof binary: counts events, converts with --scales')
  parser.add_argument('--scale-trace', help='tbprof_scale_trace binary (with --scales)')
  parser.add_argument('--trace', help='trace to scale (with --scales)')
  parser.add_argument('--scales', help='e.g. 1,10,100: make and convert scaled traces first')
  parser.add_argument('--workdir', default='/tmp/tbprof-xprof-mem')
  parser.add_argument('--json', help='write the records here')
  parser.add_argument('--hosts', default='1',
                      help='e.g. 1,4,16: runs of that many hosts, each a link to the file')
  parser.add_argument('--request', default='all',
                      help="all (every host's file, as for ALL_HOSTS), one (one host's file), "
                           'or both: all,one')
  args = parser.parse_args()

  xplanes = [pathlib.Path(p) for p in args.xplanes]
  if args.scales:
    if not (args.scale_trace and args.tbprof and args.trace):
      parser.error('--scales needs --scale-trace, --tbprof and --trace')
    xplanes += prepare(args)
  if not xplanes:
    parser.error('no xplane.pb given')

  records = []
  print('| xplane.pb | events | hosts | request | tool | peak RSS | RSS / file | wall | result |')
  print('|---|---|---|---|---|---|---|---|---|')
  runs = [(int(h), q) for h in args.hosts.split(',') for q in args.request.split(',')]
  for xplane in xplanes:
    events = count_events(args.tbprof, xplane)
    for (hosts, request), tool in [(r, t) for r in runs for t in args.tools.split(',')]:
      if hosts == 1 and request == 'one' and ('all' in args.request.split(',')):
        continue  # The same as 'all' for one host.
      rec = measure(args.python, xplane, tool, args.limit_gb, args.timeout_s, hosts, request)
      rec['events'] = events
      records.append(rec)
      mb = rec['xplane_bytes'] / 1e6
      rss_gb = rec['peak_rss_kb'] / (1 << 20)
      ratio = rec['peak_rss_kb'] * 1024 / rec['xplane_bytes']
      label = (f'{xplane.parents[3].name}/{xplane.parent.name}/{xplane.name}'
               if len(xplane.parents) > 3 else str(xplane))
      print(f'| {label} {mb:.1f} MB '
            f'| {events if events is not None else "?"} | {hosts} | {request} | {tool} '
            f'| {rss_gb:.2f} GB '
            f'| {ratio:.1f} | {rec["wall_s"]:.1f} s | {rec["result"]} |', flush=True)
      if args.json:
        pathlib.Path(args.json).write_text(json.dumps(records, indent=1))
  return 0


if __name__ == '__main__':
  sys.exit(main())
