#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The CI gate of `cpcprof diff`: how often it fails on identical builds
(false alarms) and how often it catches a real regression (power), with one
run a side and with several.

Runs on demand (not by ctest):

    python3 tests/bench/bench_gate.py [--build build/dev] [--pairs 20]
                                      [--runs 3] [--seconds 5] [--hz 1000]
                                      [--threshold 1] [--keep DIR]

The bundled workload (bench_fixed_work: a recursion, a pointer chase, a
compute loop, a second thread) is recorded at --hz for about --seconds
each run, 2 x pairs x runs times as it is ("base") and pairs x runs times
with its regression flag (bench_fixed_work SCALE 5: fw_injected takes 5 %
of the run's CPU time more, "new").  A Debian program (xz -6 compressing a
generated file of mixed text) is recorded 2 x pairs x runs times as it
is.  Then:

  false alarms  `cpcprof diff A B --fail-above T` on pairs of identical
                runs, one run a side (two-proportion z-test), and the same
                with --runs runs a side (Welch's t-test), on both programs:
                the sides' runs one after the other (as main's kept runs
                and a branch's are), and in turns (as docs/ci.md's script
                records them with BASE_COMMAND: A B, B A, A B)
  power         base against new, one run and --runs runs a side: how
                often the gate fails, and whether fw_injected is the first
                function it names

