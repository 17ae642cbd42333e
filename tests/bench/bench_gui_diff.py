#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cpcprof-gui comparing two 1,000,000-sample profiles: time from start
until the comparison is shown (`cpcprof-gui --base BASE NEW`).

Runs on demand (not by ctest):

    python3 tests/bench/bench_gui_diff.py [--build build/dev] [--samples 1000000]
                                          [--rounds 3] [--keep DIR]

The pair is bench_storage's synthetic profiles of --samples samples (45-deep
stacks, two events), BASE with 2,000 distinct stacks and NEW with 2,600, so
that some call paths are in both and some in one only.  cpcprof-gui runs
with QT_QPA_PLATFORM=offscreen and CPCPROF_GUI_BENCH=1: it opens NEW, loads
BASE on a thread of its own, compares them, and once the flame graph of NEW
is painted coloured by change (and the trees' delta columns and the
Comparison page are filled) prints diff_ms, the time from the start of the
process, with base_load_ms (loading BASE), compare_ms (compare_profiles
alone) and first_paint_ms (NEW's flame graph before the comparison).
The process's CPU time (user + system, wait4) is printed beside the wall
times: on a shared machine it is the figure that does not depend on what
else runs.
Target (issue 16): opening a diff of two such files < 2 s.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import shutil

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import built_tools, cpcprof_samples  # noqa: E402

TARGET_MS = 2000


def gui_once(gui, base, new):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", CPCPROF_GUI_BENCH="1")
    p = subprocess.Popen([gui, "--base", base, new], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=env)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench_gui_diff: cpcprof-gui --base {base} {new} failed")
    r = json.loads(out.decode().strip().splitlines()[-1])
    r["cpu_ms"] = (ru.ru_utime + ru.ru_stime) * 1000
    r["rss_mib"] = ru.ru_maxrss / 1024
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build/dev")
    ap.add_argument("--samples", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--keep", help="directory to keep (and reuse) the profiles in")
    a = ap.parse_args()
    gui, storage = built_tools("bench_gui_diff", a.build,
                               ["gui/app/cpcprof-gui", "tests/bench/bench_storage"],
                               need_perf=False)
    work = a.keep or tempfile.mkdtemp(prefix="bench_gui_diff.")
    os.makedirs(work, exist_ok=True)
    pair = {}
    for name, stacks in (("base", 2000), ("new", 2600)):
        path = os.path.join(work, f"diff-{name}-{a.samples}.cpcprof")
        if not os.path.exists(path):
            subprocess.run([storage, "--samples", str(a.samples), "--stacks", str(stacks),
                            "-o", path], check=True, stdout=subprocess.DEVNULL)
        pair[name] = path
    runs = [gui_once(gui, pair["base"], pair["new"]) for _ in range(a.rounds)]
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print(f"# bench_gui_diff: {cpcprof_samples(pair['base'])} and "
          f"{cpcprof_samples(pair['new'])} samples, {a.rounds} rounds, medians "
          f"(load average {load} on {os.cpu_count()} CPUs)")
    for label, key in (("comparison shown, from start (ms)", "diff_ms"),
                       ("  NEW's first flame graph (ms)", "first_paint_ms"),
                       ("  loading BASE (ms)", "base_load_ms"),
                       ("  compare_profiles (ms)", "compare_ms"),
                       ("  GUI thread's longest stall (ms)", "max_stall_ms"),
                       ("process CPU time, user + sys (ms)", "cpu_ms"),
                       ("peak RSS (MiB)", "rss_mib")):
        v = statistics.median(r[key] for r in runs)
        verdict = ""
        if key == "diff_ms":
            verdict = f"< {TARGET_MS} " + ("ok" if v < TARGET_MS else "MISSED")
        print(f"{label:36} {v:10.1f} {verdict}")
    if not a.keep:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
