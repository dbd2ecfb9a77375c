"""Steps inferred for traces without step markers, judged by xprof.

The ResNet-50 traces have ProfilerStep#N markers, so they give the truth:
with the markers removed (and, second, also the DataLoader and optimizer
events), tbprof must infer steps that TensorBoard shows with the same step
times as the real ones. Where nothing repeats, nothing is inferred and
`inspect` says why. `--steps` overrides the choice.
"""

import gzip
import json

import pytest

import conftest
from conftest import SHARED
from test_judge import xprof_steps

RESNET = SHARED / 'kineto' / 'resnet50_v100_dataloader_workers0.pt.trace.json.gz'


def _without(trace, prefixes):
  events = [e for e in trace['traceEvents'] if not str(e.get('name', '')).startswith(prefixes)]
  return dict(trace, traceEvents=events)


@pytest.fixture(scope='module')
def resnet_variants(tmp_path_factory):
  if not RESNET.exists():
    pytest.skip(f'{RESNET} missing')
  work = tmp_path_factory.mktemp('steps')
  trace = json.load(gzip.open(RESNET))
  variants = {'markers': RESNET}
  for name, prefixes in (('dataloader', ('ProfilerStep#',)),
                         ('kernels', ('ProfilerStep#', 'enumerate(DataLoader)', 'Optimizer.'))):
    path = work / f'{name}.json'
    path.write_text(json.dumps(_without(trace, prefixes)))
    variants[name] = path
  out = {}
  for name, path in variants.items():
    out[name] = conftest.convert(path, work / f'logdir_{name}', run='r')
  return out, variants


@pytest.mark.parametrize('variant,method', [('dataloader', 'enumerate(DataLoader)'),
                                            ('kernels', 'kernel sequence period')])
def test_inferred_steps_match_the_real_ones_in_tensorboard(resnet_variants, variant, method):
  converted, _ = resnet_variants
  real, _ = xprof_steps(converted['markers'])
  inferred, _ = xprof_steps(converted[variant])
  assert len(inferred) == len(real) == 4  # 6 steps, first and last dropped.
  for r, i in zip(real, inferred):
    assert i['stepTimeMs'] == pytest.approx(r['stepTimeMs'], rel=0.01)
    assert i['deviceComputeTimeMs'] == pytest.approx(r['deviceComputeTimeMs'], rel=0.01)
  info = conftest.inspect_json(converted[variant][0])
  assert any(w.startswith('steps inferred by tbprof') and method in w for w in info['warnings'])
  # No "No step marker observed": the overview's step graph has data.
  tools = {t['tool']: t for t in info['tools']}
  assert tools['overview_page']['has_data'], tools['overview_page']


def test_steps_flag_overrides(resnet_variants):
  _, variants = resnet_variants
  none = conftest.run_tbprof('report', variants['dataloader'], '--json', '--steps=none',
                             '--quiet')
  assert json.loads(none.stdout)['input_pipeline'].get('stepDetails', []) == []
  markers = conftest.run_tbprof('report', variants['dataloader'], '--json', '--steps=markers',
                                '--quiet')
  assert json.loads(markers.stdout)['input_pipeline'].get('stepDetails', []) == []
  infer = conftest.run_tbprof('report', variants['markers'], '--json', '--steps=infer',
                              '--keep-all-steps', '--quiet')
  names = [s['stepName'] for s in json.loads(infer.stdout)['input_pipeline']['stepDetails']]
  assert names and all(n.startswith('Step#') for n in names)
  bad = conftest.run_tbprof('report', variants['markers'], '--steps=sometimes', check=False)
  assert bad.returncode == 2 and 'sometimes' in bad.stderr


def test_nothing_repeats_nothing_inferred(tmp_path):
  events = []
  for i in range(12):
    events.append({'ph': 'X', 'cat': 'cuda_runtime', 'name': 'cudaLaunchKernel', 'pid': 1,
                   'tid': 1, 'ts': i * 100, 'dur': 5, 'args': {'correlation': i + 1}})
    events.append({'ph': 'X', 'cat': 'kernel', 'name': f'kernel_{i}', 'pid': 0, 'tid': 7,
                   'ts': i * 100 + 10, 'dur': 50,
                   'args': {'correlation': i + 1, 'device': 0, 'stream': 7}})
  path = tmp_path / 'once.json'
  path.write_text(json.dumps({'traceEvents': events}))
  info = conftest.inspect_json(path)
  assert any('none inferred' in w and 'does not repeat' in w for w in info['warnings'])
  tools = {t['tool']: t for t in info['tools']}
  assert not tools['overview_page']['has_data']


def test_real_xplane_without_markers_is_left_alone_unless_asked():
  jax = SHARED / 'xspace' / 'jax08_mi300x8_conv.xplane.pb'
  if not jax.exists():
    pytest.skip('shared testdata missing')
  auto = conftest.inspect_json(jax)
  assert not any('steps inferred' in w for w in auto['warnings'])
  asked = conftest.run_tbprof('inspect', jax, '--json', '--steps=infer', '--quiet')
  warnings = json.loads(asked.stdout)['warnings']
  # Either steps were found or the reason is given; never silence.
  assert any(w.startswith('steps inferred by tbprof') or 'none inferred' in w for w in warnings)


def test_fake_cupti_capture_of_a_repeating_kernel_sequence(tmp_path):
  """The collector's capture of a job: steps from the kernel period."""
  from test_judge import _make_raw_capture  # pylint: disable=import-outside-toplevel
  capture = _make_raw_capture(tmp_path / 'capture')  # 6 steps of the fake job.
  info = json.loads(conftest.run_tbprof('inspect', capture, '--json', '--steps=infer',
                                        '--quiet').stdout)
  inferred = [w for w in info['warnings'] if w.startswith('steps inferred by tbprof')]
  assert inferred and 'kernel sequence period' in inferred[0], info['warnings']
  assert info['steps']['step_roots'] == 6
  paths = conftest.convert(capture, tmp_path / 'logdir', run='r', extra=('--steps=infer',))
  rows, _ = xprof_steps(paths)
  assert len(rows) >= 3  # xprof shows them (first and last dropped of > 5).
