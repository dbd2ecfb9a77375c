"""The scripts and styles the tab serves: the HTML report's own assets plus
the tab's page module.

The report's assets (page_prelude.js, report.js, report_ops.js, diff.js, distributed.js,
lib_epilogue.js and the .css files) are the files of converters/report/assets
that the C++ embeds in the report pages. An installed package has them in
`tbprof/assets/` (CMake install(), the wheel of scripts/make_wheel.py); a
source tree (python/ on sys.path) reads them from converters/report/assets.
The tab's own files sit beside this module in static/.
"""

import os
import pathlib

_HERE = pathlib.Path(__file__).resolve().parent
_PACKAGE = _HERE.parent
_CANDIDATES = (_PACKAGE / 'assets', _PACKAGE.parent.parent / 'converters' / 'report' / 'assets')
_REQUIRED = ('page_prelude.js', 'lib_epilogue.js', 'report.js', 'report_ops.js', 'diff.js',
             'distributed.js', 'report.css', 'diff.css', 'distributed.css')

# Served name -> the files put together, in order (a page script between the
# prelude and lib_epilogue.js registers itself in window.tbprofLibs).
_BUNDLES = {
    'report_lib.js': ('page_prelude.js', 'report.js', 'report_ops.js', 'lib_epilogue.js'),
    'diff_lib.js': ('page_prelude.js', 'diff.js', 'lib_epilogue.js'),
    'distributed.js': ('distributed.js',),
    'report.css': ('report.css',),
    'diff.css': ('diff.css',),
    'distributed.css': ('distributed.css',),
}
_OWN = {'index.js': 'index.js', 'tab.css': 'tab.css'}
TYPES = {'.js': 'text/javascript', '.css': 'text/css'}


class AssetsMissing(RuntimeError):
  pass


def assets_dir():
  """The folder with the report's assets; AssetsMissing when neither has them."""
  for d in _CANDIDATES:
    if all((d / n).is_file() for n in _REQUIRED):
      return d
  raise AssetsMissing('the report assets (report.js, ...) are neither in '
                      f'{_CANDIDATES[0]} nor in {_CANDIDATES[1]}: reinstall tbprof')


class Assets:
  """Served files by name, read once (they do not change while serving)."""

  def __init__(self):
    self._cache = {}

  def names(self):
    return sorted(set(_BUNDLES) | set(_OWN))

  def get(self, name):
    """(bytes, content type) of a served name; KeyError for any other name."""
    if name in self._cache:
      return self._cache[name]
    if name in _OWN:
      body = (_HERE / 'static' / _OWN[name]).read_bytes()
    elif name in _BUNDLES:
      d = assets_dir()
      body = b''.join((d / part).read_bytes() for part in _BUNDLES[name])
    else:
      raise KeyError(name)
    item = (body, TYPES[os.path.splitext(name)[1]])
    self._cache[name] = item
    return item
