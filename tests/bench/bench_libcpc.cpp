// SPDX-License-Identifier: MIT
// bench_libcpc: what libcpc costs on top of bare perf_event_open(2).
//
// Every figure is measured in the same run as the peer it is compared with:
//  1. cpc_set_sample versus read() of a perf group with the same read_format;
//  2. one overflow round trip (kernel overflow -> signal -> handler ->
//     restart) for libcpc, bare perf sigtrap, sigtrap plus the ioctls
//     libcpc issues, and fasync delivery;
//  3. the part of libcpc's round trip spent in the program's SIGEMT
//     handler, from its entry to the return of cpc_set_restart.
// README.md in this directory explains each output line.
#include <libcpc.h>

#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif

namespace {

constexpr int kSampleCalls = 20000; // calls per timed batch
constexpr int kSampleReps = 15;     // batches; the median is reported
constexpr size_t kPages = 20000;    // faults (and overflows) per loop
constexpr int kRounds = 7;          // each overflow mode once per round
// Faults the loop itself does not cause (stack, libc) may add a few signals.
constexpr long kSignalSlack = 16;

constexpr uint64_t kReadFormat =
    PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;

static_assert(std::atomic<long>::is_always_lock_free, "counters are used in signal handlers");

// ---------------------------------------------------------------- basics

[[noreturn]] void die(const char *what) {
    std::fprintf(stderr, "bench_libcpc: %s: %s\n", what, std::strerror(errno));
    std::exit(1);
}

// CLOCK_MONOTONIC through the vDSO: cheap and async-signal-safe.
uint64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

pid_t this_tid() {
    return static_cast<pid_t>(syscall(SYS_gettid));
}

double median(std::vector<double> v) {
    if (v.empty())
        return NAN;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double percentile(std::vector<double> v, double p) {
    if (v.empty())
        return NAN;
    std::sort(v.begin(), v.end());
    size_t i = static_cast<size_t>(std::ceil(p * static_cast<double>(v.size())));
    return v[std::clamp<size_t>(i, 1, v.size()) - 1];
}

class Fd {
  public:
    explicit Fd(int fd = -1) : fd_(fd) {}
    Fd(Fd &&o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
    Fd &operator=(Fd &&o) noexcept {
        std::swap(fd_, o.fd_);
        return *this;
    }
    ~Fd() {
        if (fd_ >= 0)
            close(fd_);
    }
    int get() const { return fd_; }

  private:
    int fd_;
};

// Fresh anonymous pages, one minor fault each on first write.
class Pages {
  public:
    explicit Pages(size_t n) : page_(static_cast<size_t>(sysconf(_SC_PAGESIZE))), len_(n * page_) {
        p_ = mmap(nullptr, len_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p_ == MAP_FAILED)
            die("mmap");
        // A transparent huge page would satisfy 512 writes with one fault.
        madvise(p_, len_, MADV_NOHUGEPAGE);
    }
    ~Pages() { munmap(p_, len_); }
    Pages(const Pages &) = delete;
    Pages &operator=(const Pages &) = delete;
    volatile char *data() const { return static_cast<volatile char *>(p_); }
    size_t size() const { return len_; }
    size_t page() const { return page_; }

  private:
    size_t page_;
    size_t len_;
    void *p_;
};

__attribute__((noinline)) void touch(const Pages &p) {
    volatile char *c = p.data();
    for (size_t off = 0; off < p.size(); off += p.page())
        c[off] = 1;
}

// A signal disposition for the lifetime of the object; the previous one
// (libcpc's own SIGTRAP handler, typically) comes back afterwards.
class Handler {
  public:
    Handler(int sig, void (*fn)(int, siginfo_t *, void *)) : sig_(sig) {
        struct sigaction sa {};
        sa.sa_sigaction = fn;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        if (sigaction(sig, &sa, &old_) != 0)
            die("sigaction");
    }
    ~Handler() { sigaction(sig_, &old_, nullptr); }
    Handler(const Handler &) = delete;
    Handler &operator=(const Handler &) = delete;

  private:
    int sig_;
    struct sigaction old_ {};
};

// ---------------------------------------------------------------- perf

perf_event_attr sw_attr(uint64_t config) {
    perf_event_attr a{};
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = config;
    a.read_format = kReadFormat;
    a.exclude_kernel = 1; // what libcpc opens for CPC_COUNT_USER
    a.exclude_hv = 1;
    return a;
}

int sys_perf_open(perf_event_attr *a, int group) {
    return static_cast<int>(syscall(SYS_perf_event_open, a, 0, -1, group, PERF_FLAG_FD_CLOEXEC));
}

// A perf group counting for the calling thread, read as libcpc reads it.
class Group {
  public:
    void add(perf_event_attr a) {
        a.disabled = 0;
        int fd = sys_perf_open(&a, fds_.empty() ? -1 : leader());
        if (fd < 0)
            die("perf_event_open");
        fds_.emplace_back(fd);
        buf_.resize(3 + fds_.size());
    }
    // libcpc's cpc_buf_tick event: task-clock, kernel time included when
    // perf_event_paranoid allows it.
    void add_tick() {
        perf_event_attr a = sw_attr(PERF_COUNT_SW_TASK_CLOCK);
        a.exclude_kernel = 0;
        a.exclude_hv = 0;
        a.remove_on_exec = 1;
        int fd = sys_perf_open(&a, leader());
        if (fd < 0 && errno == EACCES) {
            a.exclude_kernel = 1;
            fd = sys_perf_open(&a, leader());
        }
        if (fd < 0)
            die("perf_event_open task-clock");
        fds_.emplace_back(fd);
        buf_.resize(3 + fds_.size());
    }
    int leader() const { return fds_.empty() ? -1 : fds_[0].get(); }
    bool read() {
        ssize_t want = static_cast<ssize_t>(buf_.size() * sizeof buf_[0]);
        return ::read(leader(), buf_.data(), static_cast<size_t>(want)) == want;
    }
    uint64_t value(size_t i) const { return buf_[3 + i]; }

  private:
    std::vector<Fd> fds_;
    std::vector<uint64_t> buf_;
};

Group counting_group(std::initializer_list<uint64_t> configs, bool with_tick) {
    Group g;
    for (uint64_t c : configs)
        g.add(sw_attr(c));
    if (with_tick)
        g.add_tick();
    return g;
}

// ---------------------------------------------------------------- libcpc

class Cpc {
  public:
    Cpc() : h_(cpc_open(CPC_VER_CURRENT)) {
        if (h_ == nullptr)
            die("cpc_open");
    }
    ~Cpc() { cpc_close(h_); }
    Cpc(const Cpc &) = delete;
    Cpc &operator=(const Cpc &) = delete;
    cpc_t *get() const { return h_; }

  private:
    cpc_t *h_;
};

cpc_set_t *make_set(cpc_t *cpc, std::initializer_list<const char *> events, uint64_t preset,
                    uint_t flags) {
    cpc_set_t *s = cpc_set_create(cpc);
    if (s == nullptr)
        die("cpc_set_create");
    for (const char *e : events)
        if (cpc_set_add_request(cpc, s, e, preset, flags, 0, nullptr) < 0)
            die(e);
    return s;
}

// The set bound to the calling thread for the lifetime of the object.
class Bound {
  public:
    Bound(cpc_t *cpc, cpc_set_t *set) : cpc_(cpc), set_(set) {
        if (cpc_bind_curlwp(cpc, set, 0) != 0)
            die("cpc_bind_curlwp");
    }
    ~Bound() { cpc_unbind(cpc_, set_); }
    Bound(const Bound &) = delete;
    Bound &operator=(const Bound &) = delete;

  private:
    cpc_t *cpc_;
    cpc_set_t *set_;
};

// ---------------------------------------------------------------- output

void header(int cpu) {
    utsname u{};
    uname(&u);
    std::string model = "unknown CPU";
    std::ifstream in("/proc/cpuinfo");
    for (std::string l; std::getline(in, l);) {
        if (l.rfind("model name", 0) == 0 && l.find(':') != std::string::npos) {
            model = l.substr(l.find_first_not_of(" \t", l.find(':') + 1));
            break;
        }
    }
    // CPC_SIGEMT_STABLE=1 saves libcpc's one system call per overflow.
    const char *stable = std::getenv("CPC_SIGEMT_STABLE");
    std::printf("bench_libcpc: Linux %s %s | %s | %ld CPUs online, pinned to CPU %d | "
                "%zu pages/loop, %d rounds | SIGEMT=SIGRTMIN+%d | CPC_SIGEMT_STABLE=%s\n",
                u.release, u.machine, model.c_str(), sysconf(_SC_NPROCESSORS_ONLN), cpu, kPages,
                kRounds, SIGEMT - SIGRTMIN, stable != nullptr ? stable : "(unset)");
}

void line(const std::string &name, double value, const char *unit, const std::string &note = "") {
    if (note.empty())
        std::printf("%-64s %10.3f %s\n", name.c_str(), value, unit);
    else
        std::printf("%-64s %10.3f %-12s %s\n", name.c_str(), value, unit, note.c_str());
    std::fflush(stdout);
}

void ratio(const std::string &name, double a, double b) {
    line(name, a / b, "x");
}

// Same CPU for every measurement: no migrations, one set of caches.
int pin_to_last_cpu() {
    cpu_set_t s;
    if (sched_getaffinity(0, sizeof s, &s) != 0)
        die("sched_getaffinity");
    int cpu = CPU_SETSIZE - 1;
    while (cpu > 0 && !CPU_ISSET(cpu, &s))
        --cpu;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0)
        die("sched_setaffinity");
    return cpu;
}

// ---------------------------------------------------------------- 1. sampling

template <class F> double ns_per_call(F &&f) {
    uint64_t t0 = now_ns();
    for (int i = 0; i < kSampleCalls; ++i)
        f();
    return static_cast<double>(now_ns() - t0) / kSampleCalls;
}

// Every figure below is mostly system calls: the price of an empty one on
// this machine sets the scale for reading them.
double report_syscall() {
    std::vector<double> v;
    for (int r = 0; r < kSampleReps; ++r)
        v.push_back(ns_per_call([] { syscall(SYS_getppid); }));
    line("context: null system call, getppid()", median(v), "ns/call");
    return median(v);
}

struct SampleCost {
    double cpc, bare, bare_tick;
};

double time_cpc_sample(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf) {
    Bound b(cpc, set);
    if (cpc_set_sample(cpc, set, buf) != 0)
        die("cpc_set_sample");
    return ns_per_call([&] { cpc_set_sample(cpc, set, buf); });
}

double time_bare_read(Group &g) {
    if (!g.read())
        die("read of perf group");
    return ns_per_call([&] { g.read(); });
}

// Rebinding every repetition keeps libcpc and the bare reads interleaved.
SampleCost sample_cost(cpc_t *cpc, std::initializer_list<const char *> names,
                       std::initializer_list<uint64_t> configs) {
    cpc_set_t *set = make_set(cpc, names, 0, CPC_COUNT_USER);
    cpc_buf_t *buf = cpc_buf_create(cpc, set);
    if (buf == nullptr)
        die("cpc_buf_create");
    Group bare = counting_group(configs, false);
    Group bare_tick = counting_group(configs, true);
    std::vector<double> c, b, bt;
    for (int r = 0; r < kSampleReps; ++r) {
        c.push_back(time_cpc_sample(cpc, set, buf));
        b.push_back(time_bare_read(bare));
        bt.push_back(time_bare_read(bare_tick));
    }
    cpc_buf_destroy(cpc, buf);
    cpc_set_destroy(cpc, set);
    return {median(c), median(b), median(bt)};
}

void report_sample(const SampleCost &s, int n) {
    std::string ev = std::to_string(n) + (n == 1 ? " event" : " events");
    std::string req = std::to_string(n) + (n == 1 ? " request" : " requests");
    line("sample: bare read() of perf group, " + ev, s.bare, "ns/call");
    line("sample: bare read() of perf group, " + ev + " + task-clock", s.bare_tick, "ns/call",
         "(the group libcpc opens)");
    line("sample: cpc_set_sample, " + req, s.cpc, "ns/call");
    ratio("sample ratio: cpc_set_sample / bare read(), " + ev, s.cpc, s.bare);
    ratio("sample ratio: cpc_set_sample / bare read(), " + ev + " + task-clock", s.cpc,
          s.bare_tick);
}

// ---------------------------------------------------------------- 2. overflow

// What the signal handlers see.  Plain globals read in handlers are only
// written while no overflow can arrive.
std::atomic<long> g_signals{0};
std::atomic<long> g_stray{0};
cpc_t *g_cpc = nullptr;
cpc_set_t *g_ovf_set = nullptr;
int g_trap_leader = -1;
const uint64_t g_period = 1;
int g_async_sig = 0;

// Handler latencies (figure 3): a buffer preallocated outside the handler.
struct Latencies {
    std::vector<uint64_t> ns = std::vector<uint64_t>(kPages + 1024);
    std::atomic<size_t> n{0};
    std::atomic<bool> on{false};
    void record(uint64_t t0) {
        size_t i = n.fetch_add(1, std::memory_order_relaxed);
        if (i < ns.size())
            ns[i] = now_ns() - t0;
    }
    std::vector<double> take() {
        size_t m = std::min(n.load(), ns.size());
        n = 0;
        return {ns.begin(), ns.begin() + static_cast<long>(m)};
    }
} g_lat;

void count(bool ours) {
    (ours ? g_signals : g_stray).fetch_add(1, std::memory_order_relaxed);
}

void on_emt(int, siginfo_t *si, void *) {
    int saved = errno;
    bool timed = g_lat.on.load(std::memory_order_relaxed);
    uint64_t t0 = timed ? now_ns() : 0;
    bool ours = si->si_code == EMT_CPCOVF;
    if (ours)
        cpc_set_restart(g_cpc, g_ovf_set);
    if (timed && ours)
        g_lat.record(t0);
    count(ours);
    errno = saved;
}

void on_trap(int, siginfo_t *si, void *) {
    count(si->si_code == TRAP_PERF);
}

// A round trip that freezes the set in the kernel, in one handler: disable
// at the overflow, then what cpc_set_restart does for one request after a
// second overflow (libcpc freezes in software until then).
void on_trap_ioctls(int, siginfo_t *si, void *) {
    int saved = errno;
    bool ours = si->si_code == TRAP_PERF;
    if (ours) {
        int fd = g_trap_leader;
        ioctl(fd, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
        bool timed = g_lat.on.load(std::memory_order_relaxed);
        uint64_t t0 = timed ? now_ns() : 0;
        ioctl(fd, PERF_EVENT_IOC_PERIOD, &g_period);
        ioctl(fd, PERF_EVENT_IOC_RESET, 0);
        ioctl(fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
        if (timed)
            g_lat.record(t0);
    }
    count(ours);
    errno = saved;
}

void on_async(int, siginfo_t *si, void *) {
    count(si->si_code == POLL_IN);
}

void on_queued(int, siginfo_t *si, void *) {
    count(si->si_code == SI_QUEUE);
}

struct Run {
    double ns = 0;
    long signals = 0;
    long stray = 0;
};

Run time_touch() {
    g_signals = 0;
    g_stray = 0;
    Pages p(kPages);
    uint64_t t0 = now_ns();
    touch(p);
    Run r;
    r.ns = static_cast<double>(now_ns() - t0);
    r.signals = g_signals;
    r.stray = g_stray;
    return r;
}

Run bare_counting() {
    Group g = counting_group({PERF_COUNT_SW_PAGE_FAULTS}, false);
    return time_touch();
}

Run cpc_counting(cpc_t *cpc, cpc_set_t *set) {
    Bound b(cpc, set);
    return time_touch();
}

// (a) libcpc: SIGTRAP to libcpc, SIGEMT to us, cpc_set_restart.
Run cpc_overflow(cpc_t *cpc, cpc_set_t *set) {
    Handler h(SIGEMT, on_emt);
    Bound b(cpc, set);
    return time_touch();
}

perf_event_attr sigtrap_attr() {
    perf_event_attr a = sw_attr(PERF_COUNT_SW_PAGE_FAULTS);
    a.sample_period = g_period;
    a.sigtrap = 1;
    a.remove_on_exec = 1; // the kernel requires it with sigtrap
    return a;
}

// (b) bare sigtrap, the event left counting: one signal, no syscall.
Run bare_sigtrap() {
    Handler h(SIGTRAP, on_trap);
    Group g;
    g.add(sigtrap_attr());
    return time_touch();
}

// (c) bare sigtrap with libcpc's kernel work: same group (with the
// task-clock member), same ioctls, but a single signal.
Run bare_sigtrap_ioctls() {
    Handler h(SIGTRAP, on_trap_ioctls);
    Group g;
    g.add(sigtrap_attr());
    g.add_tick();
    g_trap_leader = g.leader();
    Run r = time_touch();
    g_trap_leader = -1;
    return r;
}

// (d) fasync: the pre-sigtrap way, a queued real-time signal per overflow.
Run bare_fasync() {
    Handler h(g_async_sig, on_async);
    perf_event_attr a = sw_attr(PERF_COUNT_SW_PAGE_FAULTS);
    a.sample_period = g_period;
    Group g;
    g.add(a);
    f_owner_ex owner{F_OWNER_TID, this_tid()};
    int fd = g.leader();
    if (fcntl(fd, F_SETOWN_EX, &owner) != 0 || fcntl(fd, F_SETSIG, g_async_sig) != 0 ||
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) != 0)
        die("fcntl fasync");
    return time_touch();
}

// A second signal on its own (libcpc sends one only where the kernel must
// act): rt_tgsigqueueinfo to this thread and an empty handler, kPages times.
Run self_queued_signal() {
    Handler h(g_async_sig, on_queued);
    siginfo_t info{};
    info.si_signo = g_async_sig;
    info.si_code = SI_QUEUE;
    pid_t pid = getpid(), tid = this_tid();
    g_signals = 0;
    g_stray = 0;
    uint64_t t0 = now_ns();
    for (size_t i = 0; i < kPages; ++i)
        syscall(SYS_rt_tgsigqueueinfo, pid, tid, g_async_sig, &info);
    Run r;
    r.ns = static_cast<double>(now_ns() - t0);
    r.signals = g_signals;
    r.stray = g_stray;
    return r;
}

enum Mode { kBareCount, kCpcCount, kCpc, kSigtrap, kSigtrapIoctls, kFasync, kSelfSignal, kModes };

struct OverflowBench {
    cpc_t *cpc;
    cpc_set_t *count_set; // page-faults, counting only
    cpc_set_t *ovf_set;   // page-faults, CPC_OVF_NOTIFY_EMT every fault
    std::vector<Run> runs[kModes];

    Run run(Mode m) {
        switch (m) {
        case kBareCount:
            return bare_counting();
        case kCpcCount:
            return cpc_counting(cpc, count_set);
        case kCpc:
            return cpc_overflow(cpc, ovf_set);
        case kSigtrap:
            return bare_sigtrap();
        case kSigtrapIoctls:
            return bare_sigtrap_ioctls();
        case kFasync:
            return bare_fasync();
        default:
            return self_queued_signal();
        }
    }

    // Rotating the order keeps any drift from landing on one mode.
    void round(int r, bool keep) {
        for (int i = 0; i < kModes; ++i) {
            Mode m = static_cast<Mode>((i + r) % kModes);
            Run x = run(m);
            if (keep)
                runs[m].push_back(x);
        }
    }

    // Microseconds per overflow: the loop's extra time over the counting
    // loop of the same round, divided by the overflows it signalled.
    double us_per_overflow(Mode m, Mode base) const {
        std::vector<double> v;
        for (size_t i = 0; i < runs[m].size(); ++i)
            if (runs[m][i].signals > 0)
                v.push_back((runs[m][i].ns - runs[base][i].ns) / 1e3 /
                            static_cast<double>(runs[m][i].signals));
        return median(v);
    }

    double us_per_signal(Mode m) const {
        std::vector<double> v;
        for (const Run &x : runs[m])
            if (x.signals > 0)
                v.push_back(x.ns / 1e3 / static_cast<double>(x.signals));
        return median(v);
    }

    double ns_per_fault(Mode m) const {
        std::vector<double> v;
        for (const Run &x : runs[m])
            v.push_back(x.ns / static_cast<double>(kPages));
        return median(v);
    }

    // "signals 20000..20001/20000" and a warning when a mode missed some.
    std::string signals_note(Mode m, const char *label) const {
        long lo = LONG_MAX, hi = LONG_MIN, stray = 0;
        for (const Run &x : runs[m]) {
            lo = std::min(lo, x.signals);
            hi = std::max(hi, x.signals);
            stray += x.stray;
        }
        long want = static_cast<long>(kPages);
        if (lo < want - kSignalSlack || hi > want + kSignalSlack)
            std::printf("WARNING: %s: %ld..%ld signals per loop, expected %ld (+-%ld)\n", label, lo,
                        hi, want, kSignalSlack);
        if (stray > 0)
            std::printf("WARNING: %s: %ld signals with an unexpected si_code\n", label, stray);
        return "signals/loop " + std::to_string(lo) + ".." + std::to_string(hi) + " of " +
               std::to_string(want);
    }
};

// Faults in one loop as perf counts them: checks the loop really faults
// once per page (no huge pages, no pre-faulting).
uint64_t faults_per_loop() {
    Group g = counting_group({PERF_COUNT_SW_PAGE_FAULTS}, false);
    Pages p(kPages);
    g.read();
    uint64_t before = g.value(0);
    touch(p);
    g.read();
    return g.value(0) - before;
}

void report_overflow(const OverflowBench &b, double syscall_ns) {
    double base = b.ns_per_fault(kBareCount), cbase = b.ns_per_fault(kCpcCount);
    line("fault loop: bare perf counting page-faults, no sampling", base, "ns/fault",
         std::to_string(faults_per_loop()) + " faults counted per loop");
    line("fault loop: libcpc counting page-faults, no sampling", cbase, "ns/fault");
    double d = b.us_per_overflow(kFasync, kBareCount);
    double bt = b.us_per_overflow(kSigtrap, kBareCount);
    double c = b.us_per_overflow(kSigtrapIoctls, kBareCount);
    double a = b.us_per_overflow(kCpc, kCpcCount);
    double q = b.us_per_signal(kSelfSignal);
    line("overflow (d) bare fasync F_SETSIG, event left enabled", d, "us/overflow",
         b.signals_note(kFasync, "(d) fasync"));
    line("overflow (b) bare sigtrap, empty SIGTRAP handler", bt, "us/overflow",
         b.signals_note(kSigtrap, "(b) sigtrap"));
    line("overflow (c) bare sigtrap + DISABLE, PERIOD, RESET, ENABLE", c, "us/overflow",
         b.signals_note(kSigtrapIoctls, "(c) sigtrap+ioctls"));
    line("overflow (a) libcpc SIGTRAP->SIGEMT, cpc_set_restart", a, "us/overflow",
         b.signals_note(kCpc, "(a) libcpc"));
    line("self-queued RT signal: rt_tgsigqueueinfo + empty handler", q, "us/signal",
         b.signals_note(kSelfSignal, "self-queued signal"));
    ratio("overflow ratio: libcpc (a) / bare sigtrap (b)", a, bt);
    ratio("overflow ratio: libcpc (a) / bare sigtrap + ioctls (c)", a, c);
    // libcpc's overflow path makes one system call of its own, the
    // rt_sigaction that finds the program's SIGEMT handler.
    ratio("overflow ratio: libcpc (a) / ((b) + one null system call)", a, bt + syscall_ns / 1000);
    ratio("overflow ratio: bare fasync (d) / bare sigtrap (b)", d, bt);
}

// ---------------------------------------------------------------- 3. handler

// Instrumented runs of their own, so that the clock reads in the handlers
// stay out of the round-trip figures; interleaved like the rounds.
void report_handler(OverflowBench &b) {
    constexpr int kPasses = 3;
    std::vector<double> cpc, bare;
    g_lat.take();
    g_lat.on = true;
    for (int i = 0; i < kPasses; ++i) {
        b.run(kCpc);
        std::vector<double> c = g_lat.take();
        cpc.insert(cpc.end(), c.begin(), c.end());
        b.run(kSigtrapIoctls);
        std::vector<double> s = g_lat.take();
        bare.insert(bare.end(), s.begin(), s.end());
    }
    g_lat.on = false;
    line("handler: SIGEMT entry -> cpc_set_restart return, median", median(cpc), "ns",
         std::to_string(cpc.size()) + " overflows");
    line("handler: SIGEMT entry -> cpc_set_restart return, p99", percentile(cpc, 0.99), "ns");
    line("handler: bare PERIOD+RESET+ENABLE in SIGTRAP handler, median", median(bare), "ns",
         std::to_string(bare.size()) + " overflows");
    line("handler: bare PERIOD+RESET+ENABLE in SIGTRAP handler, p99", percentile(bare, 0.99), "ns");
    ratio("handler ratio: cpc_set_restart path / bare ioctls, median", median(cpc), median(bare));
}

} // namespace

int main() {
    int cpu = pin_to_last_cpu();
    Cpc cpc;
    g_cpc = cpc.get();
    // Distinct from SIGEMT, which CPC_SIGEMT may have moved.
    g_async_sig = SIGEMT == SIGRTMIN + 7 ? SIGRTMIN + 8 : SIGRTMIN + 7;
    header(cpu);
    double syscall_ns = report_syscall();

    report_sample(sample_cost(cpc.get(), {"page-faults"}, {PERF_COUNT_SW_PAGE_FAULTS}), 1);
    report_sample(sample_cost(cpc.get(), {"page-faults", "minor-faults", "major-faults"},
                              {PERF_COUNT_SW_PAGE_FAULTS, PERF_COUNT_SW_PAGE_FAULTS_MIN,
                               PERF_COUNT_SW_PAGE_FAULTS_MAJ}),
                  3);

    OverflowBench b{
        cpc.get(),
        make_set(cpc.get(), {"page-faults"}, 0, CPC_COUNT_USER),
        make_set(cpc.get(), {"page-faults"}, UINT64_MAX, CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT),
        {}};
    g_ovf_set = b.ovf_set;
    b.round(0, false); // warm-up: lazy initialisation, page tables, caches
    for (int r = 0; r < kRounds; ++r)
        b.round(r, true);
    report_overflow(b, syscall_ns);
    report_handler(b);
    return 0;
}
