// SPDX-License-Identifier: MIT
// Starting the target with the agent preloaded and the channel inherited.
#pragma once

#include "profiler/record/options.h"
#include "profiler/record/plan.h"

#include "base/scoped_fd.h"

#include <functional>
#include <optional>
#include <string>
#include <sys/types.h>

namespace cpcprof::record {

struct Target {
    pid_t pid = -1;
    base::ScopedFd channel; // the recorder's end of the channel
};

// The agent library: $CPCPROF_AGENT, else next to this program in the build
// tree or the installed tree.
std::optional<std::string> find_agent(std::string *error);

// Whether the processes of o.command that the agent cannot sample (a
// static program, one under a seccomp filter of its own) are sampled
// through the kernel's sample rings: --capture auto, where this process
// may open them.
inline bool ring_fallback(const Options &o, const Plan &p) {
    return o.capture == "auto" && p.backend == "perf_event";
}

// Forks and execs o.command; an exec failure is reported as *error.
// cfi_cache names the recording's table directory for the agents ("" for
// none).  before_exec: as spawn_held's (record --off-cpu opens its rings
// of the threads' switches on the child before its exec).
std::optional<Target>
spawn_target(const Options &o, const Plan &p, const std::string &agent,
             const std::string &cfi_cache, std::string *error,
             const std::function<bool(pid_t, std::string *)> *before_exec = nullptr);

// Forks o.command without the agent, held before its exec until
// before_exec(pid) has returned: true lets it exec, false kills it (with
// *error set by before_exec).  For the kernel's sample rings, which follow
// a process from its exec on.  The channel of the Target is invalid.
std::optional<Target> spawn_held(const Options &o,
                                 const std::function<bool(pid_t, std::string *)> &before_exec,
                                 std::string *error);

// The file o.command runs when it is a statically linked program, which
// the agent cannot be loaded into; nullopt otherwise.
std::optional<std::string> static_command(const Options &o);

} // namespace cpcprof::record
