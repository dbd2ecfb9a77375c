#!/usr/bin/env python3
"""Writes the memory-snapshot fixtures of tbprof's tests.

The structure follows what torch.cuda.memory._snapshot() returns and
torch/cuda/_memory_viz.py reads: {"segments": [...], "device_traces": [[...]],
"allocator_settings": {...}, "external_annotations": [...]}. Frame dicts are
shared objects and frame lists are sometimes shared between events, as in
PyTorch (py_symbolize deduplicates them), so the pickles use memo references
to containers. Run from anywhere: python3 make_fixtures.py [out_dir]
"""
import datetime
import gzip
import os
import pickle
import random
import struct
import sys

MIB = 1 << 20
BASE = 0x7F3A00000000


def frame(filename, line, name):
    return {"filename": filename, "line": line, "name": name}


USER = [frame("/home/u/train.py", 40 + i, f"step{i}") for i in range(6)]
TORCH = frame("/usr/lib/python3/site-packages/torch/nn/modules/linear.py", 125, "forward")
CPP = frame("c10/cuda/CUDACachingAllocator.cpp", 1181, "malloc")
ALLOC_SETTINGS = {"PYTORCH_CUDA_ALLOC_CONF": "", "max_split_size": -1,
                  "garbage_collection_threshold": 0.0, "expandable_segments": False,
                  "roundup_power2_divisions": {"1": 0, "2": 0}}


def stack(i):
    # Innermost first: C++ allocator, torch, then user code.
    return [CPP, TORCH, USER[i % len(USER)], USER[(i + 1) % len(USER)]]


class Device:
    """A bump allocator inside segments, recording PyTorch-style events."""

    def __init__(self, device, seg_size, t0, with_time=True):
        self.device, self.seg_size, self.t, self.with_time = device, seg_size, t0, with_time
        self.trace, self.segments, self.live = [], [], {}
        self.next_seg = BASE + device * (1 << 36)

    def event(self, action, addr, size, frames):
        self.t += 7
        e = {"action": action, "addr": addr, "size": size, "stream": 0, "frames": frames}
        if self.with_time:
            e["time_us"] = self.t
        e["compile_context"] = "N/A"
        e["user_metadata"] = ""
        self.trace.append(e)

    def new_segment(self, size, record=True, frames=None):
        seg = {"address": self.next_seg, "total_size": size, "used": 0, "frames": frames or []}
        self.next_seg += size + (1 << 30)
        self.segments.append(seg)
        if record:
            self.event("segment_alloc", seg["address"], size, seg["frames"])
        return seg

    def place(self, size):
        for seg in self.segments:
            if seg["total_size"] - seg["used"] >= size:
                addr = seg["address"] + seg["used"]
                seg["used"] += size
                return addr
        seg = self.new_segment(max(self.seg_size, size), frames=stack(0))
        seg["used"] = size
        return seg["address"]

    def alloc(self, size, frames, record=True):
        addr = self.place(size)
        self.live[addr] = (size, frames)
        if record:
            self.event("alloc", addr, size, frames)
        return addr

    def free(self, addr, frames, complete=True):
        size, _ = self.live[addr]
        self.event("free_requested", addr, size, frames)
        if complete:
            del self.live[addr]
            self.event("free_completed", addr, size, frames)

    def dump_segments(self, pending=()):
        out = []
        for seg in self.segments:
            start, end = seg["address"], seg["address"] + seg["total_size"]
            blocks, at = [], start
            for addr in sorted(a for a in self.live if start <= a < end):
                size, frames = self.live[addr]
                if addr > at:
                    blocks.append({"size": addr - at, "requested_size": 0, "state": "inactive",
                                   "frames": []})
                state = "active_pending_free" if addr in pending else "active_allocated"
                blocks.append({"size": size, "requested_size": size - 16, "state": state,
                               "frames": frames})
                at = addr + size
            if at < end:
                blocks.append({"size": end - at, "requested_size": 0, "state": "inactive",
                               "frames": []})
            active = sum(b["size"] for b in blocks if b["state"] != "inactive")
            out.append({"device": self.device, "address": start, "total_size": seg["total_size"],
                        "allocated_size": active, "active_size": active,
                        "requested_size": active, "stream": 0, "segment_type": "large",
                        "segment_pool_id": (0, 0), "is_expandable": False,
                        "frames": seg["frames"], "blocks": blocks})
        return out


