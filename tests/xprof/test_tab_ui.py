"""tbprof's TensorBoard tab in the real TensorBoard, in headless Chromium
(issue 25, items 1, 2, 4 and 5).

TensorBoard 2.21 runs on loopback with xprof (PROFILE) and the tab (TBPROF,
registered through the same tensorboard_plugins entry point that `pip
install` registers) on a logdir of real runs: the ResNet-50 workers0/workers4
pair, the 8-rank DLRM run, the Qwen inference trace, a fake-CUPTI capture
(`tbprof record` of the fake CUDA job) and an xplane-only run as TensorFlow
or JAX write it. Chromium opens the tab as a person would and goes through
every view of every run; the numbers shown equal `tbprof report --json`; the
page asks nothing outside TensorBoard's origin (Chromium's network log); each
view of the warm DLRM run appears within VIEW_BUDGET_MS.

Every wait is on what the page shows (ui_helpers._wait_for: as long as the
servers and the browser are busy). Screenshots: pytest's temp dir, and
TBPROF_UI_SCREENSHOTS=<dir> copies them (docs/screenshots/ is refreshed so).
Without selenium, chromedriver or chromium: skipped, a failure under CI=true.
"""

import json
import os
import time
import urllib.parse

import pytest

import tab_fixtures
from tab_fixtures import CAPTURE_RUN, XPLANE_ONLY_RUN
# pylint: disable-next=unused-import (shots: a fixture)
from ui_helpers import (Server, _console_script, _elements, _free_port, _http_get, _text,
                        _wait_for, make_browser, shots)

TAB_PREFIX = '/data/plugin/tbprof'
VIEWS = ('overview', 'operators', 'kernels', 'memory', 'modules', 'distributed', 'gemm', 'diff')
DLRM = 'dlrm_8ranks'
BROWSED_RUNS = ('resnet_workers0', 'resnet_workers4', DLRM, 'qwen', CAPTURE_RUN) + tuple(
    tab_fixtures.XPLANE_ONLY_RUNS)
# A view of the warm 8-rank run must be drawn within this (issue 25: 1 s).
VIEW_BUDGET_MS = 1000
# Views with a screenshot in docs/screenshots (run, view, file name).
SCREENSHOTS = (
    ('resnet_workers0', 'overview', 'tab_overview.png'),
    ('resnet_workers0', 'operators', 'tab_operators.png'),
    ('resnet_workers0', 'kernels', 'tab_kernels.png'),
    ('resnet_workers0', 'memory', 'tab_memory.png'),
    ('qwen', 'modules', 'tab_modules.png'),
    (DLRM, 'distributed', 'tab_distributed.png'),
    ('resnet_workers0', 'gemm', 'tab_gemm.png'),
    ('resnet_workers0', 'diff', 'tab_diff.png'),
    ('tf_multiworker', 'overview', 'tab_tensorflow_overview.png'),
)


@pytest.fixture(scope='module')
def tab(tmp_path_factory):
  """TensorBoard with xprof and the tab on a fresh logdir; its run dirs."""
  tools = tmp_path_factory.mktemp('tab_ui_tools')
  logdir = tmp_path_factory.mktemp('tab_ui_logdir')
  dirs = tab_fixtures.make_logdir(logdir)
  port = _free_port()
  env = dict(os.environ, TBPROF=str(tab_fixtures.TBPROF),
             PYTHONPATH=tab_fixtures.plugin_pythonpath(tools))
  server = Server('tensorboard', [_console_script('tensorboard'), '--logdir', logdir,
                                  '--host', '127.0.0.1', '--port', port],
                  port, tools / 'tensorboard.log', plugin_prefix=TAB_PREFIX, env=env)
  try:
    server.start()
    server.wait_ready()
    yield {'server': server, 'dirs': dirs, 'logdir': logdir}
  finally:
    server.stop()


@pytest.fixture(scope='module')
def browser():
  """Headless Chromium that keeps its network log (driver.get_log('performance'))."""
  yield from make_browser(performance_log=True)


