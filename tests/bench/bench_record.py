#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cpcprof record against perf record, side by side, on the bundled workload.

Runs on demand (not by ctest):

    python3 tests/bench/bench_record.py [--build build/dev] [--rounds 5] [--seconds 2]

For each rate (1 kHz and 10 kHz of CPU time per thread) it runs, interleaved
round by round, the workload alone, under `cpcprof record` (dwarf and fp
call graphs, and dwarf on libcpc's POSIX-timer backend, CPC_BACKEND=timer:
what a container without perf_event_open gets) and under `perf record -g`
and `perf record --call-graph dwarf`, all sampling cpu-clock, and prints
medians of:

  slowdown         wall time of a fixed amount of work (bench_fixed_work, timed
                   by itself) / the same work run alone; the workload that
                   measures shares spends a CPU-time budget, so its run time
                   cannot show a slowdown
  vs perf -g       wall time / wall time of `perf record -g` at the same rate
                   in the same round, the median over the rounds (pairs
                   taken close in time are less disturbed by the drift of a
                   VM's speed than medians of each mode apart), and the
                   quartiles of those per-round ratios
  cpu x            CPU time of the work's process (the agent's drain thread
                   in it, the recorder not) / the same alone
  bytes/sample     file size / samples stored (perf: perf.data / samples)
  attribution      per hot function, |share of samples whose leaf is the
                   function - share of the CPU time the workload measured
                   itself|, the largest over the functions (percentage points)
  complete         cpcprof: samples whose stack reaches main or the thread's
                   start routine
  handler cost     cpcprof --stats: PC + unwind + ring push, and the whole
                   SIGEMT handler (with libcpc's sample and restart)
  dropped          cpcprof: samples dropped (full rings, merged overflows)
  smp/cpu          samples / (the CPU time the workload measured of its own
                   phases x the rate): 1 is a sample per period

Needs linux-perf (`perf`) and binutils (`nm`, `readelf`).
"""
import argparse
import bisect
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import tempfile
import time

from bench_common import built_tools, fixed_times

HOT = ["wl_leaf", "wl_chase", "wl_compute", "wl_thread_work"]
# The workload's own measurement names the phase functions; their time is
# spent in these leaves.
PHASE_OF = {"wl_phase_recursion": "wl_leaf", "wl_phase_chase": "wl_chase",
            "wl_phase_compute": "wl_compute", "wl_thread_main": "wl_thread_work"}


def run(cmd, env=None):
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return time.monotonic() - t0, p


def workload_cpu(out):
    """The CPU seconds the workload measured of its own phases and setup."""
    return sum(float(f[2]) for f in (l.split() for l in out.splitlines())
               if len(f) == 3 and f[0] in ("share", "setup"))


def workload_split(out):
    secs = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[0] == "share":
            leaf = PHASE_OF.get(f[1], f[1])
            secs[leaf] = secs.get(leaf, 0.0) + float(f[2])
    total = sum(secs.values())
    return {k: 100.0 * v / total for k, v in secs.items()} if total else {}


class Symbols:
    """Text symbols of one ELF file, looked up by file-relative vaddr."""

    def __init__(self, path):
        out = subprocess.run(["nm", "--defined-only", "-n", path], capture_output=True,
                             text=True).stdout
        self.addrs, self.names = [], []
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in "tTwW":
                self.addrs.append(int(f[0], 16))
                self.names.append(f[2])
        self.load = []  # (p_offset, p_vaddr) of executable segments
        for line in subprocess.run(["readelf", "-lW", path], capture_output=True,
                                   text=True).stdout.splitlines():
            f = line.split()
            if f and f[0] == "LOAD" and "E" in f[6:-1]:
                self.load.append((int(f[1], 16), int(f[2], 16)))

    def name(self, vaddr):
        i = bisect.bisect_right(self.addrs, vaddr) - 1
        return self.names[i] if i >= 0 else None

    def vaddr(self, offset_in_segment, p_offset):
        for off, va in self.load:
            if off == p_offset:
                return va + offset_in_segment
        return None


def cpcprof_profile(path, exe_syms, exe_real):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    maps = db.execute("select m.start_address, m.end_address, m.file_offset, mo.path "
                      "from mapping m join module mo on mo.id = m.module").fetchall()
    exe_maps = [(s, e, o) for s, e, o, p in maps if os.path.realpath(p) == exe_real]
    leaf = {}
    total = complete = 0
    for addr, comp in db.execute("select n.address, s.complete from sample s "
                                 "join stack_node n on n.id = s.stack"):
        total += 1
        complete += comp
        addr &= (1 << 64) - 1
        name = None
        for s, e, o in exe_maps:
            if s <= addr < e:
                va = exe_syms.vaddr(addr - s, o)
                name = exe_syms.name(va) if va is not None else None
        leaf[name] = leaf.get(name, 0) + 1
    db.close()
    shares = {k: 100.0 * v / total for k, v in leaf.items()} if total else {}
    return shares, total, (100.0 * complete / total if total else 0.0)


def perf_profile(path):
    out = subprocess.run(["perf", "report", "-i", path, "--stdio", "--no-children",
                          "--sort", "sym", "-g", "none"], capture_output=True, text=True).stdout
    shares = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+\[[.k]\]\s+(\S+)", line)
        if m:
            shares[m.group(2)] = shares.get(m.group(2), 0.0) + float(m.group(1))
    return shares


def attribution_error(shares, truth):
    # Both sides over the hot functions only: the workload's setup (page
    # faults, mostly kernel time) is in neither measurement's phases.
    s_tot = sum(shares.get(f, 0.0) for f in HOT)
    t_tot = sum(truth.get(f, 0.0) for f in HOT)
    if not s_tot or not t_tot:
        return float("nan")
    return max(abs(100 * shares.get(f, 0.0) / s_tot - 100 * truth.get(f, 0.0) / t_tot)
               for f in HOT)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build/dev")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--slowdown-only", action="store_true",
                    help="time the fixed work only: no profile is read")
    a = ap.parse_args()
    cpcprof, workload, fixed = built_tools(
        "bench_record", a.build, ["profiler/cpcprof/cpcprof",
                                  "tests/record/targets/record_workload_nofp",
                                  "tests/bench/bench_fixed_work"])
    exe_real = os.path.realpath(workload)
    syms = Symbols(exe_real)
    wl = [workload, "--seconds", str(a.seconds)]
    fw = [fixed, "2"]
    tmp = tempfile.mkdtemp(prefix="bench_record.")
    rates = [1000, 10000]
    modes = ["alone"]
    for hz in rates:
        # cpcprof-timer: libcpc's POSIX-timer backend (CPC_BACKEND=timer,
        # what a container without perf_event_open gets), dwarf stacks.
        modes += [f"cpcprof-dwarf@{hz}", f"cpcprof-fp@{hz}", f"cpcprof-timer@{hz}",
                  f"perf-g@{hz}", f"perf-dwarf@{hz}"]
    times = {m: [] for m in modes}
    err = {m: [] for m in modes}
    bps = {m: [] for m in modes}
    comp = {m: [] for m in modes}
    drops = {m: [] for m in modes}
    stats = {m: [] for m in modes}
    per_cpu = {m: [] for m in modes}  # samples / (measured CPU time x rate)
    timer_env = dict(os.environ, CPC_BACKEND="timer")
    for r in range(a.rounds):
        order = modes[r % len(modes):] + modes[:r % len(modes)]
        for m in order:
            out = os.path.join(tmp, f"{m}.{r}")
            if m == "alone":
                times[m].append(fixed_times(run(fw)[1]))
                continue
            tool, hz = m.split("@")
            env = timer_env if tool == "cpcprof-timer" else None
            if tool.startswith("cpcprof"):
                cg = "dwarf" if tool == "cpcprof-timer" else tool.split("-")[1]
                prefix = [cpcprof, "record", "--stats", "-F", hz, "--call-graph", cg, "-o",
                          out, "--"]
            elif tool == "perf-g":
                prefix = ["perf", "record", "-e", "cpu-clock", "-F", hz, "-g", "-o", out, "--"]
            else:
                prefix = ["perf", "record", "-e", "cpu-clock", "-F", hz, "--call-graph",
                          "dwarf", "-o", out, "--"]
            times[m].append(fixed_times(run(prefix + fw, env)[1]))
            os.unlink(out)
            if a.slowdown_only:
                continue
            t, p = run(prefix + wl, env)
            truth = workload_split(p.stdout)
            if tool.startswith("cpcprof"):
                shares, n, c = cpcprof_profile(out, syms, exe_real)
                comp[m].append(c)
                m2 = re.search(r"stored (\d+), dropped (\d+)", p.stderr)
                if m2:
                    drops[m].append(int(m2.group(2)))
                h = re.findall(r"median ([\d.]+) us, p99 ([\d.]+) us", p.stderr)
                if len(h) == 2:
                    stats[m].append(tuple(float(x) for pair in h for x in pair))
            else:
                shares = perf_profile(out)
                m3 = re.search(r"\((\d+) samples\)", p.stderr)
                n = int(m3.group(1)) if m3 else 0
            if truth and shares:
                err[m].append(attribution_error(shares, truth))
            if n:
                bps[m].append(os.path.getsize(out) / n)
                cpu_s = workload_cpu(p.stdout)
                if cpu_s:
                    per_cpu[m].append(n / (cpu_s * int(hz)))
            os.unlink(out)
    shutil.rmtree(tmp, ignore_errors=True)
    med = lambda v: statistics.median(v) if v else float("nan")
    uname = os.uname()
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                  if l.startswith("model name")), "?")
    print(f"bench_record: {uname.sysname} {uname.release} | {model} | {os.cpu_count()} CPUs | "
          f"workload {a.seconds:g} s + thread, {a.rounds} rounds, cpu-clock")
    base = med([t[0] for t in times["alone"]])
    base_cpu = med([t[1] for t in times["alone"]])
    print(f"{'mode':22} {'slowdown':>9} {'vs perf -g (quartiles)':>24} {'cpu x':>6} "
          f"{'bytes/smp':>10} {'attr err pp':>12} {'complete %':>11} {'dropped':>8} "
          f"{'smp/cpu':>8} {'handler us (med/p99)':>24}")
    for hz in rates:
        perf_g = times[f"perf-g@{hz}"]
        for m in [x for x in modes if x.endswith(f"@{hz}")]:
            s = med([t[0] for t in times[m]]) / base
            cpu = med([t[1] for t in times[m]]) / base_cpu
            pairs = sorted(t[0] / g[0] for t, g in zip(times[m], perf_g))
            q = statistics.quantiles(pairs, n=4) if len(pairs) > 1 else [pairs[0]] * 3
            vs = f"{med(pairs):.3f} ({q[0]:.3f}..{q[2]:.3f})"
            hs = ""
            if stats[m]:
                u_med = med([x[0] for x in stats[m]])
                u_p99 = med([x[1] for x in stats[m]])
                w_med = med([x[2] for x in stats[m]])
                w_p99 = med([x[3] for x in stats[m]])
                hs = f"{u_med:.2f}/{u_p99:.2f} whole {w_med:.1f}/{w_p99:.1f}"
            c = f"{med(comp[m]):.1f}" if comp[m] else "-"
            d = f"{int(med(drops[m]))}" if drops[m] else "-"
            pc = f"{med(per_cpu[m]):.3f}" if per_cpu[m] else "-"
            print(f"{m:22} {s:9.3f} {vs:>24} {cpu:6.3f} {med(bps[m]):10.1f} "
                  f"{med(err[m]):12.2f} {c:>11} {d:>8} {pc:>8} {hs:>24}")


if __name__ == "__main__":
    main()
