// SPDX-License-Identifier: MIT
// Binding, restart, presets, sampling and activation.
#include "libcpc/src/counting.h"
#include "libcpc/src/errors.h"
#include "libcpc/src/impl.h"
#include "libcpc/src/inherit.h"
#include "libcpc/src/overflow.h"
#include "libcpc/src/thread_state.h"

#include "base/clock.h"

#include <sched.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

using namespace cpc;

namespace {

// Request indexes travel in the low byte of perf's sig_data.
constexpr size_t kMaxRequests = 255;

int fail(int e) {
    errno = e;
    return -1;
}

} // namespace

namespace cpc {

bool any_notify(const cpc_set_t *set) {
    return std::any_of(set->requests.begin(), set->requests.end(),
                       [](const Request &r) { return r.flags & CPC_OVF_NOTIFY_EMT; });
}

// Checks what illumos checks at bind; reports and returns an errno.
int check_bindable(cpc_t *cpc, const char *fn, const cpc_set_t *set) {
    if (set->requests.empty())
        return EINVAL;
    if (set->requests.size() > kMaxRequests) {
        report(cpc, fn, CPC_RESOURCE_UNAVAIL, "a set holds at most %zu requests", kMaxRequests);
        return EINVAL;
    }
    for (const Request &r : set->requests) {
        if (r.flags & ~kAllRequestFlags) {
            report(cpc, fn, CPC_REQ_INVALID_FLAGS, "request %s has flags 0x%x", r.event.c_str(),
                   r.flags);
            return EINVAL;
        }
    }
    return 0;
}

BindSpec make_spec(const cpc_set_t *set, bool inherit) {
    BindSpec spec;
    spec.owner = set;
    spec.cpc = set->cpc;
    spec.inherit = inherit;
    spec.backend = set->cpc->machine.backend;
    for (const Request &r : set->requests) {
        perf_event_attr a = r.attr;
        a.exclude_user = !(r.flags & CPC_COUNT_USER);
        a.exclude_kernel = !(r.flags & CPC_COUNT_SYSTEM);
        a.exclude_hv = !(r.flags & CPC_COUNT_HV);
        spec.attrs.push_back(a);
        spec.presets.push_back(r.preset);
        spec.notify.push_back((r.flags & CPC_OVF_NOTIFY_EMT) != 0);
    }
    return spec;
}

// An overflow-notifying set where the kernel cannot signal an overflow.
int no_sigtrap(cpc_t *cpc, const char *fn) {
    report(cpc, fn, kNoSubcode,
           "overflow notification needs perf sigtrap support (Linux 5.13 or later)");
    return ENOTSUP;
}

// Maps a failed group open to the illumos errno and subcode.
int open_failure(cpc_t *cpc, const char *fn, const cpc_set_t *set, const OpenError &e,
                 bool notify) {
    const char *ev = e.request >= 0 ? set->requests[e.request].event.c_str() : "(tick)";
    switch (e.sys_errno) {
    case EACCES:
    case EPERM:
        report(cpc, fn, CPC_ATTR_REQUIRES_PRIVILEGE,
               "counting %s as requested needs privilege (CAP_PERFMON, or a lower "
               "/proc/sys/kernel/perf_event_paranoid)",
               ev);
        return EACCES;
    case EMFILE:
    case ENFILE:
    case EBUSY:
    case ENOSPC:
        report(cpc, fn, kNoSubcode, "performance counters not available: %s",
               std::strerror(e.sys_errno));
        return EAGAIN;
    case ENOENT:
    case EOPNOTSUPP:
        if (cpc->machine.backend == Backend::timer && e.request >= 0 &&
            set->requests[e.request].flags & CPC_OVF_NOTIFY_EMT) {
            report(cpc, fn, CPC_PIC_NOT_CAPABLE,
                   "%s cannot interrupt on overflow with POSIX CPU timers (only cpu-clock and "
                   "task-clock can); that needs %s",
                   ev, perf_refusal_remedy(cpc->machine.perf_refusal).c_str());
            return ENOTSUP;
        }
        if (notify) {
            report(cpc, fn, kNoSubcode, "%s cannot interrupt on overflow here", ev);
            return ENOTSUP;
        }
        report(cpc, fn, CPC_INVALID_EVENT, "%s cannot be counted here", ev);
        return EINVAL;
    case EINVAL:
        if (e.request > 0) {
            report(cpc, fn, CPC_RESOURCE_UNAVAIL,
                   "the processor cannot count %s together with the requests before it", ev);
            return EINVAL;
        }
        [[fallthrough]];
    default:
        report(cpc, fn, kNoSubcode, "perf_event_open for %s: %s", ev, std::strerror(e.sys_errno));
        return EINVAL;
    }
}

void unbind_set(cpc_t *, cpc_set_t *set) {
    if (set->binding == Binding::curlwp) {
        Counting *c = current_counting();
        if (c != nullptr && c->spec().owner == set)
            clear_current_counting();
    } else if (set->binding == Binding::cpu) {
        set->cpu_counting.reset();
        sched_setaffinity(0, sizeof set->saved_affinity, &set->saved_affinity);
    } else if (set->binding == Binding::pctx) {
        unbind_pctx(set);
    }
    set->binding = Binding::none;
}

} // namespace cpc

