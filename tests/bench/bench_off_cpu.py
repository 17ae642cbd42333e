#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What `record --off-cpu` costs a program that switches all the time,
beside perf's way of seeing the same switches.

Runs on demand (not by ctest):

    python3 tests/bench/bench_off_cpu.py [--build build/dev] [--rounds 5] [--handovers 100000]

bench_switcher hands a byte between two threads through pipes (about
four context switches a hand-over) and times itself.  Round by round,
interleaved, it runs alone, under `cpcprof record` (cpu-clock samples
only), under `cpcprof record --off-cpu` (the agent's path, and the
kernel's rings: --capture ring), and, as root, under
`perf record -e sched:sched_switch -g` (the tracepoint hotspot's off-CPU
view reads).  Prints per mode the median of the program's own wall time,
the slowdown against running alone, the ratio to perf's in the same
round (median of the per-round ratios), switches per second alone, and
the cost per context switch that each mode adds (extra wall time /
switches).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import built_tools  # noqa: E402


def run_switcher(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"bench_off_cpu: {' '.join(cmd)} failed ({p.returncode}): {p.stderr[-2000:]}")
    for line in p.stdout.splitlines():
        w = line.split()
        if len(w) == 3 and w[0] == "switcher":
            return int(w[1]), float(w[2])
    sys.exit(f"bench_off_cpu: no result from {' '.join(cmd)}: {p.stdout[-500:]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build/dev")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--handovers", type=int, default=100000)
    a = ap.parse_args()
    perf = os.geteuid() == 0
    cpcprof, switcher = built_tools("bench_off_cpu", a.build,
                                    ["profiler/cpcprof/cpcprof", "tests/bench/bench_switcher"],
                                    need_perf=perf)
    work = tempfile.mkdtemp(prefix="bench-off-cpu-")
    prog = [switcher, str(a.handovers)]
    out = os.path.join(work, "out.cpcprof")
    modes = {
        "alone": prog,
        "cpcprof": [cpcprof, "record", "-q", "-o", out, "--"] + prog,
        "cpcprof --off-cpu": [cpcprof, "record", "-q", "--off-cpu", "-o", out, "--"] + prog,
        "cpcprof --off-cpu ring": [cpcprof, "record", "-q", "--off-cpu", "--capture", "ring",
                                   "-o", out, "--"] + prog,
    }
    if perf:
        modes["perf sched_switch -g"] = ["perf", "record", "-q", "-e", "sched:sched_switch",
                                         "-g", "-o", os.path.join(work, "perf.data"),
                                         "--"] + prog
    else:
        print("bench_off_cpu: not root: perf's sched:sched_switch needs it; left out",
              file=sys.stderr)
    walls = {m: [] for m in modes}
    for r in range(a.rounds):
        for m, cmd in modes.items():
            _, wall = run_switcher(cmd)
            walls[m].append(wall)
    # Switches per hand-over, from the kernel's count of the program alone.
    p = subprocess.run(["perf", "stat", "-x,", "-e", "context-switches", "--"] + prog,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) if perf else None
    switches = None
    if p is not None and p.returncode == 0:
        for line in p.stderr.splitlines():
            f = line.split(",")
            if len(f) > 2 and f[2] == "context-switches" and f[0].isdigit():
                switches = int(f[0])
    alone = statistics.median(walls["alone"])
    n = switches or 4 * a.handovers
    print(f"bench_switcher {a.handovers} hand-overs, {n} context switches "
          f"({'counted by perf stat' if switches else 'estimated: 4 a hand-over'}), "
          f"{n / alone:,.0f} switches/s alone; medians of {a.rounds} rounds")
    print(f"{'mode':28} {'wall s':>8} {'slowdown':>9} {'vs perf':>8} {'us/switch':>10}")
    for m in modes:
        wall = statistics.median(walls[m])
        vs = ""
        if "perf sched_switch -g" in walls and m != "alone":
            ratios = [w / p for w, p in zip(walls[m], walls["perf sched_switch -g"])]
            vs = f"{statistics.median(ratios):.2f}"
        cost = (wall - alone) / n * 1e6
        print(f"{m:28} {wall:8.3f} {wall / alone:9.2f} {vs:>8} {cost:10.2f}")


if __name__ == "__main__":
    main()
