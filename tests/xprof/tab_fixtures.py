"""What the tests of tbprof's TensorBoard tab share (test_tab_http.py,
test_tab_ui.py): the logdir of real runs with the views files that convert
and record write beside each xplane.pb, the plugin registered for TensorBoard as `pip
install` registers it, and the report page's number formats.
"""

import decimal
import os
import pathlib
import shutil
import subprocess

import pytest

import conftest
from conftest import REPO, SHARED, TBPROF, convert

KINETO = SHARED / 'kineto'
RESNET_W0 = KINETO / 'resnet50_v100_dataloader_workers0.pt.trace.json.gz'
RESNET_W4 = KINETO / 'resnet50_v100_dataloader_workers4.pt.trace.json.gz'
DLRM_DIR = KINETO / 'dlrm_8ranks'
QWEN = KINETO / 'h100_qwen_inference.json.gz'
# Run name -> what `tbprof convert` reads (the capture run is made apart).
RUNS = {'resnet_workers0': RESNET_W0, 'resnet_workers4': RESNET_W4,
        'dlrm_8ranks': DLRM_DIR, 'qwen': QWEN}
CAPTURE_RUN = 'fake_cupti_capture'
# Runs with an xplane.pb only, written by TensorFlow and by JAX: the plugin
# computes their views on first use and caches them.
XSPACE = SHARED / 'xspace'
XPLANE_ONLY_RUNS = {'tf_multiworker': XSPACE / 'tf_v100x8_multiworker.xplane.pb',
                    'jax_mi300': XSPACE / 'jax08_mi300x8_conv.xplane.pb'}
XPLANE_ONLY_RUN = 'tf_multiworker'
VIEWS_SUFFIX = '.tbprof_views.json.gz'


def check_views_written(run_dir):
  """Every host of run_dir has the views file that convert/record write."""
  for xplane in sorted(pathlib.Path(run_dir).glob('*.xplane.pb')):
    views = xplane.with_name(xplane.name[:-len('.xplane.pb')] + VIEWS_SUFFIX)
    assert views.is_file(), f'{views.name} was not written beside {xplane.name}'


def record_fake_capture(logdir, run):
  """`tbprof record` of the fake CUDA job under the fake libcupti (no GPU),
  as tests/record_command_test.sh does; None when they were not built."""
  if not (conftest.FAKE_JOB and conftest.COLLECTOR):
    return None
  env = dict(os.environ)
  if conftest.FAKE_CUPTI:
    env['TBPROF_CUPTI_LIBRARY'] = str(conftest.FAKE_CUPTI)
  subprocess.run([str(TBPROF), 'record', '--logdir', str(logdir), '--run', run, '--collector',
                  str(conftest.COLLECTOR), '--', str(conftest.FAKE_JOB), '6'],
                 check=True, capture_output=True, timeout=300, env=env)
  return pathlib.Path(logdir) / 'plugins' / 'profile' / run


def make_logdir(root, runs=RUNS, capture=True):
  """A logdir with `runs` converted (views files beside), the fake-CUPTI
  capture, and the TensorFlow and JAX runs (an xplane.pb, no views file).
  Returns the run dirs."""
  missing = [str(p) for p in list(runs.values()) + list(XPLANE_ONLY_RUNS.values())
             if not p.exists()]
  if missing:
    pytest.skip('shared test data missing: ' + ', '.join(missing))
  logdir = pathlib.Path(root)
  dirs = {}
  for run, source in runs.items():
    dirs[run] = convert(source, logdir, run)[0].parent
    check_views_written(dirs[run])
  if capture:
    capture_dir = record_fake_capture(logdir, CAPTURE_RUN)
    if capture_dir is not None:
      check_views_written(capture_dir)
      dirs[CAPTURE_RUN] = capture_dir
  for run, xplane in XPLANE_ONLY_RUNS.items():
    only = logdir / 'plugins' / 'profile' / run
    only.mkdir(parents=True)
    shutil.copyfile(xplane, only / xplane.name)
    dirs[run] = only
  return dirs


