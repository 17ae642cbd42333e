// SPDX-License-Identifier: MIT
// Sample rings (cpc_ring_open(3CPC), a Linux extension): another process
// sampled through the kernel, all its threads including those it starts
// later, without a signal or a stop reaching it; its mappings, threads
// and ends told; user registers and stack copies; kernel frames.
#include "tests/libcpc/helpers.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace {

constexpr uint64_t kPeriodNs = 1000000; // cpu-clock, 1 ms

// Every catchable signal the child receives is counted: a sampled
// process must get none.
std::atomic<int> g_child_signals{0};

void count_signal(int) {
    g_child_signals.fetch_add(1);
}

// Where the child spends its time: the test finds these PCs in samples.
__attribute__((noinline)) void ring_spin_here(int ms) {
    cpctest::spin_cpu_ms(ms);
}

void *spinning_thread(void *arg) {
    ring_spin_here(int(reinterpret_cast<intptr_t>(arg)));
    return nullptr;
}

// The child: waits for a byte on go, then runs `threads` new threads and
// itself, each spinning ms of CPU, touching `pages` fresh pages, mapping
// `map_path` executable if given; exits 0 only if no signal came.
struct ChildPlan {
    int threads = 0;
    int ms = 100;
    int cpu = -1; // pinned to this CPU (all its samples in one CPU's ring)
    size_t pages = 0;
    std::string map_path;
};

[[noreturn]] void child_main(int go, const ChildPlan &plan) {
    struct sigaction sa {};
    sa.sa_handler = count_signal;
    for (int s = 1; s < NSIG; ++s)
        if (s != SIGKILL && s != SIGSTOP)
            sigaction(s, &sa, nullptr);
    char c;
    if (read(go, &c, 1) != 1)
        _exit(3);
    if (plan.cpu >= 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(plan.cpu, &one);
        if (sched_setaffinity(0, sizeof one, &one) != 0)
            _exit(6);
    }
    if (!plan.map_path.empty()) {
        int fd = open(plan.map_path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0 || mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
            _exit(4);
        close(fd);
    }
    std::vector<pthread_t> ts(size_t(plan.threads));
    for (pthread_t &t : ts)
        pthread_create(&t, nullptr, spinning_thread, reinterpret_cast<void *>(intptr_t(plan.ms)));
    if (plan.pages > 0)
        for (int i = 0; i < 20; ++i)
            cpctest::touch_pages(plan.pages / 20);
    ring_spin_here(plan.ms);
    for (pthread_t &t : ts)
        pthread_join(t, nullptr);
    _exit(g_child_signals.load() == 0 ? 0 : 5);
}

struct Child {
    pid_t pid = -1;
    int go = -1;
};

Child start_child(const ChildPlan &plan) {
    int p[2];
    EXPECT_EQ(pipe2(p, O_CLOEXEC), 0);
    Child c;
    c.pid = fork();
    if (c.pid == 0) {
        close(p[1]);
        child_main(p[0], plan);
    }
    close(p[0]);
    c.go = p[1];
    return c;
}

void let_go(Child &c) {
    ASSERT_EQ(write(c.go, "g", 1), 1);
    close(c.go);
    c.go = -1;
}

// What a read of the rings gave, copied out of the records.
struct Seen {
    uint64_t samples = 0, lost = 0;
    std::set<pid_t> sample_pids, sample_tids;
    std::set<pid_t> forked_tids, exited_tids;
    std::vector<std::string> mapped;
    uint64_t in_function = 0; // samples in the functions the threads spin in
    uint64_t with_stack = 0, regs_match_pc = 0, with_kernel_frames = 0, with_user_frames = 0;
    std::vector<uint64_t> kernel_pcs;
};

std::string paranoid() {
    std::string v;
    std::ifstream("/proc/sys/kernel/perf_event_paranoid") >> v;
    return v;
}

void collect(void *arg, const cpc_ring_record_t *r) {
    auto *s = static_cast<Seen *>(arg);
    switch (r->kind) {
    case CPC_RING_SAMPLE:
        ++s->samples;
        s->sample_pids.insert(r->pid);
        s->sample_tids.insert(r->tid);
        if (Dl_info di{}; dladdr(reinterpret_cast<void *>(r->pc), &di) != 0 &&
                          di.dli_sname != nullptr && std::strstr(di.dli_sname, "spin") != nullptr)
            ++s->in_function; // ring_spin_here or the spin it calls (same binary, forked)
        if (r->stack != nullptr && r->stack_size > 0)
            ++s->with_stack;
#if defined(__x86_64__)
        // IP is the ninth register kept (AX..SP before it).
        if (r->regs != nullptr && !r->in_kernel && r->regs[8] == r->pc)
            ++s->regs_match_pc;
#endif
        s->with_user_frames += r->nuser_pcs > 0;
        if (r->nkernel_pcs > 0) {
            ++s->with_kernel_frames;
            s->kernel_pcs.insert(s->kernel_pcs.end(), r->kernel_pcs,
                                 r->kernel_pcs + r->nkernel_pcs);
        }
        break;
    case CPC_RING_LOST:
        s->lost += r->lost;
        break;
    case CPC_RING_FORK:
        s->forked_tids.insert(r->tid);
        break;
    case CPC_RING_EXIT:
        s->exited_tids.insert(r->tid);
        break;
    case CPC_RING_MMAP:
        s->mapped.emplace_back(r->path);
        break;
    default:
        break;
    }
}

// Reads the rings until the child ends; its exit status and CPU time.
struct Ended {
    int status = -1;
    double user_s = 0, cpu_s = 0; // user CPU time, all CPU time
};

Ended read_until_exit(cpc_ring_t *ring, pid_t pid, Seen *seen) {
    Ended e;
    timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > 30)
            break;
        cpc_ring_read(ring, seen, collect);
        int st;
        rusage ru{};
        if (wait4(pid, &st, WNOHANG, &ru) == pid) {
            cpc_ring_read(ring, seen, collect);
            e.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            e.user_s = double(ru.ru_utime.tv_sec) + double(ru.ru_utime.tv_usec) / 1e6;
            e.cpu_s = e.user_s + double(ru.ru_stime.tv_sec) + double(ru.ru_stime.tv_usec) / 1e6;
            return e;
        }
        cpc_ring_wait(ring, 50);
    }
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    ADD_FAILURE() << "the child did not end within 30 s";
    return e;
}

