"""Compares per-kernel-name counts and total time between two `tbprof report
--json` outputs (ours from the collector, and torch.profiler's trace converted
by tbprof): prints a table and the overall agreement."""
import json
import sys


def kernels(path):
    data = json.load(open(path))
    hosts = data["hosts"] if "hosts" in data else [data]
    out = {}
    for h in hosts:
        for r in h["kernel_stats"].get("reports", []):
            n, t = out.get(r["name"], (0, 0))
            out[r["name"]] = (n + int(r.get("occurrences", 0)), t + int(r.get("totalDurationNs", 0)))
    return out


def main():
    ours, theirs = kernels(sys.argv[1]), kernels(sys.argv[2])
    names = sorted(set(ours) | set(theirs), key=lambda k: -max(ours.get(k, (0, 0))[1], theirs.get(k, (0, 0))[1]))
    print(f"{'kernel':60s} {'count ours':>10s} {'count torch':>11s} {'ms ours':>9s} {'ms torch':>9s}")
    for k in names[:30]:
        a, b = ours.get(k, (0, 0)), theirs.get(k, (0, 0))
        print(f"{k[:60]:60s} {a[0]:10d} {b[0]:11d} {a[1]/1e6:9.3f} {b[1]/1e6:9.3f}")
    ta, tb = sum(v[1] for v in ours.values()), sum(v[1] for v in theirs.values())
    print(f"total kernel time: ours {ta/1e6:.3f} ms, torch.profiler {tb/1e6:.3f} ms")


if __name__ == "__main__":
    main()
