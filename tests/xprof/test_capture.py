"""Capture from TensorBoard (issue 14), judged by the real client.

Fake CUDA jobs (tests/fake_cupti, the fake libcupti) run under
`tbprof record --serve PORT`, on 127.0.0.1 only, with captures allowed under
one root (TBPROF_SERVER_LOGDIR_ROOT). Then:

  a. xprof's own capture client (`_pywrap_profiler_plugin.trace`, what
     TensorBoard's capture route calls) captures one job (under `tbprof
     record --serve`, and attached by `tbprof serve --control-dir`): the file appears
     as <logdir>/plugins/profile/<session>/127.0.0.1_<port>.xplane.pb, and
     xprof's converter computes kernel_stats, overview_page and
     trace_viewer from it, kernels included;
  b. TensorBoard's HTTP capture route (a running `tensorboard --logdir`)
     captures one job, then two jobs into one session, by comma-separated
     service_addr and by worker_list (the client then asks the first worker's
     ProfileAnalysis.NewSession); TensorBoard's own routes list both hosts
     and xprof's converter opens both files;
  c. hostile requests through the real client: a logdir outside the allowed
     root (error, nothing written; through TensorBoard, the worker's reason
     in TensorBoard's log), a second capture while one runs (the
     second fails, the first is intact), a job killed mid-capture (no
     partial file).

Skipped, with the reason, while tbprof has no `record --serve` / `serve`
or no fake job was built. Every job and server is stopped by a fixture.
"""

import json
import os
import pathlib
import signal
import socket
import subprocess
import time
import urllib.parse

import pytest

import conftest
from conftest import captured_files, xprof_capture, CaptureClient
from test_ui import PLUGIN_PREFIX, Server, _console_script
from ui_helpers import _http_get

CAPTURE_ROUTE = PLUGIN_PREFIX + '/capture_profile'
DURATION_MS = 1000
# gRPC status codes that mean "busy, try later" for a second capture.
BUSY_CODES = ('UNAVAILABLE', 'RESOURCE_EXHAUSTED', 'ABORTED', 'FAILED_PRECONDITION',
              'ALREADY_EXISTS')
# Tools a capture of the fake job must offer (it has kernels and steps).
CAPTURE_TOOLS = ('overview_page', 'trace_viewer@', 'kernel_stats')


# --- checks ----------------------------------------------------------------------

def _xplanes(logdir):
  return sorted((pathlib.Path(logdir) / 'plugins' / 'profile').glob('*/*.xplane.pb'))


def check_xprof_opens(path):
  """xprof's converter lists the tools of one captured file and computes them."""
  tools = conftest.xprof_tool_names([path])
  missing = [t for t in CAPTURE_TOOLS if t not in tools]
  assert not missing, f'xprof offers {tools} for {path.name}, lacks {missing}'
  kernels = conftest.xprof_json([path], 'kernel_stats')
  assert kernels.get('rows'), f'{path.name}: xprof kernel_stats has no kernel: {kernels}'
  overview = conftest.xprof_json([path], 'overview_page')
  assert overview, f'{path.name}: empty overview_page'
  data, _ = conftest.xprof_tool([path], 'trace_viewer@')
  events = json.loads(data)['traceEvents']
  processes = {e['args']['name'] for e in events if e.get('name') == 'process_name'}
  assert any('/device:GPU:' in n for n in processes), f'{path.name}: no GPU in {processes}'
  assert sum(1 for e in events if e.get('ph') == 'X') > 0, f'{path.name}: no trace event'


def _assert_captured(ok, error, log, job_logs=''):
  assert ok, f'capture failed: {error}\n--- client log ---\n{log[-3000:]}\n{job_logs}'


def _job_logs(jobs):
  return '\n'.join(f'--- {j.address} ({" ".join(j.argv[:4])}) ---\n{j.log_tail()}' for j in jobs)


def _worker_status(log, address):
  """The gRPC status the client logged for one worker ('' if none)."""
  for line in log.splitlines():
    marker = f'{address} returned '
    if marker in line:
      return line.split(marker, 1)[1]
  return ''


# --- a. xprof's client, one job ---------------------------------------------------

