// SPDX-License-Identifier: MIT
// What one sampling overflow costs on this machine, measured.
//
// Every sample of a time-based event (cpu-clock, task-clock) is a round
// trip that the profiler cannot make cheaper: the kernel's timer fires,
// the overflow signal is delivered, libcpc re-dispatches it as SIGEMT, the
// handler returns and the counters are restarted.  When that round trip
// takes as long as the period, the program never runs again (the next
// overflow is due when the handler returns): a short period must be
// refused, and how short depends on the machine.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace cpcprof::record {

struct OverflowCost {
    double ns_per_overflow = 0; // CPU time the program loses per overflow
    uint64_t overflows = 0;     // how many the estimate is made of
    double cpu_ns = 0;          // CPU time the measurement took
};

// Measures it in the calling thread, in about 20-30 ms of CPU time: a spin
// loop timed (thread CPU time) alone and under a cpu-clock overflow set
// whose SIGEMT handler only restarts the counters.  SIGEMT's disposition is
// replaced while it runs and restored.  The handler stops restarting once
// the budget is spent, so a machine where overflows take all the CPU still
// returns.  Not async-signal-safe; not for a program with its own SIGEMT
// handler (the recorder has none).  nullopt with *error set when no
// cpu-clock overflow can be set up.
std::optional<OverflowCost> measure_overflow_cost(std::string *error);

// The highest overflow rate, per second of CPU time, at which the round
// trips alone take at most `share` of the program's CPU.
double sustainable_rate(const OverflowCost &c, double share = 0.5);

} // namespace cpcprof::record
