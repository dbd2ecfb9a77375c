"""tbprof's TensorBoard tab: the views tbprof computes, served to TensorBoard.

Registered through the `tensorboard_plugins` entry point (pyproject.toml), so
`tensorboard --logdir DIR` shows a TBPROF tab beside PROFILE once the tbprof
package is installed. Importing this package needs TensorBoard; `import
tbprof` does not import it. docs/tensorboard_tab.md describes the tab.
"""

from tbprof.tensorboard_plugin.plugin import PLUGIN_NAME, TbprofPlugin

__all__ = ['PLUGIN_NAME', 'TbprofPlugin']
