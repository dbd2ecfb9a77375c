"""The real UI judges tbprof's logdir (issue 10, item 3).

tbprof converts a Kineto trace and a multi-rank run (8 Kineto traces, one run
with 8 hosts) into fresh log directories. Then:

- `tensorboard --logdir` and xprof's standalone server (`xprof server`) serve
  them on loopback ports;
- the profile plugin's HTTP routes (runs, run_tools, hosts, data) must list
  both runs and the tools a GPU profile has, and return data for every tool
  and host;
- headless Chromium (selenium + Debian's chromium-driver) opens the Profile
  tab as a person would, picks runs and tools in the plugin's side bar, and
  checks what the overview page and the trace viewer show.

Nothing leaves the machine: the servers are asked on 127.0.0.1 only and the
browser resolves no host name but loopback (xprof's frontend asks
www.gstatic.com for Google Charts and fonts.googleapis.com for a font; those
requests fail at once). So the charts that xprof draws with Google Charts
(among them the overview's Step-time Graph) cannot be drawn here; the tests
check what xprof decides to show instead (see test_overview_shows_step_time_graph).

Screenshots go to the pytest temp dir (printed with -s / -rA); set
TBPROF_UI_SCREENSHOTS=<dir> to also copy them there (that is how
docs/screenshots/ is refreshed).

Without selenium, chromedriver or chromium the browser tests are skipped,
except under CI=true, where that is a failure naming what is missing.
"""

import json
import os
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from conftest import SHARED, convert
# pylint: disable-next=unused-import (browser, shots: fixtures)
from ui_helpers import (Server, _console_script, _elements, _free_port, _text, _unavailable,
                        _wait_for, browser, shots)

KINETO_TRACE = SHARED / 'kineto' / 'resnet50_v100_dataloader_workers0.pt.trace.json.gz'
MULTI_RANK_DIR = SHARED / 'kineto' / 'dlrm_8ranks'

KINETO_RUN = 'resnet50'
MULTI_RANK_RUN = 'dlrm_8ranks'
MULTI_RANK_HOSTS = 8
RUNS = (KINETO_RUN, MULTI_RANK_RUN)

# Tools a converted GPU trace must offer (xprof names; trace_viewer@ is the
# streaming trace viewer).
REQUIRED_TOOLS = ('overview_page', 'trace_viewer@', 'kernel_stats', 'memory_profile',
                  'input_pipeline_analyzer')

# Runs whose trace records memory events (the DLRM traces were taken without
# profile_memory=True: `tbprof inspect` says memory_profile is EMPTY for them).
RUNS_WITH_MEMORY = {KINETO_RUN}

PLUGIN_PREFIX = '/data/plugin/profile'  # same prefix on both servers

# Page text that means a tool came up empty or broken.
NO_STEP_MARKER = 'No step marker observed'
EMPTY_OR_ERROR_TEXTS = (NO_STEP_MARKER, 'There is no', 'No data', 'Failed to load',
                        'We failed to fetch')

# Fraction of sampled pixels of the fullest 2D canvas that are painted (not
# transparent, not near-white).
CANVAS_PAINTED_JS = """
let best = 0;
const canvases = document.getElementsByTagName('canvas');  // the trace viewer's
for (let c = 0; c < canvases.length; c++) {                 // polyfill breaks for-of
  const canvas = canvases[c];
  if (!canvas.width || !canvas.height) continue;
  const context = canvas.getContext('2d');
  if (!context) continue;
  const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
  let painted = 0, sampled = 0;
  for (let i = 0; i < pixels.length; i += 4 * 7) {
    sampled++;
    const white = pixels[i] > 235 && pixels[i + 1] > 235 && pixels[i + 2] > 235;
    if (pixels[i + 3] > 0 && !white) painted++;
  }
  best = Math.max(best, painted / sampled);
}
return best;
"""

