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

Wall time on two CPUs misleads here: a hand-over is as fast as a CPU
wakes from idle, and a profiler that keeps CPUs busy makes the program
faster than it runs alone.  So every mode runs twice a round: as it
comes (threads on any CPU), and with both threads on one CPU (taskset
-c 0; the recorders run on the other), where every switch goes from one
thread straight to the other and the program's time is its own work
plus what the profiler adds to each switch: that table is the cost per
switch.  Each mode also gets the CPU time the program's own threads took
(the kernel charges them its work at each switch) and the recorder's
own (everything the mode's processes took but the program's).

Peers beside `perf record -e sched:sched_switch -g` (frame-pointer
stacks): the same with --call-graph dwarf (the stack copied at each
switch, as cpcprof's switch stacks are, for programs without frame
pointers), perf's cpu-clock
sampling (every 1 ms, user mode, as cpcprof samples) with its events
inherited by the threads (perf's default, as cpcprof's rings), the same
with --per-thread (events of each thread's own, as the agent's), and
hotspot's recipe for on- and off-CPU time (cpu-clock + sched_switch).
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import built_tools  # noqa: E402


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_switcher(cmd):
    """(wall s, the program's CPU s, every other process's CPU s) of one run."""
    before = children_cpu()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    total = children_cpu() - before
    if p.returncode != 0:
        sys.exit(f"bench_off_cpu: {' '.join(cmd)} failed ({p.returncode}): {p.stderr[-2000:]}")
    for line in p.stdout.splitlines():
        w = line.split()
        if len(w) == 4 and w[0] == "switcher":
            return float(w[2]), float(w[3]), max(0.0, total - float(w[3]))
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
    out = os.path.join(work, "out.cpcprof")
    pdata = os.path.join(work, "perf.data")

    def modes_for(prog):
        modes = {
            "alone": prog,
            "cpcprof": [cpcprof, "record", "-q", "-o", out, "--"] + prog,
            "cpcprof --off-cpu": [cpcprof, "record", "-q", "--off-cpu", "-o", out, "--"] + prog,
            "cpcprof ring": [cpcprof, "record", "-q", "--capture", "ring", "-o", out,
                             "--"] + prog,
            "cpcprof --off-cpu ring": [cpcprof, "record", "-q", "--off-cpu", "--capture", "ring",
                                       "-o", out, "--"] + prog,
        }
        if perf:
            clock = ["perf", "record", "-q", "-e", "cpu-clock:u", "-c", "1000000"]
            modes["perf sched_switch -g"] = ["perf", "record", "-q", "-e", "sched:sched_switch",
                                             "-g", "-o", pdata, "--"] + prog
            modes["perf sched_switch dwarf"] = [
                "perf", "record", "-q", "-e", "sched:sched_switch", "--call-graph", "dwarf",
                "-o", pdata, "--"] + prog
            modes["perf cpu-clock"] = clock + ["--call-graph", "dwarf", "-o", pdata, "--"] + prog
            modes["perf cpu-clock --per-thread"] = clock + [
                "--per-thread", "--call-graph", "dwarf", "-o", pdata, "--"] + prog
            modes["perf cpu-clock+sched_switch"] = clock + [
                "-e", "sched:sched_switch", "--call-graph", "dwarf", "--switch-events", "-o",
                pdata, "--"] + prog
        return modes

    prog = [switcher, str(a.handovers)]
    placements = {"threads on any CPU": modes_for(prog),
                  "both threads on CPU 0 (taskset -c 0)": modes_for(["taskset", "-c", "0"] + prog)}
    if not perf:
        print("bench_off_cpu: not root: perf's sched:sched_switch needs it; left out",
              file=sys.stderr)
    runs = {(pl, m): [] for pl, modes in placements.items() for m in modes}
    for _ in range(a.rounds):
        for pl, modes in placements.items():
            for m, cmd in modes.items():
                runs[(pl, m)].append(run_switcher(cmd))
    # Switches per hand-over, from the kernel's count of the program alone.
    p = subprocess.run(["perf", "stat", "-x,", "-e", "context-switches", "--"] + prog,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) if perf else None
    switches = None
    if p is not None and p.returncode == 0:
        for line in p.stderr.splitlines():
            f = line.split(",")
            if len(f) > 2 and f[2] == "context-switches" and f[0].isdigit():
                switches = int(f[0])
    n = switches or 4 * a.handovers
    print(f"bench_switcher {a.handovers} hand-overs, {n} context switches "
          f"({'counted by perf stat' if switches else 'estimated: 4 a hand-over'}); "
          f"medians of {a.rounds} rounds; 'vs perf': the wall time over "
          f"perf sched_switch -g's in the same round")
    for pl, modes in placements.items():
        med = {m: [statistics.median(r[k] for r in runs[(pl, m)]) for k in range(3)]
               for m in modes}
        alone, cpu_alone, _ = med["alone"]
        print(f"\n{pl}: {n / alone:,.0f} switches/s alone")
        print(f"{'':28} {'---------- wall time ----------':>38}  "
              f"{'--- program CPU ---':>19}  {'- recorder CPU -':>16}")
        print(f"{'mode':28} {'s':>8} {'slowdown':>9} {'vs perf':>8} {'us/switch':>10}  "
              f"{'s':>7} {'us/switch':>10}  {'s':>6} {'us/switch':>9}")
        ref = runs.get((pl, "perf sched_switch -g"))
        for m in modes:
            wall, cpu, other = med[m]
            vs = ""
            if ref and m != "alone":
                vs = f"{statistics.median(r[0] / q[0] for r, q in zip(runs[(pl, m)], ref)):.2f}"
            print(f"{m:28} {wall:8.3f} {wall / alone:9.2f} {vs:>8} "
                  f"{(wall - alone) / n * 1e6:10.2f}  "
                  f"{cpu:7.3f} {(cpu - cpu_alone) / n * 1e6:10.2f}  "
                  f"{other:6.3f} {other / n * 1e6:9.2f}")


if __name__ == "__main__":
    main()