Each is printed beside the gate without a noise test (the function's self
share grew by more than T points, which `cpcprof diff --fail-above` did
before the test), computed from the same comparisons' JSON.  With --keep DIR
the recordings are kept and reused.  Needs xz (Debian's xz-utils).
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import built_tools  # noqa: E402

INJECTED = "fw_injected"


def record(cpcprof, hz, out, cmd):
    if os.path.exists(out):
        return out
    period = int(1e9 / hz)
    p = subprocess.run([cpcprof, "record", "-q", "-e", f"cpu-clock,{period}", "-o", out + ".tmp",
                        "--"] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"bench_gate: recording {' '.join(cmd)} failed: {p.stderr[-2000:]}")
    os.rename(out + ".tmp", out)
    return out


def gate(cpcprof, base, new, threshold):
    """(gate failed, threshold alone failed, first regression's name or
    None, the largest self growth in points) of one comparison."""
    cmd = [cpcprof, "diff"]
    cmd += (base + ["--"] + new) if len(base) > 1 or len(new) > 1 else [base[0], new[0]]
    cmd += ["--fail-above", str(threshold), "--format", "json", "--top", "0"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 3):
        sys.exit(f"bench_gate: {' '.join(cmd)}: exit {p.returncode}: {p.stderr[-2000:]}")
    doc = json.loads(p.stdout)
    grown = [f["self_change"][0]["points"] for f in doc["functions"]
             if f["self_change"][0] and f["self_change"][0]["points"] is not None]
    largest = max(grown) if grown else 0.0
    first = doc["regressions"][0]["function"] if doc["regressions"] else None
    return p.returncode == 3, largest > threshold, first, largest


def binomial_upper(k, n, conf=0.95):
    """One-sided upper confidence bound of a rate k/n (Clopper-Pearson)."""
    if k == n:
        return 1.0
    lo, hi = k / n, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        # P(X <= k | p = mid)
        cdf = sum(math.comb(n, i) * mid**i * (1 - mid)**(n - i) for i in range(k + 1))
        if cdf > 1 - conf:
            lo = mid
        else:
            hi = mid
    return hi


def rate_line(label, results, key):
    n = len(results)
    k = sum(1 for r in results if r[key])
    return f"{label:78} {k:3d} / {n:<3d} {100 * k / n:6.1f} %  (95 % bound {100 * binomial_upper(k, n):5.1f} %)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build/dev")
    ap.add_argument("--pairs", type=int, default=20)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--hz", type=int, default=1000)
    ap.add_argument("--threshold", type=float, default=1.0)
    ap.add_argument("--keep", help="directory to keep (and reuse) the recordings in")
    a = ap.parse_args()
    cpcprof, work = built_tools("bench_gate", a.build, ["profiler/cpcprof/cpcprof",
                                                        "tests/bench/bench_fixed_work"],
                                need_perf=False)
    if shutil.which("xz") is None:
        sys.exit("bench_gate: xz not found (apt-get install xz-utils)")
    keep = a.keep or tempfile.mkdtemp(prefix="bench_gate.")
    os.makedirs(keep, exist_ok=True)

    # bench_fixed_work's scale for about --seconds of CPU time: one scale
    # unit measured once, and kept with the recordings made at it.
    scale_file = os.path.join(keep, "fixed_work_scale")
    if os.path.exists(scale_file):
        scale = int(open(scale_file).read())
    else:
        probe = subprocess.run([work, "1"], capture_output=True, text=True, check=True)
        cpu1 = float([l.split()[1] for l in probe.stdout.splitlines()
                      if l.startswith("cpu ")][0])
        scale = max(1, round(a.seconds / cpu1))
        with open(scale_file, "w") as f:
            f.write(str(scale))
    # xz's input: mixed text that xz -6 compresses in about --seconds here
    # (~100,000 words a second on a quiet VM of this project).
    data = os.path.join(keep, "xz-input.txt")
    if not os.path.exists(data):
        with open(data, "w") as f:
            words = ["alpha", "beta", "gamma", "delta", "profile", "sample", "stack", "frame"]
            for i in range(int(a.seconds * 100_000)):
                f.write(words[(i * 7919) % 8] + str((i * 104729) % 1000003) + " ")
                if i % 13 == 0:
                    f.write("\n")

    n_base = 2 * a.pairs * a.runs
    n_new = a.pairs * a.runs
    print(f"bench_gate: recording {n_base} + {n_new} runs of bench_fixed_work {scale} "
          f"and {n_base} of xz -6 at {a.hz} Hz in {keep} ...", file=sys.stderr)
    base = [record(cpcprof, a.hz, os.path.join(keep, f"fw-base-{i}.cpcprof"), [work, str(scale)])
            for i in range(n_base)]
    new = [record(cpcprof, a.hz, os.path.join(keep, f"fw-new-{i}.cpcprof"),
                  [work, str(scale), "5"]) for i in range(n_new)]
    xz = [record(cpcprof, a.hz, os.path.join(keep, f"xz-{i}.cpcprof"),
                 ["xz", "-6", "-c", "-T1", data]) for i in range(n_base)]

    def results(pairs):
        out = []
        for b, n in pairs:
            failed, naive, first, largest = gate(cpcprof, b, n, a.threshold)
            out.append({"gate": failed, "naive": naive, "first": first == INJECTED,
                        "largest": largest})
        return out

    r = a.runs

    def after(runs, start):
        """The two sides of 2 r consecutive runs from start, one side's
        runs after the other's (as main's kept runs and a branch's are)."""
        return runs[start:start + r], runs[start + r:start + 2 * r]

    def in_turns(runs, start):
        """The same 2 r runs as cpcprof-gate.sh's BASE_COMMAND records the
        sides: in rounds of two, the first side first in odd rounds and
        second in even ones (A B, B A, A B, ...)."""
        block = runs[start:start + 2 * r]
        return ([block[2 * j + (j % 2)] for j in range(r)],
                [block[2 * j + 1 - (j % 2)] for j in range(r)])

    same_fw_1 = results([([base[2 * k]], [base[2 * k + 1]]) for k in range(a.pairs)])
    same_fw_n = results([after(base, 2 * r * k) for k in range(a.pairs)])
    same_fw_t = results([in_turns(base, 2 * r * k) for k in range(a.pairs)])
    same_xz = results([([xz[2 * k]], [xz[2 * k + 1]]) for k in range(a.pairs)])
    same_xz_n = results([after(xz, 2 * r * k) for k in range(a.pairs)])
    same_xz_t = results([in_turns(xz, 2 * r * k) for k in range(a.pairs)])
    # Every window of 2 r consecutive runs: more comparisons (overlapping,
    # so not independent) for a rate nearer the nominal one.
    windows = range(len(base) - 2 * r + 1)
    every = [(label, results([arrange(runs, w) for w in windows]))
             for label, runs, arrange in [("bench_fixed_work, one after the other", base, after),
                                          ("bench_fixed_work, in turns", base, in_turns),
                                          ("xz -6, one after the other", xz, after),
                                          ("xz -6, in turns", xz, in_turns)]]
    power_1 = results([([base[k]], [new[k]]) for k in range(a.pairs)])
    power_n = results([(base[r * k:r * (k + 1)], new[r * k:r * (k + 1)]) for k in range(a.pairs)])

    print(f"# bench_gate: {os.uname().release}, {a.hz} Hz, runs of about {a.seconds:g} s, "
          f"--fail-above {a.threshold:g}, confidence 99 %, {a.pairs} pairs each")
    print("# gate: cpcprof diff's test; threshold alone: a self share grew by more than the "
          "threshold (the gate without a noise test)")
    print("identical builds, false alarms (target <= 1 % in expectation):")
    for label, res in [("bench_fixed_work, 1 run a side", same_fw_1),
                       (f"bench_fixed_work, {r} runs a side, one after the other", same_fw_n),
                       (f"bench_fixed_work, {r} runs a side, in turns", same_fw_t),
                       ("xz -6, 1 run a side", same_xz),
                       (f"xz -6, {r} runs a side, one after the other", same_xz_n),
                       (f"xz -6, {r} runs a side, in turns", same_xz_t)]:
        print("  " + rate_line(label + ", gate", res, "gate"))
        print("  " + rate_line(label + ", threshold alone", res, "naive"))
        print(f"  {'':78} largest self growth: median "
              f"{sorted(x['largest'] for x in res)[len(res) // 2]:+.2f} points")
    print(f"every window of {2 * r} consecutive runs of the same build, {r} runs a side "
          f"({len(windows)} overlapping comparisons):")
    for label, res in every:
        print("  " + rate_line(label + ", gate", res, "gate"))
    print("fw_injected +5 % of the run, caught (target >= 90 % with "
          f"{r} runs a side, named first):")
    for label, res in [("1 run a side", power_1), (f"{r} runs a side", power_n)]:
        print("  " + rate_line(label + ", gate failed", res, "gate"))
        print("  " + rate_line(label + ", fw_injected named first", res, "first"))


if __name__ == "__main__":
    main()
