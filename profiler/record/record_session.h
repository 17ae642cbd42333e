// SPDX-License-Identifier: MIT
// A recording in progress: reads the channel until every profiled process
// has gone, and writes what arrives into the profile file.
#pragma once

#include "profiler/record/options.h"
#include "profiler/record/plan.h"
#include "profiler/record/space_reserve.h"
#include "profiler/record/spawn.h"

#include "profiler/protocol/protocol.h"

#include "base/scoped_fd.h"

#include "storage/profile.h"

#include <sys/resource.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace cpcprof::record {

struct Summary {
    double seconds = 0;
    size_t processes = 0;
    size_t threads = 0;
    uint64_t taken = 0, stored = 0, dropped = 0;
    uint64_t unsampled_ns = 0; // CPU time of threads that had no counters
    int exit_status = 0;       // the target's, as a shell gives it (128+N on signal N)
    // Handler cost histograms from the agents (--stats): bucket width in
    // ns; [0] PC + unwind + ring push, [1] the whole handler.
    uint32_t cost_bucket_ns = 0;
    std::vector<uint64_t> cost[2];
    // Processes that exited normally without the agent's last word: it
    // lost its channel (the program closed it with a raw system call) or
    // the process exec'd a program the agent was not loaded into.  Their
    // samples stop where their reports stopped.
    std::vector<int> silent;
    // Storing failed (a full disk): why, the samples taken from then on
    // (and in the batch that failed) that the file lacks, and whether the
    // file took the row that counts them as dropped.
    std::string write_error;
    uint64_t lost = 0;
    bool lost_counted = false;
    // --off-cpu: stretches stored (counting those summed), their time, and
    // the part of it whose stack was read.
    uint64_t off_cpu_stretches = 0, off_cpu_ns = 0, off_cpu_read_ns = 0;
    // How where they waited was known: the kernel's stack at each switch,
    // or reads while the threads waited.
    bool off_cpu_switch_stacks = false;
    // The agents sampled with counters of each thread's own, which the
    // kernel moves out and in at every switch (set_ring_hint).
    bool per_thread_counters = false;
};

class Session {
  public:
    // reserve: space of the output's file system released for the last
    // batch if the disk fills (may hold nothing).
    // t (and its channel) must outlive the session.
    Session(storage::Writer &w, const Target &t, std::string output, SpaceReserve &reserve)
        : w_(w), target_(t), output_(std::move(output)), reserve_(reserve) {}
    // The target is a program the agent cannot be loaded into (static):
    // its CPU time counts as unsampled when it ends.
    void target_unsampled() { procs_[target_.pid].unsampled = true; }
    // The samples may hold the kernel's frames: every process's modules
    // include the kernel's ([kernel], symbolize/symbolizer.h).
    void set_kernel_frames() { kernel_frames_ = true; }
    // A word on the whole recording, kept in the profile and printed
    // (unless quiet), once however often it is said.
    void say(const std::string &text, bool quiet = false);
    // ring_for(pid, hello) samples a process the agent says it cannot
    // through the kernel's rings: true if it does.  hello: the process
    // runs the program already (under a seccomp filter) and its agent
    // sent these fields in place of its hello: the rings say it, unsampled
    // if they cannot be opened.  Null: a static program it execs or
    // spawns.  It may call add_channel.
    // *why: the reason when they do not.
    using RingFor =
        std::function<bool(int pid, const storage::ProcessInfo *hello, std::string *why)>;
    void set_ring_fallback(RingFor ring_for) { ring_for_ = std::move(ring_for); }
    // The kernel's rings could sample what runs under a seccomp filter of
    // its own (the recorder is outside it): the agent's word for such a
    // process says that --capture ring does.
    void set_ring_hint() {
        ring_hint_ = true;
        sum_.per_thread_counters = true;
    }
    // A second channel of messages (the rings' reader), read beside the
    // agents'.  Once the agents are gone, stop() is called and the
    // channel read to its end.
    void add_channel(base::ScopedFd fd, std::function<void()> stop) {
        extra_ = std::move(fd);
        stop_extra_ = std::move(stop);
    }
    // The run records off-CPU time: its last event is off-cpu, which
    // every sample carries as 0, and off_cpu messages are stored.
    void set_off_cpu(bool switch_stacks = false) {
        off_cpu_ = true;
        sum_.off_cpu_switch_stacks = switch_stacks;
    }
    // Runs until the target and every recorded process are gone.
    Summary run();

  private:
    // Accounting figures of one process: what its agent reported (taken,
    // dropped) and the samples that arrived (stored).
    struct Tally {
        uint64_t taken = 0, stored = 0, dropped = 0, samples = 0;
        void add(const Tally &o) {
            taken += o.taken;
            stored += o.stored;
            dropped += o.dropped;
            samples += o.samples;
        }
    };
    struct Proc {
        uint64_t stored_since_account = 0;
        Tally pending;   // in the open batch
        Tally committed; // in the file
        uint64_t reported_taken = 0;
        // The mappings of the last modules message: (start, end, file
        // offset, path, build-id).  A mapping that grew or moved within
        // the file is a new one.
        std::set<std::tuple<uint64_t, uint64_t, uint64_t, std::string, std::string>> modules;
        bool ended = false;
        bool said_bye = false;
        bool said_hello = false;
        // A bye read before the process's hello (a process the rings say,
        // whose agent's bye came first): its exit code and end time.
        std::optional<std::pair<int, int64_t>> early_bye;
        bool exited = false;  // ended by exit, not by a signal (our children)
        base::ScopedFd pidfd; // a process we cannot reap: readable once it has gone
        // A bye without its exit code (the rings'): when it ended, written
        // until its pidfd says how.
        std::optional<int64_t> unknown_end;
        std::string name;           // its program's file name, from its hello
        bool unsampled = false;     // it said why it is not sampled
        std::string unsampled_said; // the last reason printed (an exec repeats it)
    };

    void handle(const char *msg, size_t n);
    void on_hello(proto::Reader &r);
    void say(const storage::ProcessInfo &p); // a hello's process into the profile
    void on_thread(proto::Reader &r);
    void on_modules(proto::Reader &r);
    void on_samples(proto::Reader &r);
    void on_account(proto::Reader &r);
    void on_off_cpu(proto::Reader &r);
    void on_bye(proto::Reader &r);
    void on_error(proto::Reader &r);
    void on_stats(proto::Reader &r);
    void on_unsampled(proto::Reader &r);
    void reap(bool block);
    void watch(int pid);
    // The descendants we cannot reap that have gone: ended, with how where
    // the kernel can say.  idle: nothing is queued (every bye sent has
    // been read), so one whose status cannot be had is ended without it;
    // otherwise it waits for its bye or an idle moment.
    void check_gone(bool idle);
    void ended(pid_t pid, int status, const struct rusage &usage);
    void settle(int pid, Proc &proc);
    void commit();
    void check_writer();
    void count_lost();

    bool read_extra(std::vector<char> &buf);

    storage::Writer &w_;
    const Target &target_;
    RingFor ring_for_;
    bool ring_hint_ = false;
    bool kernel_frames_ = false;
    bool off_cpu_ = false;
    std::set<std::string> said_; // say()
    base::ScopedFd extra_;
    std::function<void()> stop_extra_;
    std::string output_;
    SpaceReserve &reserve_;
    bool storing_ = true; // false once the file has refused a write
    std::map<int, Proc> procs_;
    std::set<int> tids_;
    Summary sum_;
    bool target_done_ = false;
    int64_t last_commit_ = 0;
};

} // namespace cpcprof::record
