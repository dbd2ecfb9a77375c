"""Helpers of the browser tests (test_ui.py, test_tab_*.py): servers on
loopback, headless Chromium with no network but loopback, waits on page
conditions that last as long as the servers and the browser are busy, and
screenshots.

Fixtures `browser` and `shots` are module-scoped; a test module imports them
by name. Without selenium, chromedriver or chromium the tests that use them
are skipped, except under CI=true, where that is a failure naming what is
missing.
"""

import gzip
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

PLUGIN_PREFIX = '/data/plugin/profile'  # the profile plugin, on TensorBoard and xprof
SERVER_START_TIMEOUT_S = 90
HTTP_TIMEOUT_S = 120  # one request; the first data request converts the run
# One wait for something on a page: how long it may take once the servers
# and the browser have gone quiet. While they still compute (together they
# use at least BUSY_CORES of a core over the last BUSY_WINDOW_S, e.g. xprof
# combining the hosts of a run on a busy machine), the wait goes on, up to
# PAGE_HARD_LIMIT_S: the tests wait on what the servers and the page do, not
# on how fast this machine happens to be. An idle TensorBoard (its reload
# loop) and Chromium (a spinner) use a little CPU forever, so "quiet" is a
# rate, not zero: with any CPU tick counted as work, a page that never came
# up was waited on until ctest killed the whole file with no message.
PAGE_TIMEOUT_S = 60
PAGE_HARD_LIMIT_S = 300
BUSY_CORES = 0.25
BUSY_WINDOW_S = 3.0

# Chromium flags: headless, and no network but loopback. The resolver rules
# make every other host name fail to resolve; the dead proxy catches any
# request to a literal address (loopback is never proxied).
CHROMIUM_ARGS = (
    '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
    '--window-size=1600,1000', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-default-apps',
    '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost',
    '--proxy-server=http://127.0.0.1:9',
)


VENV_BIN = pathlib.Path(sys.executable).parent


# --- availability ------------------------------------------------------------

def _unavailable(what):
  """Skips (or, under CI=true, fails) a test that needs something missing."""
  if os.environ.get('CI', '').lower() == 'true':
    pytest.fail(f'UI test cannot run: {what} (CI=true: this is a failure; '
                'scripts/setup.sh installs chromium and chromium-driver, '
                'scripts/python_envs.sh installs selenium)', pytrace=False)
  pytest.skip(f'UI test needs {what}')


def _console_script(name):
  """Path of a console script of the venv that runs pytest (tensorboard, xprof)."""
  path = VENV_BIN / name
  if not path.exists():
    _unavailable(f'the `{name}` command beside {sys.executable}')
  return path


# --- servers -----------------------------------------------------------------

def _free_port():
  with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
    sock.bind(('127.0.0.1', 0))
    return sock.getsockname()[1]


def _http_get(url, timeout=HTTP_TIMEOUT_S):
  """GET url; returns (status, body bytes, content type). Never raises on 4xx/5xx."""
  request = urllib.request.Request(url, headers={'Accept-Encoding': 'gzip'})
  try:
    with urllib.request.urlopen(request, timeout=timeout) as response:
      status, headers, body = response.status, response.headers, response.read()
  except urllib.error.HTTPError as error:
    status, headers, body = error.code, error.headers, error.read()
  if headers.get('Content-Encoding', '') == 'gzip' or body[:2] == b'\x1f\x8b':
    body = gzip.decompress(body)
  return status, body, headers.get('Content-Type', '')


def _helpers_cpu_ticks():
  """CPU time (clock ticks) used so far by this test's child processes.

  These are the servers (TensorBoard, xprof and what they start) and the
  browser (chromedriver, Chromium): while it grows, the page is still being
  computed or drawn.
  """
  parents, stats = {}, {}
  for entry in os.listdir('/proc'):
    if not entry.isdigit():
      continue
    try:
      with open(f'/proc/{entry}/stat', encoding='ascii', errors='replace') as stat:
        fields = stat.read().rsplit(')', 1)[1].split()
    except OSError:
      continue
    parents[int(entry)] = int(fields[1])
    stats[int(entry)] = sum(int(f) for f in fields[11:13])  # utime stime
  me, total = os.getpid(), 0
  for pid, ticks in stats.items():
    ancestor, hops = parents.get(pid), 0
    while ancestor and ancestor != me and hops < 64:
      ancestor, hops = parents.get(ancestor), hops + 1
    if ancestor == me:
      total += ticks
  return total