def test_client_captures_one_job(capture_jobs, tmp_path):
  root = tmp_path / 'root'
  job, = capture_jobs(root)
  logdir = root / 'tb'
  ok, error, log = xprof_capture(job.address, logdir, duration_ms=DURATION_MS, attempts=2)
  _assert_captured(ok, error, log, _job_logs([job]))
  paths = _xplanes(logdir)
  assert [p.name for p in paths] == [f'{job.host}.xplane.pb'], captured_files(logdir)
  session = paths[0].parent.name
  assert session, paths
  check_xprof_opens(paths[0])
  # The job runs on after the capture, and a second capture works too.
  assert job.proc.poll() is None, job.log_tail()
  time.sleep(1.1)  # session names are timestamps in seconds
  ok, error, log = xprof_capture(job.address, logdir, duration_ms=500, attempts=2)
  _assert_captured(ok, error, log, _job_logs([job]))
  assert len(_xplanes(logdir)) == 2, captured_files(logdir)


def _listens(port):
  try:
    with socket.create_connection(('127.0.0.1', port), timeout=1):
      return True
  except OSError:
    return False


def test_client_captures_a_job_through_tbprof_serve(capture_jobs, tmp_path):
  """`tbprof serve --control-dir` attaches to a job started without `record`."""
  del capture_jobs  # only for its skip when serve support or the fake job is missing
  root, control = tmp_path / 'root', tmp_path / 'control'
  control.mkdir(mode=0o700)
  env = {k: v for k, v in os.environ.items() if not k.startswith('TBPROF_')}
  env.update(CUDA_INJECTION64_PATH=str(conftest.COLLECTOR), TBPROF_CONTROL_DIR=str(control),
             TBPROF_CUPTI_LIBRARY=str(conftest.FAKE_CUPTI))
  port = conftest.free_loopback_port()
  procs = []
  try:
    with open(tmp_path / 'job.log', 'wb') as log:
      procs.append(subprocess.Popen(
          [str(conftest.FAKE_JOB), str(conftest.FAKE_JOB_STEPS), '0',
           str(conftest.FAKE_JOB_STEP_MS)], stdout=log, stderr=subprocess.STDOUT, env=env,
          start_new_session=True))
    with open(tmp_path / 'serve.log', 'wb') as log:
      procs.append(subprocess.Popen(
          [str(conftest.TBPROF), 'serve', '--port', str(port), '--control-dir', str(control),
           '--logdir-root', str(root)], stdout=log, stderr=subprocess.STDOUT,
          start_new_session=True))
    deadline = time.monotonic() + conftest.JOB_START_TIMEOUT_S
    while not (list(control.glob('*.sock')) and _listens(port)) and time.monotonic() < deadline:
      assert all(p.poll() is None for p in procs), [p.returncode for p in procs]
      time.sleep(0.2)
    logdir = root / 'tb'
    ok, error, log = xprof_capture(f'127.0.0.1:{port}', logdir, duration_ms=DURATION_MS,
                                   attempts=3)
    logs = '\n'.join(f'--- {n} ---\n{(tmp_path / n).read_text(errors="replace")[-2000:]}'
                     for n in ('job.log', 'serve.log'))
    _assert_captured(ok, error, log, logs)
    paths = _xplanes(logdir)
    assert len(paths) == 1, (captured_files(logdir), logs)
    check_xprof_opens(paths[0])
  finally:
    for proc in procs:
      try:
        os.killpg(proc.pid, signal.SIGKILL)
      except ProcessLookupError:
        pass
      proc.wait(timeout=30)


# --- b. TensorBoard's capture route ------------------------------------------------

@pytest.fixture(scope='module')
def tensorboard(tmp_path_factory):
  """`tensorboard --logdir ROOT/tb` on a free loopback port, for the module."""
  reason = conftest.serve_support_missing()
  if reason:
    pytest.skip(f'capture from TensorBoard not testable: {reason}')
  root = tmp_path_factory.mktemp('capture_root')
  logdir = root / 'tb'
  logdir.mkdir()
  port = conftest.free_loopback_port()
  server = Server('tensorboard', [_console_script('tensorboard'), '--logdir', logdir,
                                  '--host', '127.0.0.1', '--port', port],
                  port, root / 'tensorboard.log')
  server.root, server.logdir = root, logdir
  try:
    server.start()
    server.wait_ready()
    yield server
  finally:
    server.stop()


def _capture_route(server, service_addr, worker_list=None, duration=DURATION_MS):
  """GET the capture route as the capture dialog does; returns (status, json)."""
  params = {'service_addr': service_addr, 'is_tpu_name': 'false', 'duration': duration,
            'num_retry': 0, 'host_tracer_level': 2, 'device_tracer_level': 1,
            'python_tracer_level': 0, 'delay': 0}
  if worker_list:
    params['worker_list'] = worker_list
  status, body, _ = _http_get(f'{server.url}{CAPTURE_ROUTE}?{urllib.parse.urlencode(params)}',
                              timeout=120)
  return status, json.loads(body)


