// SPDX-License-Identifier: MIT
#include "libcpc/src/counting_pctx.h"

#include "libcpc/src/impl.h"
#include "libcpc/src/perf_open.h"
#include "libcpc/src/tick.h"

#include "base/clock.h"

#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace cpc {

namespace {} // namespace

std::unique_ptr<PctxCounters> PctxCounters::open(const BindSpec &spec, pid_t tid, OpenError *err) {
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
