// libcpcprof-agent.so: loaded into the target with LD_PRELOAD by
// `cpcprof record`.  It is a client of libcpc as the manual pages describe
// one: a set whose first request has CPC_OVF_NOTIFY_EMT with the preset
// UINT64_MAX - (period - 1), bound with CPC_BIND_LWP_INHERIT, a SIGEMT
// handler that records the stack and calls cpc_set_restart.
//
// This file: start-up, fork, the process's end, and the slots.  Thread
// creation is threads.cpp, the exec family exec.cpp, the profiler's
// descriptors fds.cpp, processes under seccomp seccomp.cpp.
#include "cfi_tables.h"
#include "cfi_cache.h"
#include "channel.h"
#include "drain.h"
#include "handler.h"
#include "overflow_signal.h"
#include "process.h"
#include "seccomp.h"
#include "signals.h"
#include "state.h"
#include "unwind.h"

#include "../common/protocol.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <link.h>
#include <string>
#include <vector>

namespace cpcprof::agent {

namespace {

State g_state;
__attribute__((tls_model("initial-exec"))) thread_local Slot *tls_slot = nullptr;
std::atomic<int> g_exit_code{-1};
std::atomic<pid_t> g_pid{0}; // this process, as the agent set it up
bool g_active = false;
// Not sampled (seccomp, or counters that could not be set up), but the
// recorder still gets the process's hello and its exit status.
bool g_passive = false;

// CLOCK_MONOTONIC is the same clock in every process: the profile's times.
int64_t mono_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

pid_t gettid_() { return static_cast<pid_t>(syscall(SYS_gettid)); }

// "ev@period;ev@0" into the config.
bool parse_events(const char *text, Config &c) {
    std::string s(text);
    size_t pos = 0;
    while (pos <= s.size() && c.nevents < kMaxEvents) {
        size_t end = s.find(';', pos);
        std::string item = s.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
        size_t at = item.rfind('@');
        if (at == std::string::npos || at == 0 || at >= sizeof c.event_names[0])
            return false;
        std::strncpy(c.event_names[c.nevents], item.c_str(), at);
        c.periods[c.nevents] = std::strtoull(item.c_str() + at + 1, nullptr, 10);
        ++c.nevents;
        if (end == std::string::npos)
            break;
        pos = end + 1;
    }
    return c.nevents > 0 && c.periods[0] > 0;
}

bool read_config(Config &c) {
    const char *ch = std::getenv(proto::kEnvChannel);
    const char *ev = std::getenv(proto::kEnvEvents);
    if (ch == nullptr || ev == nullptr)
        return false;
    c.channel = std::atoi(ch);
    if (!channel_init(c.channel))
        return false; // not our descriptor any more
    if (!parse_events(ev, c))
        return false;
    if (const char *cg = std::getenv(proto::kEnvCallGraph))
        c.call_graph = std::strcmp(cg, "fp") == 0     ? CallGraph::fp
                       : std::strcmp(cg, "none") == 0 ? CallGraph::none
                                                      : CallGraph::dwarf;
    if (const char *d = std::getenv(proto::kEnvMaxDepth))
        c.max_depth = std::max(1, std::min(kMaxDepthLimit, std::atoi(d)));
    if (const char *r = std::getenv(proto::kEnvRingKb))
        c.ring_bytes = std::max<size_t>(16, std::strtoull(r, nullptr, 10)) * 1024;
    if (const char *k = std::getenv(proto::kEnvChildren))
        c.children = std::strcmp(k, "0") != 0;
    return true;
}

// TSC ticks per nanosecond, measured over a few milliseconds (only when
// the recorder asks for handler costs).
double measure_tsc_rate() {
#if defined(__x86_64__)
    timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    uint64_t t0 = __builtin_ia32_rdtsc();
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 5000000);
    uint64_t t1 = __builtin_ia32_rdtsc();
    double ns = double((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec));
    return double(t1 - t0) / ns;
#else
    return 0;
#endif
}

// --no-children: programs this one starts must not load the agent, nor
// inherit the channel.
void keep_to_this_process(Config &) {
    fcntl(channel_fd(), F_SETFD, FD_CLOEXEC);
    const char *pre = std::getenv("LD_PRELOAD");
    if (pre != nullptr) {
        std::string kept, item;
        std::string all(pre);
        size_t pos = 0;
        while (pos <= all.size()) {
            size_t end = all.find_first_of(": ", pos);
            item = all.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
            if (!item.empty() && item.find("libcpcprof-agent") == std::string::npos)
                kept += (kept.empty() ? "" : ":") + item;
            if (end == std::string::npos)
                break;
            pos = end + 1;
        }
        if (kept.empty())
            unsetenv("LD_PRELOAD");
        else
            setenv("LD_PRELOAD", kept.c_str(), 1);
    }
    for (const char *v : {proto::kEnvChannel, proto::kEnvEvents, proto::kEnvCallGraph,
                          proto::kEnvMaxDepth, proto::kEnvRingKb, proto::kEnvChildren,
                          proto::kEnvStats, proto::kEnvSigemtStable, proto::kEnvCfiCache})
        unsetenv(v);
}

void send_hello() {
    proto::Writer w(proto::Type::hello);
    w.put(static_cast<int32_t>(getpid()));
    w.put(static_cast<int32_t>(getppid()));
    w.put(mono_ns());
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    w.put_string(n > 0 ? std::string(exe, n) : std::string());
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    std::vector<std::string> argv;
    std::string arg;
    while (std::getline(in, arg, '\0'))
        argv.push_back(arg);
    w.put(static_cast<uint32_t>(argv.size()));
    for (const std::string &a : argv)
        w.put_string(a);
    send_message(w.finish());
}

void send_bye() {
    proto::Writer w(proto::Type::bye);
    w.put(static_cast<int32_t>(getpid()));
    w.put(static_cast<int32_t>(g_exit_code.load()));
    w.put(mono_ns());
    send_message(w.finish());
}

void stack_bounds(Slot *s) {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return;
    void *addr = nullptr;
    size_t size = 0;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
        s->stack_lo = reinterpret_cast<uintptr_t>(addr);
        s->stack_hi = s->stack_lo + size;
    }
    pthread_attr_destroy(&attr);
}

} // namespace

