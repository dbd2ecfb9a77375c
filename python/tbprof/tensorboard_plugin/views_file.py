"""The views file (`<host>.tbprof_views.json.gz`) and the slice of it each view needs.

tbprof's C++ writes the file (docs/views_file.md): gzip JSON
`{"schema": "tbprof.views", "version": 1, "generator", "source", "hosts":
[HOST...], "distributedHtml", "appendices", "xprofNote"}`, where a HOST is
the object the HTML report embeds for a host. This module only reads it,
checks it and cuts out the keys one view's panels read (report.js VIEWS), so
a page asking for one view never receives the others. It parses no trace.
"""

import gzip
import json
import os
import threading
import zlib

SCHEMA = 'tbprof.views'
VERSION = 1
# A views file larger than this once inflated is refused (it would be a
# bug or not ours: the views of the 10 GB benchmark trace are a few MB).
MAX_INFLATED_BYTES = 512 << 20

VIEWS = ('overview', 'operators', 'kernels', 'memory', 'modules', 'gemm', 'distributed')


class ViewsFileError(RuntimeError):
  """A views file that cannot be used; the message names it and says why."""


def load(path):
  """Reads, inflates, parses and checks a views file; raises ViewsFileError."""
  name = os.path.basename(path)
  try:
    with gzip.open(path, 'rb') as f:
      raw = f.read(MAX_INFLATED_BYTES + 1)
  except FileNotFoundError:
    raise ViewsFileError(f'{name}: no such views file') from None
  except (OSError, EOFError, zlib.error) as error:
    raise ViewsFileError(f'{name}: not a complete gzip file ({error}); it may be '
                         'half-written or damaged: remove it and it is computed again') from None
  if len(raw) > MAX_INFLATED_BYTES:
    raise ViewsFileError(f'{name}: inflates past {MAX_INFLATED_BYTES >> 20} MiB; refused')
  try:
    data = json.loads(raw)
  except (ValueError, UnicodeDecodeError) as error:
    raise ViewsFileError(f'{name}: not valid JSON ({error}); remove it and it is '
                         'computed again') from None
  if not isinstance(data, dict) or data.get('schema') != SCHEMA:
    raise ViewsFileError(f'{name}: not a tbprof views file (schema '
                         f'{data.get("schema") if isinstance(data, dict) else None!r}, '
                         f'expected {SCHEMA!r})')
  version = data.get('version')
  if version != VERSION:
    raise ViewsFileError(f'{name}: views schema version {version!r}; this plugin reads version '
                         f'{VERSION} (written by {data.get("generator", "?")}): install the '
                         'same tbprof version for TensorBoard as wrote the logdir, or '
                         'remove the file to compute it again')
  hosts = data.get('hosts')
  if not isinstance(hosts, list) or not all(isinstance(h, dict) for h in hosts):
    raise ViewsFileError(f'{name}: "hosts" is not a list of objects')
  return data


class Cache:
  """Parsed views files by (path, mtime, size); the newest few kept."""

  def __init__(self, size=6):
    self._size = size
    self._items = {}
    self._lock = threading.Lock()

  def get(self, path):
    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size)
    with self._lock:
      hit = self._items.pop(key, None)
      if hit is not None:
        self._items[key] = hit
        return hit
    data = load(path)
    with self._lock:
      self._items[key] = data
      while len(self._items) > self._size:
        self._items.pop(next(iter(self._items)))
    return data


def find_host(data, host):
  """The HOST object of `host` in a views file (the only one if there is one)."""
  hosts = data['hosts']
  for h in hosts:
    if h.get('host') == host:
      return h
  if len(hosts) == 1:
    return hosts[0]
  raise ViewsFileError(f'the views file has no host {host!r}')


def _meta(data):
  return {k: data.get(k, '') for k in ('source', 'generator', 'xprofNote')}


def _overview(x):
  """What the overview's panels read: all but the per-view tables, with the
  few numbers the summary cards take from them."""
  out = {k: v for k, v in x.items() if k not in ('kernels', 'ops', 'modules', 'gemm', 'allocators')}
  out['kernels'] = [{'tc': k.get('tc', False), 'totalMs': k.get('totalMs', 0)}
                    for k in x.get('kernels', [])]
  ops = x.get('ops', {}) or {}
  out['ops'] = {'deviceMs': ops.get('deviceMs', 0),
                'rows': [{'name': r.get('name', ''), 'devSelfMs': r.get('devSelfMs', 0)}
                         for r in (ops.get('rows') or [])[:1]]}
  out['allocators'] = [{k: a.get(k) for k in ('id', 'peakBytes', 'capacity')}
                       for a in (x.get('allocators') or [])[:1]]
  return out


_HOST_KEYS = {
    'operators': ('ops',),
    'kernels': ('kernels', 'kernelTotalMs', 'kernelLaunches', 'kernelReports'),
    'memory': ('allocators',),
    'modules': ('modules',),
    'gemm': ('gemm',),
}


def host_view(data, host, view):
  """{"meta", "data"} of one view of one host of a views file."""
  x = find_host(data, host)
  if view == 'overview':
    body = _overview(x)
  elif view in _HOST_KEYS:
    body = {k: x[k] for k in _HOST_KEYS[view] if k in x}
    missing = [k for k in _HOST_KEYS[view] if k not in x]
    if missing:
      raise ViewsFileError(f'the views file lacks {", ".join(missing)} for host {host!r}')
    if view == 'memory':  # e.g. a memory snapshot's stacks, for this host
      body['appendices'] = [a for a in data.get('appendices') or []
                            if a.get('host', host) in (host, x.get('host'))]
  else:
    raise ValueError(view)
  body['host'] = x.get('host', host)
  body['deviceType'] = x.get('deviceType', '')
  body['deviceCount'] = x.get('deviceCount', 0)
  return {'meta': _meta(data), 'data': body}


def run_view(data):
  """The distributed view of a run-level views file: every host's step
  summary (the page's host comparison) and the C++-rendered section."""
  hosts = []
  for x in data['hosts']:
    hosts.append({
        'host': x.get('host', ''), 'step': x.get('step', {}),
        'categories': x.get('categories', []), 'bottleneck': x.get('bottleneck', ''),
        'steps': [{'n': s.get('n'), 'ms': s.get('ms')} for s in x.get('steps', [])],
        'kernelTotalMs': x.get('kernelTotalMs', 0),
        'allocators': [{'peakBytes': a.get('peakBytes', 0)}
                       for a in (x.get('allocators') or [])[:1]],
    })
  return {'meta': _meta(data), 'data': {'hosts': hosts,
                                        'distributedHtml': data.get('distributedHtml', '')}}
