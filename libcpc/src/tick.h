// SPDX-License-Identifier: MIT
// cpc_buf_tick: illumos counts TSC cycles while the set is on the CPU.
// Linux exposes no virtualized TSC, so libcpc counts the on-CPU time of the
// thread (task-clock, or cpu-clock for a CPU-bound set) in nanoseconds and
// converts it to TSC cycles with the kernel's own TSC scale, read once from
// a perf mmap page (time_mult, time_shift).  Without that scale (no stable
// TSC) it uses the "cpu MHz" of /proc/cpuinfo.
#pragma once

#include <cstdint>

namespace cpc {

// Reads the scale; call before any ns_to_ticks (cpc_open does).
void init_tick_conversion();

// [async-signal-safe] nanoseconds of counting time -> TSC cycles.
uint64_t ns_to_ticks(uint64_t ns);

} // namespace cpc
