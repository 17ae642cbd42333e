#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cpcprof-gui on a 1,000,000-sample profile: time to the first painted
flame graph, event switch, zoom, search and peak memory, beside hotspot
loading the perf.data of the same workload.

Runs on demand (not by ctest):

    python3 tests/bench/bench_gui.py [--build build/dev] [--samples 1000000]
                                     [--rounds 3] [--keep DIR]

The profiles are bench_view.py's (same names, so one --keep DIR serves
both): the bundled workload recorded with `cpcprof record` and with
`perf record -g`, cpu-clock every 100 us of CPU time, and bench_storage's
synthetic profile (5,000 distinct 45-deep stacks, never symbolized).

cpcprof-gui runs with QT_QPA_PLATFORM=offscreen and CPCPROF_GUI_BENCH=1:
it opens the file, and once the flame graph is painted it switches the
event, zooms into the widest frame, searches "a", filters to the middle
half of the run's time (as dragged on the timeline: every view rebuilt
from the samples in it) and goes back to all samples (each timed until the
canvas has painted the result), opens the Source page of the function
with the most self cost (timed until the source is painted, and until
its disassembly, objdump run off the GUI thread, is in), prints its
timings as JSON and quits.
Peak RSS is the process's ru_maxrss (wait4).

hotspot (Debian 12's 1.3.0) cannot export or print timings headless.  It
is timed two ways: `hotspot-perfparser` alone (the parsing hotspot starts
with, a lower bound of its time to a flame graph), and the hotspot GUI
(offscreen) from start until its parser has exited and its own CPU time
has then stopped growing for 1.5 s (parse, aggregation and first paint;
polled every 50 ms from /proc, so +-50 ms), with its and its parser's
peak RSS (VmHWM).
Targets (issues): first flame graph < 1 s, interactions < 100 ms, a
time-range filter with its flame graph < 300 ms, peak RSS < 500 MiB, the
hottest function's source < 200 ms.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import built_tools, cpcprof_samples, record_big  # noqa: E402

PERFPARSER = "/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser"
ENV = dict(os.environ, QT_QPA_PLATFORM="offscreen")
SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_timed(cmd, env=None, out=subprocess.DEVNULL):
    """(wall seconds, peak RSS MiB, stdout) of cmd."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench_gui: {' '.join(cmd)} failed")
    return wall, ru.ru_maxrss / 1024


def gui_once(gui, prof):
    """The JSON cpcprof-gui prints in bench mode, plus its peak RSS."""
    env = dict(ENV, CPCPROF_GUI_BENCH="1")
    # The sources of the bundled workload: this tree (the profile names
    # them relative to the build directory, "../../tests/...").
    p = subprocess.Popen([gui, "--source-dir", SOURCE_ROOT, prof], stdout=subprocess.PIPE, env=env)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        return None  # refused: cpcprof-gui said why on stderr
    r = json.loads(out.decode().strip().splitlines()[-1])
    r["rss_mib"] = ru.ru_maxrss / 1024
    return r


def cpu_ticks(pid):
    """utime + stime + children's, in clock ticks; None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return sum(int(x) for x in fields[11:15])
    except OSError:
        return None


def descendants(pid):
    """Pids of pid's children, whichever of its threads started them."""
    out = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                out += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return out


def vm_hwm_mib(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def hotspot_once(pdata, idle_s=1.5):
    """(seconds until hotspot's parser had exited and hotspot was idle
    after it, peak RSS MiB of hotspot, of its parser)."""
    t0 = time.monotonic()
    p = subprocess.Popen(["hotspot", pdata], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, env=ENV)
    last_ticks, last_change, parser_rss = -1, t0, 0.0
    parser_seen = parser_alive = False
    while not parser_seen or parser_alive or time.monotonic() - last_change < idle_s:
        time.sleep(0.05)
        ticks = cpu_ticks(p.pid)  # its own and its reaped children's
        if ticks is None or time.monotonic() - t0 > 600:
            break
        children = descendants(p.pid)
        parser_alive = bool(children)
        parser_seen |= parser_alive
        for child in children:
            parser_rss = max(parser_rss, vm_hwm_mib(child))
            ticks += cpu_ticks(child) or 0
        if ticks != last_ticks:
            last_ticks, last_change = ticks, time.monotonic()
    rss = vm_hwm_mib(p.pid)
    p.kill()
    p.wait()
    return last_change - t0, rss, parser_rss


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build/dev")
    ap.add_argument("--samples", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--keep", help="directory to keep (and reuse) the recordings in")
    a = ap.parse_args()
    cpcprof, workload, gui = built_tools(
        "bench_gui", a.build, ["profiler/cpcprof/cpcprof",
                               "tests/record/targets/record_workload_nofp",
                               "gui/app/cpcprof-gui"])
    for tool in ("hotspot", PERFPARSER):
        if shutil.which(tool) is None:
            sys.exit(f"bench_gui: {tool} not found (apt-get install hotspot)")
    work = a.keep or tempfile.mkdtemp(prefix="bench_gui.")
    os.makedirs(work, exist_ok=True)
    prof, pdata = record_big("bench_gui", cpcprof, workload, work, a.samples)
    synth = os.path.join(work, "synthetic.cpcprof")
    if not os.path.exists(synth):
        bench_storage = os.path.join(a.build, "tests/bench/bench_storage")
        if not os.access(bench_storage, os.X_OK):
            sys.exit(f"bench_gui: {bench_storage} not built (cmake --build --preset dev)")
        run_timed([bench_storage, "--samples", str(a.samples), "-o", synth])

    runs = {"real": [], "synthetic": []}
    hot, parse = [], []
    for _ in range(a.rounds):
        runs["real"].append(gui_once(gui, prof))
        runs["synthetic"].append(gui_once(gui, synth))
        parse.append(run_timed([PERFPARSER, "--input", pdata, "--output", os.devnull]))
        hot.append(hotspot_once(pdata))

    refused = [k for k, rs in runs.items() if any(r is None for r in rs)]
    for k in refused:
        print(f"bench_gui: cpcprof-gui refused the {k} profile (its message is above)",
              file=sys.stderr)
        runs[k] = []

    def med(rs, key):
        return statistics.median(r[key] for r in rs) if rs else float("nan")

    hot_t = statistics.median(h[0] for h in hot)
    hot_rss = statistics.median(h[1] for h in hot)
    parser_rss = statistics.median(h[2] for h in hot)
    parse_t = statistics.median(p[0] for p in parse)
    print(f"# bench_gui: {os.uname().release}, {cpcprof_samples(prof)} samples in "
          f"{os.path.basename(prof)}, {cpcprof_samples(synth)} in {os.path.basename(synth)}, "
          f"{a.rounds} rounds, medians")
    print(f"{'':34} {'real':>10} {'synthetic':>10} {'target':>10}")
    rows = [("first painted flame graph (ms)", "first_paint_ms", 1000),
            ("  of which loading (ms)", "load_ms", None),
            ("  longest GUI stall meanwhile (ms)", "max_stall_ms", 100),
            ("event switch (ms)", "event_switch_ms", 100),
            ("zoom (ms)", "zoom_ms", 100),
            ("zoom out (ms)", "zoom_out_ms", 100),
            ("search 'a' (ms)", "search_ms", 100),
            ("time filter + flame graph (ms)", "filter_ms", 300),
            ("  back to all samples (ms)", "filter_back_ms", 100),
            ("hottest function's source (ms)", "source_ms", 200),
            ("  its disassembly, objdump (ms)", "disassembly_ms", None),
            ("peak RSS (MiB)", "rss_mib", 500)]
    for label, key, target in rows:
        r, s = med(runs["real"], key), med(runs["synthetic"], key)
        worst = max((v for v in (r, s) if v == v), default=float("nan"))
        verdict = "" if target is None or worst != worst else (
            f"< {target} " + ("ok" if worst < target else "MISSED"))
        print(f"{label:34} {r:10.1f} {s:10.1f} {verdict:>10}")
    first = med(runs["real"], "first_paint_ms") / 1000
    rss = med(runs["real"], "rss_mib")
    print(f"hotspot, same workload's perf.data: idle after loading {hot_t:.2f} s "
          f"(peak RSS {hot_rss:.0f} MiB + parser {parser_rss:.0f} MiB); "
          f"hotspot-perfparser alone {parse_t:.2f} s")
    print(f"ratios cpcprof-gui / hotspot: first flame graph {first / hot_t:.3f}x "
          f"(vs parser alone {first / parse_t:.3f}x), peak RSS {rss / (hot_rss + parser_rss):.3f}x")
    if not a.keep:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
