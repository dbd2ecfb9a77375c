"""tbprof's TensorBoard tab (plugin name "tbprof", tab "TBPROF").

Routes, under /data/plugin/tbprof/ (every answer is JSON, script or style):

  index.js, static/<name>   the page module and the report's scripts/styles
  runs                      [{"run", "hosts", "views": "tbprof"|"computed"|"none"}]
  data?run=&host=&view=     one view of one host ({"meta", "data"}); view
                            "distributed" is run-level (host is ignored)
  diff?base=&new=[&fail_if_slower=5]
                            `tbprof diff --json` of two runs

Errors are {"error": message} with an HTTP status: 400 bad parameter or name,
404 no such run/host/view/file, 422 two runs that `tbprof diff` cannot
compare (nothing in common), 500 unusable views file, 502 tbprof failed,
503 no tbprof binary or assets, 504 tbprof timed out. A request never
returns a traceback, and one broken run leaves the others working. The
plugin reads only under the logdir and writes only views files into run
directories (compute.py); it never parses a trace (views_file.py).
"""

import logging
import os

from tensorboard.backend import http_util
from tensorboard.plugins import base_plugin
from werkzeug import wrappers

from tbprof.tensorboard_plugin import assets as assets_lib
from tbprof.tensorboard_plugin import compute
from tbprof.tensorboard_plugin import logdir as logdir_lib
from tbprof.tensorboard_plugin import views_file

PLUGIN_NAME = 'tbprof'
_log = logging.getLogger('tbprof.tensorboard_plugin')


class _HttpError(Exception):
  def __init__(self, status, message):
    super().__init__(message)
    self.status = status


class TbprofPlugin(base_plugin.TBPlugin):
  """Serves tbprof's views of the profiles under TensorBoard's logdir."""

  plugin_name = PLUGIN_NAME

  def __init__(self, context):
    self._logdir = logdir_lib.Logdir(getattr(context, 'logdir', '') or '')
    self._assets = assets_lib.Assets()
    self._cache = views_file.Cache()

  # --- TBPlugin --------------------------------------------------------------

  def get_plugin_apps(self):
    apps = {'/index.js': self._serve_index, '/runs': self._serve_runs,
            '/data': self._serve_data, '/diff': self._serve_diff}
    for name in self._assets.names():
      apps['/static/' + name] = self._static_app(name)
    return apps

  def is_active(self):
    try:
      return bool(self._logdir.runs())
    except OSError:
      return False

  def frontend_metadata(self):
    return base_plugin.FrontendMetadata(es_module_path='/index.js', tab_name='TBPROF',
                                        disable_reload=True)

  # --- helpers -----------------------------------------------------------------

  @staticmethod
  def _json(request, obj, code=200):
    return http_util.Respond(request, obj, 'application/json', code=code)

  def _guarded(self, request, fn):
    """fn() -> object answered as JSON; known errors become {"error"} + status."""
    try:
      return self._json(request, fn())
    except _HttpError as e:
      status, message = e.status, str(e)
    except logdir_lib.BadName as e:
      status, message = 400, str(e)
    except logdir_lib.NotFound as e:
      status, message = 404, str(e)
    except views_file.ViewsFileError as e:
      status, message = 500, str(e)
    except compute.ComputeError as e:
      status, message = e.status, str(e)
    except assets_lib.AssetsMissing as e:
      status, message = 503, str(e)
    except OSError as e:
      status, message = 500, f'cannot read the logdir: {e.strerror or e}'
    except Exception as e:  # pylint: disable=broad-exception-caught
      _log.exception('tbprof plugin: %s', request.full_path)
      status, message = 500, f'internal error ({e.__class__.__name__}); see TensorBoard\'s log'
    return self._json(request, {'error': message}, code=status)

  @staticmethod
  def _arg(request, name, required=True):
    value = request.args.get(name)
    if required and not value:
      raise _HttpError(400, f'missing parameter {name!r}')
    return value

  # --- routes --------------------------------------------------------------------

  @wrappers.Request.application
  def _serve_index(self, request):
    return self._static(request, 'index.js')

  def _static(self, request, name):
    try:
      body, ctype = self._assets.get(name)
    except assets_lib.AssetsMissing as e:
      return self._json(request, {'error': str(e)}, code=503)
    return http_util.Respond(request, body, ctype)

  def _static_app(self, name):
    @wrappers.Request.application
    def app(request):
      return self._static(request, name)
    return app

  @wrappers.Request.application
  def _serve_runs(self, request):
    def runs():
      out = []
      for run, run_dir in sorted(self._logdir.runs().items()):
        hosts = self._logdir.hosts(run)
        have = [h for h in hosts
                if os.path.exists(os.path.join(run_dir, h + logdir_lib.VIEWS_SUFFIX))]
        out.append({'run': run, 'hosts': hosts,
                    'views': 'tbprof' if len(have) == len(hosts) else
                             'partial' if have else 'none'})
      return {'runs': out}
    return self._guarded(request, runs)

  @wrappers.Request.application
  def _serve_data(self, request):
    return self._guarded(request, lambda: self._data(request))

  def _data(self, request):
    run = self._arg(request, 'run')
    view = self._arg(request, 'view')
    if view not in views_file.VIEWS:
      raise _HttpError(404, f'no view {view!r} (views: {", ".join(views_file.VIEWS)})')
    run_dir = self._logdir.run_dir(run)
    hosts = self._logdir.hosts(run)
    if view == 'distributed' and len(hosts) > 1:
      target = os.path.join(run_dir, logdir_lib.RUN_VIEWS_NAME)
      self._logdir.safe_existing(target)
      # The run-level file is the plugin's own: made again when a host was
      # added or rewritten since (tbprof watch adds hosts to a live run).
      newest = max(os.stat(self._logdir.host_file(run, h, logdir_lib.XPLANE_SUFFIX)).st_mtime_ns
                   for h in hosts)
      computed = compute.ensure_views(target, [run_dir], newer_than=newest)
      out = views_file.run_view(self._cache.get(target))
    else:
      host = self._arg(request, 'host') if view != 'distributed' else \
          (request.args.get('host') or hosts[0])
      target = self._logdir.host_file(run, host, logdir_lib.VIEWS_SUFFIX)
      self._logdir.safe_existing(target)
      xplane = self._logdir.host_file(run, host, logdir_lib.XPLANE_SUFFIX)
      computed = compute.ensure_views(target, [xplane])
      data = self._cache.get(target)
      if view == 'distributed':
        out = views_file.run_view(data)
      else:
        out = views_file.host_view(data, host, view)
    out['meta'].update({'run': run, 'view': view, 'file': os.path.basename(target),
                        'computedNow': computed, 'hosts': hosts})
    return out

  @wrappers.Request.application
  def _serve_diff(self, request):
    def diff():
      base, new = self._arg(request, 'base'), self._arg(request, 'new')
      pct = request.args.get('fail_if_slower', '5')
      try:
        pct_value = float(pct)
      except ValueError:
        raise _HttpError(400, f'fail_if_slower must be a number, not {pct!r}') from None
      if not 0 <= pct_value <= 1000:
        raise _HttpError(400, 'fail_if_slower must be between 0 and 1000')
      result = compute.diff(self._logdir.run_dir(base), self._logdir.run_dir(new),
                            f'{pct_value:g}')
      return {'meta': {'base': base, 'new': new, 'failIfSlowerPct': pct_value,
                       'gateError': result.pop('gateError', '')}, 'data': result}
    return self._guarded(request, diff)
