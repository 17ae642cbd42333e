// SPDX-License-Identifier: MIT
// The profiler's descriptors - the channel to the recorder, and libcpc's
// counters (one perf_event descriptor per request and thread) - live in
// the program's descriptor table, where a daemon closes everything it did
// not open (a loop of close(2) up to the limit, close_range(2),
// closefrom(3)) and a shell puts files at the numbers it likes (dup2).
// The agent interposes those calls:
//   - close of a profiler descriptor returns 0 and leaves it open: the
//     program believes the descriptor is not its own (it did not open it),
//     and code that closes "everything" expects success.  libcpc's own
//     closes (cpc_unbind, a thread's end) go through;
//   - close_range and closefrom close everything else in the range, and
//     CLOSE_RANGE_CLOEXEC leaves the channel inheritable, as it must be
//     for the programs this one starts;
//   - dup2/dup3 onto the channel first move the channel to another number
//     (channel.h), then do what the program asked;
//   - libcpc's counter descriptors are moved, as it opens them, from the
//     lowest free numbers (which programs hand out to each other: a
//     shell's "exec 5>file") to the upper half of the descriptor limit.
// Raw system calls (syscall(SYS_close_range, ...)) are not seen: the
// agent then finds its channel gone or reused at its next send, stops,
// and the recorder says that the process stopped reporting.
//
// The close wrapper and the syscall wrapper are async-signal-safe (libcpc
// calls syscall from its signal handler); dup2/dup3 onto the channel take
// the agent's send lock.
#include "profiler/agent/fds.h"
#include "profiler/agent/channel.h"
#include "profiler/agent/seccomp.h"
#include "profiler/agent/signals.h"

#include "base/computed_once.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <linux/close_range.h>
#include <linux/seccomp.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstring>

namespace cpcprof::agent {
namespace {

template <class F> F next(const char *name) {
    return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

// Looked up when the library loads, not at the first call, which may come
// from a signal handler (dlsym is not async-signal-safe).  Null until then:
// a close before this library's constructors is the plain system call.
int (*g_close)(int) = nullptr;
void (*g_closefrom)(int) = nullptr;
int (*g_dup2)(int, int) = nullptr;
int (*g_dup3)(int, int, int) = nullptr;
long (*g_syscall)(long, ...) = nullptr;

// libcpc's code: calls from there are libcpc managing its descriptors.
uintptr_t g_cpc_lo = 0, g_cpc_hi = 0;

// libcpc's counter descriptors below kMaxFd, one bit each.
constexpr int kMaxFd = 1 << 16;
std::atomic<uint64_t> g_counter_fds[kMaxFd / 64];

int find_libcpc(dl_phdr_info *info, size_t, void *) {
    if (info->dlpi_name == nullptr || std::strstr(info->dlpi_name, "/libcpc.so") == nullptr)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) &ph = info->dlpi_phdr[i];
        if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
            g_cpc_lo = info->dlpi_addr + ph.p_vaddr;
            g_cpc_hi = g_cpc_lo + ph.p_memsz;
        }
    }
    return 1;
}

__attribute__((constructor(101))) void resolve() {
    g_close = next<int (*)(int)>("close");
    g_closefrom = next<void (*)(int)>("closefrom");
    g_dup2 = next<int (*)(int, int)>("dup2");
    g_dup3 = next<int (*)(int, int, int)>("dup3");
    g_syscall = next<long (*)(long, ...)>("syscall");
    dl_iterate_phdr(find_libcpc, nullptr);
}

bool from_libcpc(void *ret) {
    auto a = reinterpret_cast<uintptr_t>(ret);
    return a >= g_cpc_lo && a < g_cpc_hi;
}

bool is_counter(int fd) {
    return fd >= 0 && fd < kMaxFd &&
           (g_counter_fds[fd / 64].load(std::memory_order_relaxed) >> (fd % 64) & 1);
}

std::atomic<int> g_counter_count{0}; // bits set in g_counter_fds