extern "C" {

int cpc_bind_curlwp(cpc_t *cpc, cpc_set_t *set, uint_t flags) {
    static const char fn[] = "cpc_bind_curlwp";
    if (!set_in_handle(cpc, set) || (flags & ~CPC_BIND_LWP_INHERIT))
        return fail(EINVAL);
    if (int e = check_bindable(cpc, fn, set))
        return fail(e);
    bool notify = any_notify(set);
    // Where the probe was left for later, the open below is the probe.
    if (notify && cpc->machine.overflow_probed && !(cpc->machine.caps & CPC_CAP_OVERFLOW_INTERRUPT))
        return fail(no_sigtrap(cpc, fn));
    if (flags & CPC_BIND_LWP_INHERIT) {
        if (const char *other = pthread_create_interposer())
            report(cpc, fn, kNoSubcode,
                   "pthread_create of %s comes before libcpc's: threads it creates will "
                   "not inherit the set",
                   other);
    }
    unbind_set(cpc, set);
    if (notify)
        install_overflow_handler();
    OpenError oe;
    std::unique_ptr<Counting> c =
        Counting::open(make_spec(set, flags & CPC_BIND_LWP_INHERIT), 0, -1, &oe);
    if (c == nullptr && notify && !(machine_caps(cpc->machine) & CPC_CAP_OVERFLOW_INTERRUPT))
        return fail(no_sigtrap(cpc, fn));
    if (c == nullptr)
        return fail(open_failure(cpc, fn, set, oe, notify));
    Counting *raw = c.get();
    set_current_counting(std::move(c));
    if (int e = raw->start()) {
        clear_current_counting();
        return fail(e);
    }
    set->binding = Binding::curlwp;
    set->binder = cpcprof::base::current_tid();
    return 0;
}

int cpc_bind_cpu(cpc_t *cpc, processorid_t id, cpc_set_t *set, uint_t flags) {
    static const char fn[] = "cpc_bind_cpu";
    if (!set_in_handle(cpc, set) || flags != 0 || id < 0 || id >= get_nprocs_conf())
        return fail(EINVAL);
    if (int e = check_bindable(cpc, fn, set))
        return fail(e);
    if (!cpu_is_online(id))
        return fail(ENOSYS);
    if (any_notify(set)) {
        report(cpc, fn, kNoSubcode,
               "overflow notification needs a thread to signal; CPU-bound sets cannot have it");
        return fail(ENOTSUP);
    }
    if (cpc->machine.backend == Backend::timer) {
        report(cpc, fn, CPC_ATTR_REQUIRES_PRIVILEGE,
               "counting on a CPU needs perf_event_open, which this process is not using (%s); "
               "it needs %s",
               perf_refusal_reason(cpc->machine.perf_refusal).c_str(),
               perf_refusal_remedy(cpc->machine.perf_refusal).c_str());
        return fail(EACCES);
    }
    unbind_set(cpc, set);
    OpenError oe;
    std::unique_ptr<Counting> c = Counting::open(make_spec(set, false), -1, id, &oe);
    if (c == nullptr) {
        if (oe.sys_errno == EACCES || oe.sys_errno == EPERM) {
            report(cpc, fn, CPC_ATTR_REQUIRES_PRIVILEGE,
                   "counting on a CPU needs CAP_PERFMON or root");
            return fail(EACCES);
        }
        return fail(open_failure(cpc, fn, set, oe, false));
    }
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(id, &one);
    sched_getaffinity(0, sizeof set->saved_affinity, &set->saved_affinity);
    if (sched_setaffinity(0, sizeof one, &one) != 0) {
        report(cpc, fn, CPC_PBIND_FAILED, "cannot move the thread to CPU %d: %s", id,
               std::strerror(errno));
        return fail(EINVAL);
    }
    if (int e = c->start()) {
        sched_setaffinity(0, sizeof set->saved_affinity, &set->saved_affinity);
        return fail(e);
    }
    set->cpu_counting = std::move(c);
    set->cpu = id;
    set->binding = Binding::cpu;
    return 0;
}

int cpc_unbind(cpc_t *cpc, cpc_set_t *set) {
    if (!set_in_handle(cpc, set) || set->binding == Binding::none)
        return fail(EINVAL);
    unbind_set(cpc, set);
    return 0;
}

int cpc_request_preset(cpc_t *, int index, uint64_t preset) {
    Counting *c = current_counting();
    if (c == nullptr)
        return fail(EINVAL);
    if (int e = c->set_preset(index, preset))
        return fail(e);
    return 0;
}

int cpc_set_restart(cpc_t *, cpc_set_t *) {
    Counting *c = current_counting();
    if (c == nullptr)
        return fail(EINVAL);
    if (int e = c->restart())
        return fail(e);
    return 0;
}

int64_t cpc_set_merged_overflows(cpc_t *, cpc_set_t *set, uint64_t *pcs, int max, int *npcs) {
    Counting *c = current_counting();
    if (c == nullptr || c->spec().owner != set || (max > 0 && pcs == nullptr) || npcs == nullptr)
        return fail(EINVAL);
    return static_cast<int64_t>(c->merged_overflows(pcs, max, npcs));
}

int cpc_set_kernel_frames(cpc_t *, cpc_set_t *set, uint64_t *pcs, int max) {
    Counting *c = current_counting();
    if (c == nullptr || c->spec().owner != set || max < 0 || (max > 0 && pcs == nullptr))
        return fail(EINVAL);
    return c->kernel_frames(pcs, max);
}

int cpc_set_sample(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf) {
    if (!valid_handle(cpc) || !valid_set(cpc, set) || !valid_buf(cpc, buf) || buf->set != set ||
        buf->nreqs != static_cast<int>(set->requests.size()))
        return fail(EINVAL);
    Counting *c = nullptr;
    if (set->binding == Binding::curlwp) {
        c = current_counting();
        if (c == nullptr || c->spec().owner != set)
            return fail(EINVAL);
    } else if (set->binding == Binding::cpu) {
        cpu_set_t now;
        if (sched_getaffinity(0, sizeof now, &now) != 0 || CPU_COUNT(&now) != 1 ||
            !CPU_ISSET(set->cpu, &now))
            return fail(EAGAIN);
        c = set->cpu_counting.get();
    } else if (set->binding == Binding::pctx) {
        int e = sample_pctx(set, buf);
        if (e == EAGAIN)
            report_signal_safe(cpc, "cpc_set_sample", kNoSubcode,
                               "the kernel multiplexed the counters with another user; "
                               "the values are incomplete");
        return e ? fail(e) : 0;
    } else {
        return fail(EINVAL);
    }
    int e = c->sample(buf->data.get(), buf->nreqs, &buf->hrtime, &buf->tick);
    if (e == EAGAIN)
        report_signal_safe(cpc, "cpc_set_sample", kNoSubcode,
                           "the kernel multiplexed the counters with another user; "
                           "the values are incomplete");
    return e ? fail(e) : 0;
}

int cpc_enable(cpc_t *) {
    Counting *c = current_counting();
    if (c == nullptr || !c->frozen())
        return fail(EINVAL);
    if (int e = c->thaw())
        return fail(e);
    return 0;
}

int cpc_disable(cpc_t *) {
    Counting *c = current_counting();
    if (c == nullptr || c->frozen())
        return fail(EINVAL);
    if (int e = c->freeze())
        return fail(e);
    return 0;
}

} // extern "C"
