// SPDX-License-Identifier: MIT
#include "libcpc/src/tick.h"

#include "base/scoped_fd.h"
#include "libcpc/src/perf_open.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace cpc {

namespace {

// cycles = (ns << shift) / mult when mult != 0, else ns * khz / 10^6.
std::atomic<uint32_t> g_mult{0};
std::atomic<uint16_t> g_shift{0};
std::atomic<uint64_t> g_khz{1000000}; // 1 tick per ns until known

// [async-signal-safe]
bool read_perf_scale() {
    perf_event_attr a{};
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.disabled = 1;
    a.exclude_kernel = 1;
    cpcprof::base::ScopedFd fd(perf_event_open_cloexec(&a, 0, -1, -1));
    if (!fd.valid())
        return false;
    long page = sysconf(_SC_PAGESIZE);
    void *p = mmap(nullptr, page, PROT_READ, MAP_SHARED, fd.get(), 0);
    if (p == MAP_FAILED)
        return false;
    auto *pg = static_cast<perf_event_mmap_page *>(p);
    bool ok = pg->cap_user_time && pg->time_mult != 0;
    if (ok) {
        g_shift.store(pg->time_shift, std::memory_order_relaxed);
        g_mult.store(pg->time_mult, std::memory_order_release);
    }
    munmap(p, page);
    return ok;
}

// "cpu MHz : 2994.374" as kHz; 0 when line is not that field.
// [async-signal-safe]
uint64_t mhz_line_khz(const char *line, size_t len) {
    static constexpr char kKey[] = "cpu MHz";
    if (len < sizeof kKey - 1 || std::memcmp(line, kKey, sizeof kKey - 1) != 0)
        return 0;
    size_t i = sizeof kKey - 1;
    while (i < len && line[i] != ':')
        ++i;
    for (++i; i < len && (line[i] == ' ' || line[i] == '\t'); ++i) {
    }
    uint64_t khz = 0;
    int decimals = -1; // digits after the point, -1 before it
    for (; i < len && decimals < 3; ++i) {
        if (line[i] == '.' && decimals < 0) {
            decimals = 0;
            continue;
        }
        if (line[i] < '0' || line[i] > '9' || khz > (uint64_t(1) << 40))
            break;
        khz = khz * 10 + uint64_t(line[i] - '0');
        if (decimals >= 0)
            ++decimals;
    }
    for (int d = decimals < 0 ? 0 : decimals; d < 3; ++d)
        khz *= 10;
    return khz;
}

// The first processor's "cpu MHz" in kHz, 0 when there is none: read(2)
// through a small buffer, no allocation.  [async-signal-safe]
uint64_t cpuinfo_khz() {
    cpcprof::base::ScopedFd fd(open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC));
    if (!fd.valid())
        return 0;
    char buf[256], line[96];
    size_t len = 0;
    bool long_line = false; // longer than line[]: not the field
    for (;;) {
        ssize_t n = read(fd.get(), buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        for (ssize_t i = 0; i < n; ++i) {
            if (buf[i] != '\n') {
                if (len < sizeof line)
                    line[len++] = buf[i];
                else
                    long_line = true;
                continue;
            }
            if (!long_line && len == 0)
                return 0; // the end of the first processor's entry
            if (uint64_t khz = long_line ? 0 : mhz_line_khz(line, len))
                return khz;
            len = 0;
            long_line = false;
        }
    }
}

// The scale, read at the first conversion.  Threads that convert at once
// each read it and store the same values.  [async-signal-safe]
void ensure_scale() {
    static std::atomic<bool> known{false};
    if (known.load(std::memory_order_acquire))
        return;
    int saved = errno;
    if (!read_perf_scale())
        if (uint64_t khz = cpuinfo_khz())
            g_khz.store(khz, std::memory_order_relaxed);
    known.store(true, std::memory_order_release);
    errno = saved;
}

} // namespace

uint64_t ns_to_ticks(uint64_t ns) {
    ensure_scale();
    uint32_t mult = g_mult.load(std::memory_order_acquire);
    if (mult != 0) {
        unsigned __int128 v = static_cast<unsigned __int128>(ns)
                              << g_shift.load(std::memory_order_relaxed);
        return static_cast<uint64_t>(v / mult);
    }
    unsigned __int128 v =
        static_cast<unsigned __int128>(ns) * g_khz.load(std::memory_order_relaxed);
    return static_cast<uint64_t>(v / 1000000);
}

} // namespace cpc