# Why the Step-time Graph is missing from the overview page of every profile
# that carries no XLA HLO modules (PyTorch, Kineto, CUPTI captures).
STEP_TIME_GRAPH_HIDDEN = (
    "xprof 2.24.2 shows the overview's Step-time Graph only when "
    "run_environment.is_training is true (frontend: hasStepTimeGraphData = "
    "!isInference, isInference = is_training == 'false'), and it sets "
    "is_training only from HLO modules with gradient name scopes "
    "(ModelTracker::IsTraining in xplane_to_op_stats.cc); a PyTorch trace has "
    "none, so the page says 'Is training job: false' and hides the graph")

def _require_inputs():
  missing = [str(p) for p in (KINETO_TRACE, MULTI_RANK_DIR) if not p.exists()]
  if missing:
    _unavailable('the shared test data: ' + ', '.join(missing))


def _make_logdir(tmp_path_factory, name):
  """A fresh logdir with both runs (xprof writes caches beside the xplane.pb)."""
  logdir = tmp_path_factory.mktemp(f'logdir_{name}')
  convert(KINETO_TRACE, logdir, KINETO_RUN)
  paths = convert(MULTI_RANK_DIR, logdir, MULTI_RANK_RUN)
  assert len(paths) == MULTI_RANK_HOSTS, [p.name for p in paths]
  return logdir


@pytest.fixture(scope='module')
def servers(tmp_path_factory):
  """TensorBoard and xprof's standalone server, each on its own logdir copy.

  Both bind only ports picked on 127.0.0.1 (xprof 2.24.2 has no bind-address
  flag: it listens on every interface; it is only ever asked on loopback).
  Both process groups are ended when the module's tests are done or fail.
  """
  _require_inputs()
  logs = tmp_path_factory.mktemp('server_logs')
  tb_port, xprof_port, grpc_port = _free_port(), _free_port(), _free_port()
  started = {
      'tensorboard': Server(
          'tensorboard',
          [_console_script('tensorboard'), '--logdir', _make_logdir(tmp_path_factory, 'tb'),
           '--host', '127.0.0.1', '--port', tb_port],
          tb_port, logs / 'tensorboard.log'),
      'xprof': Server(
          'xprof server',
          [_console_script('xprof'), 'server',
           f'--logdir={_make_logdir(tmp_path_factory, "xprof")}', f'--port={xprof_port}',
           f'--grpc_port={grpc_port}', f'--worker_service_address=127.0.0.1:{grpc_port}'],
          xprof_port, logs / 'xprof.log'),
  }
  try:
    for server in started.values():
      server.start()
    for server in started.values():
      server.wait_ready()
    yield started
  finally:
    for server in started.values():
      server.stop()


# --- HTTP routes ---------------------------------------------------------------

SERVER_NAMES = ('tensorboard', 'xprof')


@pytest.mark.parametrize('server_name', SERVER_NAMES)
def test_runs_are_listed(servers, server_name):
  server = servers[server_name]
  deadline = time.monotonic() + 30  # TensorBoard may list runs a little later
  while True:
    runs = server.get_json('runs')
    if set(RUNS) <= set(runs) or time.monotonic() > deadline:
      break
    time.sleep(1)
  assert set(RUNS) <= set(runs), f'{server.name} lists runs {runs}, expected {RUNS}'


@pytest.mark.parametrize('server_name', SERVER_NAMES)
@pytest.mark.parametrize('run', RUNS)
def test_run_offers_the_gpu_tools(servers, server_name, run):
  tools = servers[server_name].get_json('run_tools', run=run)
  missing = [t for t in REQUIRED_TOOLS if t not in tools]
  assert not missing, f'{server_name}: run {run} offers {tools}, lacks {missing}'


