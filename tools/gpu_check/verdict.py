"""The JSON side of run_gpu_check.sh: one result file per check, the counts a
check compares, and the final $OUT/verdict.json. Standard library only (it
runs with the GPU machine's Python and with CI's python3).

  verdict.py put OUT NAME STATUS NOTE [KEY=VALUE ...]
      writes OUT/checks/NAME.json (STATUS: passed, failed or skipped; values
      that parse as JSON numbers/booleans are stored as such)
  verdict.py counts INSPECT_JSON [KEY=WANT ...]
      reads `tbprof inspect --json` of one xplane.pb and prints the activity
      counts (kernels, memcpys, memsets, steps: ProfilerStep#N ranges) as
      KEY=VALUE lines; with KEY=WANT arguments, exits 1 unless each is equal
  verdict.py kernels OURS_REPORT THEIRS_REPORT MAX_TIME_DIFF
      compares per-kernel-name counts and total kernel time of two
      `tbprof report --json` outputs (compare_kernels.py); prints KEY=VALUE
      figures and exits 1 unless every count is equal and the total times
      differ by at most MAX_TIME_DIFF (a fraction, e.g. 0.02)
  verdict.py assemble OUT MODE DEVICE SECONDS CHECK...
      writes OUT/verdict.json: every CHECK in order, from OUT/checks/CHECK.json,
      or "failed" with what the runner noted when a check left no result
      (timed out, crashed), each with its seconds and limit when the runner
      noted them; prints a one-line summary per check
"""

import json
import os
import sys

import compare_kernels


def _value(text):
  try:
    return json.loads(text)
  except ValueError:
    return text


def _write_json(path, data):
  tmp = path + '.tmp'
  with open(tmp, 'w') as f:
    json.dump(data, f, indent=1, sort_keys=False)
    f.write('\n')
  os.replace(tmp, path)


def put(out, name, status, note, pairs):
  if status not in ('passed', 'failed', 'skipped'):
    raise SystemExit(f'verdict.py: status {status!r} is not passed, failed or skipped')
  figures = {}
  for pair in pairs:
    key, _, value = pair.partition('=')
    figures[key] = _value(value)
  os.makedirs(os.path.join(out, 'checks'), exist_ok=True)
  _write_json(os.path.join(out, 'checks', name + '.json'),
              {'name': name, 'status': status, 'note': note, 'figures': figures})


def activity_counts(inspect_json):
  with open(inspect_json) as f:
    data = json.load(f)
  items = data if isinstance(data, list) else [data]
  counts = {'kernels': 0, 'memcpys': 0, 'memsets': 0, 'steps': 0}
  for item in items:
    for plane in item.get('planes', []):
      if not plane.get('name', '').startswith('/device:GPU:'):
        continue
      stats = plane.get('stat_counts', {})
      counts['kernels'] += stats.get('kernel_details', 0)
      counts['memcpys'] += stats.get('memcpy_details', 0)
      counts['memsets'] += stats.get('Memset_details', 0) + stats.get('memset_details', 0)
    counts['steps'] += item.get('steps', {}).get('step_roots', 0)
  return counts


def counts(inspect_json, wants):
  got = activity_counts(inspect_json)
  ok = True
  for key, value in got.items():
    print(f'{key}={value}')
  for want in wants:
    key, _, value = want.partition('=')
    if got.get(key) != int(value):
      print(f'{key}_expected={value}')
      ok = False
  return 0 if ok else 1


def kernels(ours_path, theirs_path, max_diff):
  ours, theirs = compare_kernels.kernels(ours_path), compare_kernels.kernels(theirs_path)
  names = set(ours) | set(theirs)
  mismatched = sorted(k for k in names if ours.get(k, (0, 0))[0] != theirs.get(k, (0, 0))[0])
  t_ours = sum(v[1] for v in ours.values())
  t_theirs = sum(v[1] for v in theirs.values())
  diff = abs(t_ours - t_theirs) / t_theirs if t_theirs else float('inf')
  print(f'kernel_names={len(names)}')
  print(f'kernels_ours={sum(v[0] for v in ours.values())}')
  print(f'kernels_torch={sum(v[0] for v in theirs.values())}')
  print(f'names_with_count_mismatch={len(mismatched)}')
  if mismatched:
    print('first_mismatch="%s ours %d torch %d"' % (
        mismatched[0][:80], ours.get(mismatched[0], (0, 0))[0],
        theirs.get(mismatched[0], (0, 0))[0]))
  print(f'kernel_ms_ours={t_ours / 1e6:.3f}')
  print(f'kernel_ms_torch={t_theirs / 1e6:.3f}')
  print(f'time_diff_pct={100 * diff:.2f}')
  print(f'time_diff_limit_pct={100 * max_diff:.1f}')
  return 0 if names and not mismatched and diff <= max_diff else 1


def assemble(out, mode, device, seconds, names):
  checks = []
  for name in names:
    path = os.path.join(out, 'checks', name + '.json')
    if os.path.isfile(path):
      with open(path) as f:
        checks.append(json.load(f))
      continue
    why_path = os.path.join(out, 'checks', name + '.runner')
    why = open(why_path).read().strip() if os.path.isfile(why_path) else 'left no result'
    checks.append({'name': name, 'status': 'failed', 'note': why, 'figures': {}})
  for c in checks:
    sec_path = os.path.join(out, 'checks', c['name'] + '.seconds')
    if os.path.isfile(sec_path):
      took, limit = open(sec_path).read().split()
      c['seconds'], c['limit_seconds'] = int(took), int(limit)
  verdict = {
      'mode': mode,
      'device': device,
      'seconds': float(seconds),
      'passed': sum(c['status'] == 'passed' for c in checks),
      'failed': sum(c['status'] == 'failed' for c in checks),
      'skipped': sum(c['status'] == 'skipped' for c in checks),
      'checks': checks,
  }
  _write_json(os.path.join(out, 'verdict.json'), verdict)
  for c in checks:
    figs = ' '.join(f'{k}={v}' for k, v in c['figures'].items())
    print(f"{c['status']:8s} {c['name']:20s} {c['note']}" + (f' [{figs}]' if figs else ''))
  return 0


def main(argv):
  if len(argv) < 2:
    sys.stderr.write(__doc__)
    return 2
  cmd, args = argv[1], argv[2:]
  if cmd == 'put' and len(args) >= 4:
    put(args[0], args[1], args[2], args[3], args[4:])
    return 0
  if cmd == 'counts' and args:
    return counts(args[0], args[1:])
  if cmd == 'kernels' and len(args) == 3:
    return kernels(args[0], args[1], float(args[2]))
  if cmd == 'assemble' and len(args) >= 4:
    return assemble(args[0], args[1], args[2], args[3], args[4:])
  sys.stderr.write(__doc__)
  return 2


if __name__ == '__main__':
  sys.exit(main(sys.argv))
