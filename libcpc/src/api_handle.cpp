// SPDX-License-Identifier: MIT
// cpc_open, cpc_close, the processor description and the walkers.
#include "libcpc/src/errors.h"
#include "libcpc/src/impl.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

using namespace cpc;

namespace {

// cpc_open fails only when no counter of any kind opens.
int probe_any_counter() {
    perf_event_attr a{};
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    int e = probe_open(a);
    if (e == 0)
        return 0;
    a.type = PERF_TYPE_HARDWARE;
    a.config = PERF_COUNT_HW_INSTRUCTIONS;
    return probe_open(a) == 0 ? 0 : e;
}

// The handle's machine with its event lists, probed at the first walk.
const Machine &with_events(cpc_t *cpc) {
    std::lock_guard<std::mutex> g(cpc->lock);
    list_machine_events(cpc->machine);
    return cpc->machine;
}

using PicAction = void (*)(void *, uint_t, const char *);

// The machine of a walk over counter picno's events; nullptr when the
// handle is not one, when there is no action to call, or (errno EINVAL)
// when the handle has no such counter.
const Machine *with_events_of_pic(cpc_t *cpc, uint_t picno, PicAction action) {
    if (!valid_handle(cpc) || action == nullptr)
        return nullptr;
    const Machine &m = with_events(cpc);
    if (picno >= m.npic) {
        errno = EINVAL;
        return nullptr;
    }
    return &m;
}

} // namespace

extern "C" {

cpc_t *cpc_open(int ver) {
    if (ver != CPC_VER_CURRENT) {
        errno = EINVAL;
        return nullptr;
    }
    // The description's own probe, if this call made it, is this moment's.
    bool built = false;
    const Machine &host = host_machine(&built);
    bool known = built && host.task_clock_opens;
    if (int e = host.backend == Backend::perf && !known ? probe_any_counter() : 0) {
        errno = (e == ENOENT || e == EOPNOTSUPP || e == ENOSYS) ? ENOTSUP : e;
        return nullptr;
    }
    auto *cpc = new (std::nothrow) __cpc();
    if (cpc == nullptr) {
        errno = ENOMEM;
        return nullptr;
    }
    cpc->machine = host;
    register_handle(cpc);
    return cpc;
}

int cpc_close(cpc_t *cpc) {
    if (!valid_handle(cpc))
        return 0;
    unregister_handle(cpc);
    std::vector<std::unique_ptr<cpc_set_t>> sets;
    {
        std::lock_guard<std::mutex> g(cpc->lock);
        sets.swap(cpc->sets);
    }
    for (auto &s : sets)
        unbind_set(cpc, s.get());
    sets.clear();
    cpc->magic = 0;
    delete cpc;
    return 0;
}

uint_t cpc_npic(cpc_t *cpc) {
    return valid_handle(cpc) ? cpc->machine.npic : 0;
}
uint_t cpc_caps(cpc_t *cpc) {
    return valid_handle(cpc) ? machine_caps(cpc->machine) : 0;
}

const char *cpc_cciname(cpc_t *cpc) {
    if (!valid_handle(cpc))
        return nullptr;
    std::call_once(cpc->cciname_once, [cpc] { cpc->cciname = cciname_text(cpc->machine.cciname); });
    return cpc->cciname.c_str();
}

const char *cpc_cpuref(cpc_t *cpc) {
    return valid_handle(cpc) ? cpc->machine.cpuref.c_str() : nullptr;
}

const char *cpc_backend(cpc_t *cpc, const char **reason, const char **remedy) {
    if (!valid_handle(cpc)) {
        errno = EINVAL;
        return nullptr;
    }
    if (reason != nullptr)
        *reason = cpc->machine.backend_reason.c_str();
    if (remedy != nullptr)
        *remedy = cpc->machine.backend_remedy.c_str();
    return backend_name(cpc->machine.backend);
}

int cpc_seterrhndlr(cpc_t *cpc, cpc_errhndlr_t *fn) {
    if (valid_handle(cpc))
        cpc->errfn.store(fn, std::memory_order_release);
    return 0;
}

void cpc_walk_events_all(cpc_t *cpc, void *arg, void (*action)(void *, const char *)) {
    if (!valid_handle(cpc) || action == nullptr)
        return;
    std::set<std::string> seen;
    for (const std::string &e : with_events(cpc).platform_events)
        if (seen.insert(e).second)
            action(arg, e.c_str());
}

void cpc_walk_generic_events_all(cpc_t *cpc, void *arg, void (*action)(void *, const char *)) {
    if (!valid_handle(cpc) || action == nullptr)
        return;
    for (const std::string &e : with_events(cpc).generic_events)
        action(arg, e.c_str());
}

void cpc_walk_events_pic(cpc_t *cpc, uint_t picno, void *arg,
                         void (*action)(void *, uint_t, const char *)) {
    const Machine *pm = with_events_of_pic(cpc, picno, action);
    if (pm == nullptr)
        return;
    const Machine &m = *pm;
    if (picno >= m.ngp) {
        action(arg, picno, m.fixed_events[picno - m.ngp].c_str());
        return;
    }
    std::set<std::string> seen;
    for (const std::string &e : m.platform_events)
        if (seen.insert(e).second)
            action(arg, picno, e.c_str());
}

void cpc_walk_generic_events_pic(cpc_t *cpc, uint_t picno, void *arg,
                                 void (*action)(void *, uint_t, const char *)) {
    const Machine *pm = with_events_of_pic(cpc, picno, action);
    if (pm == nullptr)
        return;
    const Machine &m = *pm;
    for (const std::string &e : m.generic_events) {
        if (picno >= m.ngp) {
            // A fixed counter answers only to the generic name of its event.
            const std::string &fixed = m.fixed_events[picno - m.ngp];
            bool match = (e == "PAPI_tot_ins" && fixed == "instructions") ||
                         (e == "PAPI_tot_cyc" && fixed == "cycles");
            if (!match)
                continue;
        }
        action(arg, picno, e.c_str());
    }
}

void cpc_walk_attrs(cpc_t *cpc, void *arg, void (*action)(void *, const char *)) {
    if (!valid_handle(cpc) || action == nullptr)
        return;
    for (const std::string &a : cpc->machine.attrs)
        action(arg, a.c_str());
}

} // extern "C"