void mark_counter(int fd, bool on) {
    if (fd < 0 || fd >= kMaxFd)
        return;
    uint64_t bit = uint64_t(1) << (fd % 64);
    uint64_t was;
    if (on)
        was = g_counter_fds[fd / 64].fetch_or(bit, std::memory_order_relaxed);
    else
        was = g_counter_fds[fd / 64].fetch_and(~bit, std::memory_order_relaxed);
    if (on && !(was & bit))
        g_counter_count.fetch_add(1, std::memory_order_relaxed);
    else if (!on && (was & bit))
        g_counter_count.fetch_sub(1, std::memory_order_relaxed);
}

// Open descriptors of this process, counted in /proc/self/fd (the
// directory's own descriptor excluded); -1 when it cannot be read.
int open_descriptors() {
    int dir = static_cast<int>(
        ::syscall(SYS_openat, AT_FDCWD, "/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir < 0)
        return -1;
    alignas(8) char buf[8192];
    int n = 0;
    for (;;) {
        long got = ::syscall(SYS_getdents64, dir, buf, sizeof buf);
        if (got <= 0)
            break;
        for (long at = 0; at < got;) {
            auto *d = reinterpret_cast<const unsigned char *>(buf + at);
            unsigned short reclen;
            std::memcpy(&reclen, d + 16, sizeof reclen); // linux_dirent64.d_reclen
            const char *name = reinterpret_cast<const char *>(d + 19);
            n += name[0] != '.';
            at += reclen;
        }
    }
    ::syscall(SYS_close, dir);
    return n - 1;
}

bool is_profilers(int fd) {
    return fd >= 0 && (fd == channel_fd() || is_counter(fd));
}

// A new counter descriptor of libcpc's, moved to the upper half of the
// descriptor limit when there is room.  [async-signal-safe]
int place_counter(int fd) {
    static std::atomic<int> slot{-1};
    int base = cpcprof::base::computed_once(slot, -1, [] {
        rlimit rl{};
        if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
            return 0;
        return int(std::min<rlim_t>(rl.rlim_cur, 1024) / 2);
    });
    if (base > fd) {
        int high = static_cast<int>(::syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, base));
        if (high >= 0) {
            ::syscall(SYS_close, fd);
            fd = high;
        }
    }
    mark_counter(fd, true);
    return fd;
}

int raw_close_range(unsigned first, unsigned last, int flags) {
    if (first > last)
        return 0;
    return static_cast<int>(::syscall(SYS_close_range, first, last, flags));
}

// close_range(2) over [first, last] minus the profiler's descriptors.
int close_range_but_ours(unsigned first, unsigned last, int flags) {
    unsigned from = first;
    auto keep = [&](unsigned fd) {
        if (fd < from || fd > last)
            return 0;
        // CLOSE_RANGE_UNSHARE acts in the first call: the others work on
        // the unshared table already.
        int rc = fd > from ? raw_close_range(from, fd - 1, flags) : 0;
        from = fd + 1;
        return rc;
    };
    int ch = channel_fd();
    int rc = 0;
    unsigned stop = std::min<unsigned>(last, kMaxFd - 1);
    for (unsigned w = first / 64; first <= stop && w <= stop / 64 && rc == 0; ++w) {
        uint64_t bits = g_counter_fds[w].load(std::memory_order_relaxed);
        if (ch >= 0 && unsigned(ch) / 64 == w)
            bits |= uint64_t(1) << (ch % 64);
        for (; bits != 0 && rc == 0; bits &= bits - 1)
            rc = keep(w * 64 + unsigned(__builtin_ctzll(bits)));
    }
    if (rc == 0 && ch >= kMaxFd)
        rc = keep(unsigned(ch));
    if (rc == 0 && from <= last)
        rc = raw_close_range(from, last, flags);
    return rc;
}

} // namespace

