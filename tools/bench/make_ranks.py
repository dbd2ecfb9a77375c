#!/usr/bin/env python3
"""Makes a job of N ranks from the Kineto traces of a real one, to measure
`tbprof report` / `convert` on jobs of hundreds to thousands of ranks.

Rank k of the output is a copy of input trace k mod M (M input ranks) with
distributedInfo.rank = k and world_size = N, and its process ids moved so
that no two ranks share one. Timestamps are kept: the copies overlap in time
as the ranks of one job do. Written as rank<k>.pt.trace.json.gz.

  tools/bench/make_ranks.py ../shared/testdata/kineto/dlrm_8ranks /tmp/ranks1024 --ranks 1024
  /usr/bin/time -v build/tools/tbprof/tbprof report /tmp/ranks1024 --quiet > /dev/null

Benchmark only (not run in CI): docs/tensorboard_limits.md has the figures.
"""

import argparse
import gzip
import json
import pathlib
import sys


def load(path):
  opener = gzip.open if path.name.endswith('.gz') else open
  with opener(path, 'rt') as f:
    return json.load(f)


def main():
  parser = argparse.ArgumentParser(description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument('traces', help='directory of one Kineto trace per rank')
  parser.add_argument('out', help='output directory (created)')
  parser.add_argument('--ranks', type=int, required=True)
  parser.add_argument('--level', type=int, default=1, help='gzip level (default 1)')
  args = parser.parse_args()
  inputs = sorted(p for p in pathlib.Path(args.traces).iterdir()
                  if p.name.endswith(('.json', '.json.gz')))
  if not inputs or args.ranks < 1:
    parser.error('no traces, or --ranks < 1')
  out = pathlib.Path(args.out)
  out.mkdir(parents=True, exist_ok=True)
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
