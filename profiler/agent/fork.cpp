// SPDX-License-Identifier: MIT
// fork: a child does not inherit bound sets (libcpc, as illumos), so it
// starts over as a process of its own (its hello, its modules, a drain
// thread, the set bound to its one thread), or stops being recorded
// (--no-children).  Runs as pthread_atfork's child hook, registered at
// start (start.cpp); ordinary context.
#include "profiler/agent/channel.h"
#include "profiler/agent/drain.h"
#include "profiler/agent/module_table.h"
#include "profiler/agent/overflow_signal.h"
#include "profiler/agent/process.h"
#include "profiler/agent/seccomp.h"
#include "profiler/agent/state.h"

#include <unistd.h>

#include <cstring>

namespace cpcprof::agent {

namespace {

// The parent's threads are gone: their slots, costs and counts too.
void forget_parents_threads(State &s) {
    s.slots.after_fork();
    s.no_slot.store(0);
    for (int i = 0; i < slot_bound(); ++i) {
        Slot &slot = s.slots[i];
        // A free slot is clean already (the drain thread cleaned it);
        // writing it would copy its pages from the parent's.
        if (slot.tid.load() == 0)
            continue;
        slot.ring.reset();
        slot.dropped.store(0);
        slot.announced = false;
        slot.name[0] = slot.sent_name[0] = '\0';
        slot.ready.store(false);
        slot.pages_pending.store(false);
        slot.tid.store(0);
        std::memset(slot.cost, 0, sizeof slot.cost);
    }
    std::memset(s.cost_total, 0, sizeof s.cost_total);
    s.threads_unsampled_no_counters.store(0);
    s.unsampled_cpu_ns_no_counters.store(0);
    forget_unsampled_after_fork();
    forget_current_slot();
}

} // namespace

void after_fork_child() {
    State &s = state();
    drain_forget_thread();
    channel_after_fork();
    s.armed.store(false);
    forget_parents_threads(s);
    if (!reporting())
        return;
    set_agent_pid();
    if (!s.cfg.children) {
        set_mode(Mode::off);
        close_channel();
        return;
    }
    // Under a filter with the recorder's rings: they say it (start.cpp).
    bool filtered = under_seccomp();
    bool hello = !filtered || !s.cfg.rings;
    if (hello)
        send_hello();
    if (mode() == Mode::passive || filtered) {
        go_passive(filtered ? kSeccompReason : nullptr, hello);
        return;
    }
    send_inherited_modules();
    set_starting_drain(true); // not a thread of the program's (pthread_create below)
    start_drain();
    set_starting_drain(false);
    if (sampling_stopped()) {
        say_stopped_in_fork_child(); // its parent took the profiler's signals
        return;
    }
    prepare_thread();
    thread_counts_already();
    s.armed.store(true, std::memory_order_release);
    bind_this_thread(s);
}

} // namespace cpcprof::agent
