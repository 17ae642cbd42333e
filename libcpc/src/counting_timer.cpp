// SPDX-License-Identifier: MIT
// Signal context: everything but open, abandon and the destructor
// allocates nothing and takes no lock.
#include "libcpc/src/counting_timer.h"

#include "libcpc/src/overflow.h"
#include "libcpc/src/thread_state.h"
#include "libcpc/src/tick.h"

#include "base/clock.h"

#include <signal.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cerrno>

namespace cpc {

namespace {

constexpr uint64_t kNsPerSecond = 1000000000;

timespec to_timespec(uint64_t ns) {
    // Longer than time_t's seconds can hold: the same as never.
    uint64_t s = std::min<uint64_t>(ns / kNsPerSecond, uint64_t(INT64_MAX) / 2);
    return {static_cast<time_t>(s), static_cast<long>(ns % kNsPerSecond)};
}

} // namespace

int TimerCounting::source_of(const perf_event_attr &attr) {
    if (attr.type != PERF_TYPE_SOFTWARE)
        return -1;
    switch (attr.config) {
    case PERF_COUNT_SW_CPU_CLOCK:
    case PERF_COUNT_SW_TASK_CLOCK:
        return kCpuTime;
    case PERF_COUNT_SW_PAGE_FAULTS:
        return kFaults;
    case PERF_COUNT_SW_PAGE_FAULTS_MIN:
        return kMinorFaults;
    case PERF_COUNT_SW_PAGE_FAULTS_MAJ:
        return kMajorFaults;
    case PERF_COUNT_SW_CONTEXT_SWITCHES:
        return kContextSwitches;
    default:
        return -1;
    }
}

bool TimerCounting::can_notify(int source) {
    return source == kCpuTime;
}

std::unique_ptr<Counting> TimerCounting::open(const BindSpec &spec, OpenError *err) {
    std::unique_ptr<TimerCounting> c(new TimerCounting(spec));
    c->tid_ = cpcprof::base::current_tid();
    c->new_id();
    size_t n = spec.attrs.size();
    c->reqs_.resize(n);
    c->snap_.resize(n);
    c->raw_.resize(kSources);
    auto fail = [err](int e, int request) {
        if (err != nullptr) {
            err->sys_errno = e;
            err->request = request;
        }
        return nullptr;
    };
    for (size_t i = 0; i < n; ++i) {
        Req &r = c->reqs_[i];
        r.source = source_of(spec.attrs[i]);
        r.notify = spec.notify[i];
        if (r.source < 0 || (r.notify && !can_notify(r.source)))
            return fail(EOPNOTSUPP, static_cast<int>(i));
        c->need_rusage_ = c->need_rusage_ || r.source != kCpuTime;
        if (!r.notify)
            continue;
        sigevent ev{};
        ev.sigev_notify = SIGEV_THREAD_ID;
        ev.sigev_signo = SIGTRAP;
        ev.sigev_value.sival_ptr =
            reinterpret_cast<void *>(trap_cookie(c->id_, static_cast<int>(i)));
        ev._sigev_un._tid = c->tid_;
        if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &r.timer) != 0)
            return fail(errno, static_cast<int>(i));
        r.has_timer = true;
    }
    if (std::find(spec.notify.begin(), spec.notify.end(), true) != spec.notify.end())
        cache_sigemt_disposition(); // this thread's overflows
    if (int e = c->read_sources())
        return fail(e, -1);
    track_counting(c.get());
    return c;
}

TimerCounting::~TimerCounting() {
    untrack_counting(this);
    for (Req &r : reqs_)
        if (r.has_timer)
            timer_delete(r.timer);
}

void TimerCounting::abandon() {
    for (Req &r : reqs_)
        r.has_timer = false;
}

int TimerCounting::read_sources() {
    timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return errno;
    raw_[kCpuTime] = uint64_t(ts.tv_sec) * kNsPerSecond + uint64_t(ts.tv_nsec);
    if (need_rusage_) {
        rusage ru;
        if (getrusage(RUSAGE_THREAD, &ru) != 0)
            return errno;
        raw_[kMinorFaults] = uint64_t(ru.ru_minflt);
        raw_[kMajorFaults] = uint64_t(ru.ru_majflt);
        raw_[kFaults] = raw_[kMinorFaults] + raw_[kMajorFaults];
        raw_[kContextSwitches] = uint64_t(ru.ru_nvcsw) + uint64_t(ru.ru_nivcsw);
    }
    return 0;
}

