#!/usr/bin/env python3
"""Writes the small Kineto fixtures that tests/xprof/test_judge.py and the
converter tests use to pin behaviour the real plugin revealed (issue 10).

  pdl_overlapping_kernels.json  kernels of one stream that overlap in time
                                (programmatic dependent launch)
  gpu_annotations.json          gpu_user_annotation and cuda_sync events that
                                outlast the step's kernels
  rank3_single_gpu.json         a rank-3 trace: one GPU, device 3
  memory_without_addr.json      2021-format [memory] events (no Addr)

Run from anywhere: python3 make_judge_fixtures.py (writes beside itself).
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

H100 = {'id': 0, 'name': 'NVIDIA H100 80GB HBM3', 'totalGlobalMem': 85018279936,
        'computeMajor': 9, 'computeMinor': 0, 'maxThreadsPerBlock': 1024,
        'maxThreadsPerMultiprocessor': 2048, 'regsPerBlock': 65536, 'warpSize': 32,
        'sharedMemPerBlock': 49152, 'numSms': 132, 'regsPerMultiprocessor': 65536,
        'sharedMemPerBlockOptin': 232448, 'sharedMemPerMultiprocessor': 233472}


def kernel(name, ts, dur, corr, ext, device=0, stream=7):
  return {'ph': 'X', 'cat': 'kernel', 'name': name, 'pid': device, 'tid': stream, 'ts': ts,
          'dur': dur, 'args': {'External id': ext, 'device': device, 'stream': stream,
                               'correlation': corr, 'registers per thread': 32,
                               'shared memory': 0, 'blocks per SM': 1.0,
                               'warps per SM': 8.0, 'grid': [132, 1, 1], 'block': [256, 1, 1],
                               'est. achieved occupancy %': 12}}


def launch(ts, corr, ext, device=0):
  return {'ph': 'X', 'cat': 'cuda_runtime', 'name': 'cudaLaunchKernel', 'pid': 100, 'tid': 100,
          'ts': ts, 'dur': 4, 'args': {'cbid': 211, 'correlation': corr, 'External id': ext,
                                      'device': device}}


def op(name, ts, dur, ext):
  return {'ph': 'X', 'cat': 'cpu_op', 'name': name, 'pid': 100, 'tid': 100, 'ts': ts,
          'dur': dur, 'args': {'External id': ext}}


def step(n, ts, dur):
  return {'ph': 'X', 'cat': 'user_annotation', 'name': f'ProfilerStep#{n}', 'pid': 100,
          'tid': 100, 'ts': ts, 'dur': dur, 'args': {'External id': 1000 + n}}


def steps_with(kernels_per_step, device=0):
  """Three steps; kernels_per_step(step_start) -> [(name, offset, dur)]."""
  events = []
  corr = 1
  for n in range(3):
    start = 1000 + n * 1000
    events.append(step(n + 1, start, 900))
    for name, offset, dur in kernels_per_step(start):
      ext = 10 * corr
      events.append(op('aten::mm', start + 10 + corr % 10, 20, ext))
      events.append(launch(start + 12 + corr % 10, corr, ext, device))
      events.append(kernel(name, start + offset, dur, corr, ext, device))
      corr += 1
  return events


def write(name, events, props=(H100,), extra=None):
  doc = {'schemaVersion': 1, 'deviceProperties': list(props), 'traceEvents': events,
         'displayTimeUnit': 'ms', 'baseTimeNanoseconds': 1700000000000000000}
  doc.update(extra or {})
  with open(os.path.join(HERE, name), 'w') as f:
    json.dump(doc, f, indent=None, separators=(',', ':'))
    f.write('\n')


def pdl():
  # In each step: gemm_a 100..400 and, launched with PDL, gemm_b starting at
  # 300 (before gemm_a ends) and ending at 700; then a short epilogue kernel.
  return steps_with(lambda s: [('gemm_a_pdl_kernel', 100, 300),
                               ('gemm_b_pdl_kernel', 300, 400),
                               ('epilogue_kernel', 720, 20)])


def annotations():
  events = steps_with(lambda s: [('conv_kernel', 100, 200), ('relu_kernel', 310, 40)])
  for n in range(3):
    start = 1000 + n * 1000
    # GPU copies of the step and of a user range; the sync wait after the
    # last kernel lasts until 850 (the host blocks in cudaDeviceSynchronize).
    events.append({'ph': 'X', 'cat': 'gpu_user_annotation', 'name': f'ProfilerStep#{n + 1}',
                   'pid': 0, 'tid': 7, 'ts': start + 100, 'dur': 250,
                   'args': {'External id': 1000 + n + 1}})
    events.append({'ph': 'X', 'cat': 'gpu_user_annotation', 'name': 'forward', 'pid': 0,
                   'tid': 7, 'ts': start + 120, 'dur': 600, 'args': {'External id': 5000 + n}})
    events.append({'ph': 'X', 'cat': 'cuda_runtime', 'name': 'cudaDeviceSynchronize',
                   'pid': 100, 'tid': 100, 'ts': start + 360, 'dur': 500,
                   'args': {'cbid': 165, 'correlation': 900 + n}})
    events.append({'ph': 'X', 'cat': 'cuda_sync', 'name': 'Device Synchronize', 'pid': 0,
                   'tid': 7, 'ts': start + 360, 'dur': 490,
                   'args': {'cuda_sync_kind': 'Device Synchronize', 'stream': 7,
                            'correlation': 900 + n, 'device': 0}})
  return events


def rank3():
  props = dict(H100, id=3)
  return steps_with(lambda s: [('sgemm_rank3_kernel', 100, 300)], device=3), [props]


def memory_without_addr():
  events = steps_with(lambda s: [('fill_kernel', 100, 100)])
  ts = 1005
  for i, size in enumerate([4096, 8192, -4096, 1 << 20, -8192, -(1 << 20)]):
    events.append({'ph': 'i', 'cat': 'cpu_instant_event', 's': 't', 'name': '[memory]',
                   'pid': 100, 'tid': 100, 'ts': ts + 300 * i,
                   'args': {'Device Type': 1, 'Device Id': 0, 'Bytes': size}})
  return events


if __name__ == '__main__':
  write('pdl_overlapping_kernels.json', pdl())
  write('gpu_annotations.json', annotations())
  events, props = rank3()
  write('rank3_single_gpu.json', events, props,
        {'distributedInfo': {'backend': 'nccl', 'rank': 3, 'world_size': 4}})
  write('memory_without_addr.json', memory_without_addr())