class Ring : public ::testing::Test {
  protected:
    void SetUp() override {
        cpc_ = cpc_open(CPC_VER_CURRENT);
        ASSERT_NE(cpc_, nullptr) << std::strerror(errno);
        const char *backend = cpc_backend(cpc_, nullptr, nullptr);
        if (backend == nullptr || std::strcmp(backend, "perf_event") != 0)
            GTEST_SKIP() << "sample rings need perf_event_open (backend: "
                         << (backend ? backend : "?") << ")";
        set_ = cpc_set_create(cpc_);
    }
    void TearDown() override {
        if (cpc_ != nullptr)
            cpc_close(cpc_);
    }
    void add_clock(uint_t flags = CPC_COUNT_USER) {
        ASSERT_EQ(cpc_set_add_request(cpc_, set_, "cpu-clock", UINT64_MAX - (kPeriodNs - 1),
                                      flags | CPC_OVF_NOTIFY_EMT, 0, nullptr),
                  0);
    }
    cpc_t *cpc_ = nullptr;
    cpc_set_t *set_ = nullptr;
};

// Every thread of the process is sampled, those it starts after the
// attach too; the process gets no signal and ends as it would have; its
// samples stand for the CPU time it used.
TEST_F(Ring, AttachSamplesEveryThreadOfAProcessWithoutASignal) {
    add_clock();
    ChildPlan plan;
    plan.threads = 3;
    plan.ms = 150;
    Child c = start_child(plan);
    cpc_ring_t *ring = cpc_ring_open(cpc_, set_, c.pid, nullptr, 0, 0, 0);
    ASSERT_NE(ring, nullptr) << std::strerror(errno);
    let_go(c);
    Seen seen;
    Ended e = read_until_exit(ring, c.pid, &seen);
    EXPECT_EQ(cpc_ring_close(ring), 0);
    EXPECT_EQ(e.status, 0) << "the sampled process saw a signal or failed";
    EXPECT_EQ(seen.sample_pids, std::set<pid_t>{c.pid});
    EXPECT_EQ(seen.sample_tids.size(), 4u) << "the main thread and three started after attach";
    EXPECT_EQ(seen.forked_tids.size(), 3u);
    EXPECT_GE(seen.exited_tids.size(), 3u);
    // One sample per ms of the child's CPU time in user mode: a period
    // that ends in the kernel is none (user-mode clock).  The kernel's
    // split of CPU time into user and system is an estimate, so the bounds
    // are loose: at most one per ms of all its CPU time, at least half
    // one per ms of its user time.
    double ms = 1e9 / double(kPeriodNs);
    EXPECT_GE(double(seen.samples + seen.lost), 0.5 * e.user_s * ms)
        << "user CPU " << e.user_s << " s";
    EXPECT_LE(double(seen.samples), 1.1 * e.cpu_s * ms + 5) << "CPU " << e.cpu_s << " s";
    EXPECT_GE(double(seen.in_function), 0.5 * double(seen.samples))
        << "most samples are in the function the threads spin in";
}

