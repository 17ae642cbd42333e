// SPDX-License-Identifier: MIT
// The agent's configuration: what the recorder asked for, read from the
// environment it set (profiler/common/protocol.h, kEnv*) when the agent
// starts in a process.  Ordinary context only.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cpcprof::agent {

enum class CallGraph { dwarf, fp, none };

inline constexpr int kMaxEvents = 8;
inline constexpr int kMaxDepthLimit = 1024;

struct Config {
    int channel = -1;
    bool children = true;
    bool rings = false;  // kEnvRings: the recorder's rings sample a filtered process
    bool kernel = false; // kEnvKernel: count in the kernel, keep its frames
    // kEnvStackCopies: the handler may copy a stack of the program's own
    // making with process_vm_readv (unwind.h, Scratch), which the seccomp
    // filters the recorder found (the only ones a sampled process runs
    // under) let return.
    bool stack_copies = false;
    CallGraph call_graph = CallGraph::dwarf;
    int max_depth = 128;
    size_t ring_bytes = 256 * 1024;
    int nevents = 0;
    char event_names[kMaxEvents][128] = {};
    uint64_t periods[kMaxEvents] = {};
};

// The configuration from the environment, the channel to the recorder
// opened (channel.h).  False when this process is not being recorded: no
// configuration, a malformed one, or a channel descriptor that is no
// longer the recorder's.
bool read_config(Config &c);

// Whether the recorder asked for the handler's costs (kEnvStats).
bool handler_costs_wanted();

// --no-children: the programs this one starts must not load the agent,
// nor inherit the channel; the agent's variables leave the environment.
void keep_to_this_process();

} // namespace cpcprof::agent
