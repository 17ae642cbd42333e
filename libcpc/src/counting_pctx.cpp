// SPDX-License-Identifier: MIT
#include "libcpc/src/counting_pctx.h"

#include "libcpc/src/counting_timer.h"
#include "libcpc/src/impl.h"
#include "libcpc/src/perf_open.h"
#include "libcpc/src/tick.h"

#include "base/clock.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

namespace cpc {

namespace {

// The whole of a small /proc file into buf (NUL-terminated); false when
// it cannot be read (the thread is gone: ESRCH).
bool read_text(int fd, char *buf, size_t size, int *err) {
    ssize_t got = ::pread(fd, buf, size - 1, 0);
    if (got <= 0) {
        *err = got < 0 && errno != ESRCH ? errno : ESRCH;
        return false;
    }
    buf[got] = '\0';
    return true;
}

// The unsigned number after the first occurrence of key in text; false
// when key or the number is missing.
bool number_after(const char *text, const char *key, uint64_t *out) {
    const char *p = std::strstr(text, key);
    if (p == nullptr)
        return false;
    char *end = nullptr;
    *out = std::strtoull(p + std::strlen(key), &end, 10);
    return end != p + std::strlen(key);
}

} // namespace

std::unique_ptr<PctxCounters> PctxCounters::open_proc(const BindSpec &spec, pid_t tid,
                                                      OpenError *err) {
    std::unique_ptr<PctxCounters> c(new PctxCounters());
    c->proc_ = true;
    for (size_t i = 0; i < spec.attrs.size(); ++i) {
        int source = TimerCounting::source_of(spec.attrs[i]);
        if (source < 0) {
            err->sys_errno = EOPNOTSUPP;
            err->request = static_cast<int>(i);
            return nullptr;
        }
        c->sources_.push_back(source);
    }
    cpcprof::base::ScopedFd *files[] = {&c->schedstat_, &c->stat_, &c->status_};
    const char *names[] = {"schedstat", "stat", "status"};
    for (int i = 0; i < 3; ++i) {
        std::string path =
            "/proc/" + std::to_string(tid) + "/task/" + std::to_string(tid) + "/" + names[i];
        int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            err->sys_errno = errno == ENOENT ? ESRCH : errno;
            return nullptr;
        }
        files[i]->reset(fd);
    }
    c->presets_ = spec.presets;
    c->base_.assign(kSources, 0);
    if (int e = c->read_proc(c->base_.data())) {
        err->sys_errno = e;
        return nullptr;
    }
    return c;
}

int PctxCounters::read_proc(uint64_t *raw) {
    char buf[4096];
    int e = 0;
    // schedstat: "RUN_NS WAIT_NS SLICES".
    if (!read_text(schedstat_.get(), buf, sizeof buf, &e))
        return e;
    raw[kCpuTime] = std::strtoull(buf, nullptr, 10);
    // stat: "PID (COMM) STATE PPID ... " with minflt the 10th field and
    // majflt the 12th; COMM may hold anything, so count from its ')'.
    if (!read_text(stat_.get(), buf, sizeof buf, &e))
        return e;
    const char *p = std::strrchr(buf, ')');
    if (p == nullptr)
        return EIO;
    uint64_t fields[10] = {}; // fields 4 to 13 after STATE
    ++p;
    while (*p == ' ')
        ++p;
    while (*p != ' ' && *p != '\0') // STATE
        ++p;
    for (uint64_t &f : fields) {
        char *end = nullptr;
        f = std::strtoull(p, &end, 10);
        if (end == p)
            return EIO;
        p = end;
    }
    raw[kMinorFaults] = fields[10 - 4];
    raw[kMajorFaults] = fields[12 - 4];
    raw[kFaults] = raw[kMinorFaults] + raw[kMajorFaults];
    if (!read_text(status_.get(), buf, sizeof buf, &e))
        return e;
    uint64_t voluntary = 0, involuntary = 0;
    if (!number_after(buf, "\nvoluntary_ctxt_switches:", &voluntary) ||
        !number_after(buf, "\nnonvoluntary_ctxt_switches:", &involuntary))
        return EIO;
    raw[kContextSwitches] = voluntary + involuntary;
    return 0;
}

