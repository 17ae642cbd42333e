#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cpcprof report and flamegraph on a 1,000,000-sample profile, side by side
with `perf report --stdio` on the perf.data of the same workload.

Runs on demand (not by ctest):

    python3 tests/bench/bench_view.py [--build build/dev] [--samples 1000000]
                                      [--rounds 3] [--keep DIR]

It records the bundled workload (tests/record/targets/record_workload_nofp:
a 40-deep recursion, a pointer chase, a compute kernel, a second thread)
once with `cpcprof record` and once with `perf record -g`, both sampling
cpu-clock every 100 us of CPU time, long enough for about --samples samples
each (with --keep DIR the recordings are kept there and reused by later
runs).  Then, interleaved round by round, it times:

  cpcprof report      FILE > /dev/null   (hotspot table, default options)
  cpcprof flamegraph  FILE -o flame.html
  cpcprof flamegraph  FILE -o flame.svg
  perf report --stdio -i perf.data > /dev/null

and prints the medians, the samples in each file, and the ratios against
perf report.  Targets (issue): report < 1 s, flamegraph < 2 s.

The workload has a few hundred distinct stacks; large programs have many
thousands.  So the same commands are also timed on a synthetic profile
written by bench_storage: 1,000,000 samples over 5,000 distinct stacks 45
frames deep, never symbolized (each address is its own "module+0x..."
function, the worst case for the tables).  perf has no counterpart there.

Needs linux-perf (`perf`).
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from bench_common import built_tools, cpcprof_samples, perf_samples, record_big


def timed(cmd, out=subprocess.DEVNULL):
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=out, stderr=subprocess.PIPE, text=True)
    dt = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit(f"bench_view: {' '.join(cmd)} failed ({p.returncode}): {p.stderr[-2000:]}")
    return dt


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build/dev")
    ap.add_argument("--samples", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--keep", help="directory to keep (and reuse) the recordings in")
    a = ap.parse_args()
    cpcprof, workload = built_tools(
        "bench_view", a.build, ["profiler/cpcprof/cpcprof",
                                "tests/record/targets/record_workload_nofp"])
    work = a.keep or tempfile.mkdtemp(prefix="bench_view.")
    os.makedirs(work, exist_ok=True)
    prof, pdata = record_big("bench_view", cpcprof, workload, work, a.samples)
    synth = os.path.join(work, "synthetic.cpcprof")
    bench_storage = os.path.join(a.build, "tests/bench/bench_storage")
    if not os.path.exists(synth):
        if not os.access(bench_storage, os.X_OK):
            sys.exit(f"bench_view: {bench_storage} not built (cmake --build --preset dev)")
        timed([bench_storage, "--samples", str(a.samples), "-o", synth])
    n_cpc = cpcprof_samples(prof)
    n_perf = perf_samples(pdata)

    modes = {
        "cpcprof report": lambda: timed([cpcprof, "report", prof]),
        "cpcprof flamegraph html": lambda: timed(
            [cpcprof, "flamegraph", prof, "-o", os.path.join(work, "flame.html")]),
        "cpcprof flamegraph svg": lambda: timed(
            [cpcprof, "flamegraph", prof, "-o", os.path.join(work, "flame.svg")]),
        "perf report --stdio": lambda: timed(["perf", "report", "--stdio", "-i", pdata]),
        "synthetic: cpcprof report": lambda: timed([cpcprof, "report", synth]),
        "synthetic: flamegraph html": lambda: timed(
            [cpcprof, "flamegraph", synth, "-o", os.path.join(work, "synth.html")]),
    }
    times = {m: [] for m in modes}
    names = list(modes)
    for r in range(a.rounds):
        for m in names[r % len(names):] + names[:r % len(names)]:
            times[m].append(modes[m]())
    perf_t = statistics.median(times["perf report --stdio"])
    print(f"# bench_view: {os.uname().release}, {n_cpc} samples in {os.path.basename(prof)} "
          f"({os.path.getsize(prof) / 1e6:.1f} MB), {n_perf} in perf.data "
          f"({os.path.getsize(pdata) / 1e6:.1f} MB), {a.rounds} rounds, medians; "
          f"synthetic: {cpcprof_samples(synth)} samples")
    print(f"{'command':28} {'seconds':>8} {'vs perf report':>15} {'target':>12}")
    targets = {"cpcprof report": 1.0, "cpcprof flamegraph html": 2.0,
               "cpcprof flamegraph svg": 2.0, "synthetic: cpcprof report": 1.0,
               "synthetic: flamegraph html": 2.0}
    for m in names:
        t = statistics.median(times[m])
        target = targets.get(m)
        verdict = "" if target is None else (f"< {target:g} s " + ("ok" if t < target else "MISSED"))
        ratio = "" if m.startswith("synthetic") else f"{t / perf_t:.2f}x"
        print(f"{m:28} {t:8.2f} {ratio:>15} {verdict:>12}")
    if not a.keep:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