class Server:
  """A web server subprocess in its own process group, with its log in a file."""

  def __init__(self, name, argv, port, log_path, plugin_prefix=PLUGIN_PREFIX, env=None):
    self.name = name
    self.env = env  # None: this process's environment
    self.plugin_prefix = plugin_prefix
    self.argv = [str(a) for a in argv]
    self.url = f'http://127.0.0.1:{port}'
    self.log_path = log_path
    self.proc = None

  def start(self):
    with open(self.log_path, 'wb') as log:
      self.proc = subprocess.Popen(self.argv, stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True,
                                   cwd=self.log_path.parent, env=self.env)

  def log_tail(self, chars=3000):
    try:
      return self.log_path.read_text(errors='replace')[-chars:]
    except OSError:
      return ''

  def wait_ready(self, timeout=SERVER_START_TIMEOUT_S):
    """Waits until the plugin's runs route answers 200."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
      if self.proc.poll() is not None:
        pytest.fail(f'{self.name} exited with {self.proc.returncode} before answering '
                    f'HTTP.\n$ {" ".join(self.argv)}\n{self.log_tail()}', pytrace=False)
      try:
        if _http_get(self.url + self.plugin_prefix + '/runs', timeout=5)[0] == 200:
          return
      except OSError:
        pass
      time.sleep(0.5)
    pytest.fail(f'{self.name} did not answer {self.url} within {timeout} s.\n'
                f'$ {" ".join(self.argv)}\n{self.log_tail()}', pytrace=False)

  def stop(self):
    """Ends the whole process group: SIGTERM, then SIGKILL after 10 s."""
    if self.proc is None or self.proc.poll() is not None:
      return
    for sig, wait_s in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
      try:
        os.killpg(self.proc.pid, sig)
      except ProcessLookupError:
        return
      try:
        self.proc.wait(timeout=wait_s)
        break
      except subprocess.TimeoutExpired:
        continue
    # Children left in the group (TensorBoard's data server) go with it.
    try:
      os.killpg(self.proc.pid, signal.SIGKILL)
    except ProcessLookupError:
      pass

  def get(self, route, **params):
    """GET a plugin route; returns (status, body bytes, content type)."""
    query = urllib.parse.urlencode(params)
    return _http_get(f'{self.url}{self.plugin_prefix}/{route}' + (f'?{query}' if query else ''))

  def get_json(self, route, **params):
    status, body, _ = self.get(route, **params)
    assert status == 200, (f'{self.name} {route} {params}: HTTP {status}: '
                           f'{body[:500]!r}\n{self.log_tail()}')
    return json.loads(body)


# --- the browser -----------------------------------------------------------------

def make_browser(performance_log=False):
  """Headless Chromium through Debian's chromedriver (a generator: yields the
  driver, quits it at the end). With performance_log, Chromium's DevTools
  log (every network request) is kept for driver.get_log('performance')."""
  try:
    from selenium import webdriver  # pylint: disable=import-outside-toplevel
    from selenium.webdriver.chrome.service import Service  # pylint: disable=import-outside-toplevel
  except ImportError:
    _unavailable('the selenium package (scripts/requirements/xprof.txt)')
  driver_path = (os.environ.get('TBPROF_CHROMEDRIVER') or shutil.which('chromedriver')
                 or '/usr/bin/chromedriver')
  if not os.access(driver_path, os.X_OK):
    _unavailable('chromedriver (Debian package chromium-driver)')
  chromium = next((shutil.which(n) for n in ('chromium', 'chromium-browser', 'google-chrome')
                   if shutil.which(n)), None)
  if chromium is None:
    _unavailable('chromium (Debian package chromium)')
  options = webdriver.ChromeOptions()
  options.binary_location = chromium
  for arg in CHROMIUM_ARGS:
    options.add_argument(arg)
  if performance_log:
    options.set_capability('goog:loggingPrefs', {'performance': 'ALL'})
  try:
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
  except Exception as error:  # pylint: disable=broad-exception-caught
    _unavailable(f'a working chromium + chromedriver ({error.__class__.__name__}: '
                 f'{str(error)[:300]})')
  try:
    driver.set_window_size(1600, 1000)
    driver.set_page_load_timeout(PAGE_TIMEOUT_S)
    yield driver
  finally:
    driver.quit()


@pytest.fixture(scope='module')
def browser():
  """Headless Chromium driven through Debian's chromedriver; quit at the end."""
  yield from make_browser()


