#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Samples per CPU-second, cpcprof against perf, at several sampling rates.

    python3 tests/bench/bench_rate.py [--build build/dev] [--scale S] [--rounds N]

For each rate (1, 4, 10, 20 and 50 kHz of cpu-clock), runs bench_fixed_work
under `cpcprof record -e cpu-clock,PERIOD` and under `perf record -e
cpu-clock:u -c PERIOD`, back to back, N rounds, and prints for each: the
samples each kept, the CPU time the work took under each (the program's
own figure), samples per CPU-second and their ratio (cpcprof / perf), and
cpcprof's accounting (taken = stored + dropped, overflows whose signals
merged into one counted in taken).

Both count user-mode periods of CPU time, so samples per CPU-second agree
when nothing is lost; the program's CPU time differs by what each sample
costs it: perf takes its sample in the kernel, cpcprof pays an overflow
signal per sample (the design's price).  A rate cpcprof refuses (the period
is shorter than this machine's overflow round trip allows, see `cpcprof
record`) is printed as refused, with the reason.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

from bench_common import built_tools, cpcprof_accounting, cpcprof_samples, fixed_times, \
    perf_samples

RATES_HZ = [1000, 4000, 10000, 20000, 50000]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build/dev")
    ap.add_argument("--scale", default="1")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    cpcprof, work = built_tools("bench_rate", a.build,
                                ["profiler/cpcprof/cpcprof", "tests/bench/bench_fixed_work"])
    tmp = tempfile.mkdtemp(prefix="bench_rate.")
    print(f"# bench_rate: {os.uname().release}, bench_fixed_work {a.scale}, "
          f"{a.rounds} rounds, medians")
    print(f"{'rate':>7} {'period':>8} | {'cpcprof':>9} {'cpu s':>6} {'/cpu-s':>8} | "
          f"{'perf':>9} {'cpu s':>6} {'/cpu-s':>8} | {'ratio':>6} | cpcprof taken/stored/dropped")
    for hz in RATES_HZ:
        period = 1_000_000_000 // hz
        rows = {"cpcprof": [], "perf": []}
        acct = None
        refused = None
        for _ in range(a.rounds):
            prof = os.path.join(tmp, "out.cpcprof")
            p = subprocess.run([cpcprof, "record", "-q", "--no-symbolize", "-e",
                                f"cpu-clock,{period}", "-o", prof, "--", work, a.scale],
                               capture_output=True, text=True)
            if p.returncode != 0:
                refused = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "failed"
                break
            n = cpcprof_samples(prof)
            rows["cpcprof"].append((n, fixed_times(p)[1]))
            acct = cpcprof_accounting(prof)
            pdata = os.path.join(tmp, "perf.data")
            q = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock:u", "-c", str(period),
                                "-o", pdata, "--", work, a.scale],
                               capture_output=True, text=True)
            if q.returncode != 0:
                sys.exit(f"bench_rate: perf record failed: {q.stderr[-500:]}")
            rows["perf"].append((perf_samples(pdata), fixed_times(q)[1]))
        if refused is not None:
            print(f"{hz:>7} {period // 1000:>6}us | cpcprof refused: {refused}")
            continue
        med = {}
        for k, v in rows.items():
            n = statistics.median(x[0] for x in v)
            cpu = statistics.median(x[1] for x in v)
            rate = statistics.median(x[0] / x[1] for x in v)
            med[k] = (n, cpu, rate)
        c, f = med["cpcprof"], med["perf"]
        print(f"{hz:>7} {period // 1000:>6}us | {c[0]:>9.0f} {c[1]:>6.2f} {c[2]:>8.0f} | "
              f"{f[0]:>9.0f} {f[1]:>6.2f} {f[2]:>8.0f} | {c[2] / f[2]:>6.3f} | "
              f"{acct[0]}/{acct[1]}/{acct[2]}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
