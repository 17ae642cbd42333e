#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What cpcprof record costs a program that starts many processes.

Runs on demand (not by ctest):

    python3 tests/bench/bench_startup.py [--build build/dev] [--rounds 7]
                                         [--processes 200]

Two figures, each against the same thing run without the profiler, rounds
interleaved (bare, profiled, bare, ...) and medians printed:

  per-process overhead: a bash loop runs /bin/true N times (a fork and an
      exec each, both profiled: bash's fork child and the new image each
      start an agent).  The loop times itself with $EPOCHREALTIME, so the
      recorder's own start and finish are not counted.  Printed: the
      loop's time per process, bare and profiled, their difference (the
      target is at most 5 ms) and ratio; then the CPU time per process of
      everything involved (the recorder's too, measured as the difference
      between N and 0 iterations), which a loaded machine does not inflate
      as it does wall time.

  record to target start: from the moment `cpcprof record -- bash -c
      'echo $EPOCHREALTIME'` is started to the moment the target's shell
      runs (its first command), against the same command started bare.
      The difference is what the recorder does before the target runs
      (event planning, the profile file) plus the agent's start in the
      target (target: at most 50 ms).

  --compare OTHER_BUILD: the same figures for another build's cpcprof (an
      older commit built in a second tree), measured in the same rounds,
      interleaved with this build's, so that a change is judged against
      the machine's state of the moment, not another hour's.

Wall-clock figures on a shared machine vary; run several rounds.
"""
import argparse
import os
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
    loop = ["bash", "-c", LOOP.format(n=a.processes)]
    stamp = ["bash", "-c", "echo $EPOCHREALTIME"]

    empty = ["bash", "-c", LOOP.format(n=0)]
    bare_loop, bare_start, bare_cpu = [], [], []
    prof_loop, prof_start, prof_cpu = ([[] for _ in recs] for _ in range(3))
    for _ in range(a.rounds):
        bare_loop.append(loop_seconds(run(loop, "bare loop")))
        bare_cpu.append(cpu_of(loop, "bare loop") - cpu_of(empty, "bare empty loop"))
        bare_start.append(start_delay(stamp))
        for k, rec in enumerate(recs):
            prof_loop[k].append(loop_seconds(run(rec + loop, "profiled loop")))
            prof_cpu[k].append(cpu_of(rec + loop, "profiled loop") -
                               cpu_of(rec + empty, "profiled empty loop"))
            prof_start[k].append(start_delay(rec + stamp))
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
    for k, build in enumerate(builds):
        p = statistics.median(prof_loop[k]) / n * 1e3
        pc = statistics.median(prof_cpu[k]) / n * 1e3
        ps = statistics.median(prof_start[k]) * 1e3
        if len(builds) > 1:
            print(f"== {build}")
        print(f"per-process ({n} fork+exec of /bin/true from bash, median of {a.rounds}):")
        print(f"  bare {b:.2f} ms, profiled {p:.2f} ms: overhead {p - b:.2f} ms per process, "
              f"ratio {p / b:.2f}")
        print(f"  CPU time per process (the processes' and the recorder's, its start and end "
              f"excluded): bare {bc:.2f} ms, profiled {pc:.2f} ms: overhead {pc - bc:.2f} ms, "
              f"ratio {pc / bc:.2f}")
        print(f"start of the target (median of {a.rounds}):")
        print(f"  bare {bs:.1f} ms, under cpcprof record {ps:.1f} ms: the recorder adds "
              f"{ps - bs:.1f} ms, ratio {ps / bs:.2f}")

if __name__ == "__main__":
    main()
