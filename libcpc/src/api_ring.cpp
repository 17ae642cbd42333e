// SPDX-License-Identifier: MIT
// Sample rings (Linux extension, cpc_ring_open(3CPC)): the kernel writes
// each overflow of a set's first request, with what the caller asked for
// (callchain, user registers and stack), into a ring per CPU that the
// caller reads; no signal reaches the sampled threads.
//
// One group per sampled thread and CPU (pid > 0: perf_event_open(tid,
// cpu), inherited by the threads and processes it creates), or per CPU
// (pid -1).  Every group of a CPU writes into the ring of that CPU's first
// group (PERF_EVENT_IOC_SET_OUTPUT: the kernel allows it between events of
// one CPU), so a process of a thousand threads is read through as many
// rings as CPUs.  Ordinary context only.
#include "libcpc/src/counting.h"
#include "libcpc/src/errors.h"
#include "libcpc/src/impl.h"
#include "libcpc/src/perf_open.h"

#include "base/scoped_fd.h"

#include <dirent.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <new>
#include <set>
#include <string>
#include <vector>

using cpcprof::base::ScopedFd;
using namespace cpc;

namespace {

constexpr uint32_t kRingMagic = 0x43504352; // "CPCR"
constexpr uint_t kAllRingFlags = CPC_RING_CALLCHAIN | CPC_RING_USER_STACK |
                                 CPC_RING_KERNEL_CALLCHAIN | CPC_RING_SWITCHES | CPC_RING_LARGE;
constexpr uint_t kMaxStackBytes = 65528;
// open_group's answer when only the group's values at each sample are
// refused (not an errno).
constexpr int kErrNoValuesWithInherit = -2;

#if defined(__x86_64__)
// AX, BX, CX, DX, SI, DI, BP, SP, IP and R8-R15 (perf_regs.h's x86 bits):
// what a DWARF unwinder may name; flags and segments are left out.
constexpr uint64_t kUserRegs = 0x1ffull | (0xffull << 16);
#else
constexpr uint64_t kUserRegs = 0;
#endif

// One CPU's ring: the perf mmap of its first group's leader.
class RingMap {
  public:
    RingMap() = default;
    RingMap(RingMap &&o) noexcept
        : page_(std::exchange(o.page_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
    RingMap &operator=(RingMap &&) = delete;
    RingMap(const RingMap &) = delete;
    ~RingMap() {
        if (page_ != nullptr)
            munmap(page_, bytes_);
    }
    // Maps fd's ring: the largest of `most` bytes of data (a power of
    // two) down to 64 KiB the kernel grants (perf_event_mlock_kb,
    // RLIMIT_MEMLOCK).
    bool map(int fd, size_t most) {
        long page = sysconf(_SC_PAGESIZE);
        for (size_t data = most; data >= (64u << 10); data /= 2) {
            size_t bytes = size_t(page) + data;
            void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (p != MAP_FAILED) {
                page_ = static_cast<perf_event_mmap_page *>(p);
                bytes_ = bytes;
                return true;
            }
            if (errno != EPERM && errno != ENOMEM)
                return false;
        }
        return false;
    }
    perf_event_mmap_page *page() const { return page_; }
    const unsigned char *data() const {
        return reinterpret_cast<const unsigned char *>(page_) + page_->data_offset;
    }
    uint64_t size() const { return page_->data_size; }

  private:
    perf_event_mmap_page *page_ = nullptr;
    size_t bytes_ = 0;
};

struct CpuRing {
    int cpu = -1;
    int leader = -1;      // the descriptor whose ring this is
    bool hung_up = false; // its thread has ended (poll says POLLHUP for good)
    RingMap map;
};

// Ring data beyond 1 MiB per CPU asked for by the rings open in this
// process: the part of kRingBudget they hold.
std::atomic<size_t> g_ring_extra{0};
constexpr size_t kRingBudget = 64u << 20;

} // namespace

struct __cpc_ring {
    __cpc_ring() = default;
    __cpc_ring(const __cpc_ring &) = delete;
    __cpc_ring &operator=(const __cpc_ring &) = delete;
    ~__cpc_ring() { g_ring_extra.fetch_sub(extra); }
    uint32_t magic = kRingMagic;
    cpc_t *cpc = nullptr;
    uint_t flags = 0;
    uint64_t sample_type = 0;
    uint64_t regs_mask = 0;
    int nreq = 0;
    bool values = false; // samples carry the group's values
    std::vector<ScopedFd> fds;
    std::vector<CpuRing> rings;
    std::vector<unsigned char> bounce; // a record that wraps the ring's end
    size_t ring_bytes = 1u << 20;      // each CPU's ring's data, as asked
    size_t extra = 0;                  // its part of g_ring_extra
};

namespace {

bool valid_ring(const cpc_ring_t *r) {
    return r != nullptr && r->magic == kRingMagic;
}

std::vector<pid_t> threads_of(pid_t pid) {
    std::vector<pid_t> tids;
    std::string dir = "/proc/" + std::to_string(pid) + "/task";
    DIR *d = opendir(dir.c_str());
    if (d == nullptr)
        return tids;
    while (dirent *e = readdir(d)) {
        char *end = nullptr;
        long t = std::strtol(e->d_name, &end, 10);
        if (t > 0 && end != nullptr && *end == '\0')
            tids.push_back(pid_t(t));
    }
    closedir(d);
    return tids;
}

std::vector<int> online_cpus() {
    std::vector<int> cpus;
    for (int c = 0; c < get_nprocs_conf(); ++c)
        if (cpu_is_online(c))
            cpus.push_back(c);
    return cpus;
}

struct Opener {
    cpc_ring_t *ring;
    BindSpec spec;
    uint64_t period;
    bool inherit;
};

// The group's leader: the sampling request, writing what the ring asks
// for and the processes' mappings, names, forks and exits.
perf_event_attr leader_attr(const Opener &o, bool with_values, uint32_t stack_bytes) {
    perf_event_attr a = o.spec.attrs[0];
    a.sample_period = o.period;
    a.sample_type = o.ring->sample_type | (with_values ? PERF_SAMPLE_READ : 0);
    a.read_format = PERF_FORMAT_GROUP;
    a.sample_id_all = 1;
    a.mmap = 1;
    a.mmap2 = 1;
    a.comm = 1;
    a.comm_exec = 1;
    a.task = 1;
    // Switch records need no privilege: they say when a thread the event
    // follows left and got a CPU, never where it was.
    a.context_switch = (o.ring->flags & CPC_RING_SWITCHES) != 0;
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
    a.inherit = o.inherit ? 1 : 0;
    a.watermark = 1;
    // With stack copies, the reader is woken once about sixteen samples
    // wait (256 KiB at most), not at each: every wake-up is a
    // switch on a CPU the sampled threads run on, and a reader that takes
    // samples by the dozen spends a third of the CPU per sample.
    a.wakeup_watermark = std::clamp<uint32_t>(16 * stack_bytes, 16 * 1024, 256 * 1024);
    // The user's part from the copied stack only: the kernel's walk of
    // the user's frame pointers is work for nothing then.
    a.exclude_callchain_user = (o.ring->flags & CPC_RING_KERNEL_CALLCHAIN) != 0 &&
                               (o.ring->flags & CPC_RING_CALLCHAIN) == 0;
    a.sample_regs_user = o.ring->regs_mask;
    a.sample_stack_user = stack_bytes;
    return a;
}

// Opens one group on (pid, cpu) into the CPU's ring; errno on failure.
int open_group(Opener &o, pid_t pid, CpuRing &cpu, uint32_t stack_bytes) {
    perf_event_attr a = leader_attr(o, o.ring->values, stack_bytes);
    int leader = perf_event_open_cloexec(&a, pid, cpu.cpu, -1);
    if (leader < 0 && errno == EINVAL && o.ring->values && o.inherit) {
        // Kernels before 6.12 refuse PERF_SAMPLE_READ with inheritance.
        perf_event_attr alone = leader_attr(o, false, stack_bytes);
        ScopedFd probe(perf_event_open_cloexec(&alone, pid, cpu.cpu, -1));
        if (probe.valid())
            return kErrNoValuesWithInherit;
        errno = EINVAL;
    }
    if (leader < 0)
        return errno;
    o.ring->fds.emplace_back(leader);
    for (int i = 1; i < o.ring->nreq; ++i) {
        perf_event_attr m = o.spec.attrs[i];
        m.read_format = PERF_FORMAT_GROUP;
        m.inherit = a.inherit;
        m.use_clockid = 1;
        m.clockid = CLOCK_MONOTONIC;
        int fd = perf_event_open_cloexec(&m, pid, cpu.cpu, leader);
        if (fd < 0)
            return errno;
        o.ring->fds.emplace_back(fd);
    }
    if (cpu.leader < 0) {
        if (!cpu.map.map(leader, o.ring->ring_bytes))
            return errno == 0 ? ENOMEM : errno;
        cpu.leader = leader;
    } else if (ioctl(leader, PERF_EVENT_IOC_SET_OUTPUT, cpu.leader) != 0) {
        return errno;
    }
    return 0;
}

int open_failure_errno(cpc_t *cpc, int err, pid_t pid) {
    switch (err) {
    case kErrNoValuesWithInherit:
        report(cpc, "cpc_ring_open", CPC_CONFLICTING_REQS,
               "this kernel cannot read a set's other requests at each sample of a process "
               "that is followed into its new threads (Linux 6.12 and later can): sample a "
               "set of one request");
        return ENOTSUP;
    case ESRCH:
        report(cpc, "cpc_ring_open", CPC_RESOURCE_UNAVAIL, "process %d does not exist", int(pid));
        return ESRCH;
    case EACCES:
    case EPERM:
        if (pid > 0)
            report(cpc, "cpc_ring_open", CPC_ATTR_REQUIRES_PRIVILEGE,
                   "sampling process %d needs ptrace access to it (the same user, or "
                   "CAP_SYS_PTRACE; /proc/sys/kernel/yama/ptrace_scope) and "
                   "perf_event_paranoid at most 2, or CAP_PERFMON; counting in the kernel "
                   "needs perf_event_paranoid at most 1",
                   int(pid));
        else
            report(cpc, "cpc_ring_open", CPC_ATTR_REQUIRES_PRIVILEGE,
                   "sampling whole CPUs needs CAP_PERFMON (or root), or "
                   "/proc/sys/kernel/perf_event_paranoid at most 0");
        return EACCES;
    case EMFILE:
    case ENFILE:
        report(cpc, "cpc_ring_open", CPC_RESOURCE_UNAVAIL,
               "out of file descriptors (one per thread, CPU and request: raise "
               "RLIMIT_NOFILE)");
        return EMFILE;
    default:
        report(cpc, "cpc_ring_open", CPC_RESOURCE_UNAVAIL, "perf_event_open: %s",
               std::strerror(err));
        return err;
    }
}

// Reads n bytes at offset off of the ring (wrapping).
void ring_copy(const CpuRing &c, uint64_t off, void *out, size_t n) {
    uint64_t size = c.map.size();
    uint64_t at = off & (size - 1);
    size_t first = std::min<uint64_t>(n, size - at);
    std::memcpy(out, c.map.data() + at, first);
    if (first < n)
        std::memcpy(static_cast<unsigned char *>(out) + first, c.map.data(), n - first);
}

// A cursor over one record's body.
struct Body {
    const unsigned char *p, *end;
    bool ok = true;
    uint64_t u64() {
        uint64_t v = 0;
        if (p + 8 > end) {
            ok = false;
            return 0;
        }
        std::memcpy(&v, p, 8);
        p += 8;
        return v;
    }
    std::pair<uint32_t, uint32_t> u32x2() {
        uint64_t v = u64();
        return {uint32_t(v), uint32_t(v >> 32)};
    }
    const uint64_t *words(uint64_t n) {
        if (n > uint64_t(end - p) / 8) {
            ok = false;
            return nullptr;
        }
        auto *w = reinterpret_cast<const uint64_t *>(p);
        p += n * 8;
        return w;
    }
    const unsigned char *bytes(uint64_t n) {
        if (n > uint64_t(end - p)) {
            ok = false;
            return nullptr;
        }
        const unsigned char *b = p;
        p += n;
        return b;
    }
};

// The sample_id_all trailer of a record other than a sample: TID, TIME,
// CPU (in that order, as sample_type asks).  Its process and thread go
// into rec with who (a record whose body does not say them).
void read_trailer(const cpc_ring_t *r, Body b, cpc_ring_record_t *rec, bool who = false) {
    // The trailer is the record's last words.
    int words = 2 + ((r->sample_type & PERF_SAMPLE_CPU) != 0);
    if (b.end - b.p < words * 8)
        return;
    b.p = b.end - words * 8;
    auto [pid, tid] = b.u32x2();
    if (who) {
        rec->pid = pid_t(pid);
        rec->tid = pid_t(tid);
    }
    rec->time = hrtime_t(b.u64());
    if (r->sample_type & PERF_SAMPLE_CPU)
        rec->cpu = int(b.u32x2().first);
}

bool parse_sample(const cpc_ring_t *r, Body b, uint16_t misc, cpc_ring_record_t *rec) {
    rec->kind = CPC_RING_SAMPLE;
    rec->pc = b.u64();
    auto [pid, tid] = b.u32x2();
    rec->pid = pid_t(pid);
    rec->tid = pid_t(tid);
    rec->time = hrtime_t(b.u64());
    rec->cpu = int(b.u32x2().first);
    rec->period = b.u64();
    rec->in_kernel = (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
    if (r->values) {
        uint64_t nr = b.u64();
        rec->values = b.words(nr);
        rec->nvalues = rec->values != nullptr ? uint32_t(nr) : 0;
    }
    if (r->sample_type & PERF_SAMPLE_CALLCHAIN) {
        uint64_t nr = b.u64();
        const uint64_t *ips = b.words(nr);
        // PERF_CONTEXT_* markers split the kernel's frames from the user's.
        bool user = false;
        for (uint64_t i = 0; ips != nullptr && i < nr; ++i) {
            if (ips[i] >= uint64_t(PERF_CONTEXT_MAX)) {
                if (ips[i] == uint64_t(PERF_CONTEXT_USER)) {
                    user = true;
                    rec->user_pcs = ips + i + 1;
                } else if (ips[i] == uint64_t(PERF_CONTEXT_KERNEL)) {
                    user = false;
                    rec->kernel_pcs = ips + i + 1;
                }
                continue;
            }
            if (user)
                ++rec->nuser_pcs;
            else if (rec->kernel_pcs != nullptr)
                ++rec->nkernel_pcs;
        }
    }
    if (r->sample_type & PERF_SAMPLE_REGS_USER) {
        uint64_t abi = b.u64();
        if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
            rec->regs_mask = r->regs_mask;
            rec->regs = b.words(uint64_t(__builtin_popcountll(r->regs_mask)));
        }
    }
    if (r->sample_type & PERF_SAMPLE_STACK_USER) {
        uint64_t size = b.u64();
        const unsigned char *data = b.bytes(size);
        if (size > 0) {
            uint64_t dyn = b.u64();
            rec->stack = data;
            rec->stack_size = std::min(dyn, size);
        }
    }
    return b.ok;
}

// Parses one record; false for one the caller is not told of.
bool parse(const cpc_ring_t *r, const perf_event_header &h, const unsigned char *body,
           cpc_ring_record_t *rec) {
    Body b{body, body + (h.size - sizeof h)};
    rec->cpu = -1;
    switch (h.type) {
    case PERF_RECORD_SAMPLE:
        return parse_sample(r, b, h.misc, rec);
    case PERF_RECORD_MMAP2: {
        rec->kind = CPC_RING_MMAP;
        auto [pid, tid] = b.u32x2();
        rec->pid = pid_t(pid);
        rec->tid = pid_t(tid);
        rec->addr = b.u64();
        rec->len = b.u64();
        rec->pgoff = b.u64();
        b.u64(); // maj, min
        b.u64(); // ino
        b.u64(); // ino_generation (or the build-id's words)
        rec->prot = b.u32x2().first;
        rec->path = reinterpret_cast<const char *>(b.p);
        if (std::memchr(b.p, '\0', size_t(b.end - b.p)) == nullptr)
            return false;
        read_trailer(r, b, rec);
        return b.ok;
    }
    case PERF_RECORD_COMM: {
        rec->kind = CPC_RING_COMM;
        auto [pid, tid] = b.u32x2();
        rec->pid = pid_t(pid);
        rec->tid = pid_t(tid);
        rec->comm = reinterpret_cast<const char *>(b.p);
        rec->exec = (h.misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
        if (std::memchr(b.p, '\0', size_t(b.end - b.p)) == nullptr)
            return false;
        read_trailer(r, b, rec);
        return b.ok;
    }
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT: {
        rec->kind = h.type == PERF_RECORD_FORK ? CPC_RING_FORK : CPC_RING_EXIT;
        auto [pid, ppid] = b.u32x2();
        auto [tid, ptid] = b.u32x2();
        rec->pid = pid_t(pid);
        rec->ppid = pid_t(ppid);
        rec->tid = pid_t(tid);
        rec->ptid = pid_t(ptid);
        rec->time = hrtime_t(b.u64());
        read_trailer(r, b, rec);
        return b.ok;
    }
    case PERF_RECORD_LOST:
        rec->kind = CPC_RING_LOST;
        b.u64(); // id
        rec->lost = b.u64();
        read_trailer(r, b, rec);
        return b.ok;
    case PERF_RECORD_THROTTLE:
        rec->kind = CPC_RING_THROTTLE;
        rec->time = hrtime_t(b.u64());
        read_trailer(r, b, rec);
        return b.ok;
    case PERF_RECORD_SWITCH:
    case PERF_RECORD_SWITCH_CPU_WIDE:
        // The thread of the trailer is the one that switches, out or in
        // (a whole CPU's record also names the other one: not told).
        rec->kind = CPC_RING_SWITCH;
        rec->switch_out = (h.misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
        rec->preempted = rec->switch_out && (h.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
        read_trailer(r, b, rec, true);
        return b.ok;
    default:
        return false; // UNTHROTTLE and what this libcpc does not ask for
    }
}

} // namespace

extern "C" {

cpc_ring_t *cpc_ring_open(cpc_t *cpc, cpc_set_t *set, pid_t pid, const processorid_t *cpus,
                          int ncpus, uint_t flags, uint_t stack_bytes) {
    if (!valid_handle(cpc) || !set_in_handle(cpc, set) || (flags & ~kAllRingFlags) != 0 ||
        (pid <= 0 && pid != -1) || ncpus < 0 || (ncpus > 0 && cpus == nullptr)) {
        errno = EINVAL;
        return nullptr;
    }
    if (cpc->machine.backend != Backend::perf) {
        report(cpc, "cpc_ring_open", CPC_RESOURCE_UNAVAIL,
               "sample rings need perf_event_open(2), which this process may not use (%s)",
               cpc->machine.backend_reason.c_str());
        errno = ENOTSUP;
        return nullptr;
    }
    if (set->requests.empty() || !(set->requests[0].flags & CPC_OVF_NOTIFY_EMT) ||
        set->requests[0].preset == 0) {
        report(cpc, "cpc_ring_open", CPC_REQ_INVALID_FLAGS,
               "the set's first request must have CPC_OVF_NOTIFY_EMT and a preset (its "
               "period is UINT64_MAX - preset + 1)");
        errno = EINVAL;
        return nullptr;
    }
    if ((flags & CPC_RING_USER_STACK) && kUserRegs == 0) {
        report(cpc, "cpc_ring_open", CPC_RESOURCE_UNAVAIL,
               "user stacks are not sampled on this architecture");
        errno = ENOTSUP;
        return nullptr;
    }
    if ((flags & CPC_RING_USER_STACK) && (stack_bytes == 0 || stack_bytes > kMaxStackBytes)) {
        report(cpc, "cpc_ring_open", CPC_REQ_INVALID_FLAGS, "stack_bytes must be 8 to %u",
               kMaxStackBytes);
        errno = EINVAL;
        return nullptr;
    }
    std::vector<int> cpu_list = ncpus == 0 ? online_cpus() : std::vector<int>(cpus, cpus + ncpus);
    for (int c : cpu_list)
        if (c < 0 || c >= get_nprocs_conf()) {
            errno = EINVAL;
            return nullptr;
        }
    auto *ring = new (std::nothrow) __cpc_ring();
    if (ring == nullptr) {
        errno = ENOMEM;
        return nullptr;
    }
    ring->cpc = cpc;
    ring->flags = flags;
    ring->nreq = int(set->requests.size());
    ring->values = ring->nreq > 1;
    ring->sample_type =
        PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
    if (flags & (CPC_RING_CALLCHAIN | CPC_RING_KERNEL_CALLCHAIN))
        ring->sample_type |= PERF_SAMPLE_CALLCHAIN;
    uint32_t stack = 0;
    if (flags & CPC_RING_USER_STACK) {
        ring->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
        ring->regs_mask = kUserRegs;
        stack = (stack_bytes + 7) & ~7u;
        if (stack > kMaxStackBytes)
            stack = kMaxStackBytes;
    }
    // Whole CPUs: each CPU's ring holds what it samples while the reader
    // is held up, 8 MiB (half a second of 16 KiB stack copies at 1 kHz)
    // while the rings open in this process stay within 64 MiB; 1 MiB
    // where they would not, and for a process's rings (larger ones made
    // a process that ends at once go unread more often) unless asked
    // (CPC_RING_LARGE: a process whose every switch is sampled).
    if (pid == -1 || (flags & CPC_RING_LARGE)) {
        size_t n = std::max<size_t>(1, cpu_list.size());
        size_t held = g_ring_extra.load();
        size_t room = held < kRingBudget ? kRingBudget - held : 0;
        size_t per_cpu = std::clamp<size_t>(std::bit_floor(room / n), 1u << 20, 8u << 20);
        // Another thread's open meanwhile may take some of the room: the
        // budget is a bound on what is asked, not a reservation.
        ring->ring_bytes = per_cpu;
        ring->extra = (per_cpu - (1u << 20)) * n;
        g_ring_extra.fetch_add(ring->extra);
    }
    for (int c : cpu_list) {
        CpuRing r;
        r.cpu = c;
        ring->rings.push_back(std::move(r));
    }
    Opener o{ring, make_spec(set, pid > 0), 0, pid > 0};
    uint64_t preset = set->requests[0].preset;
    o.period = preset == 0 ? UINT64_MAX : UINT64_MAX - preset + 1;

    int err = 0;
    if (pid == -1) {
        for (CpuRing &c : ring->rings)
            if ((err = open_group(o, -1, c, stack)) != 0)
                break;
    } else {
        // Threads created while the groups are opened are not inherited
        // by anyone yet: list again until no new one appears.
        std::set<pid_t> done;
        bool any = false;
        for (int round = 0; round < 100 && err == 0; ++round) {
            std::vector<pid_t> tids = threads_of(pid);
            if (tids.empty() && !any) {
                err = ESRCH;
                break;
            }
            bool fresh = false;
            for (pid_t t : tids) {
                if (!done.insert(t).second)
                    continue;
                fresh = true;
                for (CpuRing &c : ring->rings) {
                    int e = open_group(o, t, c, stack);
                    if (e == ESRCH)
                        break; // the thread ended meanwhile
                    if (e != 0) {
                        err = e;
                        break;
                    }
                    any = true;
                }
                if (err != 0)
                    break;
            }
            if (!fresh)
                break;
        }
        if (err == 0 && !any)
            err = ESRCH;
    }
    if (err != 0) {
        int e = open_failure_errno(cpc, err, pid);
        delete ring;
        errno = e;
        return nullptr;
    }
    return ring;
}

int cpc_ring_wait(cpc_ring_t *ring, int timeout_ms) {
    if (!valid_ring(ring)) {
        errno = EINVAL;
        return -1;
    }
    auto ready = [ring] {
        for (const CpuRing &c : ring->rings) {
            perf_event_mmap_page *pg = c.map.page();
            if (pg != nullptr && __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE) != pg->data_tail)
                return true;
        }
        return false;
    };
    timespec start{};
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        if (ready())
            return 1;
        // A ring's descriptor is its first thread's; once it hangs up
        // (here: when the whole process has ended, but a kernel may do it
        // when that thread ends while others still write) poll would
        // return at once: such rings are looked at every 10 ms instead.
        std::vector<pollfd> fds;
        bool hung = false;
        for (const CpuRing &c : ring->rings) {
            if (c.hung_up)
                hung = true;
            else
                fds.push_back({c.leader, POLLIN, 0});
        }
        timespec now{};
        clock_gettime(CLOCK_MONOTONIC, &now);
        int64_t spent =
            (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
        int left = timeout_ms < 0 ? -1 : int(std::max<int64_t>(0, timeout_ms - spent));
        if (timeout_ms >= 0 && left == 0)
            return ready() ? 1 : 0;
        int slice = hung ? (left < 0 ? 10 : std::min(left, 10)) : left;
        if (poll(fds.data(), fds.size(), slice) < 0)
            return -1;
        for (const pollfd &f : fds)
            if (f.revents & (POLLHUP | POLLERR))
                for (CpuRing &c : ring->rings)
                    if (c.leader == f.fd)
                        c.hung_up = true;
    }
}

int64_t cpc_ring_read(cpc_ring_t *ring, void *arg,
                      void (*fn)(void *arg, const cpc_ring_record_t *rec)) {
    if (!valid_ring(ring) || fn == nullptr) {
        errno = EINVAL;
        return -1;
    }
    int64_t count = 0;
    for (CpuRing &c : ring->rings) {
        perf_event_mmap_page *pg = c.map.page();
        // A CPU whose first group never opened (the threads ended while
        // the others opened: a process that exits at once) has no ring.
        if (pg == nullptr)
            continue;
        uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
        uint64_t tail = pg->data_tail;
        while (tail + sizeof(perf_event_header) <= head) {
            perf_event_header h;
            ring_copy(c, tail, &h, sizeof h);
            if (h.size < sizeof h || tail + h.size > head)
                break;
            ring->bounce.resize(h.size);
            ring_copy(c, tail, ring->bounce.data(), h.size);
            cpc_ring_record_t rec{};
            if (parse(ring, h, ring->bounce.data() + sizeof h, &rec)) {
                fn(arg, &rec);
                ++count;
            }
            tail += h.size;
        }
        __atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
    }
    return count;
}

int cpc_ring_close(cpc_ring_t *ring) {
    if (!valid_ring(ring)) {
        errno = EINVAL;
        return -1;
    }
    ring->magic = 0;
    delete ring; // unmaps the rings, closes every descriptor
    return 0;
}

} // extern "C"
