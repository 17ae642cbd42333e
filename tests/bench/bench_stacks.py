#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Complete stacks on programs nobody here wrote, beside perf, in one run.

Runs on demand (not by ctest):

    python3 tests/bench/bench_stacks.py [--build build/dev] [--hz 1000] [--runs N]
                                        [--only NAME]

Each program runs once (--runs: N times) under each of four tools,
sampling cpu-clock at --hz (perf: user mode only): under `cpcprof record`
(dwarf call graph, with --stats) through its agent, under `cpcprof record
--capture ring` (the kernel's sample rings with copies of the user stack,
unwound in the recorder, as `record -p` does), under
`perf record --call-graph dwarf` and under `perf record -g`.  A stack is
complete when it passes where a program's or a thread's stack begins
(_start, __libc_start_call_main, __libc_start_main, clone3, clone,
start_thread, and _dl_start for the loader's work before main: stripped
programs have no name for _start, and frame pointers end at
__libc_start_call_main), judged by the same rule for
every tool, from
`cpcprof export --format folded` and `perf script`.  cpcprof's own flag
(the walk reached a frame the CFI marks outermost) is printed beside it.
For cpcprof it also prints the handler's cost (--stats: PC + unwind +
ring push, median and p99).

Programs: python3 (hashlib and json), sqlite3 (a recursive query), xz and
bzip2 (compressing random data), openssl speed sha512 and rsa2048, node
(JIT code, V8's builtins without unwind information), the bundled
asmframes and sigspin targets, sigloop (half its CPU time in its own
SIGALRM handler while its loop runs: every 10 ms, on an alternate signal
stack, every 0.9 ms), and the bundled Go program built with cgo
(goroutines on stacks of Go's own, Go code without unwind rows).  One that
is not installed is skipped with a line saying so.  Needs linux-perf.
"""
import argparse
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile

from bench_common import built_tools

# _dl_start: the dynamic loader's own start, where a program's first
# samples (before main) begin; ld.so's entry has no symbol of its own.
# runtime.goexit: where every Go goroutine's stack begins; runtime.mstart
# and runtime.rt0_go, the Go runtime's system stacks.
ROOTS = {"_start", "__libc_start_call_main", "__libc_start_main", "__libc_start_main_impl",
         "clone3", "clone", "start_thread", "_dl_start", "runtime.goexit", "runtime.goexit.abi0",
         "runtime.mstart", "runtime.rt0_go", "runtime.rt0_go.abi0"}


def go_program(tmp):
    """The bundled Go target (cgo, dynamically linked: the agent's path),
    built with Debian's golang-go into tmp; a path that does not exist
    when Go is not installed or the build fails."""
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "record", "targets",
                       "gotrap")
    exe = os.path.join(tmp, "gotrap")
    if shutil.which("go") is None:
        return "/usr/bin/go"
    env = dict(os.environ, GOCACHE=os.path.join(tmp, "go-cache"), GOFLAGS="-mod=mod",
               GOPROXY="off", GOTOOLCHAIN="local", CGO_ENABLED="1")
    subprocess.run(["go", "build", "-o", exe, "."], cwd=src, env=env, check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return exe


def programs(build, tmp):
    data = os.path.join(tmp, "random.bin")
    with open(data, "wb") as f:
        f.write(os.urandom(24 << 20))
    py = ("import hashlib, json\n"
          "for i in range(1500000):\n"
          "    hashlib.sha256(json.dumps({'a': i, 'b': [i] * 4}).encode()).hexdigest()\n")
    sql = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000) "
           "SELECT sum(length(printf('%d-%x', x, x * 7))) FROM c;")
    js = ("function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
          "let s = 0; const t = Date.now();\n"
          "while (Date.now() - t < 3000) { s += fib(25); s += JSON.stringify({a: s}).length; }\n"
          "console.log(s);\n")
    targets = os.path.join(build, "tests/record/targets")
    return [
        ("python3", ["/usr/bin/python3", "-c", py]),
        ("sqlite3", ["/usr/bin/sqlite3", ":memory:", sql]),
        ("xz", ["/usr/bin/xz", "-6", "-T1", "-c", data]),
        ("bzip2", ["/bin/bzip2", "-9", "-c", data]),
        ("openssl sha512", ["/usr/bin/openssl", "speed", "-seconds", "2", "-bytes", "16384",
                            "sha512"]),
        ("openssl rsa2048", ["/usr/bin/openssl", "speed", "-seconds", "1", "rsa2048"]),
        ("node", ["/usr/bin/node", "-e", js]),
        ("asmframes", [os.path.join(targets, "record_asmframes"), "2"]),
        ("sigspin", [os.path.join(targets, "record_sigspin"), "2"]),
        ("sigloop", [os.path.join(targets, "record_sigloop"), "2", "plain"]),
        ("sigloop altstack", [os.path.join(targets, "record_sigloop"), "2", "altstack"]),
        ("sigloop fast", [os.path.join(targets, "record_sigloop"), "2", "fast"]),
        ("go (cgo)", [go_program(tmp)]),
    ]


def folded_roots(lines):
    """(complete, total) samples of folded stacks 'root;...;leaf COUNT'."""
    complete = total = 0
    for line in lines:
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        total += n
        complete += n if any(f.split("@")[0] in ROOTS for f in stack.split(";")) else 0
    return complete, total


def cpcprof_run(cpcprof, hz, cmd, out, capture="agent"):
    p = subprocess.run([cpcprof, "record", "--stats", "-F", str(hz), "--call-graph", "dwarf",
                        "--capture", capture, "-o", out, "--"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, errors="replace")
    if p.returncode != 0:
        return None
    # The export's values are the event's periods: count samples instead.
    e = subprocess.run([cpcprof, "export", out, "--format", "folded", "-o", "-"],
                       capture_output=True, text=True)
    db = sqlite3.connect(f"file:{out}?mode=ro", uri=True)
    period = db.execute("SELECT period FROM event WHERE idx = 0").fetchone()[0]
    flagged, stored = db.execute("SELECT sum(complete), count(*) FROM sample").fetchone()
    db.close()
    lines = []
    for line in e.stdout.splitlines():
        stack, _, value = line.rpartition(" ")
        if value.isdigit():
            lines.append(f"{stack} {int(value) // period}")
    complete, total = folded_roots(lines)
    h = re.search(r"median ([\d.]+) us, p99 ([\d.]+) us", p.stderr)
    return {"complete": complete, "total": total,
            "flagged": 100.0 * (flagged or 0) / stored if stored else 0.0,
            "handler": (float(h.group(1)), float(h.group(2))) if h else None}


def perf_run(mode, hz, cmd, out):
    cg = ["--call-graph", "dwarf"] if mode == "dwarf" else ["-g"]
    p = subprocess.run(["perf", "record", "-e", "cpu-clock:u", "-F", str(hz)] + cg +
                       ["-o", out, "--"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, errors="replace")
    if p.returncode != 0:
        return None
    s = subprocess.run(["perf", "script", "-i", out, "-F", "ip,sym"], capture_output=True,
                       text=True).stdout
    complete = total = 0
    frames = []
    for line in s.splitlines() + [""]:
        if line.strip():
            f = line.split()
            frames.append(f[1].split("@")[0].split("+")[0] if len(f) > 1 else "[unknown]")
            continue
        if frames:
            total += 1
            complete += any(f in ROOTS for f in frames)
        frames = []
    return {"complete": complete, "total": total}


def share(r):
    if r is None:
        return "failed"
    if not r["total"]:
        return "no samples"
    return f"{100.0 * r['complete'] / r['total']:6.2f} % of {r['total']}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build/dev")
    ap.add_argument("--hz", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=1, help="runs of each program under each tool")
    ap.add_argument("--only", help="only the programs whose name contains this")
    a = ap.parse_args()
    (cpcprof,) = built_tools("bench_stacks", a.build, ["profiler/cpcprof/cpcprof"])
    tmp = tempfile.mkdtemp(prefix="bench_stacks.")
    print(f"complete stacks at {a.hz} Hz of user-mode cpu-clock (the stack passes where a "
          f"program's or thread's stack begins)")
    print(f"{'program':<16} {'cpcprof dwarf':>22} {'(own flag)':>10} {'handler us med/p99':>19} "
          f"{'cpcprof ring':>22} {'perf --call-graph dwarf':>24} {'perf -g':>22}")
    for name, cmd in programs(a.build, tmp):
        if a.only and a.only not in name:
            continue
        if not os.access(cmd[0], os.X_OK):
            print(f"{name:<16} skipped: {cmd[0]} is not installed")
            continue
        for run in range(a.runs):
            out = os.path.join(tmp, "out")
            c = cpcprof_run(cpcprof, a.hz, cmd, out + ".cpcprof")
            r = cpcprof_run(cpcprof, a.hz, cmd, out + ".ring.cpcprof", "ring")
            pd = perf_run("dwarf", a.hz, cmd, out + ".dwarf.data")
            pg = perf_run("fp", a.hz, cmd, out + ".fp.data")
            flag = f"{c['flagged']:6.2f} %" if c else ""
            h = f"{c['handler'][0]:.2f}/{c['handler'][1]:.2f}" if c and c["handler"] else "-"
            label = name if a.runs == 1 else f"{name} #{run + 1}"
            print(f"{label:<16} {share(c):>22} {flag:>10} {h:>19} {share(r):>22} "
                  f"{share(pd):>24} {share(pg):>22}", flush=True)
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