// Sets up the calling thread for sampling (ordinary context).
void prepare_thread() {
    Slot *s = current_slot();
    if (s == nullptr && g_state.slots.grow()) // every slot taken: one more chunk
        s = current_slot();
    if (s == nullptr)
        return;
    stack_bounds(s);
    s->thread = pthread_self();
    char name[16] = {};
    prctl(PR_GET_NAME, name);
    std::memcpy(s->name, name, sizeof s->name);
    // Fault the ring's pages in now: a first touch inside the handler
    // costs a page fault (several microseconds on a VM) every few samples.
    s->ring.prefault();
    s->ready.store(true, std::memory_order_release);
}

namespace {

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
    s.set = cpc_set_create(s.cpc);
    for (int i = 0; i < s.cfg.nevents; ++i) {
        bool sampling = i == 0;
        uint64_t preset = sampling ? UINT64_MAX - (s.cfg.periods[0] - 1) : 0;
        uint_t flags = CPC_COUNT_USER | (sampling ? CPC_OVF_NOTIFY_EMT : 0);
        if (cpc_set_add_request(s.cpc, s.set, s.cfg.event_names[i], preset, flags, 0, nullptr) < 0) {
            send_error("event " + std::string(s.cfg.event_names[i]) + ": " + cpc_error);
            return false;
        }
    }
    return true;
}

bool install_handler() { return install_sampling_handler(on_overflow); }

bool bind_this_thread(State &s) {
    AgentCode mine; // libcpc installs its SIGTRAP handler here (signals.cpp)
    if (cpc_bind_curlwp(s.cpc, s.set, CPC_BIND_LWP_INHERIT) != 0) {
        send_error("cannot start counting: " + cpc_error);
        return false;
    }
    return true;
}

void after_fork_child();
void on_process_exit(int status, void *);

// The process is recorded but not sampled: its exit status is still sent
// (on_process_exit, end_now).
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

void go_passive(const char *reason) {
    g_active = false;
    g_passive = true;
    if (reason != nullptr)
        send_unsampled(reason);
    register_process_hooks();
}

constexpr const char *kSeccompReason = "runs under a seccomp filter; not sampled";

__attribute__((constructor)) void agent_init() {
    State &s = g_state;
    if (!read_config(s.cfg))
        return;
    const char *stats = std::getenv(proto::kEnvStats);
    if (stats != nullptr && std::strcmp(stats, "1") == 0)
        s.tsc_per_ns = measure_tsc_rate();
    if (!s.cfg.children)
        keep_to_this_process(s.cfg);
    g_pid.store(getpid());
    send_hello();
    if (under_seccomp()) {
        // No perf_event_open here: the filter may kill the process for it.
        go_passive(kSeccompReason);
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
    send_modules_now();
    refresh_cfi();
    init_thread_accounting();
    start_drain(); // before the bind: the drain thread is not sampled
    prepare_thread();
    g_active = true;
    thread_counts_already();
    s.armed.store(true, std::memory_order_release);
    if (!bind_this_thread(s)) {
        s.armed.store(false);
        go_passive(nullptr);
        return;
    }
    register_process_hooks();
}

// A forked child does not inherit bound sets (libcpc, as illumos): it
// starts over as a process of its own, or stops being profiled.
void after_fork_child() {
    State &s = g_state;
    drain_forget_thread();
    channel_after_fork();
    s.armed.store(false);
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
        slot.tid.store(0);
        std::memset(slot.cost, 0, sizeof slot.cost);
    }
    std::memset(s.cost_total, 0, sizeof s.cost_total);
    s.threads_unsampled_no_counters.store(0);
    s.unsampled_cpu_ns_no_counters.store(0);
    forget_unsampled_after_fork();
    tls_slot = nullptr;
    if (!g_active && !g_passive)
        return;
    g_pid.store(getpid());
    if (!s.cfg.children) {
        g_active = false;
        g_passive = false;
        close_channel();
        return;
    }
    send_hello();
    if (g_passive || under_seccomp()) {
        go_passive(seccomp_known() ? kSeccompReason : nullptr);
        return;
    }
    send_modules_now();
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

// The process ends: stop sampling and send what the rings hold.  Runs
// once, from whichever of the ends below comes first.
void finish_samples() {
    static std::atomic<bool> done{false};
    if (!g_active || done.exchange(true))
        return;
    State &s = g_state;
    deliver_pending_overflows();
    s.armed.store(false, std::memory_order_release);
    if (s.cpc != nullptr)
        cpc_unbind(s.cpc, s.set);
    stop_drain();
    drain_once(true);
}

// exit() and a return from main: exit handlers run before the loader runs
// the destructors, but this one was registered before main (from the
// constructor), so it runs after them.  It has the exit status.
void on_process_exit(int status, void *) {
    finish_samples();
    if (g_active && getpid() == g_pid.load())
        report_unsampled_threads();
    g_exit_code.store(status);
    if (g_active || g_passive) {
        send_bye();
        g_active = g_passive = false;
    }
}

__attribute__((destructor)) void agent_fini() { finish_samples(); }

} // namespace

