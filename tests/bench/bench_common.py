# SPDX-License-Identifier: MIT
"""What the benchmark scripts of tests/bench share."""
import os
import re
import shutil
import sqlite3
import subprocess
import sys

# The period of bench_view's and bench_gui's recordings: 100 us of CPU
# time, the shortest cpu-clock period `cpcprof record` accepts on every
# machine without measuring what an overflow costs there (shorter ones are
# refused where one overflow costs more than half of them, ~36 us on some
# VMs).
BIG_PERIOD_NS = 100_000


def record_big(prog, cpcprof, workload, work, samples):
    """(cpcprof profile, perf.data) of the bundled workload, cpu-clock
    every BIG_PERIOD_NS, about `samples` samples, kept in work and reused
    when they are already there."""
    prof = os.path.join(work, "big.cpcprof")
    pdata = os.path.join(work, "big.perf.data")
    # One sample per period of CPU time; the workload keeps about 1.4 CPUs
    # busy (its second thread works a third of the time), so this gives a
    # few per cent more than `samples`.
    seconds = samples * BIG_PERIOD_NS / 1e9 / 1.4
    wl = [workload, "--seconds", f"{seconds:.1f}"]
    runs = [(prof, [cpcprof, "record", "-q", "-e", f"cpu-clock,{BIG_PERIOD_NS}", "-o", prof,
                    "--"] + wl),
            (pdata, ["perf", "record", "-q", "-e", "cpu-clock", "-c", str(BIG_PERIOD_NS), "-g",
                     "-o", pdata, "--"] + wl)]
    for path, cmd in runs:
        if os.path.exists(path):
            continue
        print(f"{prog}: recording {samples} samples with {os.path.basename(cmd[0])} "
              f"({seconds:.0f} s of workload) ...", file=sys.stderr)
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            if os.path.exists(path):
                os.unlink(path)
            sys.exit(f"{prog}: {' '.join(cmd)} failed ({p.returncode}): {p.stderr[-2000:]}")
    return prof, pdata


def built_tools(prog, build, relpaths, need_perf=True):
    """The paths of relpaths under build; exits, naming what is missing,
    when one is not built or (need_perf) when perf is not installed."""
    paths = [os.path.join(build, p) for p in relpaths]
    for tool in paths:
        if not os.access(tool, os.X_OK):
            sys.exit(f"{prog}: {tool} not built (cmake --build --preset dev)")
    if need_perf and shutil.which("perf") is None:
        sys.exit(f"{prog}: perf not found (apt-get install linux-perf)")
    return paths


def fixed_times(p):
    """(wall, process CPU) seconds of bench_fixed_work's work, from its
    output (a completed subprocess); NaN where a figure is missing."""
    w = re.search(r"^wall ([\d.]+)$", p.stdout, re.M)
    c = re.search(r"^cpu ([\d.]+)$", p.stdout, re.M)
    return (float(w.group(1)) if w else float("nan"), float(c.group(1)) if c else float("nan"))


def cpcprof_samples(path):
    """Samples stored in a .cpcprof file."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    return db.execute("SELECT count(*) FROM sample").fetchone()[0]


def cpcprof_accounting(path):
    """(taken, stored, dropped) summed over a .cpcprof file's processes."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    row = db.execute("SELECT sum(taken), sum(stored), sum(dropped) FROM accounting").fetchone()
    return tuple(int(x or 0) for x in row)


def perf_samples(path):
    """Samples in a perf.data file (exact counts per pid, summed)."""
    p = subprocess.run(["perf", "report", "--stdio", "-n", "--sort", "pid", "-g", "none",
                        "-i", path], capture_output=True, text=True)
    total = 0
    for line in p.stdout.splitlines():
        # "Children  Self  Samples  Pid:Command" (or without Children)
        m = re.match(r"\s*[\d.]+%\s+(?:[\d.]+%\s+)?(\d+)\s", line)
        if m:
            total += int(m.group(1))
    return total
