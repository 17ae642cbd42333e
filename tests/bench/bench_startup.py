#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What cpcprof record costs a program that starts many processes.

Runs on demand (not by ctest):

    python3 tests/bench/bench_startup.py [--build build/dev] [--rounds 7]
                                         [--processes 200]

Figures against the same things run without the profiler, rounds
interleaved (bare, profiled, bare, ...) and medians printed:

  per-process overhead: a bash loop runs /bin/true N times (a fork and an
      exec each, both profiled: bash's fork child and the new image each
      start an agent).  The loop times itself with $EPOCHREALTIME, so the
      recorder's own start and finish are not counted.  Printed: the
      loop's time per process, bare and profiled, their difference (the
      target is at most 1 ms) and ratio; then the CPU time per process of
      everything involved (the recorder's too, measured as the difference
      between N and 0 iterations), which a loaded machine does not inflate
      as it does wall time.

  record to target start: from the moment `cpcprof record -- bash -c
      'echo $EPOCHREALTIME'` is started to the moment the target's shell
      runs (its first command), against the same command started bare.
      The difference is what the recorder does before the target runs
      (event planning, the profile file) plus the agent's start in the
      target (target: at most 10 ms).  Measured twice: warm, right after
      another recording (the kernel's scheduler hooks for perf events are
      still on: it turns them off a second after the last event closes),
      and cold, after 1.5 s without any.

  the kernel's floor: on a cold machine, the first perf_event_open of a
      per-thread event waits for the kernel to turn its scheduler hooks on
      (an RCU grace period: milliseconds, more on busy CPUs).  Timed here
      by this script itself after 1.5 s without events: no recorder that
      counts a thread from its first instruction starts it sooner.

  perf (when installed) is the named peer: `perf record -F 1000 -g` of
  the same loop and the same command, in the same rounds.

  --compare OTHER_BUILD: the same figures for another build's cpcprof (an
      older commit built in a second tree), measured in the same rounds,
      interleaved with this build's, so that a change is judged against
      the machine's state of the moment, not another hour's.

Wall-clock figures on a shared machine vary; run several rounds.
"""
import argparse
import ctypes
import os
import shutil
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from bench_common import built_tools

LOOP = 'i=0; s=$EPOCHREALTIME; while [ $i -lt {n} ]; do /bin/true; i=$((i+1)); done; ' \
       'echo "loop $s $EPOCHREALTIME"'


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(cmd, what):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"bench_startup: {what} failed ({p.returncode}):\n{p.stderr}")
    return p.stdout


def cpu_of(cmd, what):
    """CPU seconds of cmd and everything it started (recorder included)."""
    c0 = children_cpu()
    run(cmd, what)
    return children_cpu() - c0


def loop_seconds(out):
    for line in out.splitlines():
        if line.startswith("loop "):
            _, a, b = line.split()
            return float(b) - float(a)
    sys.exit(f"bench_startup: no loop line in {out!r}")


def start_delay(cmd):
    """Seconds from starting cmd to its shell's first command."""
    t0 = time.time()
    out = run(cmd, " ".join(cmd))
    stamp = [l for l in out.splitlines() if l.strip()][-1]
    return float(stamp) - t0


COLD_PAUSE_S = 1.5  # the kernel turns its perf hooks off 1 s after the last event


