// SPDX-License-Identifier: MIT
// cpc_buf_tick: illumos counts TSC cycles while the set is on the CPU.
// Linux exposes no virtualized TSC, so libcpc counts the on-CPU time of the
// thread (task-clock, or cpu-clock for a CPU-bound set) in nanoseconds and
// converts it to TSC cycles with the kernel's own TSC scale, read once from
// a perf mmap page (time_mult, time_shift).  Without that scale (no stable
// TSC) it uses the "cpu MHz" of /proc/cpuinfo.  The scale is read at the
// first conversion, not by cpc_open: a process that never reads a tick
// (every process cpcprof records with one event) saves the probe and the
// read, about 0.1 ms in a VM.
#pragma once

#include <cstdint>

namespace cpc {

// [async-signal-safe] nanoseconds of counting time -> TSC cycles.  The
// first call reads the scale (a perf_event_open, its page, /proc/cpuinfo
// through a small buffer: system calls only, errno kept).
uint64_t ns_to_ticks(uint64_t ns);

} // namespace cpc