// User registers and a copy of the stack come with each user sample.
TEST_F(Ring, UserRegistersAndStackCopy) {
#if !defined(__x86_64__)
    GTEST_SKIP() << "user stacks are sampled on x86-64 only";
#endif
    add_clock();
    ChildPlan plan;
    plan.ms = 100;
    Child c = start_child(plan);
    cpc_ring_t *ring = cpc_ring_open(cpc_, set_, c.pid, nullptr, 0,
                                     CPC_RING_USER_STACK | CPC_RING_CALLCHAIN, 8192);
    ASSERT_NE(ring, nullptr) << std::strerror(errno);
    let_go(c);
    Seen seen;
    Ended e = read_until_exit(ring, c.pid, &seen);
    cpc_ring_close(ring);
    EXPECT_EQ(e.status, 0);
    ASSERT_GT(seen.samples, 20u);
    EXPECT_EQ(seen.with_stack, seen.samples);
    EXPECT_EQ(seen.regs_match_pc, seen.samples) << "the IP register is the sample's PC";
}

// CPC_RING_KERNEL_CALLCHAIN: the kernel's frames as with
// CPC_RING_CALLCHAIN, and no walk of the user's (the copy serves it).
TEST_F(Ring, KernelCallchainAloneLeavesTheUsersToTheCopy) {
#if !defined(__x86_64__)
    GTEST_SKIP() << "user stacks are sampled on x86-64 only";
#endif
    add_clock(CPC_COUNT_USER | CPC_COUNT_SYSTEM);
    for (uint_t chain : {uint_t(CPC_RING_CALLCHAIN), uint_t(CPC_RING_KERNEL_CALLCHAIN)}) {
        ChildPlan plan;
        plan.ms = 20;
        plan.pages = 40000;
        Child c = start_child(plan);
        cpc_ring_t *ring =
            cpc_ring_open(cpc_, set_, c.pid, nullptr, 0, chain | CPC_RING_USER_STACK, 8192);
        if (ring == nullptr && errno == EACCES) {
            kill(c.pid, SIGKILL);
            waitpid(c.pid, nullptr, 0);
            GTEST_SKIP() << "the kernel may not be sampled here (perf_event_paranoid " << paranoid()
                         << ", no CAP_PERFMON)";
        }
        ASSERT_NE(ring, nullptr) << std::strerror(errno);
        let_go(c);
        Seen seen;
        Ended e = read_until_exit(ring, c.pid, &seen);
        cpc_ring_close(ring);
        EXPECT_EQ(e.status, 0);
        ASSERT_GT(seen.samples, 20u);
        EXPECT_GT(seen.with_kernel_frames, 10u) << seen.samples << " samples";
        EXPECT_EQ(seen.with_stack, seen.samples);
        if (chain == CPC_RING_CALLCHAIN)
            EXPECT_GT(seen.with_user_frames, seen.samples / 2) << "the kernel walked the user's";
        else
            EXPECT_EQ(seen.with_user_frames, 0u) << "the user's frames were walked";
    }
}