@pytest.fixture(scope='module')
def shots(tmp_path_factory):
  """Where screenshots go; returns a function that saves one and returns its path."""
  out = tmp_path_factory.mktemp('ui_screenshots')
  copy_to = os.environ.get('TBPROF_UI_SCREENSHOTS')

  def save(driver, name):
    driver.switch_to.default_content()
    path = out / name
    assert driver.save_screenshot(str(path)), f'no screenshot {path}'
    print(f'screenshot: {path} ({path.stat().st_size // 1024} KiB)')
    if copy_to:
      pathlib.Path(copy_to).mkdir(parents=True, exist_ok=True)
      shutil.copyfile(path, pathlib.Path(copy_to) / name)
    return path

  return save


class _HelperLoad:
  """How much CPU the servers and the browser used over the last BUSY_WINDOW_S."""

  def __init__(self):
    self._samples = [(time.monotonic(), _helpers_cpu_ticks())]
    self.total_ticks = 0

  def busy(self):
    """Samples the helpers' CPU; True while they use >= BUSY_CORES of a core."""
    now, ticks = time.monotonic(), _helpers_cpu_ticks()
    last_ticks = self._samples[-1][1]
    if ticks >= last_ticks:  # a helper that exits takes its ticks with it
      self.total_ticks += ticks - last_ticks
    self._samples.append((now, ticks))
    while len(self._samples) > 2 and now - self._samples[1][0] >= BUSY_WINDOW_S:
      self._samples.pop(0)
    then, then_ticks = self._samples[0]
    if now - then < BUSY_WINDOW_S / 2:
      return True  # too short a window to call it quiet
    used_s = max(0, ticks - then_ticks) / os.sysconf('SC_CLK_TCK')
    return used_s / (now - then) >= BUSY_CORES


def _wait_for(driver, condition, what, timeout=PAGE_TIMEOUT_S):
  """Polls condition() until truthy.

  Fails with the page's text once timeout seconds have passed with the
  servers and the browser quiet (together under BUSY_CORES of a core), or
  after PAGE_HARD_LIMIT_S whatever they do.
  """
  from selenium.common.exceptions import WebDriverException  # pylint: disable=import-outside-toplevel
  start = time.monotonic()
  deadline = start + timeout
  load = _HelperLoad()
  while True:
    try:
      result = condition()
      if result:
        return result
    except WebDriverException:
      pass  # stale element, frame not ready yet: poll again
    if load.busy():  # a server or the browser is still working on the answer
      deadline = max(deadline, min(time.monotonic() + timeout, start + PAGE_HARD_LIMIT_S))
    if time.monotonic() > deadline:
      break
    time.sleep(0.5)
  try:
    text = driver.execute_script('return document.body ? document.body.innerText : ""')
  except WebDriverException as error:
    text = f'(no page text: {error.__class__.__name__})'
  cpu_s = load.total_ticks / os.sysconf('SC_CLK_TCK')
  pytest.fail(f'timed out after {time.monotonic() - start:.0f} s ({timeout} s with the servers '
              f'and browser quiet, at most {PAGE_HARD_LIMIT_S} s; they used {cpu_s:.1f} s of '
              f'CPU meanwhile) waiting for {what}; page {driver.current_url} says:\n'
              f'{text[:2000]}', pytrace=False)


def _elements(driver, css):
  from selenium.webdriver.common.by import By  # pylint: disable=import-outside-toplevel
  return driver.find_elements(By.CSS_SELECTOR, css)


def _text(driver, css='body'):
  """innerText of the first element matching css ('' if none).

  Read through JavaScript: the trace viewer's web-components polyfill breaks
  the iteration that WebDriver's own element lookup relies on.
  """
  return driver.execute_script(
      'const e = document.querySelector(arguments[0]); return e ? e.innerText : "";', css)
