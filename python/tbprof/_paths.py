"""Where the installed C++ parts of tbprof are.

The wheel puts them inside the package (CMake install prefix = the package
directory): bin/tbprof and lib/libtbprof_cupti.so. The `tbprof record`
command finds the collector the same way, at <bin>/../lib.
"""

import os
import pathlib

_PACKAGE_DIR = pathlib.Path(__file__).resolve().parent


class TbprofError(RuntimeError):
  """tbprof could not do what was asked (the message says what and where)."""


def packaged_binary():
  """The tbprof executable installed with this package (may not exist)."""
  return _PACKAGE_DIR / 'bin' / 'tbprof'


def binary_path():
  """The tbprof executable: $TBPROF when set, else the one in this package.

  Raises TbprofError when there is none (a source tree without a build).
  """
  override = os.environ.get('TBPROF')
  path = pathlib.Path(override) if override else packaged_binary()
  if not (path.is_file() and os.access(path, os.X_OK)):
    where = '$TBPROF' if override else 'this package'
    raise TbprofError(f'no tbprof executable at {path} ({where}); install the package '
                      '(pip install tbprof-*.whl from scripts/bundle.sh, or pip install .) '
                      'or set TBPROF')
  return str(path)


def collector_path():
  """libtbprof_cupti.so, the CUPTI collector: $TBPROF_COLLECTOR when set, else
  the one in this package.

  Use it as CUDA_INJECTION64_PATH for a CUDA job (docs/collector.md). Raises
  TbprofError when there is none: the package was built without the CUDA 13
  CUPTI headers.
  """
  override = os.environ.get('TBPROF_COLLECTOR')
  path = pathlib.Path(override) if override else _PACKAGE_DIR / 'lib' / 'libtbprof_cupti.so'
  if not path.is_file():
    if override:
      raise TbprofError(f'no collector library at {path} ($TBPROF_COLLECTOR)')
    raise TbprofError(f'no collector library at {path}: this tbprof was built without '
                      'the CUDA 13 CUPTI headers (set CUDA_HOME and reinstall)')
  return str(path)