// A reader of whole CPUs held up (a busy machine, a recorder descheduled)
// loses nothing while the rings can hold what came meanwhile: a process's
// 0.3 s of CPU with 16 KiB stack copies, read only once it has ended.
TEST_F(Ring, AReaderHeldUpAQuarterSecondLosesNothing) {
#if !defined(__x86_64__)
    GTEST_SKIP() << "user stacks are sampled on x86-64 only";
#endif
    if (geteuid() != 0)
        GTEST_SKIP() << "rings of several MiB need more locked memory than perf_event_mlock_kb "
                        "grants a user who is not root";
    add_clock();
    ChildPlan plan;
    plan.ms = 300;
    Child c = start_child(plan);
    cpc_ring_t *ring = cpc_ring_open(cpc_, set_, -1, nullptr, 0, CPC_RING_USER_STACK, 16384);
    ASSERT_NE(ring, nullptr) << std::strerror(errno);
    let_go(c);
    int st = 0;
    rusage ru{};
    ASSERT_EQ(wait4(c.pid, &st, 0, &ru), c.pid);
    Seen seen;
    cpc_ring_read(ring, &seen, collect);
    cpc_ring_close(ring);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    double user_ms = double(ru.ru_utime.tv_sec) * 1e3 + double(ru.ru_utime.tv_usec) / 1e3;
    EXPECT_EQ(seen.lost, 0u) << seen.samples << " samples kept of " << user_ms
                             << " ms of user CPU time";
    EXPECT_GE(double(seen.samples), 0.5 * user_ms) << "one sample per ms of user CPU time";
}

// A process's rings hold 1 MiB per CPU unless asked large: a reader held
// up while 300 ms of 16 KiB stack copies come on one CPU (some 4.7 MiB on
// a quiet machine) loses records with the small ones and none with
// CPC_RING_LARGE (8 MiB per CPU, as whole CPUs get), which a process
// sampled at each switch needs.  Beside busy CPUs fewer periods end in
// user mode: where less than 1 MiB came, the small ring proves nothing
// and says so.
TEST_F(Ring, AProcessRingAskedLargeHoldsWhatAWholeCpusDoes) {
#if !defined(__x86_64__)
    GTEST_SKIP() << "user stacks are sampled on x86-64 only";
#endif
    if (geteuid() != 0)
        GTEST_SKIP() << "rings of several MiB need more locked memory than perf_event_mlock_kb "
                        "grants a user who is not root";
    add_clock();
    for (bool large : {false, true}) {
        ChildPlan plan;
        plan.ms = 300;
        plan.cpu = 0;
        Child c = start_child(plan);
        cpc_ring_t *ring = cpc_ring_open(cpc_, set_, c.pid, nullptr, 0,
                                         CPC_RING_USER_STACK | (large ? CPC_RING_LARGE : 0), 16384);
        ASSERT_NE(ring, nullptr) << std::strerror(errno);
        let_go(c);
        int st = 0;
        rusage ru{};
        ASSERT_EQ(wait4(c.pid, &st, 0, &ru), c.pid);
        Seen seen;
        cpc_ring_read(ring, &seen, collect);
        cpc_ring_close(ring);
        EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        const double user_ms = double(ru.ru_utime.tv_sec) * 1e3 + double(ru.ru_utime.tv_usec) / 1e3;
        const std::string counts = std::to_string(seen.samples) + " samples kept, " +
                                   std::to_string(seen.lost) + " lost, of " +
                                   std::to_string(user_ms) + " ms of user CPU time";
        const bool over_1mib = (seen.samples + seen.lost) * 16384 > (1u << 20);
        if (large) {
            EXPECT_EQ(seen.lost, 0u) << counts;
            EXPECT_GE(double(seen.samples), 0.5 * user_ms) << counts;
        } else if (over_1mib) {
            EXPECT_GT(seen.lost, 0u) << "1 MiB per CPU: " << counts;
        } else {
            std::printf("not checked: the small ring's loss (less than 1 MiB came: %s)\n",
                        counts.c_str());
        }
    }
}

// A process that ends while its rings open: the CPUs whose groups never
// opened have no ring, and waiting on or reading the others is safe.
// (The reader faulted on such a CPU's missing ring, most often with
// stack copies, whose larger rings take longer to map.)
TEST_F(Ring, AProcessThatEndsAsItsRingsOpenIsReadWithoutAFault) {
    add_clock();
    int opened = 0;
    for (int i = 0; i < 200; ++i) {
        pid_t pid = fork();
        if (pid == 0)
            _exit(0);
        ASSERT_GT(pid, 0);
        cpc_ring_t *ring = cpc_ring_open(cpc_, set_, pid, nullptr, 0, CPC_RING_USER_STACK, 16384);
        if (ring != nullptr) {
            ++opened;
            Seen seen;
            EXPECT_GE(cpc_ring_wait(ring, 0), 0);
            EXPECT_GE(cpc_ring_read(ring, &seen, collect), 0);
            cpc_ring_close(ring);
        } else {
            EXPECT_EQ(errno, ESRCH) << std::strerror(errno);
        }
        waitpid(pid, nullptr, 0);
    }
    std::printf("%d of 200 rings opened before their process ended\n", opened);
}