def _enter_tab(driver, server):
  driver.switch_to.default_content()
  driver.get('about:blank')
  driver.get(server.url + '/#tbprof')
  frame = _wait_for(driver, lambda: [f for f in _elements(driver, 'iframe')
                                     if 'plugin_entry' in (f.get_attribute('src') or '')],
                    "the TBPROF tab's iframe")
  driver.switch_to.frame(frame[0])
  _wait_for(driver, lambda: _view_state(driver)[0] in ('ready', 'error'), 'the first view')


def _view_state(driver):
  return driver.execute_script(
      'const v = document.getElementById("view"); if (!v) return ["", "", "", "", ""];'
      'return [v.getAttribute("data-state"), v.getAttribute("data-run"),'
      ' v.getAttribute("data-host"), v.getAttribute("data-view"), v.getAttribute("data-ms")];')


def _show(driver, run, view, host=None):
  """Picks run (and host) in the tab's bar and clicks the view's button, as a
  person does; waits until the view is drawn. Returns (state, ms)."""
  driver.execute_script(
      'const pick = (id, v) => { const s = document.getElementById(id);'
      '  if (v !== null && s.value !== v) { s.value = v; s.dispatchEvent(new Event("change")); } };'
      'pick("run", arguments[0]); pick("host", arguments[1]);'
      'document.querySelector(`nav.views button[data-view="${arguments[2]}"]`).click();',
      run, host, view)

  def drawn():
    state, r, _, v, ms = _view_state(driver)
    return (state, float(ms or 0)) if state in ('ready', 'error') and (r, v) == (run, view) \
        else None
  return _wait_for(driver, drawn, f'view {view} of run {run}')


def _status(driver):
  return driver.execute_script(
      'return document.getElementById("render-status").getAttribute("data-status")')


def _first_cell(driver, header):
  """Full text of the first row's cell under `header` in the view's tables."""
  return driver.execute_script('''
    for (const t of document.querySelectorAll('#view table')) {
      const ths = Array.from(t.tHead ? t.tHead.rows[0].cells : []);
      const i = ths.findIndex((th) => th.textContent.trim() === arguments[0]);
      if (i >= 0 && t.tBodies[0].rows.length) {
        const c = t.tBodies[0].rows[0].cells[i];
        return c.getAttribute('title') || c.textContent.trim();
      }
    }
    return null;''', header)


def _check_numbers(driver, view, want, where):
  text = _text(driver, '#view')
  if view == 'overview' and 'top_kernel_ms' in want:
    assert 'GPU summary' in text, f'{where}: no GPU summary'
  if view == 'overview' and 'avg_step' in want:
    assert want['avg_step'] + ' ms' in text, f'{where}: avg step {want["avg_step"]} not shown'
    assert want['input_pct'] in text, f'{where}: input {want["input_pct"]} not shown'
  if view == 'overview' and 'compute_pct' in want:
    assert _first_cell(driver, '% of step') == want['compute_pct'], where
  if view == 'modules' and 'top_module' in want:
    assert _first_cell(driver, 'Module path') == want['top_module'], where
  if view == 'gemm' and 'gemm_rows' in want:
    rows = driver.execute_script('return document.querySelectorAll("#view table.gemm tbody tr")'
                                 '.length')
    assert rows == want['gemm_rows'], (where, rows, want['gemm_rows'])
  if view == 'kernels' and 'top_kernel_ms' in want:
    assert _first_cell(driver, 'Total ms') == want['top_kernel_ms'], where
  if view == 'memory' and 'peak_memory' in want:
    assert 'peak ' + want['peak_memory'] in text, f'{where}: peak {want["peak_memory"]}'
  if view == 'operators' and 'top_op' in want:
    assert _first_cell(driver, 'Op') == want['top_op'], where


def test_tab_is_listed_beside_profile(tab):
  status, body, _ = _http_get(tab['server'].url + '/data/plugins_listing')
  assert status == 200, body[:300]
  plugins = json.loads(body)
  assert plugins['tbprof']['tab_name'] == 'TBPROF' and plugins['tbprof']['enabled'], plugins
  assert 'profile' in plugins, list(plugins)