def _check_tool_payload(tool, run, host, body):
  """Tool-specific check that a data answer holds data, not an empty shell."""
  where = f'{tool} of {run}/{host}'
  if tool == 'trace_viewer@':
    events = json.loads(body)['traceEvents']
    slices = sum(1 for e in events if e.get('ph') == 'X')
    names = {e['args']['name'] for e in events if e.get('name') == 'process_name'}
    assert slices > 0, f'{where}: no trace events'
    assert any('/device:GPU:' in n for n in names), f'{where}: no GPU process in {names}'
    assert any('/host:CPU' in n for n in names), f'{where}: no host process in {names}'
    return
  data = json.loads(body)
  if tool == 'overview_page':
    text = body.decode('utf-8', 'replace')
    assert NO_STEP_MARKER not in text, f'{where}: {NO_STEP_MARKER}'
    assert data[1]['rows'], f'{where}: the step-time table has no step'
    diagnostics = [r['c'][1]['v'] for r in data[6]['rows'] if r['c'][0]['v'] == 'ERROR']
    assert not diagnostics, f'{where}: errors {diagnostics}'
  elif tool == 'input_pipeline_analyzer':
    steps = [t for t in data if t.get('cols') and t['cols'][0]['id'] == 'stepnum']
    assert steps and steps[0]['rows'], f'{where}: no step rows'
  elif tool == 'kernel_stats':
    assert data['rows'], f'{where}: no kernel rows'
  elif tool == 'memory_profile':
    assert 'memoryProfilePerAllocator' in data, f'{where}: {body[:300]!r}'
    if run in RUNS_WITH_MEMORY:
      assert data['memoryProfilePerAllocator'], f'{where}: no allocator'


@pytest.mark.parametrize('server_name', SERVER_NAMES)
@pytest.mark.parametrize('run', RUNS)
@pytest.mark.parametrize('tool', REQUIRED_TOOLS)
def test_tool_data_for_every_host(servers, server_name, run, tool):
  """The hosts route lists the hosts; data answers 200 with data for each.

  Hosts are asked in the order listed (ALL_HOSTS first, as the UI does: xprof
  caches one ALL_HOSTS op_stats per run for all-host tools, whichever host is
  asked first).
  """
  server = servers[server_name]
  hosts = [h['hostname'] for h in server.get_json('hosts', run=run, tag=tool)]
  assert hosts, f'{server_name}: no host for {tool} of {run}'
  if run == MULTI_RANK_RUN and tool in ('trace_viewer@', 'memory_profile'):
    assert len(hosts) == MULTI_RANK_HOSTS, hosts  # one per rank, no ALL_HOSTS
  for host in hosts:
    status, body, _ = server.get('data', run=run, tag=tool, host=host)
    assert status == 200, (f'{server_name}: data {tool} {run}/{host}: HTTP {status}: '
                           f'{body[:500]!r}\n{server.log_tail()}')
    assert body.strip(), f'{server_name}: data {tool} {run}/{host} is empty'
    _check_tool_payload(tool, run, host, body)


def _enter_tensorboard_profile(driver, server):
  """Opens TensorBoard's Profile tab and switches into the plugin's iframe."""
  driver.get('about:blank')  # same URL twice would not reload TensorBoard's app
  driver.get(server.url + '/#profile')
  frame = _wait_for(driver, lambda: _elements(driver, 'iframe'), 'the profile plugin iframe')
  driver.switch_to.frame(frame[0])
  _wait_for(driver, lambda: _elements(driver, 'mat-select'), "the plugin's side bar")


def _find_sidebar_select(driver, label):
  """The side bar's selector labelled label, or None while it is not shown.

  Opens the side bar when it is closed (the plugin remembers a closed side
  bar; the trace viewer closes it).
  """
  from selenium.webdriver.common.by import By  # pylint: disable=import-outside-toplevel
  xpath = (f"//div[contains(@class, 'item-container')]"
           f"[div[starts-with(normalize-space(.), '{label}')]]//mat-select")
  found = driver.find_elements(By.XPATH, xpath)
  if found and not found[0].is_displayed():
    menu = driver.find_elements(By.XPATH, "//mat-toolbar//button[.//mat-icon[normalize-space()='menu']]")
    if menu:
      menu[0].click()
    return None
  return found[0] if found else None


