// SPDX-License-Identifier: MIT
#include "libcpc/src/counting_perf.h"

#include "libcpc/src/overflow.h"
#include "libcpc/src/perf_open.h"
#include "libcpc/src/thread_state.h"
#include "libcpc/src/tick.h"

#include "base/clock.h"

#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

namespace cpc {

namespace {

// perf refuses sample periods with bit 63 set.
std::atomic<uint64_t> g_max_period{1ull << 62};
std::atomic<bool> g_rings{true};

// The first link of a chain for 2^64 - preset events; *left gets the rest.
// glibc 2.36's siginfo_t does not name the perf fields; the kernel's
// layout puts si_perf_data right after si_addr.
uint64_t perf_data(const siginfo_t *si) {
    static_assert(sizeof(void *) == 8, "64-bit siginfo layout assumed");
    unsigned long v;
    std::memcpy(&v, reinterpret_cast<const char *>(si) + 24, sizeof v);
    return v;
}

uint64_t first_link(uint64_t preset, uint64_t *left) {
    uint64_t max = g_max_period.load(std::memory_order_relaxed);
    uint64_t total_minus1 = ~preset; // 2^64 - preset - 1, no overflow
    uint64_t link = std::min(total_minus1, max - 1) + 1;
    *left = total_minus1 - (link - 1);
    return link;
}

} // namespace

void PerfCounting::set_max_kernel_period(uint64_t p) {
    g_max_period.store(std::clamp<uint64_t>(p, 1, 1ull << 62), std::memory_order_relaxed);
}

void PerfCounting::set_rings_enabled(bool on) {
    g_rings.store(on, std::memory_order_relaxed);
}

std::unique_ptr<Counting> PerfCounting::open(const BindSpec &spec, pid_t pid, int cpu,
                                             OpenError *err) {
    std::unique_ptr<PerfCounting> c(new PerfCounting(spec));
    c->pid_ = pid;
    c->tid_ = pid == 0 ? cpcprof::base::current_tid() : pid;
    c->cpu_ = cpu;
    size_t n = spec.attrs.size();
    c->slots_.resize(n);
    c->readbuf_.resize(3 + n);
    c->snap_.resize(3 + n);
    for (size_t i = 0; i < n; ++i) {
        Slot &s = c->slots_[i];
        s.attr = spec.attrs[i];
        s.attr.size = sizeof s.attr;
        s.attr.read_format = kGroupReadFormat;
        s.attr.disabled = i == 0;
        s.attr.remove_on_exec = pid != -1;
        s.base = spec.presets[i];
        s.notify = spec.notify[i];
        if (s.notify) {
            s.attr.sample_period = first_link(spec.presets[i], &s.chain_left);
            s.attr.sigtrap = 1;
            SampleRing::prepare(&s.attr);
        }
    }
    if (pid == 0 && std::find(spec.notify.begin(), spec.notify.end(), true) != spec.notify.end())
        cache_sigemt_disposition(); // this thread's overflows
    int rc = c->open_group();
    if (rc != 0) {
        if (err != nullptr) {
            err->sys_errno = rc;
            err->request = c->last_failed_;
        }
        return nullptr;
    }
    track_counting(c.get());
    return c;
}

PerfCounting::~PerfCounting() {
    untrack_counting(this);
    close_group();
}

int PerfCounting::open_group() {
    new_id();
    int leader = -1;
    for (size_t i = 0; i < slots_.size(); ++i) {
        Slot &s = slots_[i];
        s.attr.sig_data = trap_cookie(id_, static_cast<int>(i));
        s.overflowed = false;
        int fd = perf_event_open_cloexec(&s.attr, pid_, cpu_, leader);
        if (fd < 0) {
            int e = errno;
            close_group();
            last_failed_ = static_cast<int>(i);
            return e;
        }
        s.fd.reset(fd);
        // Without the ring, overflows read the group.
        if (s.notify && g_rings.load(std::memory_order_relaxed))
            s.ring.map(fd, (s.attr.sample_type & PERF_SAMPLE_CALLCHAIN) != 0);
        if (i == 0)
            leader = fd;
    }
    frozen_ = true;
    soft_ = false;
    have_snap_ = false;
    return 0;
}

void PerfCounting::close_group() {
    for (Slot &s : slots_) {
        s.ring.unmap();
        s.fd.reset();
    }
}

void PerfCounting::abandon() {
    for (Slot &s : slots_)
        s.ring.forget(); // not mapped in a fork child
    close_group();
}

bool PerfCounting::has_rings() const {
    for (const Slot &s : slots_)
        if (s.notify && !s.ring.valid())
            return false;
    return true;
}

int PerfCounting::leader() const {
    return slots_.empty() ? -1 : slots_[0].fd.get();
}

int PerfCounting::read_group(uint64_t *enabled, uint64_t *running) {
    size_t want = readbuf_.size() * sizeof(uint64_t);
    ssize_t got = ::read(leader(), readbuf_.data(), want);
    if (got != static_cast<ssize_t>(want))
        return got < 0 ? errno : EIO;
    *enabled = readbuf_[1];
    *running = readbuf_[2];
    return 0;
}

// The group's values at request index's overflow: from the sample the
// kernel wrote into its ring, or read now; and how many earlier overflows
// merged into this signal.
int PerfCounting::snapshot(int index) {
    merged_ = RingHarvest{};
    merged_count_ = 0;
    Slot &s = slots_[index];
    if (s.ring.take_latest(snap_.data(), snap_.size(), &merged_) && snap_[0] == slots_.size()) {
        merged_count_ = merged_.samples - 1 + merged_.lost;
        // A full ring (the signal was blocked for long) stopped recording
        // overflows some time ago: the counter says how many came since.
        if (!merged_.full) {
            have_snap_ = true;
            return 0;
        }
    } else {
        merged_.npcs = 0;
    }
    ++overflow_reads_;
    uint64_t enabled, running;
    if (int e = read_group(&enabled, &running))
        return e;
    std::copy(readbuf_.begin(), readbuf_.end(), snap_.begin());
    // Events since the period began (the virtual value counts from the
    // preset there), read now rather than at the overflow: whole periods
    // beyond the first are overflows whose signals merged into this one.
    // For a clock that skips kernel-mode ends of periods (exclude_kernel)
    // this counts those too: an upper bound, used only without records.
    uint64_t since = s.base + readbuf_[3 + index] - presets_[index];
    if (s.chain_left == 0 && s.attr.sample_period != 0 && since / s.attr.sample_period > 1)
        merged_count_ = std::max<uint64_t>(merged_count_, since / s.attr.sample_period - 1);
    have_snap_ = true;
    return 0;
}

uint64_t PerfCounting::merged_overflows(uint64_t *pcs, int max, int *npcs) const {
    int n = std::min(max, merged_.npcs);
    for (int i = 0; i < n; ++i)
        pcs[i] = merged_.pcs[i];
    *npcs = n < 0 ? 0 : n;
    return merged_count_;
}

int PerfCounting::kernel_frames(uint64_t *pcs, int max) const {
    int n = std::min(max, merged_.nkernel);
    for (int i = 0; i < n; ++i)
        pcs[i] = merged_.kernel_pcs[i];
    return n < 0 ? 0 : n;
}

int PerfCounting::freeze() {
    if (ioctl(leader(), PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP) != 0)
        return errno;
    frozen_ = true;
    soft_ = false;
    return 0;
}

int PerfCounting::thaw() {
    if (have_snap_) {
        // Go on from the frozen values: what the kernel counted after the
        // snapshot is not the set's.
        uint64_t en, run;
        if (int e = read_group(&en, &run))
            return e;
        for (size_t i = 0; i < slots_.size(); ++i)
            slots_[i].base += snap_[3 + i] - readbuf_[3 + i];
        tick_base_ += snap_[2] - readbuf_[2];
        have_snap_ = false;
    }
    if (!soft_ && ioctl(leader(), PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) != 0)
        return errno;
    frozen_ = false;
    soft_ = false;
    return 0;
}

int PerfCounting::restart() {
    bool reopen = false, fresh = true;
    for (size_t i = 0; i < slots_.size(); ++i) {
        Slot &s = slots_[i];
        s.base = presets_[i];
        if (!s.notify)
            continue;
        fresh = fresh && s.overflowed;
        uint64_t link = first_link(presets_[i], &s.chain_left);
        if (link != s.attr.sample_period) {
            s.attr.sample_period = link;
            reopen = true;
        }
    }
    if (soft_ && fresh && !reopen) {
        // Frozen at an overflow, the kernel still counting: every
        // overflow request has just begun a new period.  Counting on from
        // the preset at the overflow instant needs no system call: what the
        // kernel counted since then (the handler's time) goes to the new
        // period, as it does for the kernel's own period.
        for (size_t i = 0; i < slots_.size(); ++i) {
            slots_[i].base = presets_[i] - snap_[3 + i];
            slots_[i].overflowed = false;
        }
        have_snap_ = false;
        soft_ = false;
        frozen_ = false;
        return 0;
    }
    if (!frozen_ || soft_) {
        if (int e = freeze())
            return e;
    }
    have_snap_ = false;
    if (reopen) {
        // The tick keeps counting across restarts: fold it before reopening.
        uint64_t en, run;
        if (read_group(&en, &run) == 0)
            tick_base_ += run;
        close_group();
        if (int e = open_group())
            return e;
    } else {
        for (Slot &s : slots_) {
            // Same period: restarts a full period (resets period_left).
            // Also right after an overflow: events counted between the
            // overflow and the freeze already went towards the new period.
            if (s.notify && ioctl(s.fd.get(), PERF_EVENT_IOC_PERIOD, &s.attr.sample_period) != 0)
                return errno;
            s.overflowed = false;
            if (ioctl(s.fd.get(), PERF_EVENT_IOC_RESET, 0) != 0)
                return errno;
        }
    }
    return thaw();
}

int PerfCounting::reopen_preserving() {
    uint64_t en, run;
    if (int e = read_group(&en, &run))
        return e;
    for (size_t i = 0; i < slots_.size(); ++i)
        slots_[i].base += readbuf_[3 + i];
    tick_base_ += run;
    bool was_frozen = frozen_;
    close_group();
    if (int e = open_group())
        return e;
    return was_frozen ? 0 : thaw();
}

Counting::Trap PerfCounting::on_trap(const siginfo_t *si) {
    if (si->si_code != TRAP_PERF)
        return Trap::not_ours;
    uint64_t cookie = perf_data(si);
    if ((cookie >> 8) != id_)
        return Trap::not_ours; // a stale one, or not a set's
    return on_kernel_overflow(static_cast<int>(cookie & 0xff)) ? Trap::overflow : Trap::internal;
}

bool PerfCounting::on_kernel_overflow(int index) {
    if (index < 0 || index >= nreqs() || !slots_[index].notify)
        return false;
    Slot &s = slots_[index];
    if (frozen_) {
        // Another overflow before cpc_set_restart: stop the kernel's
        // counting now; the frozen values stay those of the first.
        s.ring.discard();
        if (soft_)
            freeze();
        s.overflowed = true;
        return false;
    }
    if (s.chain_left > 0) {
        uint64_t max = g_max_period.load(std::memory_order_relaxed);
        uint64_t link = std::min(s.chain_left, max);
        s.chain_left -= link;
        s.attr.sample_period = link;
        reopen_preserving();
        return false;
    }
    s.overflowed = true;
    // Frozen in software (see counting.h): the values of this instant are
    // kept while the kernel counts on.
    snapshot(index);
    frozen_ = true;
    soft_ = true;
    return true;
}

void PerfCounting::freeze_at_overflow() {
    for (size_t i = 0; i < slots_.size(); ++i)
        slots_[i].base = slots_[i].notify ? UINT64_MAX : presets_[i];
    frozen_ = true;
    soft_ = false;
    have_snap_ = false;
}

int PerfCounting::sample(uint64_t *values, int n, hrtime_t *when, uint64_t *tick) {
    uint64_t enabled, running;
    const std::vector<uint64_t> *raw = &snap_;
    if (have_snap_) {
        enabled = snap_[1];
        running = snap_[2];
    } else {
        if (int e = read_group(&enabled, &running))
            return e;
        raw = &readbuf_;
    }
    int m = std::min(n, nreqs());
    for (int i = 0; i < m; ++i)
        values[i] = slots_[i].base + (*raw)[3 + i];
    *tick = ns_to_ticks(tick_base_ + running);
    *when = cpcprof::base::monotonic_ns(); // hrtime_t: CLOCK_MONOTONIC in ns, gethrtime(3C)
    if (running < enabled)
        return EAGAIN;
    return 0;
}

} // namespace cpc