def plugin_pythonpath(tmp_dir):
  """PYTHONPATH under which TensorBoard finds the tab as after `pip install`:
  the source package (python/) and a dist-info with the same
  tensorboard_plugins entry point as pyproject.toml."""
  site = pathlib.Path(tmp_dir) / 'site'
  info = site / 'tbprof_tab_test-0.0.dist-info'
  info.mkdir(parents=True, exist_ok=True)
  (info / 'METADATA').write_text('Metadata-Version: 2.1\nName: tbprof-tab-test\nVersion: 0.0\n')
  entry = [l for l in (REPO / 'pyproject.toml').read_text().split('[project.entry-points.'
                                                                  'tensorboard_plugins]')[1]
           .splitlines() if l.strip() and not l.startswith('#')][0]
  name, target = (s.strip().strip('"') for s in entry.split('=', 1))
  (info / 'entry_points.txt').write_text(f'[tensorboard_plugins]\n{name} = {target}\n')
  return os.pathsep.join([str(site), str(REPO / 'python')])


# --- the report page's number formats (report.js ms, pct, bytes) ---------------

def _fixed(v, d):
  """JavaScript's Number.prototype.toFixed: the exact binary value, rounded
  half away from zero (Decimal(float) is exact)."""
  q = decimal.Decimal(v).quantize(decimal.Decimal(1).scaleb(-d), rounding=decimal.ROUND_HALF_UP)
  return f'{q:.{d}f}'


def js_ms(v):
  v = float(v or 0)
  return _fixed(v, 0 if v >= 1000 else 1 if v >= 100 else 2 if v >= 10 else 3)


def js_pct(v):
  return _fixed(float(v or 0), 1) + '%'


def js_bytes(b):
  units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB']
  v, i = abs(float(b)), 0
  while v >= 1024 and i < 5:
    v /= 1024
    i += 1
  text = str(int(v)) if i == 0 else _fixed(v, 0 if v >= 100 else 1 if v >= 10 else 2)
  return ('-' if b < 0 else '') + text + ' ' + units[i]


def expected_numbers(run_dir):
  """A few numbers of `tbprof report --json` per view, as the page shows them
  (the first host of the run)."""
  hosts = sorted(pathlib.Path(run_dir).glob('*.xplane.pb'))
  report = conftest.report_json(hosts[0], breakdown='with-host')
  out = {}
  ia = report['overview']['inputAnalysis']
  if ia.get('stepDetails'):
    out['avg_step'] = js_ms(ia['stepTimeSummary']['average'])
    out['input_pct'] = js_pct(ia['inputPercent'])
    # The first step-time category is device compute (16- + 32-bit).
    out['compute_pct'] = js_pct(ia['computePercent'])
  reports = report.get('kernel_stats', {}).get('reports', [])
  if reports:
    top = max(reports, key=lambda r: int(r.get('totalDurationNs', 0)))
    out['top_kernel_ms'] = js_ms(int(top['totalDurationNs']) / 1e6)
  allocs = report.get('memory_profile', {}).get('memoryProfilePerAllocator', {})
  if allocs:
    peak = max(int(a['profileSummary']['peakStats'].get('peakBytesInUse', 0))
               for a in allocs.values())
    out['peak_memory'] = js_bytes(peak)
  ops = report.get('operators', {}).get('ops', [])
  if ops:
    out['top_op'] = max(ops, key=lambda o: int(o.get('deviceSelfPs', 0)))['name']
  nodes = report.get('modules', {}).get('modules', [])
  if nodes:
    out['top_module'] = max(nodes, key=lambda m: int(m.get('deviceTotalPs', 0)))['path']
  gemm = report.get('gemm_efficiency', {})
  if gemm.get('rows'):
    out['gemm_rows'] = len(gemm['rows'])
  return out
