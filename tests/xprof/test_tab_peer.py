"""torch-tb-profiler 0.4.3 as second judge of the tab's step breakdown (issue 25, item 5).

On the ResNet-50 workers0 trace, torch-tb-profiler's per-step breakdown
(Kernel, Memcpy, Memset, Runtime, DataLoader, CPU Exec, Other) against the
one the tab's Overview shows (tbprof's with-host breakdown, `tbprof report
--json --breakdown=with-host`), step by step on the steps both keep:

- the step time is the same within STEP_TOLERANCE (0.1%);
- each category, as a share of the step, is within its CATEGORY_TOLERANCE_PTS
  (percentage points of the step): Kernel + Memset and CPU Exec 0.01 (equal
  since zero-length kernels stopped counting as busy time: the union of the
  step's kernels and memsets), Memcpy and Runtime 0.1, DataLoader and Other
  0.5. docs/views.md says where the differences come from.

Categories: Kernel + Memset = device compute (tbprof counts memsets as
compute, as xprof does), Memcpy = host-to-device + device-to-host +
device-to-device, Runtime = kernel launch, DataLoader = input (host wait),
CPU Exec = host compute, Other = idle / other, Communication = collectives.

The GPU summary (utilization, est. SM efficiency, occupancy per GPU) equals
torch-tb-profiler's within GPU_TOLERANCE_PTS over the same steps: all of
them (--keep-all-steps) on ResNet, the default on Qwen.

torch-tb-profiler lives in its own venv (scripts/python_envs.sh peer;
$TBPROF_PEER_VENV, default build/peer-venv): without it the test is
skipped, or fails under CI=true.
"""

import json
import os
import pathlib
import subprocess

import pytest

import conftest
import tab_fixtures

STEP_TOLERANCE = 0.001
# Measured on steps 17-20 (largest |difference|): Kernel+Memset 0.00, CPU Exec
# 0.00, Memcpy 0.05, Runtime 0.05, DataLoader 0.43, Other 0.43.
CATEGORY_TOLERANCE_PTS = {
    'Kernel+Memset': 0.01,
    'Memcpy': 0.1,
    'Communication': 0.01,
    'Runtime': 0.1,
    'DataLoader': 0.5,
    'CPU Exec': 0.01,
    'Other': 0.5,
}
# torch-tb-profiler category -> the tbprof stepDetails fields it corresponds to.
MAPPING = {
    'Kernel+Memset': ('deviceComputeMs',),
    'Memcpy': ('hostToDeviceMs', 'outputMs', 'deviceToDeviceMs'),
    'Communication': ('deviceCollectivesMs',),
    'Runtime': ('hostPrepareMs',),
    'DataLoader': ('hostWaitInputMs',),
    'CPU Exec': ('hostComputeMs',),
    'Other': ('unknownTimeMs',),
}


def _peer_python():
  venv = pathlib.Path(os.environ.get('TBPROF_PEER_VENV') or conftest.REPO / 'build' / 'peer-venv')
  python = venv / 'bin' / 'python'
  ok = python.exists() and subprocess.run([str(python), '-c', 'import torch_tb_profiler'],
                                          capture_output=True, check=False).returncode == 0
  if not ok:
    message = (f'torch-tb-profiler is not installed in {venv} '
               '(scripts/python_envs.sh peer makes it)')
    if os.environ.get('CI', '').lower() == 'true':
      pytest.fail(message, pytrace=False)
    pytest.skip(message)
  return python


def breakdowns(trace):
  """(tbprof steps by number, torch-tb-profiler steps by number), ms per category."""
  python = _peer_python()
  peer = json.loads(subprocess.run(
      [str(python), str(pathlib.Path(__file__).parent / 'ttp_breakdown.py'), str(trace)],
      capture_output=True, check=True, timeout=600).stdout)
  ours = conftest.report_json(trace, breakdown='with-host')['overview']['inputAnalysis']
  tbprof = {}
  for s in ours['stepDetails']:
    row = {k: sum(s.get(f, 0) for f in fields) for k, fields in MAPPING.items()}
    row['total'] = s['stepTimeMs']
    tbprof[s['stepNumber']] = row
  torch_tb = {}
  for s in peer['steps']:
    row = {k: sum(s.get(p, 0) for p in k.split('+')) / 1000 for k in MAPPING}
    row['total'] = s['totalUs'] / 1000
    torch_tb[s['step']] = row
  return tbprof, torch_tb


def test_resnet_workers0_breakdown_agrees_with_torch_tb_profiler():
  if not tab_fixtures.RESNET_W0.exists():
    pytest.skip(f'no {tab_fixtures.RESNET_W0}')
  tbprof, torch_tb = breakdowns(tab_fixtures.RESNET_W0)
  common = sorted(set(tbprof) & set(torch_tb))
  assert len(common) >= 4, (sorted(tbprof), sorted(torch_tb))
  worst = {}
  for n in common:
    ours, peer = tbprof[n], torch_tb[n]
    assert abs(ours['total'] - peer['total']) <= STEP_TOLERANCE * peer['total'], (n, ours, peer)
    for k in MAPPING:
      pts = 100 * (ours[k] - peer[k]) / peer['total']
      worst[k] = max(worst.get(k, 0), abs(pts))
      print(f'step {n} {k:14s} tbprof {ours[k]:8.3f} ms  torch-tb-profiler {peer[k]:8.3f} ms  '
            f'{pts:+.2f} pts')
  print('largest difference per category (percentage points of the step): ' +
        json.dumps({k: round(v, 2) for k, v in worst.items()}))
  over = {k: v for k, v in worst.items() if v > CATEGORY_TOLERANCE_PTS[k]}
  assert not over, f'over the tolerance {CATEGORY_TOLERANCE_PTS} (points): {over}'


GPU_TOLERANCE_PTS = 0.5


def peer_gpu_summary(trace):
  """torch-tb-profiler's GPU summary: {gpu ordinal: {'util', 'sm_eff', 'occ'}} in percent."""
  python = _peer_python()
  return {int(k): v for k, v in json.loads(subprocess.run(
      [str(python), str(pathlib.Path(__file__).parent / 'ttp_gpu_summary.py'), str(trace)],
      capture_output=True, check=True, timeout=600).stdout).items()}


@pytest.mark.parametrize('trace,keep_all_steps', [
    (tab_fixtures.RESNET_W0, True),
    (conftest.SHARED / 'kineto' / 'h100_qwen_inference.json.gz', False),
])
def test_gpu_summary_agrees_with_torch_tb_profiler(trace, keep_all_steps):
  if not trace.exists():
    pytest.skip(f'no {trace}')
  peer = peer_gpu_summary(trace)
  args = [os.environ['TBPROF'], 'report', str(trace), '--json', '--quiet']
  if keep_all_steps:
    args.append('--keep-all-steps')
  ours = json.loads(subprocess.run(args, capture_output=True, check=True, timeout=600).stdout)
  devices = {int(d['deviceOrdinal']): d for d in ours['gpu_summary']['devices']}
  assert set(devices) == set(peer), (devices, peer)
  for gpu, theirs in peer.items():
    d = devices[gpu]
    for ours_key, peer_key in (('utilizationPercent', 'util'), ('smEfficiencyPercent', 'sm_eff'),
                               ('occupancyPercent', 'occ')):
      print(f'{trace.name} GPU {gpu} {peer_key}: tbprof {d[ours_key]:.2f} '
            f'torch-tb-profiler {theirs[peer_key]:.2f}')
      assert abs(d[ours_key] - theirs[peer_key]) <= GPU_TOLERANCE_PTS, (peer_key, d, theirs)