def _selected(driver, label):
  """What the side bar's selector labelled label shows ('' while not shown)."""
  select = _find_sidebar_select(driver, label)
  return select.text.strip() if select is not None else ''


def _choose(driver, label, option, url_part):
  """Picks option in the side bar selector labelled label (Sessions, Tools).

  Each poll looks the selector up again and does one step (open the list,
  click the option once the list shows it, or close a list without it), as
  a person retries a click that did nothing: right after another choice the
  plugin redraws the side bar, and a selector may be there but not yet
  clickable, or replaced.
  Done when the plugin's URL holds url_part (the side bar itself hides while
  some tools, the trace viewer among them, are shown).
  """
  from selenium.webdriver.common.action_chains import ActionChains  # pylint: disable=import-outside-toplevel
  from selenium.webdriver.common.keys import Keys  # pylint: disable=import-outside-toplevel

  def step():
    select = _find_sidebar_select(driver, label)
    if select is None:
      return False
    if select.text.strip() == option:
      return True
    listed = _elements(driver, 'mat-option')
    wanted = [o for o in listed if o.text.strip() == option]
    if wanted:
      wanted[0].click()
    elif listed:  # a list without it (not loaded yet, or another one): close it
      ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    else:  # the list is closed: open it
      select.click()
    return False  # checked again on the next poll

  _wait_for(driver, step, f'{option!r} chosen under {label}')
  _wait_for(driver, lambda: url_part in driver.execute_script('return location.href'),
            f'the URL to hold {url_part!r} after choosing {option!r}')


def _open(driver, run, tool_label, tool):
  """Picks run and tool in the plugin's side bar."""
  _choose(driver, 'Sessions', run, f'run={run}')
  _choose(driver, 'Tools', tool_label, 'tag=' + urllib.parse.quote(tool))


def _wait_overview_loaded(driver, run):
  """Waits until the overview page of run shows its summary and run environment."""
  _wait_for(driver, lambda: 'Device Compute Time' in _text(driver, 'performance-summary')
            and 'Number of device cores' in _text(driver, 'run-environment-view'),
            f'the overview page of {run}')


def _check_overview(driver, run, device_cores):
  """Checks the loaded overview page; returns the warning banners' texts."""
  page = _text(driver)
  assert NO_STEP_MARKER not in page, page
  for message in EMPTY_OR_ERROR_TEXTS:
    assert message not in page, f'overview of {run} says {message!r}:\n{page[:2000]}'
  errors = [e.text for e in _elements(driver, 'diagnostics-view .callout.is-critical')]
  assert not errors, f'overview of {run} shows error banners: {errors}'
  summary = _text(driver, 'performance-summary')
  compute = re.search(r'Device Compute Time\s*\(σ = [\d.]+ ms\)\s*([\d.]+) ms', summary)
  assert compute and float(compute.group(1)) > 0, f'no device compute time in:\n{summary}'
  environment = _text(driver, 'run-environment-view')
  cores = re.search(r'Number of device cores: (\d+)', environment)
  assert cores and int(cores.group(1)) == device_cores, environment
  return [e.text for e in _elements(driver, 'diagnostics-view .callout.is-important')]


def test_tensorboard_overview_of_kineto_run(servers, browser, shots):
  _enter_tensorboard_profile(browser, servers['tensorboard'])
  _open(browser, KINETO_RUN, 'Overview Page', 'overview_page')
  _wait_overview_loaded(browser, KINETO_RUN)
  warnings = _check_overview(browser, KINETO_RUN, device_cores=1)
  # Warnings are XSpace.warnings from tbprof (here: PyTorch < 1.10 memory events).
  print('warning banners:', warnings)
  shots(browser, 'overview_tensorboard.png')


