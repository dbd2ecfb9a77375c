#!/usr/bin/env python3
"""Makes a job of N ranks from the Kineto traces of a real one, to measure
`tbprof report` / `convert` on jobs of hundreds to thousands of ranks.

Rank k of the output is a copy of input trace k mod M (M input ranks) with
distributedInfo.rank = k and world_size = N, and its process ids moved so
that no two ranks share one. Timestamps are kept: the copies overlap in time
as the ranks of one job do. Written as rank<k>.pt.trace.json.gz.

  tools/bench/make_ranks.py ../shared/testdata/kineto/dlrm_8ranks /tmp/ranks1024 --ranks 1024
  /usr/bin/time -v build/tools/tbprof/tbprof report /tmp/ranks1024 --quiet > /dev/null

Big ranks (--scale-mb M): each input is first scaled to about M MB of JSON
with tbprof_scale_trace (its events repeated, --scaler names the binary;
kept in OUT/.scaled), and rank k is that trace with only its distributedInfo
rewritten (pids are kept), written uncompressed as rank<k>.pt.trace.json:

  tools/bench/make_ranks.py ../shared/testdata/kineto/dlrm_8ranks /tmp/big16 --ranks 16 \
      --scale-mb 500 --scaler build/tools/bench/tbprof_scale_trace

Benchmark only (not run in CI): docs/ranks.md has the figures.
"""

import argparse
import gzip
import json
import pathlib
import re
import shutil
import subprocess
import sys


def load(path):
  opener = gzip.open if path.name.endswith('.gz') else open
  with opener(path, 'rt') as f:
    return json.load(f)


def rewrite_rank(head, rank, world_size):
  """`head` (the start of a trace) with distributedInfo's rank and world_size set."""
  match = re.search(r'"distributedInfo"\s*:\s*\{[^}]*\}', head)
  if match is None:
    sys.exit('no distributedInfo near the start of the scaled trace')
  info = match.group(0)
  info = re.sub(r'"rank"\s*:\s*-?\d+', f'"rank": {rank}', info)
  info = re.sub(r'"world_size"\s*:\s*\d+', f'"world_size": {world_size}', info)
  return head[:match.start()] + info + head[match.end():]


def make_big_ranks(inputs, out, args):
  scaled_dir = out / '.scaled'
  scaled_dir.mkdir(exist_ok=True)
  scaled = []
  for path in inputs:
    target = scaled_dir / (path.name.split('.')[0] + f'_{args.scale_mb}mb.json')
    if not target.exists():
      subprocess.run([args.scaler, '--target-mb', str(args.scale_mb), '--force', str(path),
                      str(target)], check=True)
    scaled.append(target)
  for k in range(args.ranks):
    source = scaled[k % len(scaled)]
    with open(source, 'rb') as src, open(out / f'rank{k}.pt.trace.json', 'wb') as dst:
      head = src.read(1 << 16).decode('utf-8', 'surrogateescape')
      dst.write(rewrite_rank(head, k, args.ranks).encode('utf-8', 'surrogateescape'))
      shutil.copyfileobj(src, dst, 1 << 22)
  print(f'{args.ranks} ranks of ~{args.scale_mb} MB from {len(inputs)} traces in {out}',
        file=sys.stderr)
  return 0


def main():
  parser = argparse.ArgumentParser(description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument('traces', help='directory of one Kineto trace per rank')
  parser.add_argument('out', help='output directory (created)')
  parser.add_argument('--ranks', type=int, required=True)
  parser.add_argument('--level', type=int, default=1, help='gzip level (default 1)')
  parser.add_argument('--scale-mb', type=int, default=0,
                      help='scale each input to about this many MB of JSON first (big ranks)')
  parser.add_argument('--scaler', default='build/tools/bench/tbprof_scale_trace',
                      help='the tbprof_scale_trace binary (with --scale-mb)')
  args = parser.parse_args()
  inputs = sorted(p for p in pathlib.Path(args.traces).iterdir()
                  if p.name.endswith(('.json', '.json.gz')))
  if not inputs or args.ranks < 1:
    parser.error('no traces, or --ranks < 1')
  out = pathlib.Path(args.out)
  out.mkdir(parents=True, exist_ok=True)
  if args.scale_mb > 0:
    return make_big_ranks(inputs, out, args)
  for k in range(args.ranks):
    trace = load(inputs[k % len(inputs)])
    info = trace.setdefault('distributedInfo', {})
    info['rank'] = k
    info['world_size'] = args.ranks
    shift = (k // len(inputs)) * 1_000_000
    if shift:
      for event in trace.get('traceEvents', []):
        if isinstance(event.get('pid'), int):
          event['pid'] += shift
    with gzip.open(out / f'rank{k}.pt.trace.json.gz', 'wt', compresslevel=args.level) as f:
      json.dump(trace, f, separators=(',', ':'))
  print(f'{args.ranks} ranks from {len(inputs)} traces in {out}', file=sys.stderr)
  return 0


if __name__ == '__main__':
  sys.exit(main())
