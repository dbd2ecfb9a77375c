#!/usr/bin/env python3
"""Independent check of tbprof's memory-snapshot peak: loads the pickle with
Python's own pickle module and prints, per device, "device initial peak final"
where the running sum starts from the blocks live before recording (freed
without an alloc, or active in `segments` without an alloc), adds alloc sizes
and subtracts free_completed sizes; peak is its maximum."""
import gzip
import pickle
import sys


def main(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        snap = pickle.load(f)
    traces = snap.get("device_traces", [])
    for device, trace in enumerate(traces):
        live, initial = set(), 0
        for e in trace:
            if e["action"] == "alloc":
                live.add(e["addr"])
            elif e["action"] == "free_completed":
                if e["addr"] in live:
                    live.remove(e["addr"])
                else:
                    initial += e["size"]
        for seg in snap.get("segments", []):
            if seg["device"] != device:
                continue
            addr = seg["address"]
            for b in seg["blocks"]:
                if b["state"] in ("active_allocated", "active_pending_free") and addr not in live:
                    initial += b["size"]
                addr += b["size"]
        running = peak = initial
        for e in trace:
            if e["action"] == "alloc":
                running += e["size"]
            elif e["action"] == "free_completed":
                running -= e["size"]
            peak = max(peak, running)
        print(device, initial, peak, running)


if __name__ == "__main__":
    main(sys.argv[1])