def small(with_time=True):
    """Two devices; blocks live before recording; a pending free; an oom."""
    d0 = Device(0, 20 * MIB, 1_700_000_000_000_000, with_time)
    d0.new_segment(20 * MIB, record=False)               # Reserved before recording.
    early = d0.alloc(2 * MIB, stack(1), record=False)    # Freed in the trace, never allocated.
    d0.alloc(1 * MIB, stack(2), record=False)            # Still live at dump, never allocated.
    shared = stack(3)                                    # One list object for two events.
    a = d0.alloc(4 * MIB, shared)
    b = d0.alloc(8 * MIB, stack(4))
    d0.free(early, stack(5))
    c = d0.alloc(12 * MIB, stack(0))                     # New segment: segment_alloc first.
    d0.free(a, shared)
    d0.free(b, stack(1), complete=False)                 # Pending at dump (record_stream).
    d0.event("oom", 0, 64 * MIB, [])
    d0.trace[-1]["device_free"] = 3 * MIB
    d0.free(c, stack(2))
    d0.event("snapshot", 0, 0, [])
    d1 = Device(1, 4 * MIB, 1_700_000_000_000_500, with_time)
    x = d1.alloc(1 * MIB, stack(3))
    d1.alloc(2 * MIB, stack(4))
    d1.free(x, stack(5))
    return {"segments": d0.dump_segments(pending={b}) + d1.dump_segments(),
            "device_traces": [d0.trace, d1.trace],
            "allocator_settings": ALLOC_SETTINGS, "external_annotations": []}


def as_pytorch_writes_it(snap):
    """The keys exactly as torch/csrc/cuda/Module.cpp writes them: blocks carry
    "address", an oom event has "device_free" and no "addr", events without a
    context have no "frames", and segments/blocks without one share one empty
    list object."""
    empty = []
    for seg in snap["segments"]:
        addr = seg["address"]
        for b in seg["blocks"]:
            b["address"] = addr
            addr += b["size"]
            if not b["frames"]:
                b["frames"] = empty
        if not seg["frames"]:
            seg["frames"] = empty
    for trace in snap["device_traces"]:
        for e in trace:
            if e["action"] == "oom":
                del e["addr"]
            if not e["frames"]:
                del e["frames"]
    return snap


def random_snapshot(events, seed):
    rng = random.Random(seed)
    d = Device(0, 64 * MIB, 1_700_000_000_000_000)
    d.new_segment(64 * MIB, record=False)
    for i in range(40):
        d.alloc(rng.randrange(1, 64) * 512, stack(i), record=False)
    while len(d.trace) < events:
        if d.live and rng.random() < 0.45:
            d.free(rng.choice(list(d.live)), stack(rng.randrange(6)))
        else:
            d.alloc(rng.randrange(1, 4096) * 512, stack(rng.randrange(6)))
    return {"segments": d.dump_segments(), "device_traces": [d.trace],
            "allocator_settings": ALLOC_SETTINGS, "external_annotations": []}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    def write(name, data):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    snap = small()
    for proto in (2, 4, 5):
        write(f"small.p{proto}.pickle", pickle.dumps(snap, protocol=proto))
    with open(os.path.join(out, "small.p4.pickle.gz"), "wb") as f:
        f.write(gzip.compress(pickle.dumps(snap, protocol=4), mtime=0))
    write("no_time.p4.pickle", pickle.dumps(small(with_time=False), protocol=4))
    write("pytorch_keys.p4.pickle", pickle.dumps(as_pytorch_writes_it(small()), protocol=4))
    write("random.p5.pickle", pickle.dumps(random_snapshot(3000, 7), protocol=5))
    write("segments_only.p4.pickle", pickle.dumps(snap["segments"], protocol=4))
    write("not_snapshot.p4.pickle", pickle.dumps({"a": [1, 2.5, None]}, protocol=4))
    write("code.p2.pickle", pickle.dumps({"t": datetime.date(2020, 1, 2)}, protocol=2))
    full = pickle.dumps(snap, protocol=4)
    write("truncated.p4.pickle", full[: len(full) // 2])
    # A string that claims 10 GB, right after the protocol header.
    write("huge_length.p4.pickle", b"\x80\x04\x8d" + struct.pack("<Q", 10 * 10**9) + b"abc")


if __name__ == "__main__":
    main()