// Arms r's timer to expire after `first` ns of the thread's CPU time, then
// every period.  raw_ holds the sources' values of now.
int TimerCounting::arm(Req &r, uint64_t first) {
    itimerspec its{};
    its.it_value = to_timespec(std::max<uint64_t>(first, 1));
    its.it_interval = to_timespec(r.period);
    if (timer_settime(r.timer, 0, &its, nullptr) != 0)
        return errno;
    r.due = raw_[r.source] + first;
    return 0;
}

void TimerCounting::disarm_all() {
    itimerspec off{};
    for (Req &r : reqs_)
        if (r.has_timer)
            timer_settime(r.timer, 0, &off, nullptr);
}

int TimerCounting::restart() {
    int notifying = 0;
    bool same_periods = true;
    for (size_t i = 0; i < reqs_.size(); ++i) {
        if (!reqs_[i].notify)
            continue;
        ++notifying;
        same_periods = same_periods && reqs_[i].period == 0 - presets_[i];
    }
    if (soft_ && notifying == 1 && same_periods && pending_ == 0 && handlers_outran_overflows())
        soft_ = false; // count from the presets now, on a new schedule
    if (soft_ && notifying == 1 && same_periods) {
        // Frozen at an overflow, the timer running on its schedule: count
        // from the presets at the overflow instant (snap_ holds the values
        // of then, the overflowing request's at its period's end).
        for (size_t i = 0; i < reqs_.size(); ++i)
            reqs_[i].base += presets_[i] - snap_[i];
        have_snap_ = false;
        soft_ = false;
        frozen_ = false;
        return 0;
    }
    disarm_all();
    pending_ = 0; // a new schedule: the old one's overflows still due go
    if (int e = read_sources())
        return e;
    if (frozen_)
        tick_base_ = tick_snap_ - raw_[kCpuTime]; // the tick counts on from its frozen value
    for (size_t i = 0; i < reqs_.size(); ++i) {
        Req &r = reqs_[i];
        r.base = presets_[i] - raw_[r.source];
        if (!r.notify)
            continue;
        r.period = 0 - presets_[i]; // 2^64 - preset; 0 stands for 2^64
        if (r.period == 0)
            continue; // never within the life of anything
        if (int e = arm(r, r.period))
            return e;
    }
    have_snap_ = false;
    soft_ = false;
    frozen_ = false;
    return 0;
}

