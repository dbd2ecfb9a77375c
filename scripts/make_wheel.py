#!/usr/bin/env python3
"""Makes the tbprof wheel from a relocatable bundle (scripts/bundle.sh).

The wheel holds the Python package (python/tbprof, with its subpackages and
their static files, e.g. the TensorBoard tab) with the bundle's bin/, lib/ and
assets/ (the report's scripts and styles, which the tab serves) inside it, at
tbprof/bin, tbprof/lib and tbprof/assets: the layout `pip install .`
makes, so tbprof._paths and `tbprof record` (<bin>/../lib) find them the
same way, and the bundle's relative RPATHs ($ORIGIN/../lib, $ORIGIN) hold.

The tag is py3-none-<platform>: no Python extension (one wheel for every
Python 3), and --plat, the manylinux tag that `auditwheel show` finds the
bundle's files consistent with (bundle.sh: the glibc and libstdc++ symbol
versions they need). Wheels cannot hold
symbolic links; bundle.sh copies each library under its soname, so none are
needed. Standard library only (zipfile, hashlib), so it runs anywhere.

  make_wheel.py --bundle DIR --python DIR --version X.Y.Z --plat manylinux_2_NN_x86_64 --out DIR
Prints the wheel's path. Exit status 1 with one line on a missing input.
"""

import argparse
import base64
import hashlib
import pathlib
import re
import stat
import sys
import zipfile

_SUMMARY = ('TensorBoard profile-plugin data from PyTorch/Kineto, Chrome trace, '
            'XSpace and CUPTI profiles')


def _record_hash(data):
  digest = hashlib.sha256(data).digest()
  return 'sha256=' + base64.urlsafe_b64encode(digest).rstrip(b'=').decode()


def _metadata(version, readme):
  return (f'Metadata-Version: 2.1\nName: tbprof\nVersion: {version}\n'
          f'Summary: {_SUMMARY}\nRequires-Python: >=3.9\n'
          'Classifier: Programming Language :: C++\n'
          'Classifier: Programming Language :: Python :: 3\n'
          'Classifier: Operating System :: POSIX :: Linux\n'
          'Description-Content-Type: text/markdown\n\n' + readme)


def build_wheel(bundle, python_dir, version, plat, out):
  if not re.fullmatch(r'manylinux_2_[0-9]+_x86_64', plat):
    raise ValueError(f'--plat {plat}: not a manylinux_2_NN_x86_64 tag')
  tag = f'py3-none-{plat}'
  wheel_path = out / f'tbprof-{version}-{tag}.whl'
  dist_info = f'tbprof-{version}.dist-info'
  entries = []  # (archive name, bytes, executable)
  for path in sorted(python_dir.rglob('*')):
    if path.is_file() and '__pycache__' not in path.parts and path.suffix != '.pyc':
      entries.append((f'tbprof/{path.relative_to(python_dir).as_posix()}', path.read_bytes(),
                      False))
  for sub in ('bin', 'lib', 'assets'):
    if sub == 'assets' and not (bundle / sub).is_dir():
      raise ValueError(f'{bundle / sub}: missing (the TensorBoard tab needs the report assets)')
    for path in sorted((bundle / sub).iterdir()):
      if path.is_symlink() or not path.is_file():
        raise ValueError(f'{path}: not a regular file (a wheel cannot hold it)')
      executable = bool(path.stat().st_mode & stat.S_IXUSR)
      entries.append((f'tbprof/{sub}/{path.name}', path.read_bytes(), executable))
  for path in sorted((bundle / 'share').rglob('*')):
    if path.is_file():
      rel = path.relative_to(bundle).as_posix()
      entries.append((f'tbprof/{rel}', path.read_bytes(), False))
  readme_path = bundle / 'share' / 'doc' / 'tbprof' / 'python.md'
  readme = readme_path.read_text() if readme_path.is_file() else ''
  entries.append((f'{dist_info}/METADATA', _metadata(version, readme).encode(), False))
  entries.append((f'{dist_info}/WHEEL',
                  (f'Wheel-Version: 1.0\nGenerator: tbprof make_wheel.py\n'
                   f'Root-Is-Purelib: false\nTag: {tag}\n').encode(), False))
  entries.append((f'{dist_info}/entry_points.txt',
                  b'[console_scripts]\ntbprof = tbprof._cli:main\n\n'
                  b'[tensorboard_plugins]\ntbprof = tbprof.tensorboard_plugin:TbprofPlugin\n',
                  False))
  record = ''.join(f'{name},{_record_hash(data)},{len(data)}\n' for name, data, _ in entries)
  record += f'{dist_info}/RECORD,,\n'
  entries.append((f'{dist_info}/RECORD', record.encode(), False))

  tmp = wheel_path.with_suffix('.whl.tmp')
  with zipfile.ZipFile(tmp, 'w', compression=zipfile.ZIP_DEFLATED) as zf:
    for name, data, executable in entries:
      info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
      info.external_attr = ((0o755 if executable else 0o644) | stat.S_IFREG) << 16
      info.compress_type = zipfile.ZIP_DEFLATED
      zf.writestr(info, data)
  tmp.replace(wheel_path)
  return wheel_path


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--bundle', required=True, type=pathlib.Path)
  parser.add_argument('--python', required=True, type=pathlib.Path)
  parser.add_argument('--version', required=True)
  parser.add_argument('--plat', required=True)
  parser.add_argument('--out', required=True, type=pathlib.Path)
  args = parser.parse_args()
  for need in (args.bundle / 'bin' / 'tbprof', args.python / '__init__.py'):
    if not need.is_file():
      sys.stderr.write(f'make_wheel: {need}: missing\n')
      return 1
  try:
    print(build_wheel(args.bundle, args.python, args.version, args.plat, args.out))
  except (OSError, ValueError) as e:
    sys.stderr.write(f'make_wheel: {e}\n')
    return 1
  return 0


if __name__ == '__main__':
  sys.exit(main())
