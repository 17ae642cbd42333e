// SPDX-License-Identifier: MIT
#include "libcpc/src/tick.h"

#include "base/scoped_fd.h"
#include "libcpc/src/machine.h"
#include "libcpc/src/perf_open.h"

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>

namespace cpc {

namespace {

// cycles = (ns << shift) / mult when mult != 0, else ns * khz / 10^6.
std::atomic<uint32_t> g_mult{0};
std::atomic<uint16_t> g_shift{0};
std::atomic<uint64_t> g_khz{1000000}; // 1 tick per ns until known

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

void read_cpuinfo_mhz() {
    std::string mhz_text = first_cpuinfo_field("cpu MHz");
    char *end = nullptr;
    double mhz = std::strtod(mhz_text.c_str(), &end);
    if (end != mhz_text.c_str() && mhz > 0)
        g_khz.store(static_cast<uint64_t>(mhz * 1000), std::memory_order_relaxed);
}

} // namespace

void init_tick_conversion() {
    static std::once_flag once;
    std::call_once(once, [] {
        if (!read_perf_scale())
            read_cpuinfo_mhz();
    });
}

uint64_t ns_to_ticks(uint64_t ns) {
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
