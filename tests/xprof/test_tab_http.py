"""tbprof's TensorBoard tab, its routes without a browser (issue 25, items 3
and "Bad input and safety").

The plugin is built as TensorBoard builds it (TbprofPlugin(TBContext)) on a
logdir of real runs, and its WSGI apps are asked directly: data per view
equals `tbprof report --json`, a run without views file is computed once
and cached in its run directory, and bad input gives a message and an HTTP
error status, never a traceback, while the other runs keep working.
"""

import gzip
import os
import json
import pathlib

import pytest

import tab_fixtures
from tab_fixtures import RESNET_W0, RESNET_W4, VIEWS_SUFFIX

tensorboard = pytest.importorskip('tensorboard')
from tensorboard.plugins import base_plugin  # pylint: disable=wrong-import-position
from werkzeug.test import Client  # pylint: disable=wrong-import-position
from werkzeug.wrappers import Response  # pylint: disable=wrong-import-position

W0, W4 = 'resnet_workers0', 'resnet_workers4'
VIEWS = ('overview', 'operators', 'kernels', 'memory', 'modules', 'gemm', 'distributed')


def _plugin(logdir):
  import sys  # pylint: disable=import-outside-toplevel
  python_dir = str(pathlib.Path(tab_fixtures.REPO) / 'python')
  if python_dir not in sys.path:
    sys.path.insert(0, python_dir)
  from tbprof.tensorboard_plugin import TbprofPlugin  # pylint: disable=import-outside-toplevel
  return TbprofPlugin(base_plugin.TBContext(logdir=str(logdir)))


class Routes:
  """The plugin's routes, asked in process; answers are (status, JSON)."""

  def __init__(self, logdir):
    self.apps = _plugin(logdir).get_plugin_apps()

  def get(self, route, **query):
    response = Client(self.apps[route], Response).get(route, query_string=query)
    body = response.get_data()
    if response.headers.get('Content-Encoding') == 'gzip':
      body = gzip.decompress(body)
    return response.status_code, json.loads(body) if body[:1] in (b'{', b'[') else body

  def ok(self, route, **query):
    status, body = self.get(route, **query)
    assert status == 200, (route, query, status, body)
    return body


@pytest.fixture(scope='module')
def env(tmp_path_factory):
  """A logdir with the ResNet pair (views files beside, as convert writes
  them) and an xplane-only run."""
  logdir = tmp_path_factory.mktemp('tab_logdir')
  dirs = tab_fixtures.make_logdir(logdir, runs={W0: RESNET_W0, W4: RESNET_W4}, capture=False)
  yield {'logdir': logdir, 'dirs': dirs, 'routes': Routes(logdir)}


def _host(env, run):
  return sorted(env['dirs'][run].glob('*.xplane.pb'))[0].name[:-len('.xplane.pb')]


def test_runs_lists_every_run_with_its_hosts(env):
  runs = {r['run']: r for r in env['routes'].ok('/runs')['runs']}
  assert set(runs) == {W0, W4} | set(tab_fixtures.XPLANE_ONLY_RUNS), runs
  assert runs[W0]['views'] == 'tbprof' and runs[W0]['hosts'] == [_host(env, W0)]
  assert runs[tab_fixtures.XPLANE_ONLY_RUN]['views'] == 'none'


@pytest.mark.parametrize('view', VIEWS)
def test_each_view_serves_only_its_slice(env, view):
  """A view's answer holds its own tables, and of the others at most the few
  numbers the overview's cards show."""
  data = env['routes'].ok('/data', run=W0, host=_host(env, W0), view=view)['data']
  own = {'operators': 'ops', 'modules': 'modules', 'gemm': 'gemm', 'kernels': 'kernels',
         'memory': 'allocators'}
  for other, key in own.items():
    if other == view or key not in data:
      continue
    assert view == 'overview' and key in ('ops', 'kernels', 'allocators'), f'{view} has {key}'
  if view == 'overview':
    assert len(data['ops']['rows']) <= 1
    assert all(set(k) == {'tc', 'totalMs'} for k in data['kernels'])
    assert all('timeline' not in a for a in data['allocators'])