int PctxCounters::sample_proc(uint64_t *values, int n, hrtime_t *when, uint64_t *tick) {
    uint64_t raw[kSources] = {};
    if (int e = read_proc(raw))
        return e;
    int m = std::min(n, static_cast<int>(sources_.size()));
    for (int i = 0; i < m; ++i)
        values[i] = presets_[i] + (raw[sources_[i]] - base_[sources_[i]]);
    *tick = ns_to_ticks(raw[kCpuTime] - base_[kCpuTime]);
    *when = cpcprof::base::monotonic_ns();
    return 0;
}

std::unique_ptr<PctxCounters> PctxCounters::open(const BindSpec &spec, pid_t tid, OpenError *err) {
    if (spec.backend == Backend::timer)
        return open_proc(spec, tid, err);
    std::unique_ptr<PctxCounters> c(new PctxCounters());
    size_t n = spec.attrs.size();
    int leader = -1;
    for (size_t i = 0; i <= n; ++i) {
        perf_event_attr a{};
        if (i < n) {
            a = spec.attrs[i];
        } else { // cpc_buf_tick: the thread's on-CPU time while the set counts
            a.type = PERF_TYPE_SOFTWARE;
            a.config = PERF_COUNT_SW_TASK_CLOCK;
        }
        a.size = sizeof a;
        a.read_format = kGroupReadFormat;
        a.disabled = i == 0;
        a.remove_on_exec = 1;
        a.sample_period = 0;
        a.sigtrap = 0;
        int fd = perf_event_open_cloexec(&a, tid, -1, leader);
        if (fd < 0 && i == n && errno == EACCES) {
            a.exclude_kernel = 1; // perf_event_paranoid >= 2: user time only
            fd = perf_event_open_cloexec(&a, tid, -1, leader);
        }
        if (fd < 0) {
            err->sys_errno = errno;
            err->request = i < n ? static_cast<int>(i) : -1;
            return nullptr;
        }
        c->fds_.emplace_back(fd);
        if (i == 0)
            leader = fd;
    }
    c->presets_ = spec.presets;
    c->buf_.resize(3 + n + 1);
    if (ioctl(leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) != 0) {
        err->sys_errno = errno;
        return nullptr;
    }
    return c;
}

int PctxCounters::read_one(int fd, uint64_t *value, uint64_t *enabled, uint64_t *running) {
    uint64_t one[4];
    ssize_t got = ::read(fd, one, sizeof one);
    if (got < static_cast<ssize_t>(sizeof one))
        return got < 0 ? errno : EIO;
    *enabled = one[1];
    *running = one[2];
    *value = one[3];
    return 0;
}

int PctxCounters::sample(uint64_t *values, int n, hrtime_t *when, uint64_t *tick) {
    if (proc_)
        return sample_proc(values, n, when, tick);
    size_t nreq = presets_.size();
    std::vector<uint64_t> &b = buf_;
    ssize_t got = ::read(fds_[0].get(), b.data(), b.size() * sizeof(uint64_t));
    if (got < static_cast<ssize_t>(4 * sizeof(uint64_t)))
        return got < 0 ? errno : EIO;
    uint64_t enabled = b[1], running = b[2];
    if (b[0] != nreq + 1) {
        // exec took the group apart: each event alone.
        for (size_t i = 0; i <= nreq; ++i) {
            uint64_t en, run;
            if (int e = read_one(fds_[i].get(), &b[3 + i], &en, &run))
                return e;
            if (run < en)
                running = 0;
        }
    }
    int m = std::min(n, static_cast<int>(nreq));
    for (int i = 0; i < m; ++i)
        values[i] = presets_[i] + b[3 + i];
    *tick = ns_to_ticks(b[3 + nreq]);
    *when = cpcprof::base::monotonic_ns(); // hrtime_t: CLOCK_MONOTONIC in ns, gethrtime(3C)
    return running < enabled ? EAGAIN : 0;
}

void PctxCountersDeleter::operator()(PctxCounters *c) const {
    delete c;
}

} // namespace cpc