def test_every_view_of_every_run(tab, browser, shots):
  """Each view of each run draws without error and shows report --json's numbers."""
  server = tab['server']
  _enter_tab(browser, server)
  for run in BROWSED_RUNS:
    if run not in tab['dirs']:
      assert run == CAPTURE_RUN
      if os.environ.get('CI', '').lower() == 'true':
        pytest.fail('no fake-CUPTI capture: the fake job or collector was not built')
      continue
    want = tab_fixtures.expected_numbers(tab['dirs'][run])
    for view in VIEWS:
      state, _ = _show(browser, run, view)
      where = f'{run} {view}'
      errors = _text(browser, '#view .error-box')
      if view == 'diff' and 'cannot be compared' in errors:
        continue  # e.g. the capture and the JAX run: no kernel or step in common
      assert state == 'ready' and not errors, f'{where}: {state} {errors}'
      assert _status(browser).startswith('ok'), f'{where}: {_status(browser)}'
      _check_numbers(browser, view, want, where)
      if (run, view) in {(r, v) for r, v, _ in SCREENSHOTS}:
        name = next(n for r, v, n in SCREENSHOTS if (r, v) == (run, view))
        shots(browser, name)
        browser.switch_to.frame(_elements(browser, 'iframe')[0])


def test_dlrm_distributed_view_names_every_rank(tab, browser):
  _enter_tab(browser, tab['server'])
  _show(browser, DLRM, 'distributed')
  text = _text(browser, '#view')
  hosts = sorted(p.name[:-len('.xplane.pb')] for p in tab['dirs'][DLRM].glob('*.xplane.pb'))
  assert len(hosts) == 8
  assert all(h in text for h in hosts), text[:1500]
  assert 'Step time across hosts' in text and 'busbw' in text.lower(), text[:1500]


def test_diff_shows_the_ci_verdict(tab, browser):
  _enter_tab(browser, tab['server'])
  _show(browser, 'resnet_workers0', 'diff')
  browser.execute_script('const s = document.getElementById("diff-new");'
                         's.value = "resnet_workers4"; s.dispatchEvent(new Event("change"));')
  _wait_for(browser, lambda: 'CI verdict' in _text(browser, '#view .ci-verdict')
            and _view_state(browser)[0] == 'ready', 'the diff of workers0 and workers4')
  verdict = _text(browser, '#view .ci-verdict')
  assert 'CI verdict: PASS' in verdict or 'CI verdict: FAIL' in verdict, verdict


def test_xplane_only_run_is_computed_and_cached(tab, browser):
  """A run with no views file (TF/JAX, older tbprof): computed now, said so."""
  _enter_tab(browser, tab['server'])
  state, _ = _show(browser, XPLANE_ONLY_RUN, 'overview')
  assert state == 'ready'
  note = _text(browser, '#note')
  assert 'TensorFlow, JAX or an older tbprof' in note, note
  run_dir = tab['dirs'][XPLANE_ONLY_RUN]
  assert list(run_dir.glob('*' + tab_fixtures.VIEWS_SUFFIX)), list(run_dir.iterdir())


def test_trace_viewer_link_opens_xprof_for_the_same_run_and_host(tab, browser):
  _enter_tab(browser, tab['server'])
  _show(browser, 'resnet_workers0', 'overview')
  href = browser.execute_script('return document.getElementById("trace-link").href')
  url = urllib.parse.urlparse(href)
  query = urllib.parse.parse_qs(url.query)
  assert f'{url.scheme}://{url.netloc}' == tab['server'].url and url.fragment == 'profile', href
  host = sorted(tab['dirs']['resnet_workers0'].glob('*.xplane.pb'))[0].name[:-len('.xplane.pb')]
  assert query['run'] == ['resnet_workers0'] and query['host'] == [host], query
  assert query['tool'] == ['trace_viewer'], query
  # Followed as a person clicks it: TensorBoard opens PROFILE, and xprof its
  # trace viewer (a second iframe) for that run.
  browser.switch_to.default_content()
  browser.get(href)
  outer = _wait_for(browser, lambda: [f for f in _elements(browser, 'iframe')
                                      if 'name=profile' in (f.get_attribute('src') or '')],
                    "the profile plugin's iframe")
  browser.switch_to.frame(outer[0])
  _wait_for(browser, lambda: [f for f in _elements(browser, 'iframe')
                              if 'trace_viewer_index' in (f.get_attribute('src') or '')
                              and 'resnet_workers0' in (f.get_attribute('src') or '')],
            "xprof's trace viewer of the run")