// The bytes of this process's perf rings, from its own mappings.
size_t perf_ring_bytes() {
    std::ifstream maps("/proc/self/maps");
    size_t total = 0;
    for (std::string line; std::getline(maps, line);) {
        if (line.find("[perf_event]") == std::string::npos)
            continue;
        unsigned long lo = 0, hi = 0;
        if (std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) == 2)
            total += hi - lo;
    }
    return total;
}

// Large rings (of whole CPUs) are a budget of the process, not of each
// ring: twenty rings open at once lock about 64 MiB beyond 1 MiB per CPU each, not
// twenty times 8 MiB per CPU; closing them gives it back.
TEST_F(Ring, ManyRingsShareOneBudget) {
    if (geteuid() != 0)
        GTEST_SKIP() << "rings of several MiB need more locked memory than perf_event_mlock_kb "
                        "grants a user who is not root";
    add_clock();
    ChildPlan plan;
    plan.ms = 1;
    Child c = start_child(plan);
    const size_t cpus = size_t(get_nprocs());
    std::vector<cpc_ring_t *> rings;
    for (int i = 0; i < 20; ++i) {
        cpc_ring_t *r = cpc_ring_open(cpc_, set_, -1, nullptr, 0, 0, 0);
        ASSERT_NE(r, nullptr) << std::strerror(errno);
        rings.push_back(r);
    }
    size_t mib = size_t(1) << 20;
    size_t held = perf_ring_bytes();
    EXPECT_GE(held, 8 * mib * cpus) << "the first ring's 8 MiB per CPU";
    EXPECT_LE(held, 64 * mib + 20 * cpus * (mib + 64 * 1024)) << held / mib << " MiB";
    for (cpc_ring_t *r : rings)
        cpc_ring_close(r);
    EXPECT_EQ(perf_ring_bytes(), 0u);
    // Given back: the next ring is a large one again.
    cpc_ring_t *r = cpc_ring_open(cpc_, set_, -1, nullptr, 0, 0, 0);
    ASSERT_NE(r, nullptr) << std::strerror(errno);
    EXPECT_GE(perf_ring_bytes(), 8 * mib * cpus);
    cpc_ring_close(r);
    let_go(c);
    int st = 0;
    waitpid(c.pid, &st, 0);
}

// With the kernel counted, its frames come with the samples taken there:
// a process that faults in fresh pages shows the page-fault path.
TEST_F(Ring, KernelFramesOfAPageFaultingProcess) {
    add_clock(CPC_COUNT_USER | CPC_COUNT_SYSTEM);
    ChildPlan plan;
    plan.ms = 20;
    plan.pages = 40000; // 160 MiB touched, in twenty parts
    Child c = start_child(plan);
    cpc_ring_t *ring = cpc_ring_open(cpc_, set_, c.pid, nullptr, 0, CPC_RING_CALLCHAIN, 0);
    if (ring == nullptr && errno == EACCES) {
        kill(c.pid, SIGKILL);
        waitpid(c.pid, nullptr, 0);
        GTEST_SKIP() << "the kernel may not be sampled here (perf_event_paranoid " << paranoid()
                     << ", no CAP_PERFMON)";
    }
    ASSERT_NE(ring, nullptr) << std::strerror(errno);
    let_go(c);
    Seen seen;
    Ended e = read_until_exit(ring, c.pid, &seen);
    cpc_ring_close(ring);
    EXPECT_EQ(e.status, 0);
    ASSERT_GT(seen.with_kernel_frames, 10u) << seen.samples << " samples";
    // Name them from /proc/kallsyms (addresses hidden: only check they
    // are kernel addresses).
    std::map<uint64_t, std::string> syms;
    std::ifstream ks("/proc/kallsyms");
    std::string line;
    while (std::getline(ks, line)) {
        std::istringstream in(line);
        std::string addr, type, name;
        in >> addr >> type >> name;
        if (type == "t" || type == "T")
            syms[std::stoull(addr, nullptr, 16)] = name;
    }
    bool hidden = syms.empty() || syms.begin()->first == 0;
    std::set<std::string> names;
    for (uint64_t pc : seen.kernel_pcs) {
        EXPECT_GE(pc, 0xffff800000000000ull) << std::hex << pc;
        if (hidden)
            continue;
        auto it = syms.upper_bound(pc);
        if (it != syms.begin())
            names.insert(std::prev(it)->second);
    }
    if (hidden)
        GTEST_SKIP() << "kernel addresses hidden (kptr_restrict): frames not named";
    bool fault_path = false;
    for (const std::string &n : names)
        if (n.find("page_fault") != std::string::npos || n.rfind("clear_page", 0) == 0 ||
            n == "handle_mm_fault")
            fault_path = true;
    EXPECT_TRUE(fault_path) << names.size() << " kernel functions, none of the fault path";
}

