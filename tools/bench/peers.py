#!/usr/bin/env python3
"""Times the peers of tbprof on one Kineto trace, for scripts/benchmark.sh.

    build/bench-venv/bin/python tools/bench/peers.py [--tools T,...] [--timeout S] [--json] TRACE

Tools (each in a fresh Python process, one after the other):
  json_load    json.load of the file (gzip.open for .gz): what every Python tool
               pays before it can look at a trace.
  hta          Holistic Trace Analysis (PyPI holistictraceanalysis):
               TraceAnalysis(trace_dir=...) loads the trace, then
               get_temporal_breakdown() and get_gpu_kernel_breakdown().
  tb_profiler  torch-tb-profiler (the PyTorch profiler TensorBoard plugin):
               its RunLoader loads the run as the plugin does (one spawned worker
               process per trace file) and produces the profile with its overview.

Both peers read a directory of traces, so TRACE is symlinked into a fresh
temporary directory as rank0.pt.trace.json[.gz] (HTA takes rank 0 when the
trace names none; torch-tb-profiler takes the worker name from the file name).

Per tool: wall seconds of the work alone (loading and analysing, not the
interpreter start or the imports, which are reported apart as setup_s), CPU
seconds of the same work (user + sys of the process and of every child it
reaped: torch-tb-profiler parses in a spawned worker, whose start counts),
CPU seconds of the whole process (process_cpu_s, imports included), peak RSS
(the largest of the process and its children) and a one-line summary of what
it computed. With --runs N each tool runs N times, each in a fresh process,
and the run with the least wall time is kept. A tool that raises, produces
nothing or runs past --timeout is reported with status "failed" or
"timed out" and a message; peers.py itself still exits 0.
Needs the bench venv: scripts/python_envs.sh bench (build/bench-venv).
"""

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time

TOOLS = ("json_load", "hta", "tb_profiler")
# Modules each tool imports, loaded before its work is timed.
IMPORTS = {"json_load": ["gzip"], "hta": ["hta.trace_analysis"],
           "tb_profiler": ["torch_tb_profiler.io", "torch_tb_profiler.profiler"]}