def test_numbers_equal_report_json(env):
  want = tab_fixtures.expected_numbers(env['dirs'][W0])
  host = _host(env, W0)
  overview = env['routes'].ok('/data', run=W0, host=host, view='overview')['data']
  kernels = env['routes'].ok('/data', run=W0, host=host, view='kernels')['data']
  memory = env['routes'].ok('/data', run=W0, host=host, view='memory')['data']
  ops = env['routes'].ok('/data', run=W0, host=host, view='operators')['data']
  assert tab_fixtures.js_ms(overview['step']['avgMs']) == want['avg_step']
  assert tab_fixtures.js_pct(overview['input']['inputPct']) == want['input_pct']
  assert tab_fixtures.js_ms(kernels['kernels'][0]['totalMs']) == want['top_kernel_ms']
  assert tab_fixtures.js_bytes(max(a['peakBytes'] for a in memory['allocators'])) == \
      want['peak_memory']
  assert ops['ops']['rows'][0]['name'] == want['top_op']


def test_run_without_views_file_is_computed_once_and_cached(env):
  run = tab_fixtures.XPLANE_ONLY_RUN
  run_dir = env['dirs'][run]
  host = _host(env, run)
  first = env['routes'].ok('/data', run=run, host=host, view='overview')
  assert first['meta']['computedNow'] is True
  cached = run_dir / (host + VIEWS_SUFFIX)
  assert cached.is_file()
  assert sorted(p.name for p in run_dir.iterdir()) == sorted([host + '.xplane.pb', cached.name])
  second = env['routes'].ok('/data', run=run, host=host, view='kernels')
  assert second['meta']['computedNow'] is False


def test_diff_of_two_runs_has_a_ci_verdict(env):
  body = env['routes'].ok('/diff', base=W0, new=W4)
  gate = body['data']['gate']
  assert gate['failIfSlowerPct'] == 5 and isinstance(gate['tripped'], bool) and gate['message']
  assert body['data']['base']['source'].endswith(W0)


# --- bad input and safety ---------------------------------------------------------

@pytest.mark.parametrize('query', [
    {'run': '../' + W0, 'host': 'x', 'view': 'overview'},
    {'run': '/etc', 'host': 'x', 'view': 'overview'},
    {'run': W0, 'host': '../../../etc/passwd', 'view': 'overview'},
    {'run': W0, 'host': '/etc/passwd', 'view': 'overview'},
    {'run': W0 + '/..', 'host': 'x', 'view': 'overview'},
    {'run': 'a\x00b', 'host': 'x', 'view': 'overview'},
    {'run': W0, 'host': 'x\\..\\y', 'view': 'overview'},
])
def test_traversal_is_refused_with_400(env, query):
  status, body = env['routes'].get('/data', **query)
  assert status == 400, (query, status, body)
  assert 'bad' in body['error']


@pytest.mark.parametrize('query,status', [
    ({'run': 'no_such_run', 'host': 'x', 'view': 'overview'}, 404),
    ({'run': W0, 'host': 'no_such_host', 'view': 'overview'}, 404),
    ({'run': W0, 'host': 'x', 'view': 'no_such_view'}, 404),
    ({'host': 'x', 'view': 'overview'}, 400),
])
def test_unknown_names_are_404_and_missing_ones_400(env, query, status):
  got, body = env['routes'].get('/data', **query)
  assert got == status and body['error'], (got, body)


def _copy_run(env, name, tmp_path):
  """A copy of the W0 run under a new name in the env's logdir."""
  src = env['dirs'][W0]
  dst = src.parent / name
  dst.mkdir()
  for p in src.iterdir():
    (dst / p.name).write_bytes(p.read_bytes())
  return dst