def _sessions(logdir):
  base = pathlib.Path(logdir) / 'plugins' / 'profile'
  return {p.name for p in base.iterdir() if p.is_dir()} if base.is_dir() else set()


def _new_session(server, before, jobs):
  new = _sessions(server.logdir) - before
  assert len(new) == 1, f'expected one new session, got {new}:\n{_job_logs(jobs)}'
  return new.pop()


def _check_run_in_tensorboard(server, session, hosts):
  """TensorBoard lists the run, its tools and hosts; xprof opens every file."""
  deadline = time.monotonic() + 30
  while session not in (runs := server.get_json('runs')) and time.monotonic() < deadline:
    time.sleep(1)
  assert session in runs, f'TensorBoard lists {runs}, not {session}'
  tools = server.get_json('run_tools', run=session)
  missing = [t for t in CAPTURE_TOOLS if t not in tools]
  assert not missing, f'run {session} offers {tools}, lacks {missing}'
  listed = {h['hostname'] for h in server.get_json('hosts', run=session, tag='trace_viewer@')}
  assert listed == set(hosts), f'hosts of {session}: {listed}, expected {hosts}'
  status, body, _ = server.get('data', run=session, tag='kernel_stats', host=sorted(hosts)[0])
  assert status == 200 and json.loads(body).get('rows'), (status, body[:300])
  for host in hosts:
    check_xprof_opens(server.logdir / 'plugins' / 'profile' / session / f'{host}.xplane.pb')


def _wait_next_second():
  """Session names are UTC timestamps in seconds: keep captures apart."""
  time.sleep(1.05 - (time.time() % 1))


def test_tensorboard_route_one_worker(capture_jobs, tensorboard):
  job, = capture_jobs(tensorboard.root)
  _wait_next_second()
  before = _sessions(tensorboard.logdir)
  status, answer = _capture_route(tensorboard, job.address)
  assert status == 200 and 'result' in answer, (
      f'HTTP {status} {answer}\n{tensorboard.log_tail()}\n{_job_logs([job])}')
  session = _new_session(tensorboard, before, [job])
  _check_run_in_tensorboard(tensorboard, session, [job.host])


def test_tensorboard_route_two_workers_comma_separated(capture_jobs, tensorboard):
  jobs = capture_jobs(tensorboard.root, count=2)
  _wait_next_second()
  before = _sessions(tensorboard.logdir)
  status, answer = _capture_route(tensorboard, ','.join(j.address for j in jobs))
  assert status == 200 and 'result' in answer, (
      f'HTTP {status} {answer}\n{tensorboard.log_tail()}\n{_job_logs(jobs)}')
  session = _new_session(tensorboard, before, jobs)
  _check_run_in_tensorboard(tensorboard, session, [j.host for j in jobs])


def test_tensorboard_route_two_workers_worker_list(capture_jobs, tensorboard):
  """worker_list: the client asks the first address's ProfileAnalysis.NewSession."""
  jobs = capture_jobs(tensorboard.root, count=2)
  _wait_next_second()
  before = _sessions(tensorboard.logdir)
  status, answer = _capture_route(tensorboard, jobs[0].address,
                                  worker_list=','.join(j.address for j in jobs))
  assert status == 200 and 'result' in answer, (
      f'HTTP {status} {answer}\n{tensorboard.log_tail()}\n{_job_logs(jobs)}')
  session = _new_session(tensorboard, before, jobs)
  _check_run_in_tensorboard(tensorboard, session, [j.host for j in jobs])


def test_tensorboard_route_dead_address_is_an_error(tensorboard):
  """No worker: TensorBoard answers 500 with the client's error, writes nothing."""
  before = captured_files(tensorboard.logdir)
  status, answer = _capture_route(tensorboard, f'127.0.0.1:{conftest.free_loopback_port()}',
                                  duration=200)
  assert status == 500 and 'UNAVAILABLE' in answer.get('error', ''), (status, answer)
  assert captured_files(tensorboard.logdir) == before


