// SPDX-License-Identifier: MIT
// libcpcprof-agent.so: loaded into the target with LD_PRELOAD by
// `cpcprof record`.  It is a client of libcpc as the manual pages describe
// one: a set whose first request has CPC_OVF_NOTIFY_EMT with the preset
// UINT64_MAX - (period - 1), bound with CPC_BIND_LWP_INHERIT, a SIGEMT
// handler that records the stack and calls cpc_set_restart.
//
// This file: the start in a process (the library's constructor).  The
// configuration is config.cpp, the process's mode and messages
// process.cpp, a thread's set-up thread_setup.cpp, fork fork.cpp, the
// process's end process_end.cpp, thread creation threads.cpp, the exec
// family exec.cpp, the profiler's descriptors fds.cpp, processes under
// seccomp seccomp.cpp.
#include "profiler/agent/cfi_cache.h"
#include "profiler/agent/cfi_tables.h"
#include "profiler/agent/channel.h"
#include "profiler/agent/config.h"
#include "profiler/agent/drain.h"
#include "profiler/agent/handler.h"
#include "profiler/agent/process.h"
#include "profiler/agent/seccomp.h"
#include "profiler/agent/signals.h"
#include "profiler/agent/state.h"

#include "base/clock.h"

#include <link.h>
#include <pthread.h>
#include <sys/auxv.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace cpcprof::agent {

namespace {

// TSC ticks per nanosecond, measured over a few milliseconds (only when
// the recorder asks for handler costs).
double measure_tsc_rate() {
#if defined(__x86_64__)
    int64_t a = base::monotonic_ns(), b;
    uint64_t t0 = __builtin_ia32_rdtsc();
    do
        b = base::monotonic_ns();
    while (b - a < 5 * base::kNsPerMillisecond);
    uint64_t t1 = __builtin_ia32_rdtsc();
    return double(t1 - t0) / double(b - a);
#else
    return 0;
#endif
}

int find_code(dl_phdr_info *info, size_t, void *arg);

// The profiler's own code: the agent's (this file's) and libcpc's
// executable segments, whose frames the unwinders leave out.
void find_own_code(const dl_phdr_info *info, State *st) {
    const uintptr_t ours[2] = {reinterpret_cast<uintptr_t>(&find_code),
                               reinterpret_cast<uintptr_t>(&cpc_open)};
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) &ph = info->dlpi_phdr[i];
        if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
            continue;
        uintptr_t lo = info->dlpi_addr + ph.p_vaddr, hi = lo + ph.p_memsz;
        for (int k = 0; k < 2; ++k)
            if (ours[k] >= lo && ours[k] < hi)
                st->own_lo[k] = lo, st->own_hi[k] = hi;
    }
}

// libc's code range: frame-pointer stacks that end there are complete.
int find_code(dl_phdr_info *info, size_t, void *arg) {
    auto *st = static_cast<State *>(arg);
    find_own_code(info, st);
    if (info->dlpi_name == nullptr || std::strstr(info->dlpi_name, "/libc.so") == nullptr)
        return 0;
    uintptr_t *lo = &st->libc_lo, *hi = &st->libc_hi;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) &ph = info->dlpi_phdr[i];
        if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
            *lo = info->dlpi_addr + ph.p_vaddr;
            *hi = *lo + ph.p_memsz;
        }
    }
    return 0;
}

bool allocate_slots(State &s) {
    return s.slots.init(s.cfg.ring_bytes, s.cpc, s.set, s.cfg.nevents >= 2);
}

std::string cpc_error; // last libcpc message, for the recorder

void collect_error(const char *fn, int, const char *fmt, va_list ap) {
    char msg[512];
    std::vsnprintf(msg, sizeof msg, fmt, ap);
    if (std::strcmp(fn, "pthread_create") == 0) {
        no_counters_in_this_thread(msg); // threads.cpp
        return;
    }
    cpc_error = std::string(fn) + ": " + msg;
}

bool setup_counters(State &s) {
    s.cpc = cpc_open(CPC_VER_CURRENT);
    if (s.cpc == nullptr) {
        send_error(std::string("cannot use performance counters: ") + std::strerror(errno));
        return false;
    }
    cpc_seterrhndlr(s.cpc, collect_error);
    const char *backend = cpc_backend(s.cpc, nullptr, nullptr);
    s.timer_backend = backend != nullptr && std::strcmp(backend, "posix-timer") == 0;
    s.set = cpc_set_create(s.cpc);
    for (int i = 0; i < s.cfg.nevents; ++i) {
        bool sampling = i == 0;
        uint64_t preset = sampling ? UINT64_MAX - (s.cfg.periods[0] - 1) : 0;
        // The POSIX-timer backend's clock counts the kernel's time already.
        uint_t count = CPC_COUNT_USER | (s.cfg.kernel && !s.timer_backend ? CPC_COUNT_SYSTEM : 0);
        uint_t flags = count | (sampling ? CPC_OVF_NOTIFY_EMT : 0);
        if (cpc_set_add_request(s.cpc, s.set, s.cfg.event_names[i], preset, flags, 0, nullptr) <
            0) {
            send_error("event " + std::string(s.cfg.event_names[i]) + ": " + cpc_error);
            return false;
        }
    }
    return true;
}

bool install_handler() {
    return install_sampling_handler(on_overflow);
}

// The fork and exit hooks, once per process image (fork children inherit
// them, and the flag with them).
void register_process_hooks() {
    static bool registered = false;
    if (registered)
        return;
    registered = true;
    pthread_atfork(nullptr, nullptr, after_fork_child);
    on_exit(on_process_exit, nullptr);
}

__attribute__((constructor)) void agent_init() {
    State &s = state();
    if (!read_config(s.cfg))
        return;
    if (handler_costs_wanted())
        s.tsc_per_ns = measure_tsc_rate();
    if (!s.cfg.children)
        keep_to_this_process();
    set_agent_pid();
    // No perf_event_open under a filter: it may kill the process for it.
    // The recorder's rings sample it where they may (their hello).
    bool filtered = under_seccomp();
    bool hello = !filtered || !s.cfg.rings;
    if (hello)
        send_hello();
    if (filtered) {
        go_passive(kSeccompReason, hello);
        return;
    }
    cfi_cache_init();
    dl_iterate_phdr(find_code, &s);
    s.entry_lo = getauxval(AT_ENTRY);
    s.entry_hi = s.entry_lo + 64;
    if (!setup_counters(s) || !allocate_slots(s) || !install_handler()) {
        go_passive(nullptr); // the error was sent
        return;
    }
    send_modules_now(); // and compiles their unwind tables (refresh_cfi)
    init_thread_accounting();
    start_drain(); // before the bind: the drain thread is not sampled
    prepare_thread();
    set_mode(Mode::sampled);
    thread_counts_already();
    s.armed.store(true, std::memory_order_release);
    if (!bind_this_thread(s)) {
        s.armed.store(false);
        go_passive(nullptr);
        return;
    }
    register_process_hooks();
}

} // namespace

bool bind_this_thread(State &s) {
    AgentCode mine; // libcpc installs its SIGTRAP handler here (signals.cpp)
    if (cpc_bind_curlwp(s.cpc, s.set, CPC_BIND_LWP_INHERIT) != 0) {
        send_error("cannot start counting: " + cpc_error);
        return false;
    }
    return true;
}

void go_passive(const char *reason, bool hello_said) {
    set_mode(Mode::passive);
    if (reason != nullptr && hello_said)
        send_unsampled(reason);
    else if (reason != nullptr)
        send_unsampled_instead_of_hello(reason);
    register_process_hooks();
}

} // namespace cpcprof::agent