def test_warm_dlrm_views_appear_within_budget(tab, browser):
  """Each view of the 8-rank run, asked a second time (TensorBoard warm):
  from the click to drawn, measured by the page (#view data-ms)."""
  _enter_tab(browser, tab['server'])
  for view in VIEWS:  # warm: computed and cached once
    _show(browser, DLRM, view)
  timings = {}
  for view in VIEWS:
    state, ms = _show(browser, DLRM, view)
    assert state == 'ready', view
    timings[view] = ms
  print('warm DLRM view timings (ms): ' + json.dumps(timings))
  slow = {v: ms for v, ms in timings.items() if ms > VIEW_BUDGET_MS}
  assert not slow, f'views slower than {VIEW_BUDGET_MS} ms: {slow} (all: {timings})'


def test_no_request_leaves_tensorboards_origin(tab, browser):
  """Chromium's network log of TensorBoard's page with the tab, through every
  view of a run: loopback only. (Opening PROFILE would add xprof's own
  requests for Google Charts and a font, so the log is drained first and
  PROFILE is not opened here.)"""
  browser.get_log('performance')
  _enter_tab(browser, tab['server'])
  for view in VIEWS:
    _show(browser, 'resnet_workers0', view)
  origin = tab['server'].url
  urls = []
  for entry in browser.get_log('performance'):
    message = json.loads(entry['message'])['message']
    if message.get('method') == 'Network.requestWillBeSent':
      urls.append(message['params']['request']['url'])
  assert urls, 'no network log'
  outside = sorted({u for u in urls if not (u.startswith(origin + '/') or u == origin
                                            or u.split(':', 1)[0] in ('data', 'blob', 'about'))})
  assert not outside, f'requests outside {origin}: {outside[:20]}'


@pytest.mark.parametrize('query,status', [
    ('run=..%2F..%2Fetc&host=passwd&view=overview', 400),
    ('run=resnet_workers0&host=..%2F..%2F..%2Fetc%2Fpasswd&view=overview', 400),
    ('run=%2Fetc&host=x&view=overview', 400),
    ('run=no_such_run&host=x&view=overview', 404),
])
def test_bad_names_over_http(tab, query, status):
  got, body, ctype = _http_get(f'{tab["server"].url}{TAB_PREFIX}/data?{query}')
  assert got == status and 'json' in ctype, (got, body[:300])
  assert json.loads(body)['error'] and b'Traceback' not in body


def test_corrupt_views_file_over_http_and_page(tab, browser):
  """A half-written views file: HTTP 500 with a message, shown in the page;
  the other runs still draw."""
  src = tab['dirs']['resnet_workers0']
  broken = src.parent / 'half_written'
  broken.mkdir()
  for p in src.iterdir():
    data = p.read_bytes()
    (broken / p.name).write_bytes(data[:len(data) // 3] if p.name.endswith(
        tab_fixtures.VIEWS_SUFFIX) else data)
  host = sorted(broken.glob('*.xplane.pb'))[0].name[:-len('.xplane.pb')]
  got, body, _ = _http_get(f'{tab["server"].url}{TAB_PREFIX}/data?run=half_written&host={host}'
                           '&view=overview')
  assert got == 500 and 'not a complete gzip file' in json.loads(body)['error'], body[:300]
  _enter_tab(browser, tab['server'])
  deadline = time.monotonic() + 60  # the run list is read when the tab opens
  while 'half_written' not in browser.execute_script(
      'return Array.from(document.getElementById("run").options).map((o) => o.value)'):
    assert time.monotonic() < deadline, 'half_written not listed'
    _enter_tab(browser, tab['server'])
  state, _ = _show(browser, 'half_written', 'overview')
  assert state == 'error'
  assert 'not a complete gzip file' in _text(browser, '#view .error-box')
  state, _ = _show(browser, 'resnet_workers0', 'overview')
  assert state == 'ready'