// After a signal's last overflow was handled: whether the handlers took
// more than half the CPU time the overflows they reported stand for.
bool TimerCounting::handlers_outran_overflows() {
    const Req &o = reqs_[overflowed_];
    timespec ts;
    if (o.period == 0 || clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return false;
    uint64_t now = uint64_t(ts.tv_sec) * kNsPerSecond + uint64_t(ts.tv_nsec);
    uint64_t handled = now > signal_cpu_ ? now - signal_cpu_ : 0;
    uint64_t covered =
        signal_overflows_ > UINT64_MAX / o.period ? UINT64_MAX : signal_overflows_ * o.period;
    return handled > covered / 2;
}

int TimerCounting::freeze() {
    if (!have_snap_) {
        if (int e = read_sources())
            return e;
        for (size_t i = 0; i < reqs_.size(); ++i)
            snap_[i] = reqs_[i].base + raw_[reqs_[i].source];
        tick_snap_ = tick_base_ + raw_[kCpuTime];
        have_snap_ = true;
    }
    disarm_all();
    frozen_ = true;
    soft_ = false;
    return 0;
}

int TimerCounting::thaw() {
    disarm_all(); // also a timer frozen at an overflow: its schedule moves
    if (int e = read_sources())
        return e;
    if (have_snap_) {
        for (size_t i = 0; i < reqs_.size(); ++i)
            reqs_[i].base = snap_[i] - raw_[reqs_[i].source];
    }
    if (frozen_)
        tick_base_ = tick_snap_ - raw_[kCpuTime];
    for (size_t i = 0; i < reqs_.size(); ++i) {
        Req &r = reqs_[i];
        if (!r.notify)
            continue;
        r.period = 0 - presets_[i];
        uint64_t left = 0 - (r.base + raw_[r.source]); // to the next wrap
        if (left == 0)
            left = r.period;
        if (left == 0)
            continue;
        if (int e = arm(r, left))
            return e;
    }
    have_snap_ = false;
    soft_ = false;
    frozen_ = false;
    return 0;
}

void TimerCounting::freeze_at_overflow() {
    disarm_all();
    for (size_t i = 0; i < reqs_.size(); ++i)
        snap_[i] = reqs_[i].notify ? UINT64_MAX : presets_[i];
    if (!frozen_ && read_sources() == 0)
        tick_snap_ = tick_base_ + raw_[kCpuTime];
    have_snap_ = true;
    frozen_ = true;
    soft_ = false;
}

// Freezes the set at request index's next scheduled expiry.  The thread's
// CPU time of that instant is the expiry's, which the signal follows by up
// to a tick (more where other threads share the CPU): the clocks read
// then, the counts of getrusage now.
void TimerCounting::take_overflow(int index) {
    Req &o = reqs_[index];
    merged_count_ = 0;
    --pending_;
    if (need_rusage_)
        read_sources();
    raw_[kCpuTime] = o.due;
    for (size_t i = 0; i < reqs_.size(); ++i)
        snap_[i] = reqs_[i].base + raw_[reqs_[i].source];
    tick_snap_ = tick_base_ + raw_[kCpuTime];
    o.due += o.period;
    have_snap_ = true;
    frozen_ = true;
    soft_ = true;
}

Counting::Trap TimerCounting::on_trap(const siginfo_t *si) {
    if (si->si_code != SI_TIMER)
        return Trap::not_ours;
    auto cookie = reinterpret_cast<uint64_t>(si->si_value.sival_ptr);
    int index = static_cast<int>(cookie & 0xff);
    if ((cookie >> 8) != id_ || index >= nreqs() || !reqs_[index].notify)
        return Trap::not_ours;
    if (frozen_) {
        // An overflow before cpc_set_restart (or a signal queued before a
        // cpc_disable): stop the timers; the frozen values stay.
        if (soft_)
            freeze();
        pending_ = 0;
        return Trap::internal;
    }
    Req &o = reqs_[index];
    uint64_t expiries = uint64_t(std::max(si->si_overrun, 0)) + 1;
    // Expiries older than kAttributableNs of CPU time most likely came
    // while the signal could not be delivered (the thread blocked it): the
    // PC of now is not theirs, so they are merged overflows without a PC.
    // The latest is always reported, so that the program hears of them.
    uint64_t old = 0;
    uint64_t window =
        std::max(kAttributableNs, o.period > UINT64_MAX / 2 ? UINT64_MAX : 2 * o.period);
    bool have_now = read_sources() == 0;
    if (have_now && raw_[kCpuTime] < o.due)
        return Trap::internal; // queued before the timer was re-armed
    if (have_now && raw_[kCpuTime] > window && o.period != 0) {
        uint64_t horizon = raw_[kCpuTime] - window;
        if (horizon > o.due)
            old = std::min(expiries - 1, (horizon - o.due + o.period - 1) / o.period);
    }
    // The newest are reported in place, the rest merged.
    uint64_t now = std::min(expiries - old, kMaxOverflowsInPlace);
    uint64_t merged = expiries - now;
    o.due += merged * o.period;
    pending_ = now;
    overflowed_ = index;
    signal_cpu_ = raw_[kCpuTime];
    signal_overflows_ = now;
    take_overflow(index);
    merged_count_ = merged;
    return Trap::overflow;
}

bool TimerCounting::next_overflow() {
    if (pending_ == 0)
        return false;
    if (frozen_) {
        // The program did not restart the set in its handler: the
        // overflows still due came while it was frozen.
        if (soft_)
            freeze();
        pending_ = 0;
        return false;
    }
    take_overflow(overflowed_);
    return true;
}

void TimerCounting::overflows_merged_into_queued() {
    merged_count_ += pending_;
    pending_ = 0;
}

uint64_t TimerCounting::merged_overflows(uint64_t *, int, int *npcs) const {
    *npcs = 0;
    return merged_count_;
}

int TimerCounting::sample(uint64_t *values, int n, hrtime_t *when, uint64_t *tick) {
    int m = std::min(n, nreqs());
    if (have_snap_) {
        for (int i = 0; i < m; ++i)
            values[i] = snap_[i];
        *tick = ns_to_ticks(tick_snap_);
    } else {
        if (int e = read_sources())
            return e;
        for (int i = 0; i < m; ++i)
            values[i] = reqs_[i].base + raw_[reqs_[i].source];
        *tick = ns_to_ticks(tick_base_ + raw_[kCpuTime]);
    }
    *when = cpcprof::base::monotonic_ns();
    return 0;
}

} // namespace cpc