bool counter_budget_allows(int wanted) {
    rlimit rl{};
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return false;
    long limit = rl.rlim_cur == RLIM_INFINITY ? long(INT_MAX) : long(rl.rlim_cur);
    long ours = g_counter_count.load(std::memory_order_relaxed);
    // Far from the limit there is nothing to count: the table cannot
    // hold more descriptors of the program's than the limit allows.
    if (limit >= 4 * (ours + wanted) + 65536)
        return true;
    int in_use = open_descriptors();
    if (in_use < 0)
        return false;
    long free = limit - in_use;
    return wanted <= free - kReservedFds && 2 * (ours + wanted) <= ours + free;
}

} // namespace cpcprof::agent

using namespace cpcprof::agent;

extern "C" __attribute__((visibility("default"))) int close(int fd) {
    if (is_profilers(fd)) {
        if (!from_libcpc(__builtin_return_address(0)))
            return 0;
        mark_counter(fd, false);
    }
    return g_close != nullptr ? g_close(fd) : static_cast<int>(::syscall(SYS_close, fd));
}

extern "C" __attribute__((visibility("default"))) int close_range(unsigned first, unsigned last,
                                                                  int flags) noexcept {
    return close_range_but_ours(first, last, flags);
}

extern "C" __attribute__((visibility("default"))) void closefrom(int lowfd) noexcept {
    auto real = g_closefrom != nullptr ? g_closefrom : next<void (*)(int)>("closefrom");
    unsigned low = lowfd < 0 ? 0u : unsigned(lowfd);
    if (close_range_but_ours(low, ~0u, 0) == 0)
        return;
    // No close_range(2) (Linux < 5.9): one by one up to the highest
    // descriptor of ours, libc's own way above it.
    int top = channel_fd();
    for (int fd = kMaxFd - 1; fd > top; --fd)
        if (is_counter(fd)) {
            top = fd;
            break;
        }
    for (int fd = lowfd; fd <= top; ++fd)
        if (!is_profilers(fd))
            ::syscall(SYS_close, fd);
    real(std::max(lowfd, top + 1));
}

extern "C" __attribute__((visibility("default"))) int dup2(int oldfd, int newfd) noexcept {
    auto real = g_dup2 != nullptr ? g_dup2 : next<int (*)(int, int)>("dup2");
    if (newfd == channel_fd() && newfd >= 0 && oldfd != newfd && fcntl(oldfd, F_GETFD) >= 0 &&
        !move_channel()) {
        errno = EMFILE;
        return -1;
    }
    return real(oldfd, newfd);
}

extern "C" __attribute__((visibility("default"))) int dup3(int oldfd, int newfd,
                                                           int flags) noexcept {
    auto real = g_dup3 != nullptr ? g_dup3 : next<int (*)(int, int, int)>("dup3");
    if (newfd == channel_fd() && newfd >= 0 && oldfd != newfd && fcntl(oldfd, F_GETFD) >= 0 &&
        !move_channel()) {
        errno = EMFILE;
        return -1;
    }
    return real(oldfd, newfd, flags);
}

// libcpc opens its counters with syscall(SYS_perf_event_open, ...).
extern "C" __attribute__((visibility("default"))) long syscall(long n, ...) noexcept {
    va_list ap;
    va_start(ap, n);
    long a[6];
    for (long &x : a)
        x = va_arg(ap, long);
    va_end(ap);
    long rc;
    if (program_sigaction_syscall(n, a, __builtin_return_address(0), &rc))
        return rc; // signals.h
    auto real = g_syscall != nullptr ? g_syscall : next<long (*)(long, ...)>("syscall");
    if (n == SYS_seccomp && (a[0] == SECCOMP_SET_MODE_STRICT || a[0] == SECCOMP_SET_MODE_FILTER))
        note_seccomp(); // seccomp.h: no perf_event_open from now on
    rc = real(n, a[0], a[1], a[2], a[3], a[4], a[5]);
    if (n == SYS_perf_event_open && rc >= 0 && from_libcpc(__builtin_return_address(0))) {
        int saved = errno;
        rc = place_counter(static_cast<int>(rc));
        errno = saved;
    }
    return rc;
}
