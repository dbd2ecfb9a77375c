"""tbprof: TensorBoard profile-plugin data from PyTorch, Chrome and CUPTI traces.

The work is done by the tbprof C++ command-line tool and the CUPTI collector
library that this package installs; Python only finds and calls them.

  tbprof.binary_path()     the tbprof executable
  tbprof.collector_path()  libtbprof_cupti.so (for CUDA_INJECTION64_PATH)
  tbprof.tensorboard_trace_handler(logdir)
                           drop-in for torch.profiler.tensorboard_trace_handler
                           that writes <logdir>/plugins/profile/<run>/<host>.xplane.pb

Importing this package does not import torch.
"""

from tbprof._paths import TbprofError, binary_path, collector_path
from tbprof.torch_handler import TensorboardTraceHandler, tensorboard_trace_handler


def _version():
  from importlib import metadata  # pylint: disable=import-outside-toplevel
  try:
    return metadata.version('tbprof')
  except metadata.PackageNotFoundError:  # Used from a source tree (python/ on sys.path).
    return '0+unknown'


__version__ = _version()

__all__ = ['TbprofError', 'TensorboardTraceHandler', 'binary_path', 'collector_path',
           'tensorboard_trace_handler', '__version__']