def test_tensorboard_trace_viewer_of_kineto_run(servers, browser, shots):
  _enter_tensorboard_profile(browser, servers['tensorboard'])
  _open(browser, KINETO_RUN, 'Trace Viewer', 'trace_viewer@')
  # The trace viewer runs in a second iframe (trace_viewer_index.html).
  frame = _wait_for(browser, lambda: [f for f in _elements(browser, 'iframe')
                                      if 'trace_viewer_index' in (f.get_attribute('src') or '')],
                    'the trace viewer iframe')
  browser.switch_to.frame(frame[0])
  tracks = ('/device:GPU:0', '/host:CPU', 'Stream #7', 'Steps', 'thread ')
  _wait_for(browser, lambda: all(t in _text(browser) for t in tracks),
            f'track names {tracks} in the trace viewer')
  # Slices (ProfilerStep#N, kernels) are painted on a canvas, not in the DOM.
  painted = _wait_for(browser, lambda: browser.execute_script(CANVAS_PAINTED_JS) > 0.02,
                      'slices painted on the trace viewer canvas')
  assert painted
  page = _text(browser)
  for message in EMPTY_OR_ERROR_TEXTS + ('Error', 'error'):
    assert message not in page, f'trace viewer says {message!r}:\n{page[:2000]}'
  shots(browser, 'trace_viewer_tensorboard.png')


def test_tensorboard_overview_of_multi_rank_run(servers, browser, shots):
  _enter_tensorboard_profile(browser, servers['tensorboard'])
  _open(browser, MULTI_RANK_RUN, 'Overview Page', 'overview_page')
  _wait_overview_loaded(browser, MULTI_RANK_RUN)
  _wait_for(browser, lambda: _selected(browser, 'Hosts') == 'ALL_HOSTS',
            'the Hosts selector to show ALL_HOSTS')
  # The page may first show one host's overview while the ALL_HOSTS answer
  # (all ranks combined) is still being computed: wait for the combined one.
  want = f'Number of device cores: {MULTI_RANK_HOSTS}'
  _wait_for(browser, lambda: want in _text(browser, 'run-environment-view'),
            f'the overview of all {MULTI_RANK_HOSTS} hosts ({want!r})')
  warnings = _check_overview(browser, MULTI_RANK_RUN, device_cores=MULTI_RANK_HOSTS)
  print('warning banners:', warnings)
  shots(browser, 'overview_multirank_tensorboard.png')


def test_xprof_standalone_overview(servers, browser, shots):
  server = servers['xprof']
  browser.get(server.url + '/')
  _wait_for(browser, lambda: _elements(browser, 'mat-select'), "xprof's side bar")
  _open(browser, KINETO_RUN, 'Overview Page', 'overview_page')
  _wait_overview_loaded(browser, KINETO_RUN)
  _check_overview(browser, KINETO_RUN, device_cores=1)
  shots(browser, 'overview_xprof_standalone.png')


@pytest.mark.xfail(strict=True, reason=STEP_TIME_GRAPH_HIDDEN)
def test_overview_shows_step_time_graph(servers, browser):
  """The overview page of a Kineto run has a Step-time Graph, drawn when it can be.

  Known to fail with xprof 2.24.2 (STEP_TIME_GRAPH_HIDDEN); strict, so that a
  tbprof or xprof change that brings the graph back is noticed. When the
  graph is there and Google Charts could load (never here: no network), the
  chart must also be drawn.
  """
  server = servers['xprof']
  browser.get(server.url + '/')
  _wait_for(browser, lambda: _elements(browser, 'mat-select'), "xprof's side bar")
  _open(browser, KINETO_RUN, 'Overview Page', 'overview_page')
  _wait_overview_loaded(browser, KINETO_RUN)
  environment = _text(browser, 'run-environment-view')
  graph = _elements(browser, 'step-time-graph')
  assert graph, f'no Step-time Graph on the overview page; it says:\n{environment}'
  if browser.execute_script('return !!(window.google && google.visualization)'):
    _wait_for(browser, lambda: len(_elements(browser, 'step-time-graph svg path, '
                                             'step-time-graph svg rect')) > 10,
              'the Step-time Graph to be drawn')