def _rusage_cpu():
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def _link_trace(trace, workdir):
    """Symlinks TRACE into workdir/run as rank0.pt.trace.json[.gz]; returns the dir."""
    with open(trace, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    run_dir = os.path.join(workdir, "run")
    os.makedirs(run_dir)
    name = "rank0.pt.trace.json" + (".gz" if gz else "")
    os.symlink(os.path.abspath(trace), os.path.join(run_dir, name))
    return run_dir, name


def _work_json_load(trace, workdir):
    import gzip

    with open(trace, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    t0 = time.perf_counter()
    with (gzip.open(trace, "rt") if gz else open(trace)) as f:
        data = json.load(f)
    wall = time.perf_counter() - t0
    events = data.get("traceEvents", []) if isinstance(data, dict) else data
    return wall, "%d events" % len(events)


def _work_hta(trace, workdir):
    import logging

    from hta.trace_analysis import TraceAnalysis

    logging.getLogger("hta").setLevel(logging.ERROR)
    run_dir, _ = _link_trace(trace, workdir)
    t0 = time.perf_counter()
    analyzer = TraceAnalysis(trace_dir=run_dir)
    temporal = analyzer.get_temporal_breakdown(visualize=False)
    kernel_type, kernels = analyzer.get_gpu_kernel_breakdown(visualize=False)
    wall = time.perf_counter() - t0
    row = temporal.iloc[0].to_dict() if len(temporal) else {}
    summary = "temporal: idle %s%%, compute %s%%, non-compute %s%%; %d kernel types, %d kernel rows" % (
        row.get("idle_time_pctg"), row.get("compute_time_pctg"), row.get("non_compute_time_pctg"),
        len(kernel_type), len(kernels))
    return wall, summary


def _work_tb_profiler(trace, workdir):
    import multiprocessing

    from torch_tb_profiler import io as tb_io
    from torch_tb_profiler.profiler import RunLoader

    run_dir, name = _link_trace(trace, workdir)
    cache_dir = os.path.join(workdir, "cache")
    os.makedirs(cache_dir)
    cache = tb_io.Cache(cache_dir)
    t0 = time.perf_counter()
    run = RunLoader("bench", run_dir, cache).load()
    worker = name.split(".pt.trace.json")[0]
    profile = run.get_profile(worker, "default")  # A run without spans: span "default".
    overview = getattr(profile, "overview", None)
    wall = time.perf_counter() - t0
    # Reap the finished worker so that its CPU time and RSS count.
    for child in multiprocessing.active_children():
        if child.name.startswith("SyncManager"):
            continue
        child.join(timeout=60)
    if not overview:
        raise RuntimeError("the loader produced no profile or no overview "
                           "(its worker failed on the trace)")
    steps = overview.get("steps", {}).get("rows", [])
    return wall, "overview with %d step rows, %d recommendation chars" % (
        len(steps), len(overview.get("recommendations", "")))


def run_one(tool, trace):
    """Child mode: runs one tool and prints one JSON line on stdout."""
    import importlib

    import_start = time.perf_counter()
    for module in IMPORTS[tool]:
        importlib.import_module(module)
    work = {"json_load": _work_json_load, "hta": _work_hta, "tb_profiler": _work_tb_profiler}[tool]
    with tempfile.TemporaryDirectory(prefix="tbprof-peer-") as workdir:
        start = time.perf_counter()
        cpu_start = _rusage_cpu()
        wall, summary = work(trace, workdir)
        cpu = _rusage_cpu() - cpu_start
        total = time.perf_counter() - start
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({
        "tool": tool, "status": "ok", "wall_s": round(wall, 4),
        "setup_s": round(total - wall + (start - import_start), 4),
        "cpu_s": round(cpu, 4), "process_cpu_s": round(_rusage_cpu(), 4),
        "peak_rss_bytes": max(s.ru_maxrss, c.ru_maxrss) * 1024,
        "summary": summary,
    }), flush=True)


def measure(tool, trace, timeout_s):
    """Parent mode: runs `tool` in a fresh interpreter within timeout_s."""
    cmd = [sys.executable, os.path.abspath(__file__), "--one", tool, trace]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"tool": tool, "status": "timed out", "process_wall_s": round(timeout_s, 1),
                "message": "no result within %d s (killed)" % timeout_s}
    process_wall = time.perf_counter() - start
    result = None
    for line in reversed(out.strip().splitlines()):
        if line.startswith("{"):
            try:
                result = json.loads(line)
                break
            except ValueError:
                pass
    if proc.returncode == 0 and result is not None:
        result["process_wall_s"] = round(process_wall, 3)
        return result
    lines = [l for l in err.strip().splitlines() if l.strip()]
    message = lines[-1] if lines else "exit status %d" % proc.returncode
    if proc.returncode < 0:
        message = "killed by signal %d (out of memory?)" % -proc.returncode
    return {"tool": tool, "status": "failed", "process_wall_s": round(process_wall, 3),
            "message": message[:300]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("trace")
    parser.add_argument("--tools", default=",".join(TOOLS),
                        help="comma-separated subset of %s" % ", ".join(TOOLS))
    parser.add_argument("--timeout", type=int, default=600, help="seconds per tool (600)")
    parser.add_argument("--runs", type=int, default=1,
                        help="runs per tool, the fastest kept (1); a failure stops its tool")
    parser.add_argument("--json", action="store_true", help="one JSON line per tool")
    parser.add_argument("--one", metavar="TOOL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        run_one(args.one, args.trace)
        return 0
    tools = [t for t in args.tools.split(",") if t]
    for t in tools:
        if t not in TOOLS:
            parser.error("unknown tool %s (known: %s)" % (t, ", ".join(TOOLS)))
    for t in tools:
        r = None
        for _ in range(max(args.runs, 1)):
            this = measure(t, args.trace, args.timeout)
            if this["status"] != "ok":
                r = this
                break
            if r is None or this["wall_s"] < r["wall_s"]:
                r = this
        r["runs"] = max(args.runs, 1)
        if args.json:
            print(json.dumps(r), flush=True)
        elif r["status"] == "ok":
            print("%-12s %8.2f s work, %6.2f s setup, %8.2f s CPU, %6.0f MB peak RSS  %s" % (
                t, r["wall_s"], r["setup_s"], r["cpu_s"], r["peak_rss_bytes"] / 1e6,
                r["summary"]), flush=True)
        else:
            print("%-12s %s: %s" % (t, r["status"], r["message"]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