// A thread that blocks SIGTRAP with a raw rt_sigprocmask (which the mask
// wrappers cannot see) has its overflows pending: the kernel keeps writing
// their records into the sample ring.  At the thread's end the signal is
// let in, so that libcpc counts them (cpc_set_merged_overflows) and they
// are in the accounting, not lost without a trace.
void deliver_pending_overflows() {
    sigset_t pending;
    if (sigpending(&pending) != 0 || !sigismember(&pending, SIGTRAP))
        return;
    // SIGEMT too: libcpc queues it when the thread blocks it.
    uint64_t ours = (uint64_t(1) << (SIGTRAP - 1)) | (uint64_t(1) << (SIGEMT - 1));
    syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &ours, nullptr, sizeof ours);
}

// The main thread's name (the process's, /proc/self/comm).
std::string process_name() {
    char buf[64] = {};
    FILE *f = std::fopen("/proc/self/comm", "r");
    if (f != nullptr) {
        if (std::fgets(buf, sizeof buf, f) == nullptr)
            buf[0] = '\0';
        std::fclose(f);
    }
    std::string s(buf);
    if (!s.empty() && s.back() == '\n')
        s.pop_back();
    return s;
}

State &state() {
    return g_state;
}

bool sampling() {
    return g_active;
}

bool reporting() {
    return g_active || g_passive;
}

pid_t agent_pid() {
    return g_pid.load();
}

void send_unsampled(const std::string &reason, pid_t pid) {
    proto::Writer w(proto::Type::unsampled);
    w.put(static_cast<int32_t>(pid != 0 ? pid : getpid()));
    w.put_string(reason);
    send_message(w.finish());
}

bool signals_guarded() { return g_active; }

Slot *current_slot() {
    if (tls_slot != nullptr)
        return tls_slot;
    tls_slot = g_state.slots.claim(gettid_());
    return tls_slot;
}

void forget_current_slot() { tls_slot = nullptr; }

int slot_bound() {
    return g_state.slots.bound();
}

void note_thread_name(pthread_t t, const char *name) {
    if (name == nullptr)
        return;
    Slot *slot = pthread_equal(t, pthread_self()) ? tls_slot : nullptr;
    for (int i = 0; slot == nullptr && i < slot_bound(); ++i)
        if (g_state.slots[i].tid.load(std::memory_order_acquire) != 0 &&
            pthread_equal(g_state.slots[i].thread, t))
            slot = &g_state.slots[i];
    if (slot != nullptr)
        std::strncpy(slot->name, name, sizeof slot->name - 1);
}

} // namespace cpcprof::agent

using namespace cpcprof::agent;

// _exit and _Exit skip the exit handlers: send the samples and the code
// here.  Not in a vfork child, which shares the parent's memory (its pid
// is not the one the agent knows).
namespace {
[[noreturn]] void end_now(const char *name, int code) {
    using exit_fn = void (*)(int);
    exit_fn real = reinterpret_cast<exit_fn>(dlsym(RTLD_NEXT, name));
    if ((g_active || g_passive) && getpid() == g_pid.load()) {
        finish_samples();
        if (g_active)
            report_unsampled_threads();
        g_exit_code.store(code);
        send_bye();
        g_active = g_passive = false;
    }
    real(code);
    __builtin_unreachable();
}
} // namespace

extern "C" __attribute__((visibility("default"), noreturn)) void _exit(int code) {
    end_now("_exit", code);
}

extern "C" __attribute__((visibility("default"), noreturn)) void _Exit(int code) noexcept {
    end_now("_Exit", code);
}