def test_xprof_standalone_input_pipeline(servers, browser, shots):
  """Input Pipeline Analysis: the device step-time statistics of the Kineto run.

  Unlike the overview's Step-time Graph, this page shows step times whatever
  is_training says (its chart, too, needs Google Charts to be drawn).
  """
  server = servers['xprof']
  browser.get(server.url + '/')
  _wait_for(browser, lambda: _elements(browser, 'mat-select'), "xprof's side bar")
  _open(browser, KINETO_RUN, 'Input Pipeline Analysis', 'input_pipeline_analyzer')
  _wait_for(browser, lambda: 'Device step-time statistics' in _text(browser, 'input-pipeline'),
            'the device step-time statistics')
  page = _text(browser)
  for message in EMPTY_OR_ERROR_TEXTS:
    assert message not in page, f'input pipeline page says {message!r}:\n{page[:2000]}'
  errors = [e.text for e in _elements(browser, 'diagnostics-view .callout.is-critical')]
  assert not errors, f'input pipeline page shows error banners: {errors}'
  average = re.search(r'Average: ([\d.]+) ms', page)
  assert average and float(average.group(1)) > 0, page[:2000]
  shots(browser, 'input_pipeline_xprof_standalone.png')


# --- capture from TensorBoard (issue 14) -------------------------------------------
# TensorBoard's capture dialog against fake jobs under `tbprof record --serve`
# (conftest.capture_jobs; skipped while tbprof has no serve support).
# Screenshots: capture_dialog.png (the dialog, filled in) and
# capture_result.png (the captured run in the trace viewer, after a refresh).

CAPTURE_SUCCESS = 'Capture profile successfully'
README_CAPTURE_PORT = 8466


def _empty_tensorboard(tmp_path, logdir):
  port = _free_port()
  server = Server('tensorboard', [_console_script('tensorboard'), '--logdir', logdir,
                                  '--host', '127.0.0.1', '--port', port],
                  port, tmp_path / 'tensorboard.log')
  server.start()
  return server


def _act_when_ready(driver, find, act, what):
  """Polls find() until it returns elements, then act(first one) until it goes through.

  act raises while the element is not interactable yet (a dialog still
  opening, an overlay on top): then the next poll tries again. One act that
  returns is never repeated.
  """
  def attempt():
    found = find()
    if not found:
      return False
    act(found[0])
    return True

  _wait_for(driver, attempt, what)


def _open_capture_dialog(driver, server, address):
  """Opens the Profile tab, clicks Capture Profile, types address into the dialog."""
  from selenium.webdriver.common.by import By  # pylint: disable=import-outside-toplevel
  driver.get('about:blank')
  driver.get(server.url + '/#profile')
  frame = _wait_for(driver, lambda: _elements(driver, 'iframe'), 'the profile plugin iframe')
  driver.switch_to.frame(frame[0])
  _act_when_ready(driver, lambda: [b for b in driver.find_elements(By.TAG_NAME, 'button')
                                   if b.text.strip().upper() == 'CAPTURE PROFILE'],
                  lambda button: button.click(), 'the Capture Profile button to take a click')
  _act_when_ready(driver, lambda: _elements(driver, 'capture-profile-dialog input[matinput]'),
                  lambda field: field.send_keys(address), 'the capture dialog to take the address')
  return frame[0]


def _capture_snackbar(driver):
  return _text(driver, 'simple-snack-bar').strip()