// A file the process maps after the attach is told, with its path.
TEST_F(Ring, MappingsAfterTheAttachAreTold) {
    add_clock();
    ChildPlan plan;
    plan.ms = 20;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    ASSERT_GT(n, 0);
    exe[n] = '\0';
    plan.map_path = exe;
    Child c = start_child(plan);
    cpc_ring_t *ring = cpc_ring_open(cpc_, set_, c.pid, nullptr, 0, 0, 0);
    ASSERT_NE(ring, nullptr) << std::strerror(errno);
    let_go(c);
    Seen seen;
    Ended e = read_until_exit(ring, c.pid, &seen);
    cpc_ring_close(ring);
    EXPECT_EQ(e.status, 0);
    EXPECT_NE(std::find(seen.mapped.begin(), seen.mapped.end(), std::string(exe)),
              seen.mapped.end())
        << seen.mapped.size() << " mappings told";
}

// Closing the rings detaches: the process runs on and ends as it would.
// Switch records time every stretch a thread spends off the CPU: a child
// sleeps ten times 20 ms and spins between, timing each sleep and spin
// with the same clock as the records.  Each sleep is a stretch off the
// CPU (the thread is on it only to enter and leave the call); no spin has
// a stretch the thread chose (only the scheduler's preemptions).  The
// records need no privilege: the clock counts user mode only.
TEST_F(Ring, SwitchRecordsTimeEachStretchOffTheCpu) {
    add_clock();
    constexpr int kSleeps = 10;
    int go[2], out[2];
    ASSERT_EQ(pipe2(go, O_CLOEXEC), 0);
    ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
    auto now = [] {
        timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return int64_t(t.tv_sec) * 1000000000 + t.tv_nsec;
    };
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        if (read(go[0], &c, 1) != 1)
            _exit(3);
        // [sleep start, sleep end, spin start, spin end] each time.
        int64_t times[kSleeps][4];
        for (auto &t : times) {
            t[0] = now();
            timespec d{0, 20 * 1000 * 1000};
            while (nanosleep(&d, &d) != 0) {
            }
            t[1] = now();
            t[2] = now();
            cpctest::spin_cpu_ms(5);
            t[3] = now();
        }
        _exit(write(out[1], times, sizeof times) == ssize_t(sizeof times) ? 0 : 4);
    }
    close(go[0]);
    close(out[1]);
    cpc_ring_t *ring = cpc_ring_open(cpc_, set_, pid, nullptr, 0, CPC_RING_SWITCHES, 0);
    ASSERT_NE(ring, nullptr) << std::strerror(errno);
    ASSERT_EQ(write(go[1], "g", 1), 1);
    close(go[1]);
    struct Switch {
        int64_t time;
        bool out, preempted;
    };
    struct Switches {
        pid_t tid;
        std::vector<Switch> all;
    } sw{pid, {}};
    auto keep = [](void *arg, const cpc_ring_record_t *r) {
        auto *s = static_cast<Switches *>(arg);
        if (r->kind == CPC_RING_SWITCH && r->tid == s->tid)
            s->all.push_back({r->time, r->switch_out != 0, r->preempted != 0});
    };
    int status = -1;
    for (int i = 0; i < 600 && status < 0; ++i) {
        cpc_ring_wait(ring, 50);
        cpc_ring_read(ring, &sw, keep);
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid)
            status = st;
    }
    cpc_ring_read(ring, &sw, keep);
    EXPECT_EQ(cpc_ring_close(ring), 0);
    if (status < 0) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
        FAIL() << "the child did not end within 30 s";
    }
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
    int64_t times[kSleeps][4];
    ASSERT_EQ(read(out[0], times, sizeof times), ssize_t(sizeof times));
    close(out[0]);

    // The stretches off the CPU: each switch out to the next switch in
    // (the rings are per CPU: in time order first).
    std::stable_sort(sw.all.begin(), sw.all.end(),
                     [](const Switch &a, const Switch &b) { return a.time < b.time; });
    struct Stretch {
        int64_t from, to;
        bool chosen; // blocked, not preempted
    };
    std::vector<Stretch> off;
    for (size_t i = 0; i + 1 < sw.all.size(); ++i)
        if (sw.all[i].out && !sw.all[i + 1].out)
            off.push_back({sw.all[i].time, sw.all[i + 1].time, !sw.all[i].preempted});
    auto off_within = [&](int64_t from, int64_t to, bool chosen_only) {
        int64_t sum = 0;
        for (const Stretch &o : off)
            if (!chosen_only || o.chosen)
                sum += std::max<int64_t>(0, std::min(to, o.to) - std::max(from, o.from));
        return sum;
    };
    for (int k = 0; k < kSleeps; ++k) {
        int64_t slept = times[k][1] - times[k][0];
        int64_t away = off_within(times[k][0], times[k][1], false);
        EXPECT_GE(slept, 20 * 1000 * 1000);
        EXPECT_LE(away, slept);
        EXPECT_GE(double(away), 0.98 * double(slept))
            << "sleep " << k << ": " << slept << " ns long, " << away << " ns of it off the CPU";
        EXPECT_EQ(off_within(times[k][2], times[k][3], true), 0)
            << "spin " << k << " has a stretch off the CPU that is not a preemption";
    }
}

