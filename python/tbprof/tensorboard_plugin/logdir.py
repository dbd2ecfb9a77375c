"""Runs and hosts of a TensorBoard log directory, and safe paths into it.

Contract: every path this module returns lies under the real path of the
logdir (symlinks resolved), names a run directory that holds at least one
`<host>.xplane.pb`, or a file in such a directory. A run or host name is
accepted only when it is one that listing the logdir produced: it is looked
up, never joined onto a path as given. So `..`, absolute paths, empty
components and symlinks that lead out of the logdir are refused
(BadName / NotFound), whatever the name spells.

Run names are those of the profile plugin: `<run>` for
`<logdir>/plugins/profile/<run>/`, and `<sub>/<run>` for
`<logdir>/<sub>/plugins/profile/<run>/` (sub may have several components).
"""

import os
import re

PROFILE_DIR = os.path.join('plugins', 'profile')
XPLANE_SUFFIX = '.xplane.pb'
VIEWS_SUFFIX = '.tbprof_views.json.gz'
# The run-level views (all hosts, the distributed section) of a multi-host run.
RUN_VIEWS_NAME = 'tbprof_run' + VIEWS_SUFFIX
# How deep below the logdir `plugins/profile` is looked for (as TensorBoard's
# own run discovery, bounded so a huge tree does not stall the listing).
MAX_DEPTH = 6
# What a run or host name may hold: printable, no control characters, no
# backslash; path separators only between run components.
_NAME_RE = re.compile(r'^[^\x00-\x1f\x7f\\]{1,255}$')


class BadName(ValueError):
  """A run or host name that cannot name anything under the logdir (HTTP 400)."""


class NotFound(LookupError):
  """A well-formed run or host name that the logdir does not have (HTTP 404)."""


def check_name(kind, name, allow_slash=False):
  """Returns name if it is a plausible run/host name, else raises BadName."""
  if not name or not _NAME_RE.match(name):
    raise BadName(f'bad {kind} name {name!r}: empty or with control characters')
  parts = name.split('/')
  if not allow_slash and len(parts) > 1:
    raise BadName(f'bad {kind} name {name!r}: no "/" allowed')
  if name.startswith('/') or any(p in ('', '.', '..') for p in parts):
    raise BadName(f'bad {kind} name {name!r}: absolute, empty or ".." components')
  return name


def _inside(root, path):
  real = os.path.realpath(path)
  return real == root or real.startswith(root + os.sep)


class Logdir:
  """The log directory that TensorBoard serves (read-only except run dirs)."""

  def __init__(self, path):
    self.root = os.path.realpath(path) if path else ''

  def runs(self):
    """{run name: real run dir} of every run with a `<host>.xplane.pb`.

    Directories (and symlinks) that resolve outside the logdir are left out.
    """
    found = {}
    if not self.root or not os.path.isdir(self.root):
      return found
    for dirpath, dirnames, _ in os.walk(self.root, followlinks=False):
      rel = os.path.relpath(dirpath, self.root)
      depth = 0 if rel == '.' else rel.count(os.sep) + 1
      if depth >= MAX_DEPTH:
        dirnames[:] = []
      dirnames[:] = [d for d in dirnames if not d.startswith('.')]
      if 'plugins' not in dirnames:
        continue
      profile = os.path.join(dirpath, PROFILE_DIR)
      if not os.path.isdir(profile) or not _inside(self.root, profile):
        continue
      prefix = '' if rel == '.' else rel.replace(os.sep, '/') + '/'
      try:
        names = sorted(os.listdir(profile))
      except OSError:
        continue
      for name in names:
        run_dir = os.path.join(profile, name)
        if name.startswith('.') or not os.path.isdir(run_dir) or not _inside(self.root, run_dir):
          continue
        if self._hosts_in(run_dir):
          found[prefix + name] = os.path.realpath(run_dir)
    return found

  @staticmethod
  def _hosts_in(run_dir):
    try:
      names = os.listdir(run_dir)
    except OSError:
      return []
    return sorted(n[:-len(XPLANE_SUFFIX)] for n in names
                  if n.endswith(XPLANE_SUFFIX) and len(n) > len(XPLANE_SUFFIX)
                  and not n.startswith('.'))

  def run_dir(self, run):
    """The real directory of a listed run; BadName or NotFound otherwise."""
    check_name('run', run, allow_slash=True)
    path = self.runs().get(run)
    if path is None:
      raise NotFound(f'no run {run!r} under the logdir')
    return path

  def hosts(self, run):
    """The host names of a listed run (from its `<host>.xplane.pb` files)."""
    run_dir = self.run_dir(run)
    return [h for h in self._hosts_in(run_dir)
            if _inside(self.root, os.path.join(run_dir, h + XPLANE_SUFFIX))]

  def host_file(self, run, host, suffix):
    """`<run dir>/<host><suffix>` for a listed run and host (may not exist)."""
    check_name('host', host)
    if host not in self.hosts(run):
      raise NotFound(f'run {run!r} has no host {host!r}')
    return os.path.join(self.run_dir(run), host + suffix)

  def safe_existing(self, path):
    """path if it exists and resolves inside the logdir, else None."""
    if os.path.lexists(path) and _inside(self.root, path):
      return path if os.path.exists(path) else None
    if os.path.lexists(path):
      raise BadName(f'{os.path.basename(path)} leads outside the logdir')
    return None