def _click_capture(driver):
  _act_when_ready(driver, lambda: [b for b in _elements(driver, 'capture-profile-dialog button, '
                                                        'mat-dialog-container button')
                                   if b.text.strip().upper() == 'CAPTURE'],
                  lambda button: button.click(), 'the CAPTURE button of the capture dialog')


def test_capture_dialog_reports_a_dead_address(browser, tmp_path):
  """The capture dialog's error path: nothing listens at the address.

  xprof 2.24.2's frontend shows 'Failed to capture profile: [object Object]'
  (it prints the route's {"error": ...} answer without its text); the
  reason is in TensorBoard's HTTP answer (test_capture.py checks it) and log.
  """
  logdir = tmp_path / 'logdir'
  logdir.mkdir()
  server = _empty_tensorboard(tmp_path, logdir)
  try:
    server.wait_ready()
    _open_capture_dialog(browser, server, f'127.0.0.1:{_free_port()}')
    _click_capture(browser)
    message = _wait_for(browser, lambda: _capture_snackbar(browser), 'the capture result message')
    assert message.startswith('Failed to capture profile'), message
    assert not list(logdir.rglob('*.xplane.pb'))
  finally:
    server.stop()


def test_capture_dialog_captures_a_running_job(capture_jobs, browser, shots, tmp_path):
  """A person's capture: the dialog, the success message, the captured run."""
  root = tmp_path / 'root'
  logdir = root / 'tb'
  logdir.mkdir(parents=True)
  # The README's port in the screenshots, when it is free.
  port = README_CAPTURE_PORT if os.environ.get('TBPROF_UI_SCREENSHOTS') else None
  if port:
    try:
      with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(('127.0.0.1', port))
    except OSError:
      port = None
  job, = capture_jobs(root, port=port)
  server = _empty_tensorboard(tmp_path, logdir)
  try:
    server.wait_ready()
    address = f'localhost:{job.port}'  # what the README tells people to type
    frame = _open_capture_dialog(browser, server, address)
    time.sleep(0.5)  # the dialog's opening animation
    shots(browser, 'capture_dialog.png')
    browser.switch_to.frame(frame)
    _click_capture(browser)
    message = _wait_for(browser, lambda: _capture_snackbar(browser),
                        'the capture result message', timeout=120)
    assert CAPTURE_SUCCESS in message, (
        f'capture dialog says {message!r}\n{server.log_tail()}\n--- job ---\n{job.log_tail()}')
    paths = sorted(logdir.glob('plugins/profile/*/*.xplane.pb'))
    assert len(paths) == 1, [str(p) for p in logdir.rglob('*')]
    run = paths[0].parent.name
    # "Please refresh": the captured run is there, with its overview page.
    _enter_tensorboard_profile(browser, server)
    _open(browser, run, 'Overview Page', 'overview_page')
    _wait_overview_loaded(browser, run)
    page = _text(browser)
    for message in EMPTY_OR_ERROR_TEXTS:
      assert message not in page, f'overview of {run} says {message!r}:\n{page[:2000]}'
    errors = [e.text for e in _elements(browser, 'diagnostics-view .callout.is-critical')]
    assert not errors, f'overview of {run} shows error banners: {errors}'
    # The trace viewer shows what was captured: the job's kernels on its GPU.
    _open(browser, run, 'Trace Viewer', 'trace_viewer@')
    trace = _wait_for(browser, lambda: [f for f in _elements(browser, 'iframe')
                                        if 'trace_viewer_index' in (f.get_attribute('src') or '')],
                      'the trace viewer iframe')
    browser.switch_to.frame(trace[0])
    _wait_for(browser, lambda: all(t in _text(browser) for t in ('/device:GPU:0', '/host:CPU')),
              'the GPU and host tracks in the trace viewer')
    _wait_for(browser, lambda: browser.execute_script(CANVAS_PAINTED_JS) > 0.02,
              'slices painted on the trace viewer canvas')
    shots(browser, 'capture_result.png')
  finally:
    server.stop()
