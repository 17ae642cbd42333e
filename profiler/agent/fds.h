// SPDX-License-Identifier: MIT
// The profiler's share of the program's descriptor table (fds.cpp).
#pragma once

namespace cpcprof::agent {

// Descriptors always left to the program, whatever the budget says.
inline constexpr int kReservedFds = 64;

// Whether the agent may hold `wanted` more counter descriptors: it keeps at
// most half of what the program leaves free under RLIMIT_NOFILE (read
// anew at every call: the program may change it), and never the last
// kReservedFds.  Counts the open descriptors (/proc/self/fd) only when the
// limit is near: a few system calls, for ordinary context (thread
// creation), not for signal context.
bool counter_budget_allows(int wanted);

} // namespace cpcprof::agent
