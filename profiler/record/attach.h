// SPDX-License-Identifier: MIT
// `cpcprof record -p PID`: processes that already run, sampled through
// libcpc's sample rings (cpc_ring_open(3CPC)), without stopping, tracing
// or signalling them.  A thread of the recorder reads the rings and
// speaks the agent's protocol (profiler/protocol) into the session's
// channel - hello, threads, modules, samples, account, bye - so that the
// profile is written as an agent's would be.
//
// Stacks: the kernel's frames (where the first event counts in the
// kernel), then the user's: in dwarf mode unwound here from the copied
// stack (stack_unwind.h), in fp mode as the kernel walked the frame
// pointers (not marked complete).  Modules: /proc/PID/maps at the start
// and again after every executable mapping or exec the rings tell of.
// The same path samples a command that the agent cannot be loaded into
// (record --capture ring): it is opened on the child before its exec.
#pragma once

#include "profiler/record/options.h"
#include "profiler/record/plan.h"

#include "storage/profile.h"

#include "base/scoped_fd.h"

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace cpcprof::record {

// The files of recorded processes that the recorder's mount namespace
// does not have (a process in a container: /proc/PID/root/PATH is not
// PATH here), held open by build-id so that the profile is symbolized
// from them after the processes, and their namespaces, are gone.
using HeldFiles = std::map<std::string, base::ScopedFd>;

// build-id -> "/proc/self/fd/N", for symbolize_profile::Options::files.
std::map<std::string, std::string> held_file_paths(const HeldFiles &files);

class Attach {
  public:
    // Opens the rings of every process of pids (all or none): nullptr
    // with *error naming the process and the reason.  held: each is a
    // child of ours held before its exec (record --capture ring), said to
    // the session from its exec on.
    static std::unique_ptr<Attach> open(const Options &o, const Plan &p,
                                        const std::vector<int> &pids, bool held,
                                        std::string *error);
    // Opens no ring: processes come with add(), and the reader runs until
    // stop().  For the processes an agent cannot sample (record -- CMD).
    static std::unique_ptr<Attach> open_empty(const Options &o, const Plan &p, std::string *error);
    // Opens the rings of a running process (from another thread than the
    // reader's).  hello: it runs the program to sample already (its agent
    // found a seccomp filter and sent these fields in place of its hello):
    // it is said to the session at once (as it runs then, or with these
    // fields when it is gone); no second ring is opened for a process the
    // rings follow already (a child of one they sample, an exec).  Null:
    // said once it runs a program the agent cannot be loaded into
    // (static), now or at its next exec.  False with *error when its
    // rings cannot be opened.
    bool add(pid_t pid, const storage::ProcessInfo *hello, std::string *error);
    // open_watch: whether the kernel samples the stack at each switch out
    // (the user may profile the kernel), or the recorder reads it.
    bool switch_stacks() const;
    // record --off-cpu of processes the agent samples: a ring of pid's
    // threads' switches alone (the event dummy, cpc_ring_open's
    // CPC_RING_SWITCHES), which follows it into its threads, children and
    // execs.  The processes are the agents' to say: the reader sends only
    // their off-CPU time (off_cpu.h), and runs until stop().  add() then
    // samples a process the agents cannot, as open_empty's does (its
    // switches come from this ring).  pid must not have run yet (held
    // before its exec), so that no thread escapes the ring.
    static std::unique_ptr<Attach> open_watch(const Options &o, const Plan &p, pid_t pid,
                                              std::string *error);
    ~Attach(); // stops the reader and detaches
    Attach(const Attach &) = delete;
    Attach &operator=(const Attach &) = delete;

    // Starts the reader; returns the session's end of the channel, which
    // reads end-of-file once the reader has stopped: at stop(), after the
    // duration, or when every process has ended.
    base::ScopedFd start();
    // The files held so far; the reader adds to them until the Attach is
    // destroyed, so they are read after that.
    std::shared_ptr<const HeldFiles> held_files() const;
    // [async-signal-safe] Asks the reader to stop (Ctrl-C).
    void stop() { stop_.store(true, std::memory_order_relaxed); }

  private:
    Attach() = default;
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::atomic<bool> stop_{false};
    std::thread reader_;
};

} // namespace cpcprof::record
