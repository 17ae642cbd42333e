// SPDX-License-Identifier: MIT
// Shared helpers for the libcpc tests.
#pragma once

#include <libcpc.h>

#include "libcpc/src/machine.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace cpctest {

// Installs h as the SIGEMT handler (SA_SIGINFO | SA_RESTART, nothing
// blocked); false where sigaction fails.
inline bool install_sigemt(void (*h)(int, siginfo_t *, void *)) {
    struct sigaction sa {};
    sa.sa_sigaction = h;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    return sigaction(SIGEMT, &sa, nullptr) == 0;
}

// Faults in n fresh pages: n page-faults of the calling thread.  Not
// instrumented: AddressSanitizer's shadow memory would fault pages too.
__attribute__((noinline, no_sanitize_address)) inline void touch_pages(size_t n) {
    size_t len = n * 4096;
    auto *p = static_cast<volatile char *>(
        mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    for (size_t i = 0; i < n; ++i)
        p[i * 4096] = 1;
    munmap(const_cast<char *>(p), len);
}

// Spins until the calling thread has used ms of CPU time, reading its CPU
// clock (a system call) every between_reads additions.
__attribute__((noinline)) inline void spin_cpu_ms(int ms, int between_reads = 1000) {
    timespec a, b;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    volatile unsigned long x = 0;
    do {
        for (int i = 0; i < between_reads; ++i)
            x = x + i;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    } while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

// The kernel's own count of a clock's overflows in the calling thread: a
// perf event of cpu-clock, user mode only, with the given period, that
// writes a record into its ring at each overflow it takes and raises no
// signal.  Beside a libcpc request of the same clock and period it says
// how many of the periods the kernel took as overflows: a period that
// ends while the thread is in the kernel is none (perf skips it for a
// user-mode count), and a loaded machine makes more of those.
class KernelClockOverflows {
  public:
    explicit KernelClockOverflows(uint64_t period) {
        perf_event_attr a{};
        a.size = sizeof a;
        a.type = PERF_TYPE_SOFTWARE;
        a.config = PERF_COUNT_SW_CPU_CLOCK;
        a.sample_period = period;
        a.sample_type = PERF_SAMPLE_IP;
        a.exclude_kernel = 1;
        a.exclude_hv = 1;
        a.disabled = 1;
        fd_ = static_cast<int>(syscall(SYS_perf_event_open, &a, 0, -1, -1, 0));
        if (fd_ < 0) {
            error_ = std::string("perf_event_open: ") + std::strerror(errno);
            return;
        }
        map_bytes_ = size_t(sysconf(_SC_PAGESIZE)) * (1 + kDataPages);
        void *p = mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
        if (p == MAP_FAILED) {
            error_ = std::string("mmap of the ring: ") + std::strerror(errno);
            return;
        }
        page_ = static_cast<perf_event_mmap_page *>(p);
    }
    ~KernelClockOverflows() {
        if (page_ != nullptr)
            munmap(page_, map_bytes_);
        if (fd_ >= 0)
            close(fd_);
    }
    KernelClockOverflows(const KernelClockOverflows &) = delete;
    KernelClockOverflows &operator=(const KernelClockOverflows &) = delete;

    bool ok() const { return page_ != nullptr; }
    const std::string &error() const { return error_; }
    void start() { ioctl(fd_, PERF_EVENT_IOC_ENABLE, 0); }
    void stop() {
        ioctl(fd_, PERF_EVENT_IOC_DISABLE, 0);
        if (read(fd_, &counted_, sizeof counted_) != ssize_t(sizeof counted_))
            counted_ = 0;
        uint64_t head = __atomic_load_n(&page_->data_head, __ATOMIC_ACQUIRE);
        const char *data = reinterpret_cast<const char *>(page_) + page_->data_offset;
        uint64_t size = page_->data_size;
        // Records are 8-byte aligned and the ring a power of two of pages:
        // a header, and the count of a PERF_RECORD_LOST, never wrap.
        for (uint64_t at = page_->data_tail; at < head;) {
            perf_event_header h;
            std::memcpy(&h, data + at % size, sizeof h);
            if (h.type == PERF_RECORD_SAMPLE) {
                ++overflows_;
            } else if (h.type == PERF_RECORD_LOST) {
                uint64_t n = 0; // after the header: u64 id, u64 lost
                std::memcpy(&n, data + (at + sizeof h + 8) % size, sizeof n);
                lost_ += n;
            }
            if (h.size == 0)
                break;
            at += h.size;
        }
    }
    // Bytes of records the kernel has written so far, read from the ring's
    // page without a system call; a sample takes kSampleBytes.
    uint64_t written() const { return __atomic_load_n(&page_->data_head, __ATOMIC_ACQUIRE); }
    static constexpr uint64_t kSampleBytes = sizeof(perf_event_header) + sizeof(uint64_t);
    // The clock's time that the event counted (ns), user and kernel mode.
    uint64_t counted() const { return counted_; }
    // Overflows taken, written or lost for want of room.
    uint64_t overflows() const { return overflows_ + lost_; }
    uint64_t lost() const { return lost_; }

  private:
    static constexpr size_t kDataPages = 16; // 4,096 samples of 16 bytes
    int fd_ = -1;
    size_t map_bytes_ = 0;
    perf_event_mmap_page *page_ = nullptr;
    std::string error_;
    uint64_t overflows_ = 0, lost_ = 0, counted_ = 0;
};

// Records what libcpc reports through cpc_seterrhndlr.
struct ErrorLog {
    static inline std::vector<int> subcodes;
    static inline std::vector<std::string> functions;
    static inline std::vector<std::string> messages;
    static void handler(const char *fn, int subcode, const char *fmt, va_list ap) {
        char buf[1024];
        vsnprintf(buf, sizeof buf, fmt, ap);
        subcodes.push_back(subcode);
        functions.push_back(fn);
        messages.push_back(buf);
    }
    static void clear() {
        subcodes.clear();
        functions.clear();
        messages.clear();
    }
    static int last() { return subcodes.empty() ? 0 : subcodes.back(); }
};

// Runs fn in a forked child; returns its exit status (or 128+signal).
inline int in_child(const std::function<int()> &fn) {
    fflush(nullptr);
    pid_t pid = fork();
    if (pid == 0)
        _exit(fn());
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

// Number of perf_event descriptors this process holds.
inline int perf_fds() {
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    while (dirent *e = readdir(d)) {
        char path[300], target[256];
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t len = readlink(path, target, sizeof target - 1);
        if (len > 0) {
            target[len] = '\0';
            if (std::string(target).find("perf_event") != std::string::npos)
                ++n;
        }
    }
    closedir(d);
    return n;
}

// Whether this machine has a hardware PMU (perf can open "cycles").
inline bool has_hardware_pmu() {
    return cpc::host_machine().hw_pmu;
}

} // namespace cpctest

// Skips a test that needs hardware counters, saying why.
#define SKIP_WITHOUT_PMU()                                                                         \
    do {                                                                                           \
        if (!cpctest::has_hardware_pmu())                                                          \
            GTEST_SKIP() << "no hardware PMU on this machine (perf_event_open of cycles "          \
                            "fails): hardware-counter behaviour cannot be checked here";           \
    } while (0)
