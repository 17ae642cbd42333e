"""What the benchmark scripts of tests/bench share."""
import os
import re
import shutil
import sys


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
