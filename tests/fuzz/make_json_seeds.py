#!/usr/bin/env python3
"""Cuts small fuzz seeds (< 100 KB) out of the real Kineto traces in
../shared/testdata/kineto: a time window around the first kernel launch
(events overlapping it, so ProfilerStep roots and enclosing ops stay), the
GPU events of the launches kept, all metadata events and every top-level
key (deviceProperties, distributedInfo, ...). Writes them to
tests/fuzz/corpus/chrome_json/ and, prefixed with the "compress" mode byte,
to tests/fuzz/corpus/chrome_json_gzip/. Run from the repository root."""
import gzip
import json
import os
import sys

SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../shared/testdata/kineto')
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus')
SOURCES = {
    'bert_h100': 'h100_bert_small_inference.json.gz',
    'qwen_h100': 'h100_qwen_inference.json.gz',
    'resnet50_v100': 'resnet50_v100_dataloader_workers0.pt.trace.json.gz',
    'dlrm_rank0': 'dlrm_8ranks/worker0_step_12.1694128201545.pt.trace.json.gz',
}
GPU_CATS = {'kernel', 'gpu_memcpy', 'gpu_memset', 'Kernel', 'Memcpy', 'Memset'}


def corr(e):
    a = e.get('args') or {}
    return a.get('correlation', a.get('External id'))


def cut(doc, target_kernels):
    events = doc['traceEvents'] if isinstance(doc, dict) else doc
    timed = [e for e in events if isinstance(e.get('ts'), (int, float))]
    gpu_all = [e for e in timed if e.get('cat') in GPU_CATS]
    gpu_corr = {corr(e) for e in gpu_all}
    launches = [e for e in timed if e.get('cat') in ('cuda_runtime', 'Runtime') and
                corr(e) in gpu_corr]
    start = min(e['ts'] for e in launches) if launches else min(e['ts'] for e in timed)
    width = 20.0
    while True:
        end = start + width
        window = [e for e in timed if e.get('cat') not in GPU_CATS and e['ts'] < end and
                  e['ts'] + float(e.get('dur', 0) or 0) >= start]
        kept_corr = {corr(e) for e in window if e.get('cat') in ('cuda_runtime', 'Runtime')}
        gpu = [e for e in gpu_all if corr(e) in kept_corr]
        if len(gpu) >= target_kernels or width > 1e9:
            break
        width *= 1.3
    meta = [e for e in events if e.get('ph') == 'M'][:12]
    memory = [e for e in window if e.get('ph') == 'i'][:20]
    # Python frames dominate modern traces but the converter treats them like
    # any host op; keep a few.
    python = [e for e in window if e.get('cat') == 'python_function'][:8]
    window = [e for e in window if e.get('ph') != 'i' and e.get('cat') != 'python_function']
    window = window + python + memory
    picked = meta + window + gpu
    if isinstance(doc, dict):
        out = dict(doc)
        out.pop('metadata', None)  # Large and unused by the converter.
        out['traceEvents'] = picked
        return out
    return picked


def main():
    os.makedirs(os.path.join(OUT, 'chrome_json'), exist_ok=True)
    os.makedirs(os.path.join(OUT, 'chrome_json_gzip'), exist_ok=True)
    for name, path in SOURCES.items():
        doc = json.load(gzip.open(os.path.join(SHARED, path)))
        for target in (6, 2):
            small = cut(doc, target)
            text = json.dumps(small, separators=(',', ':')).encode()
            if len(text) > 70000:
                continue
            seed = '%s_%d.json' % (name, target)
            with open(os.path.join(OUT, 'chrome_json', seed), 'wb') as f:
                f.write(text)
            with open(os.path.join(OUT, 'chrome_json_gzip', seed), 'wb') as f:
                f.write(b'\x00' + text)  # even first byte: gzip-compress the rest
            print(seed, len(text), 'bytes', file=sys.stderr)


if __name__ == '__main__':
    main()