TEST_F(Ring, CloseLeavesTheProcessRunning) {
    add_clock();
    ChildPlan plan;
    plan.threads = 1;
    plan.ms = 200;
    Child c = start_child(plan);
    cpc_ring_t *ring = cpc_ring_open(cpc_, set_, c.pid, nullptr, 0, 0, 0);
    ASSERT_NE(ring, nullptr) << std::strerror(errno);
    let_go(c);
    Seen seen;
    while (seen.samples < 20 && cpc_ring_wait(ring, 2000) > 0)
        cpc_ring_read(ring, &seen, collect);
    EXPECT_EQ(cpc_ring_close(ring), 0);
    int st = 0;
    ASSERT_EQ(waitpid(c.pid, &st, 0), c.pid);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "status " << st;
}

TEST_F(Ring, BadArgumentsAreRefused) {
    cpc_ring_t *r = cpc_ring_open(cpc_, set_, getpid(), nullptr, 0, 0, 0);
    EXPECT_EQ(r, nullptr) << "an empty set";
    EXPECT_EQ(errno, EINVAL);
    ASSERT_EQ(cpc_set_add_request(cpc_, set_, "cpu-clock", 0, CPC_COUNT_USER, 0, nullptr), 0);
    EXPECT_EQ(cpc_ring_open(cpc_, set_, getpid(), nullptr, 0, 0, 0), nullptr)
        << "a first request without CPC_OVF_NOTIFY_EMT";
    EXPECT_EQ(errno, EINVAL);
    cpc_set_t *s2 = cpc_set_create(cpc_);
    ASSERT_EQ(cpc_set_add_request(cpc_, s2, "cpu-clock", UINT64_MAX - 999999,
                                  CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, nullptr),
              0);
    EXPECT_EQ(cpc_ring_open(cpc_, s2, getpid(), nullptr, 0, 0x100, 0), nullptr) << "flags";
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(cpc_ring_open(cpc_, s2, getpid(), nullptr, 0, CPC_RING_USER_STACK, 0), nullptr)
        << "no stack size";
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(cpc_ring_open(cpc_, s2, 0, nullptr, 0, 0, 0), nullptr) << "pid 0";
    EXPECT_EQ(errno, EINVAL);
    // A pid that no process has: the highest possible one.
    EXPECT_EQ(cpc_ring_open(cpc_, s2, 4194304, nullptr, 0, 0, 0), nullptr);
    EXPECT_EQ(errno, ESRCH);
    EXPECT_EQ(cpc_ring_read(nullptr, nullptr, collect), -1);
    EXPECT_EQ(cpc_ring_wait(nullptr, 0), -1);
    EXPECT_EQ(cpc_ring_close(nullptr), -1);
}

} // namespace
