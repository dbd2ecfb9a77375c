#!/usr/bin/env python3
"""Scales a PyTorch CUDA memory snapshot (pickle) up to a target size, for
benchmarks: the device-0 trace of the input is repeated with shifted
addresses and times until the output reaches --bytes.

The output is written as Python's pickler writes protocol 4 (memo entries for
every str, dict and list; frame dicts shared through the memo as in
PyTorch's snapshots; a new frames list per event; batches of 1000 items per
APPENDS/SETITEMS), but streamed, so a 1 GB snapshot needs little memory.

    scale_memory_snapshot.py IN.pickle OUT.pickle --bytes 1e9
"""
import argparse
import gzip
import os
import pickle
import struct
import sys


class Writer:
    """The plain-data part of pickle protocol 4, with a memo by object id."""

    def __init__(self, out):
        self.out, self.memo, self.buf, self.next_index = out, {}, bytearray(), 0

    def flush(self):
        self.out.write(self.buf)
        self.buf = bytearray()

    def memoize(self, obj):
        self.memo[id(obj)] = (self.next_index, obj)  # Keep obj alive: ids stay unique.
        self.next_index += 1
        self.buf += b"\x94"

    def get(self, obj):
        entry = self.memo.get(id(obj))
        if entry is None:
            return False
        index = entry[0]
        self.buf += b"h" + bytes([index]) if index < 256 else b"j" + struct.pack("<I", index)
        return True

    def value(self, v):
        b = self.buf
        if v is None:
            b += b"N"
        elif v is True or v is False:
            b += b"\x88" if v else b"\x89"
        elif isinstance(v, int):
            if 0 <= v < 256:
                b += b"K" + bytes([v])
            elif 0 <= v < 65536:
                b += b"M" + struct.pack("<H", v)
            elif -(2**31) <= v < 2**31:
                b += b"J" + struct.pack("<i", v)
            else:
                raw = v.to_bytes((v.bit_length() + 8) // 8, "little", signed=True)
                b += b"\x8a" + bytes([len(raw)]) + raw
        elif isinstance(v, float):
            b += b"G" + struct.pack(">d", v)
        elif isinstance(v, str):
            if not self.get(v):
                raw = v.encode("utf-8", "surrogatepass")
                b += (b"\x8c" + bytes([len(raw)]) if len(raw) < 256
                      else b"X" + struct.pack("<I", len(raw))) + raw
                self.memoize(v)
        elif isinstance(v, dict):
            if not self.get(v):
                b += b"}"
                self.memoize(v)
                self.items(list(v.items()), b"u", pairs=True)
        elif isinstance(v, list):
            if not self.get(v):
                b += b"]"
                self.memoize(v)
                self.items(v, b"e")
        elif isinstance(v, tuple):
            if not self.get(v):
                b += b"("
                for x in v:
                    self.value(x)
                self.buf += b"t"
                self.memoize(v)
        else:
            raise TypeError(f"not plain data: {type(v)}")

    def items(self, seq, op, pairs=False):
        for start in range(0, len(seq), 1000):
            batch = seq[start:start + 1000]
            self.buf += b"("
            for x in batch:
                if pairs:
                    self.value(x[0])
                    self.value(x[1])
                else:
                    self.value(x)
            self.buf += op
            if len(self.buf) > (1 << 22):
                self.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--bytes", type=float, default=1e9, help="target size (default 1e9)")
    args = ap.parse_args()
    opener = gzip.open if open(args.input, "rb").read(2) == b"\x1f\x8b" else open
    with opener(args.input, "rb") as f:
        snap = pickle.load(f)
    trace = snap["device_traces"][0]
    if not trace:
        sys.exit("scale_memory_snapshot: the input has no device-0 trace events")
    times = [e["time_us"] for e in trace if "time_us" in e]
    span_us = (max(times) - min(times) + 1000) if times else 0
    target = int(args.bytes)
    with open(args.output, "wb") as out:
        w = Writer(out)
        w.buf += b"\x80\x04}"
        w.memoize(snap)
        w.buf += b"("
        for key in ("segments", "allocator_settings", "external_annotations"):
            w.value(key)
            w.value(snap.get(key, []))
        w.value("device_traces")
        outer = []
        w.buf += b"]"
        w.memoize(outer)
        inner = []
        w.buf += b"]"
        w.memoize(inner)
        rep, written = 0, 0
        while True:
            shift_addr, shift_t = rep << 40, rep * span_us
            events = []
            for e in trace:
                c = dict(e)
                c["addr"] = e["addr"] + shift_addr if e["addr"] else 0
                if "time_us" in e:
                    c["time_us"] = e["time_us"] + shift_t
                c["frames"] = list(e.get("frames", []))  # New list, shared frame dicts.
                events.append(c)
            w.items(events, b"e")
            w.flush()
            written = out.tell()
            rep += 1
            if written >= target:
                break
            # Only the shared frame dicts and strings need to stay in the memo.
            for c in events:
                w.memo.pop(id(c), None)
                w.memo.pop(id(c["frames"]), None)
        w.buf += b"a"     # inner -> outer
        w.buf += b"u."    # SETITEMS of the top dict, STOP
        w.flush()
    size = os.path.getsize(args.output)
    print(f"{args.output}: {size} bytes, {rep} copies of {len(trace)} events "
          f"({rep * len(trace)} events)")


if __name__ == "__main__":
    main()