@pytest.mark.parametrize('damage,needle', [
    (lambda b: b'not gzip at all', 'not a complete gzip file'),
    (lambda b: b[:len(b) // 2], 'not a complete gzip file'),
    (lambda b: gzip.compress(b'{"schema": "tbprof.views", "version": 1, "hosts": [}'),
     'not valid JSON'),
    (lambda b: gzip.compress(json.dumps(dict(json.loads(gzip.decompress(b)), version=99))
                             .encode()), 'schema version 99'),
    (lambda b: gzip.compress(b'{"schema": "something.else"}'), 'not a tbprof views file'),
])
def test_damaged_views_file_is_500_with_message_and_others_still_work(env, tmp_path, damage,
                                                                      needle):
  name = 'damaged_' + str(abs(hash(needle)) % 10000)
  run_dir = _copy_run(env, name, tmp_path)
  host = _host(env, W0)
  views = run_dir / (host + VIEWS_SUFFIX)
  views.write_bytes(damage(views.read_bytes()))
  routes = Routes(env['logdir'])
  status, body = routes.get('/data', run=name, host=host, view='overview')
  assert status == 500 and needle in body['error'], (status, body)
  assert 'Traceback' not in body['error']
  assert routes.get('/data', run=W0, host=host, view='overview')[0] == 200
  for p in run_dir.iterdir():
    p.unlink()
  run_dir.rmdir()


def test_symlinks_out_of_the_logdir_are_refused(env, tmp_path):
  outside = tmp_path / 'outside'
  outside.mkdir()
  host = _host(env, W0)
  for p in env['dirs'][W0].iterdir():
    (outside / p.name).write_bytes(p.read_bytes())
  profile = env['dirs'][W0].parent
  (profile / 'escape').symlink_to(outside, target_is_directory=True)
  linked = _copy_run(env, 'linked_views', tmp_path)
  (linked / (host + VIEWS_SUFFIX)).unlink()
  (linked / (host + VIEWS_SUFFIX)).symlink_to(outside / (host + VIEWS_SUFFIX))
  try:
    routes = Routes(env['logdir'])
    runs = [r['run'] for r in routes.ok('/runs')['runs']]
    assert 'escape' not in runs
    assert routes.get('/data', run='escape', host=host, view='overview')[0] == 404
    status, body = routes.get('/data', run='linked_views', host=host, view='overview')
    assert status == 400 and 'outside the logdir' in body['error'], (status, body)
  finally:
    (profile / 'escape').unlink()
    for p in linked.iterdir():
      p.unlink()
    linked.rmdir()


def test_missing_binary_is_503_with_message_and_others_still_work(env, tmp_path, monkeypatch):
  run_dir = _copy_run(env, 'needs_compute', tmp_path)
  host = _host(env, W0)
  (run_dir / (host + VIEWS_SUFFIX)).unlink()
  monkeypatch.setenv('TBPROF', str(tmp_path / 'no_such_tbprof'))
  routes = Routes(env['logdir'])
  status, body = routes.get('/data', run='needs_compute', host=host, view='overview')
  assert status == 503 and 'no tbprof executable' in body['error'], (status, body)
  assert routes.get('/data', run=W0, host=host, view='overview')[0] == 200
  assert sorted(p.name for p in run_dir.iterdir()) == sorted(
      p.name for p in env['dirs'][W0].iterdir() if not p.name.endswith(VIEWS_SUFFIX))


def test_failing_binary_is_502_and_leaves_no_file(env, tmp_path, monkeypatch):
  run_dir = _copy_run(env, 'compute_fails', tmp_path)
  host = _host(env, W0)
  (run_dir / (host + VIEWS_SUFFIX)).unlink()
  (run_dir / (host + '.xplane.pb')).write_bytes(b'not an xspace')
  before = sorted(p.name for p in run_dir.iterdir())
  status, body = Routes(env['logdir']).get('/data', run='compute_fails', host=host,
                                           view='overview')
  assert status == 502 and 'tbprof report --views-out failed' in body['error'], (status, body)
  assert sorted(p.name for p in run_dir.iterdir()) == before


def test_run_level_views_are_made_again_when_a_host_is_added(env, tmp_path):
  """Distributed of a multi-host run: computed once, cached in the run dir as
  tbprof_run.tbprof_views.json.gz, and computed again after a host arrives."""
  run_dir = _copy_run(env, 'two_hosts', tmp_path)
  src = env['dirs'][W4]
  for p in src.iterdir():
    (run_dir / p.name).write_bytes(p.read_bytes())
  routes = Routes(env['logdir'])
  first = routes.ok('/data', run='two_hosts', view='distributed')
  assert first['meta']['computedNow'] and len(first['data']['hosts']) == 2
  assert (run_dir / 'tbprof_run.tbprof_views.json.gz').is_file()
  assert routes.ok('/data', run='two_hosts', view='distributed')['meta']['computedNow'] is False
  xplane = sorted(src.glob('*.xplane.pb'))[0]
  (run_dir / ('extra.xplane.pb')).write_bytes(xplane.read_bytes())
  (run_dir / ('extra' + VIEWS_SUFFIX)).write_bytes(
      (src / (xplane.name[:-len('.xplane.pb')] + VIEWS_SUFFIX)).read_bytes())
  again = routes.ok('/data', run='two_hosts', view='distributed')
  assert again['meta']['computedNow'] and len(again['data']['hosts']) == 3
  for p in run_dir.iterdir():
    p.unlink()
  run_dir.rmdir()


def test_plugin_writes_nothing_outside_run_dirs(env):
  """After every test above, each file of the logdir is in a run directory."""
  logdir = pathlib.Path(env['logdir'])
  for path in logdir.rglob('*'):
    if path.is_file():
      assert path.parent.parent == logdir / 'plugins' / 'profile', f'{path}: not in a run dir'


def test_static_assets_are_served(env):
  for name in ('report_lib.js', 'diff_lib.js', 'distributed.js', 'report.css', 'tab.css'):
    response = Client(env['routes'].apps['/static/' + name], Response).get('/')
    assert response.status_code == 200 and response.get_data(), name
  body = Client(env['routes'].apps['/static/report_lib.js'], Response).get('/').get_data()
  if body[:2] == b'\x1f\x8b':
    body = gzip.decompress(body)
  assert b'window.tbprofLibs' in body and b'function renderView' in body


def test_wheel_registers_the_tab_and_ships_its_assets(tmp_path):
  """scripts/make_wheel.py's wheel, installed as pip installs it: TensorBoard
  finds the tab through its entry point, and the tab serves the report's
  assets from the package (tbprof/assets), not from a source tree."""
  import subprocess  # pylint: disable=import-outside-toplevel
  import sys  # pylint: disable=import-outside-toplevel
  repo = pathlib.Path(tab_fixtures.REPO)
  bundle = tmp_path / 'bundle'
  for sub in ('bin', 'lib', 'assets'):
    (bundle / sub).mkdir(parents=True)
  (bundle / 'bin' / 'tbprof').write_bytes(pathlib.Path(tab_fixtures.TBPROF).read_bytes())
  (bundle / 'bin' / 'tbprof').chmod(0o755)
  for asset in (repo / 'converters' / 'report' / 'assets').iterdir():
    if asset.suffix in ('.js', '.css'):
      (bundle / 'assets' / asset.name).write_bytes(asset.read_bytes())
  subprocess.run([sys.executable, str(repo / 'scripts' / 'make_wheel.py'), '--bundle', str(bundle),
                  '--python', str(repo / 'python' / 'tbprof'), '--version', '0.0.1',
                  '--plat', 'manylinux_2_35_x86_64', '--out', str(tmp_path)],
                 check=True, capture_output=True)
  wheel = next(tmp_path.glob('tbprof-*.whl'))
  site = tmp_path / 'site'
  subprocess.run([sys.executable, '-m', 'pip', 'install', '-q', '--no-deps', '--no-index',
                  '--target', str(site), str(wheel)], check=True, capture_output=True)
  probe = ('from tensorboard import default\n'
           'names = [p.__name__ for p in default.get_dynamic_plugins()]\n'
           'from tbprof.tensorboard_plugin import assets\n'
           'body, _ = assets.Assets().get("report_lib.js")\n'
           'print(names, assets.assets_dir(), b"tbprofLibs" in body)\n')
  clean = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
  out = subprocess.run([sys.executable, '-c', probe], cwd=tmp_path, check=True, text=True,
                       capture_output=True, env=dict(clean, PYTHONPATH=str(site))).stdout
  assert 'TbprofPlugin' in out and str(site / 'tbprof' / 'assets') in out and 'True' in out, out
