"""The `tbprof` console command: runs the C++ executable installed in the package."""

import os
import sys

from tbprof._paths import packaged_binary


def main():
  binary = packaged_binary()
  if not os.access(binary, os.X_OK):
    sys.stderr.write(f'tbprof: error: {binary}: the tbprof executable is missing from '
                     'the installed package; reinstall it (pip install tbprof-*.whl, or pip install .)\n')
    return 1
  argv = [str(binary), *sys.argv[1:]]
  os.execv(argv[0], argv)
  return 1  # Not reached.


if __name__ == '__main__':
  sys.exit(main())
