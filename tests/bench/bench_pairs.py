#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cpcprof record's slowdown against perf record -g, in interleaved pairs.

Runs on demand (not by ctest):

    python3 tests/bench/bench_pairs.py [--build build/dev] [--pairs 60]
                                       [--rates 1000,10000] [--scale 1]

A VM's speed drifts by several per cent over minutes, more than the
difference between the two profilers, so bench_record.py's medians of a
few rounds cannot tell them apart.  Here each pair runs the same fixed work
(bench_fixed_work, timed by itself) under `cpcprof record` (dwarf call
graph) and under `perf record -g`, back to back, both sampling cpu-clock at
the same rate, the order swapped from one pair to the next.  For each rate
it prints the median over the pairs of

    cpcprof wall time / perf record -g wall time

with its 95 % confidence interval (distribution-free: order statistics of
the binomial), the median ratio of the pairs where cpcprof ran first and
of those where it ran second (they differ when the order matters), and the
median slowdown of each against the work run alone (one unprofiled run per
pair).  A ratio below 1 means cpcprof slowed the work less.

Needs linux-perf (`perf`).
"""
import argparse
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from bench_common import built_tools, fixed_times


def wall(cmd):
    """The work's own wall time, in seconds, from bench_fixed_work's output."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    t = fixed_times(p)[0]
    if p.returncode != 0 or math.isnan(t):
        sys.exit(f"bench_pairs: {' '.join(cmd)} failed ({p.returncode}):\n{p.stderr}")
    return t


def median_ci(values, level=0.95):
    """The median and the order-statistics confidence interval around it."""
    x = sorted(values)
    n = len(x)
    # The largest k with P(Binomial(n, 1/2) < k) <= (1 - level) / 2; the
    # interval is [x_k, x_(n+1-k)] (1-based).
    tail, k, acc = (1 - level) / 2, 0, 0.0
    while k < n:
        acc_next = acc + math.comb(n, k) / 2**n
        if acc_next > tail:
            break
        acc, k = acc_next, k + 1
    if k == 0:
        return statistics.median(x), x[0], x[-1]
    return statistics.median(x), x[k - 1], x[n - k]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build/dev")
    ap.add_argument("--pairs", type=int, default=60)
    ap.add_argument("--rates", default="1000,10000")
    ap.add_argument("--scale", default="1", help="bench_fixed_work's SCALE")
    a = ap.parse_args()
    cpcprof, fixed = built_tools(
        "bench_pairs", a.build, ["profiler/cpcprof/cpcprof", "tests/bench/bench_fixed_work"])
    if a.pairs < 1:
        sys.exit("bench_pairs: --pairs must be at least 1")
    rates = [r.strip() for r in a.rates.split(",") if r.strip()]
    work = [fixed, a.scale]
    tmp = tempfile.mkdtemp(prefix="bench_pairs.")
    uname = os.uname()
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                  if l.startswith("model name")), "?")
    print(f"bench_pairs: {uname.sysname} {uname.release} | {model} | {os.cpu_count()} CPUs | "
          f"bench_fixed_work {a.scale}, {a.pairs} pairs per rate, cpu-clock")
    print(f"{'rate':>7} {'cpcprof / perf -g':>18} {'95% CI':>15} {'cpcprof 1st':>12} "
          f"{'cpcprof 2nd':>12} {'cpcprof slowdown':>17} {'perf -g slowdown':>17}")
    try:
        for hz in rates:
            out = os.path.join(tmp, "out")
            cmds = {
                "cpcprof": [cpcprof, "record", "-q", "-F", hz, "--call-graph", "dwarf",
                            "-o", out + ".cpcprof", "--"] + work,
                "perf": ["perf", "record", "-q", "-e", "cpu-clock", "-F", hz, "-g", "-o",
                         out + ".data", "--"] + work,
            }
            ratios, slow_c, slow_p = [], [], []
            for i in range(a.pairs):
                order = ["cpcprof", "perf"] if i % 2 == 0 else ["perf", "cpcprof"]
                t = {name: wall(cmds[name]) for name in order}
                alone = wall(work)
                ratios.append(t["cpcprof"] / t["perf"])
                slow_c.append(t["cpcprof"] / alone)
                slow_p.append(t["perf"] / alone)
            med, lo, hi = median_ci(ratios)
            first = statistics.median(ratios[0::2])
            second = statistics.median(ratios[1::2]) if len(ratios) > 1 else float("nan")
            print(f"{hz + ' Hz':>7} {med:18.3f} {f'{lo:.3f}-{hi:.3f}':>15} {first:12.3f} "
                  f"{second:12.3f} {statistics.median(slow_c):17.3f} "
                  f"{statistics.median(slow_p):17.3f}", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