def test_tensorboard_route_logdir_outside_the_root(capture_jobs, tensorboard, tmp_path):
  """TensorBoard's logdir is outside the job's root: refused, the reason in TB's log."""
  job, = capture_jobs(tmp_path / 'other_root')
  before = captured_files(tensorboard.logdir)
  status, answer = _capture_route(tensorboard, job.address, duration=300)
  assert status == 500 and answer.get('error'), (status, answer)
  assert captured_files(tensorboard.logdir) == before
  assert not (tmp_path / 'other_root').exists() or not list((tmp_path / 'other_root').rglob('*'))
  # The dialog shows only the client's summary; the worker's reason is in the
  # console output of TensorBoard (README: "the reason is in TensorBoard's
  # console output").
  deadline = time.monotonic() + 10
  while 'PERMISSION_DENIED' not in tensorboard.log_tail(20000) and time.monotonic() < deadline:
    time.sleep(0.5)
  assert 'PERMISSION_DENIED' in tensorboard.log_tail(20000), tensorboard.log_tail()


# --- c. hostile requests -------------------------------------------------------------

def test_logdir_outside_the_root_is_refused(capture_jobs, tmp_path):
  job, = capture_jobs(tmp_path / 'root')
  outside = tmp_path / 'elsewhere'
  outside.mkdir()
  ok, error, log = xprof_capture(job.address, outside, duration_ms=300)
  assert not ok, f'a capture into {outside} (outside the root) succeeded:\n{log[-2000:]}'
  assert error, log[-2000:]  # what TensorBoard shows the user
  status = _worker_status(log, job.address)
  print(f'capture outside the root refused: {error!r}; worker status {status!r}')
  assert status and not status.startswith('OK'), (
      f'the worker gave no error status the client could log:\n{log[-2000:]}')
  assert list(outside.rglob('*')) == [], f'written outside the root: {list(outside.rglob("*"))}'
  # The job serves on: a capture into the root works.
  ok, error, log = xprof_capture(job.address, tmp_path / 'root' / 'tb', duration_ms=300,
                                 attempts=2)
  _assert_captured(ok, error, log, _job_logs([job]))


def test_second_capture_while_one_runs_is_refused(capture_jobs, tmp_path):
  root = tmp_path / 'root'
  job, = capture_jobs(root)
  first_logdir, second_logdir = root / 'first', root / 'second'
  first = CaptureClient(job.address, first_logdir, duration_ms=6000)
  time.sleep(2.5)  # the client has started (Python, xprof) and the capture runs
  ok, error, log = xprof_capture(job.address, second_logdir, duration_ms=500)
  assert not ok, f'a second, concurrent capture succeeded:\n{log[-2000:]}'
  status = _worker_status(log, job.address)
  print(f'second capture refused: {error!r}; worker status {status!r}')
  assert status.startswith(BUSY_CODES), (
      f'second capture: worker status {status!r}, expected one of {BUSY_CODES}:\n{log[-2000:]}')
  assert captured_files(second_logdir) == [], 'the refused capture wrote files'
  ok, error, log = first.wait()
  _assert_captured(ok, error, log, _job_logs([job]))
  paths = _xplanes(first_logdir)
  assert len(paths) == 1, captured_files(first_logdir)
  check_xprof_opens(paths[0])


def test_job_killed_mid_capture_leaves_no_partial_file(capture_jobs, tmp_path):
  root = tmp_path / 'root'
  job, = capture_jobs(root)
  logdir = root / 'tb'
  client = CaptureClient(job.address, logdir, duration_ms=6000)
  time.sleep(2.5)  # the capture runs
  pids = job.job_pids()
  assert pids, f'no fake job under tbprof record:\n{job.log_tail()}'
  for pid in pids:
    os.kill(pid, signal.SIGKILL)
  ok, error, log = client.wait()
  files = captured_files(logdir)
  print(f'capture of a killed job: ok={ok} error={error!r} worker status '
        f'{_worker_status(log, job.address)!r} files={files}')
  xplanes = [f for f in files if f.endswith('.xplane.pb')]
  # Either the capture fails and nothing is left, or what was written is a
  # whole file (XSpace.errors say what happened) that xprof opens: never a
  # truncated file, never a temporary one.
  assert set(files) <= set(xplanes), f'stray files after a failed capture: {files}'
  if ok:
    assert xplanes, f'capture reported success but wrote nothing:\n{log[-2000:]}'
  for name in xplanes:
    path = logdir / 'plugins' / 'profile' / name
    tools = conftest.xprof_tool_names([path])
    assert tools, f'{name}: xprof cannot read the file left by a killed job'
  if not ok:
    assert not xplanes, f'capture failed ({error}) yet left {xplanes}'