def first_event_seconds():
    """Seconds this process's first perf_event_open of a disabled
    task-clock takes (after COLD_PAUSE_S without events); None where
    perf_event_open is refused."""
    attr = bytearray(128)
    attr[0:4] = (1).to_bytes(4, "little")      # PERF_TYPE_SOFTWARE
    attr[4:8] = (128).to_bytes(4, "little")    # size
    attr[8:16] = (1).to_bytes(8, "little")     # PERF_COUNT_SW_TASK_CLOCK
    attr[40:48] = (1 | 1 << 5).to_bytes(8, "little")  # disabled, exclude_kernel
    buf = ctypes.create_string_buffer(bytes(attr), 128)
    libc = ctypes.CDLL(None, use_errno=True)
    time.sleep(COLD_PAUSE_S)
    t0 = time.perf_counter()
    fd = libc.syscall(298, buf, 0, -1, -1, 8)  # perf_event_open, FD_CLOEXEC (x86-64)
    t = time.perf_counter() - t0
    if fd < 0:
        return None
    os.close(fd)
    return t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build/dev")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--processes", type=int, default=200)
    ap.add_argument("--compare", metavar="OTHER_BUILD",
                    help="also measure this build tree's cpcprof, in the same rounds")
    a = ap.parse_args()
    builds = [a.build] + ([a.compare] if a.compare else [])
    tools = [built_tools("bench_startup", b, ["profiler/cpcprof/cpcprof"], need_perf=False)[0]
             for b in builds]
    if not os.path.exists("/bin/true") or subprocess.run(["bash", "-c", "true"]).returncode:
        sys.exit("bench_startup: needs bash and /bin/true")
    tmp = tempfile.mkdtemp(prefix="bench-startup-")
    out = os.path.join(tmp, "out.cpcprof")
    recs = [[t, "record", "-q", "--no-symbolize", "-o", out, "--"] for t in tools]
    names = list(builds)
    if shutil.which("perf") is not None and os.uname().machine == "x86_64":
        recs.append(["perf", "record", "-q", "-F", "1000", "-g", "-o",
                     os.path.join(tmp, "perf.data"), "--"])
        names.append("perf record -F 1000 -g")
    loop = ["bash", "-c", LOOP.format(n=a.processes)]
    stamp = ["bash", "-c", "echo $EPOCHREALTIME"]

    empty = ["bash", "-c", LOOP.format(n=0)]
    bare_loop, bare_start, bare_cpu, floor = [], [], [], []
    prof_loop, prof_start, prof_cold, prof_cpu = ([[] for _ in recs] for _ in range(4))
    for _ in range(a.rounds):
        bare_loop.append(loop_seconds(run(loop, "bare loop")))
        bare_cpu.append(cpu_of(loop, "bare loop") - cpu_of(empty, "bare empty loop"))
        bare_start.append(start_delay(stamp))
        for k, rec in enumerate(recs):
            prof_loop[k].append(loop_seconds(run(rec + loop, "profiled loop")))
            prof_cpu[k].append(cpu_of(rec + loop, "profiled loop") -
                               cpu_of(rec + empty, "profiled empty loop"))
            prof_start[k].append(start_delay(rec + stamp))
        for k, rec in enumerate(recs):
            time.sleep(COLD_PAUSE_S)
            prof_cold[k].append(start_delay(rec + stamp))
        f = first_event_seconds()
        if f is not None:
            floor.append(f)
    try:
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)
    except OSError:
        pass

    n = a.processes
    b = statistics.median(bare_loop) / n * 1e3
    bc = statistics.median(bare_cpu) / n * 1e3
    bs = statistics.median(bare_start) * 1e3
    over = []
    for k, name in enumerate(names):
        p = statistics.median(prof_loop[k]) / n * 1e3
        pc = statistics.median(prof_cpu[k]) / n * 1e3
        ps = statistics.median(prof_start[k]) * 1e3
        pcold = statistics.median(prof_cold[k]) * 1e3
        over.append(p - b)
        if len(names) > 1:
            print(f"== {name}")
        print(f"per-process ({n} fork+exec of /bin/true from bash, median of {a.rounds}):")
        print(f"  bare {b:.2f} ms, profiled {p:.2f} ms: overhead {p - b:.2f} ms per process, "
              f"ratio {p / b:.2f}")
        print(f"  CPU time per process (the processes' and the recorder's, its start and end "
              f"excluded): bare {bc:.2f} ms, profiled {pc:.2f} ms: overhead {pc - bc:.2f} ms, "
              f"ratio {pc / bc:.2f}")
        print(f"start of the target (median of {a.rounds}):")
        print(f"  warm: bare {bs:.1f} ms, under the recorder {ps:.1f} ms: it adds "
              f"{ps - bs:.1f} ms, ratio {ps / bs:.2f}")
        print(f"  cold ({COLD_PAUSE_S} s without perf events before): {pcold:.1f} ms: it adds "
              f"{pcold - bs:.1f} ms")
    if floor:
        print(f"the kernel's first per-thread perf event on a cold machine: "
              f"{statistics.median(floor) * 1e3:.1f} ms (median of {len(floor)}; "
              f"range {min(floor) * 1e3:.1f}-{max(floor) * 1e3:.1f})")
    if len(names) > len(builds):
        print(f"per-process overhead against perf's: {over[0] / over[-1]:.2f}x"
              if over[-1] > 0 else "perf's per-process overhead is not above bare")


if __name__ == "__main__":
    main()
