#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What attaching to a running program costs it: `cpcprof record -p`
against `perf record -p --call-graph dwarf`, in the same rounds.

Runs on demand (not by ctest):

    python3 tests/bench/bench_attach.py [--build build/dev] [--rounds 5]
                                        [--rates 1000,10000] [--scale 4]

Each round starts bench_fixed_work (FW_GO_FILE set: it waits before its
timed work), attaches the profiler to it (or nothing, for the bare run),
lets the work run and waits for the profiler to end with it.  Modes are
interleaved and their order rotated round by round.  Printed per rate,
medians over the rounds:

  work      the work's own wall time (start-up and attach excluded) and
            its ratio to the bare run: the target's slowdown;
  samples   the samples in the file;
  B/sample  the file's bytes per sample (cpcprof: before symbols are
            added, --no-symbolize; perf: perf.data);
  rec CPU   the recorder's own CPU time (user + system, from wait4) per
            sample: cpcprof unwinds each copied stack as it reads it,
            perf only writes the copies (its unwinding happens later, in
            `perf report`, and is not counted here).

Both copy 16 KiB of user stack per sample (perf: --call-graph dwarf,16384)
so the kernel's side of the work is the same.  Needs perf and root (or
perf_event_paranoid allowing attach).
"""
import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from bench_common import built_tools, cpcprof_samples, fixed_times


def wait_for(path, text, timeout=30):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with open(path) as f:
                if text in f.read():
                    return True
        except FileNotFoundError:
            pass
        time.sleep(0.005)
    return False


def one_run(mode, rate, work, cpcprof, fixed, scale):
    """(work wall s, samples, bytes, recorder CPU s) of one attached run."""
    go = os.path.join(work, "go")
    if os.path.exists(go):
        os.unlink(go)
    out_path = os.path.join(work, "target.out")
    env = dict(os.environ, FW_GO_FILE=go)
    with open(out_path, "w") as out:
        target = subprocess.Popen([fixed, str(scale)], stdout=out, env=env)
    if not wait_for(out_path, "ready"):
        target.kill()
        sys.exit("bench_attach: bench_fixed_work did not start")
    rec = None
    data = os.path.join(work, "profile")
    err_path = os.path.join(work, "rec.err")
    if mode == "cpcprof":
        cmd = [cpcprof, "record", "-F", str(rate), "--no-symbolize", "-o", data + ".cpcprof",
               "-p", str(target.pid)]
        data += ".cpcprof"
    elif mode == "perf":
        cmd = ["perf", "record", "-F", str(rate), "-e", "cpu-clock", "--call-graph",
               "dwarf,16384", "-o", data + ".perf.data", "-p", str(target.pid)]
        data += ".perf.data"
    if mode != "bare":
        err = open(err_path, "w")
        rec = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        # cpcprof says when it is attached; perf does not: give it the time
        # cpcprof takes, and more.
        if mode == "cpcprof" and not wait_for(err_path, "recording process"):
            sys.exit(f"bench_attach: cpcprof did not attach:\n{open(err_path).read()}")
        if mode == "perf":
            time.sleep(0.3)
    open(go, "w").close()
    target.wait()
    wall, _ = fixed_times(subprocess.CompletedProcess([], 0, open(out_path).read(), ""))
    if rec is None:
        return wall, 0, 0, 0.0
    _, status, usage = os.wait4(rec.pid, 0)
    rec.returncode = os.waitstatus_to_exitcode(status)
    err.close()
    if rec.returncode != 0:
        sys.exit(f"bench_attach: {' '.join(cmd)} failed:\n{open(err_path).read()}")
    cpu = usage.ru_utime + usage.ru_stime
    size = os.path.getsize(data)
    if mode == "cpcprof":
        samples = cpcprof_samples(data)
    else:
        m = re.search(r"\((\d+) samples\)", open(err_path).read())
        samples = int(m.group(1)) if m else 0
    return wall, samples, size, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build/dev")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--rates", default="1000,10000")
    ap.add_argument("--scale", type=int, default=4)
    a = ap.parse_args()
    cpcprof, fixed = built_tools("bench_attach", a.build,
                                 ["profiler/cpcprof/cpcprof", "tests/bench/bench_fixed_work"])
    modes = ["bare", "cpcprof", "perf"]
    with tempfile.TemporaryDirectory(prefix="bench_attach.") as work:
        for rate in [int(r) for r in a.rates.split(",")]:
            results = {m: [] for m in modes}
            for r in range(a.rounds):
                order = modes[r % 3:] + modes[:r % 3]
                for m in order:
                    results[m].append(one_run(m, rate, work, cpcprof, fixed, a.scale))
            bare = statistics.median(x[0] for x in results["bare"])
            print(f"\n-F {rate}, {a.rounds} rounds (medians); bare work {bare:.3f} s")
            print(f"{'':10} {'work s':>8} {'x bare':>7} {'samples':>8} {'B/sample':>9} "
                  f"{'rec CPU us/sample':>18}")
            figures = {}
            for m in ("cpcprof", "perf"):
                rows = results[m]
                wall = statistics.median(x[0] for x in rows)
                samples = statistics.median(x[1] for x in rows)
                per = statistics.median(x[2] / x[1] for x in rows if x[1] > 0)
                cpu = statistics.median(x[3] / x[1] * 1e6 for x in rows if x[1] > 0)
                figures[m] = (wall / bare, per, cpu)
                print(f"{m:10} {wall:8.3f} {wall / bare:7.3f} {samples:8.0f} {per:9.0f} "
                      f"{cpu:18.1f}")
            c, p = figures["cpcprof"], figures["perf"]
            print(f"cpcprof / perf: slowdown {(c[0] - 1) / (p[0] - 1) if p[0] > 1 else float('nan'):.2f} "
                  f"(of the added time), bytes per sample {c[1] / p[1]:.4f} (1/{p[1] / c[1]:.0f}), "
                  f"recorder CPU per sample {c[2] / p[2]:.2f}")


if __name__ == "__main__":
    main()
