#!/usr/bin/env python3
"""Checks tbprof_scale_trace on the real Kineto traces with Python's json module.

usage: check_scaled_traces.py SCALE_TRACE_BINARY TESTDATA_DIR [COPIES]

For every *.json.gz under TESTDATA_DIR/kineto (recursively) it writes a scaled
copy (half of them gzip-compressed), loads it with json.load and checks that:
  - the output is valid JSON with the same top-level members;
  - it holds COPIES copies of every non-metadata event and one of each metadata event;
  - copy k of every event equals the original with ts (+ args "external ts")
    shifted by k * time stride, ids shifted by k * id stride and ProfilerStep#N
    renumbered by k * step stride, and nothing else changed;
  - correlation ids of GPU events and flow ids are unique across copies.
Exits non-zero on the first failure.
"""
import copy
import decimal
import glob
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile

ID_KEYS = ("correlation", "External id", "external id", "Ev Idx", "Python id",
           "Python parent id", "Record function id", "Sequence number")
STEP = re.compile(r"^ProfilerStep#(\d+)$")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f, parse_float=decimal.Decimal)


def shift_id(v, delta):
    if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
        return v + delta
    if isinstance(v, str) and v.isdigit():
        return str(int(v) + delta)
    if isinstance(v, str) and v.lower().startswith("0x"):
        return "0x%x" % (int(v, 16) + delta)
    return v


def shift_time(v, delta):
    if isinstance(v, str):
        return str(decimal.Decimal(v) + delta)
    return v + delta


def expected_copy(event, k, strides):
    """Copy k of `event` as the scaler should write it."""
    t, i, s = (k * x for x in strides)
    e = copy.deepcopy(event)
    if "ts" in e:
        e["ts"] = shift_time(event["ts"], t)
    for key in ("id", "bind_id"):
        if key in e:
            e[key] = shift_id(e[key], i)
    m = STEP.match(e.get("name", "")) if isinstance(e.get("name"), str) else None
    if m:
        e["name"] = "ProfilerStep#%d" % (int(m.group(1)) + s)
    args = e.get("args")
    if isinstance(args, dict):
        for key in ID_KEYS:
            if key in args:
                args[key] = shift_id(args[key], i)
        if "external ts" in args:
            args["external ts"] = shift_time(event["args"]["external ts"], t)
    return e


def canon(event):
    return json.dumps(event, sort_keys=True, default=str)


def check(binary, path, copies, out_dir, gz):
    out = os.path.join(out_dir, os.path.basename(path).replace(".json.gz", "") +
                       (".scaled.json.gz" if gz else ".scaled.json"))
    run = subprocess.run([binary, "--copies", str(copies), "--force", path, out],
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise AssertionError("%s failed: %s" % (path, run.stderr))
    m = re.search(r"time stride (\d+) us, id stride (\d+), step stride (\d+)", run.stderr)
    strides = tuple(int(x) for x in m.groups())
    original, scaled = load(path), load(out)
    if isinstance(original, list):
        original = {"traceEvents": original}
        scaled = {"traceEvents": scaled}
    if set(original) != set(scaled):
        raise AssertionError("%s: top-level members differ" % path)
    for key in original:
        if key != "traceEvents" and canon(original[key]) != canon(scaled[key]):
            raise AssertionError("%s: member %s changed" % (path, key))
    events = original["traceEvents"]
    metadata = [e for e in events if isinstance(e, dict) and e.get("ph") == "M"]
    others = [e for e in events if not (isinstance(e, dict) and e.get("ph") == "M")]
    want = [canon(e) for e in events]
    for k in range(1, copies):
        want += [canon(expected_copy(e, k, strides)) for e in others]
    got = [canon(e) for e in scaled["traceEvents"]]
    if sorted(got) != sorted(want):
        missing = set(want) - set(got)
        raise AssertionError("%s: %d events, expected %d; e.g. missing %s" %
                             (path, len(got), len(want), next(iter(missing), None)))
    flows = [(e.get("ph"), e.get("id")) for e in scaled["traceEvents"]
             if isinstance(e, dict) and e.get("ph") in ("s", "f")]
    gpu_corr = [(e["args"].get("correlation"), e.get("name")) for e in scaled["traceEvents"]
                if isinstance(e, dict) and e.get("cat") in ("kernel", "Kernel", "gpu_memcpy",
                                                           "Memcpy", "gpu_memset", "Memset")
                and "correlation" in e.get("args", {})]
    orig_flows = [(e.get("ph"), e.get("id")) for e in others if e.get("ph") in ("s", "f")]
    if len(set(flows)) != copies * len(set(orig_flows)):
        raise AssertionError("%s: flow ids not unique per copy" % path)
    orig_steps = {e["name"] for e in others if STEP.match(str(e.get("name", "")))}
    steps = {e["name"] for e in scaled["traceEvents"] if STEP.match(str(e.get("name", "")))}
    if len(steps) != copies * len(orig_steps):
        raise AssertionError("%s: step names not unique per copy" % path)
    print("ok %s: %d -> %d events (%d metadata), %d GPU correlations, %d steps, "
          "strides %s" % (os.path.relpath(path), len(events), len(got), len(metadata),
                          len(set(gpu_corr)), len(steps), strides))
    os.remove(out)


def main():
    binary, testdata = sys.argv[1], sys.argv[2]
    copies = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    paths = sorted(glob.glob(os.path.join(testdata, "kineto", "**", "*.json.gz"),
                             recursive=True))
    if not paths:
        print("no Kineto traces under %s; nothing to check" % testdata)
        return 0
    with tempfile.TemporaryDirectory() as out_dir:
        for n, path in enumerate(paths):
            check(binary, path, copies, out_dir, gz=(n % 2 == 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
