// SPDX-License-Identifier: MIT
// cpc_bind_pctx: counters in the threads of a process that libpctx
// controls.
//
// Each thread gets its own PctxCounters (counting_pctx.h), a perf group
// opened with pid = its tid (perf_event_open needs ptrace-read access to
// the thread, which the controlling process has).  Nothing stops the
// target to count or to read: cpc_set_sample reads the descriptors while
// it runs.  Counters stop when their thread execs and keep the old image's
// final counts for fini_lwp.
//
// One set may be bound to several threads; an illumos LWP holds one set,
// so binding a set to a thread takes the thread from any other set of the
// same handle bound to it (cputrack rebinds a thread to the next set of its
// group on every tick).  libpctx tells libcpc, through an observer added
// at bind, when a thread is finished (after its fini_lwp and lwp_exit
// callbacks returned) and when the handle goes: the thread's counting is
// closed then, and the set is unbound with the handle.
#include "libcpc/src/counting_pctx.h"
#include "libcpc/src/errors.h"
#include "libcpc/src/impl.h"
#include "libcpc/src/pctx_private.h"

#include <dlfcn.h>

#include <cerrno>
#include <mutex>

// libpctx is not a library libcpc makes the loader bring into every
// process (one library fewer at each start of a program that cpcprof
// records: its agent never binds through a pctx).  A caller of
// cpc_bind_pctx has libpctx, which made its pctx: linked in (these weak
// references are then bound) or loaded on its own (found by pctx_calls).
#pragma weak __pctx_observe
#pragma weak __pctx_unobserve
#pragma weak __pctx_current_lwp
#pragma weak __pctx_lwp_check
#pragma weak __pctx_pid

using namespace cpc;

namespace {

const char kFn[] = "cpc_bind_pctx";

struct PctxCalls {
    decltype(&__pctx_observe) observe;
    decltype(&__pctx_unobserve) unobserve;
    decltype(&__pctx_current_lwp) current_lwp;
    decltype(&__pctx_lwp_check) lwp_check;
    decltype(&__pctx_pid) pid;

    bool complete() const {
        return observe != nullptr && unobserve != nullptr && current_lwp != nullptr &&
               lwp_check != nullptr && pid != nullptr;
    }
};

template <class F> void find_call(void *lib, const char *name, F *f) {
    if (*f == nullptr)
        *f = reinterpret_cast<F>(dlsym(lib, name));
}

// libpctx's private calls, or null when libpctx is not in the process.
const PctxCalls *pctx_calls() {
    static std::mutex lock;
    static PctxCalls calls{};
    std::lock_guard<std::mutex> g(lock);
    if (calls.complete())
        return &calls;
    calls = {&__pctx_observe, &__pctx_unobserve, &__pctx_current_lwp, &__pctx_lwp_check,
             &__pctx_pid};
    if (!calls.complete()) {
        if (void *lib = dlopen("libpctx.so.1", RTLD_NOW | RTLD_NOLOAD)) {
            find_call(lib, "__pctx_observe", &calls.observe);
            find_call(lib, "__pctx_unobserve", &calls.unobserve);
            find_call(lib, "__pctx_current_lwp", &calls.current_lwp);
            find_call(lib, "__pctx_lwp_check", &calls.lwp_check);
            find_call(lib, "__pctx_pid", &calls.pid);
            // Not closed: the reference keeps the calls valid.
        }
    }
    return calls.complete() ? &calls : nullptr;
}

int fail(int e) {
    errno = e;
    return -1;
}

void on_lwp_gone(void *cookie, pctx_t *pctx, pid_t lwpid) {
    auto *set = static_cast<cpc_set_t *>(cookie);
    if (set->binding != Binding::pctx || set->pctx != pctx)
        return;
    if (lwpid == 0) {
        unbind_pctx(set);
        set->binding = Binding::none;
        return;
    }
    set->pctx_countings.erase(lwpid);
}

// Takes thread lwpid from every other set of cpc bound to it through pctx.
void displace(cpc_t *cpc, pctx_t *pctx, pid_t lwpid, cpc_set_t *keep) {
    std::vector<PctxCountersPtr> dead; // destroyed without the handle's lock
    std::lock_guard<std::mutex> g(cpc->lock);
    for (auto &s : cpc->sets) {
        if (s.get() == keep || s->binding != Binding::pctx || s->pctx != pctx)
            continue;
        auto it = s->pctx_countings.find(lwpid);
        if (it != s->pctx_countings.end()) {
            dead.push_back(std::move(it->second));
            s->pctx_countings.erase(it);
        }
    }
}

} // namespace

namespace cpc {

void unbind_pctx(cpc_set_t *set) {
    if (set->pctx != nullptr)
        pctx_calls()->unobserve(set->pctx, on_lwp_gone, set);
    set->pctx_countings.clear();
    set->pctx = nullptr;
    set->pctx_last = 0;
}

void abandon_pctx(cpc_set_t *set) {
    set->pctx_countings.clear(); // no registry, no ioctl: closing is all
    if (set->pctx != nullptr)
        pctx_calls()->unobserve(set->pctx, on_lwp_gone, set);
    set->pctx = nullptr;
    set->pctx_last = 0;
}

int sample_pctx(cpc_set_t *set, cpc_buf_t *buf) {
    auto &m = set->pctx_countings;
    pid_t now = pctx_calls()->current_lwp(set->pctx);
    auto it = now != 0 ? m.find(now) : m.end();
    if (it == m.end())
        it = m.find(set->pctx_last);
    if (it == m.end())
        return EINVAL;
    return it->second->sample(buf->data.get(), buf->nreqs, &buf->hrtime, &buf->tick);
}

} // namespace cpc

extern "C" int cpc_bind_pctx(cpc_t *cpc, pctx_t *pctx, id_t id, cpc_set_t *set, uint_t flags) {
    if (!set_in_handle(cpc, set) || flags != 0)
        return fail(EINVAL);
    if (int e = check_bindable(cpc, kFn, set))
        return fail(e);
    if (any_notify(set)) {
        report(cpc, kFn, kNoSubcode,
               "overflow notification (CPC_OVF_NOTIFY_EMT) cannot be delivered into another "
               "process");
        return fail(ENOTSUP);
    }
    const PctxCalls *px = pctx_calls();
    if (px == nullptr) {
        report(cpc, kFn, kNoSubcode,
               "libpctx.so.1 is not loaded: a pctx comes from its pctx_create or pctx_capture "
               "(link with -lpctx)");
        return fail(EINVAL);
    }
    auto lwp = static_cast<pid_t>(id);
    int state = px->lwp_check(pctx, lwp);
    if (state == EINVAL)
        return fail(EINVAL);
    if (state != 0) {
        report(cpc, kFn, kNoSubcode, "lwp %d is not a thread of process %d", static_cast<int>(lwp),
               static_cast<int>(px->pid(pctx)));
        return fail(ESRCH);
    }
    if (set->binding != Binding::pctx || set->pctx != pctx)
        unbind_set(cpc, set);
    displace(cpc, pctx, lwp, set);
    OpenError oe;
    PctxCountersPtr c(PctxCounters::open(make_spec(set, false), lwp, &oe).release());
    if (c == nullptr) {
        if (oe.sys_errno == ESRCH)
            return fail(ESRCH);
        if (oe.sys_errno == EACCES || oe.sys_errno == EPERM) {
            report(cpc, kFn, CPC_ATTR_REQUIRES_PRIVILEGE,
                   "counting in lwp %d as requested needs ptrace access to it and, for "
                   "CPC_COUNT_SYSTEM, CAP_PERFMON or a lower perf_event_paranoid",
                   static_cast<int>(lwp));
            return fail(EACCES);
        }
        return fail(open_failure(cpc, kFn, set, oe, false));
    }
    set->pctx_countings[lwp] = std::move(c); // a rebind starts again at the presets
    set->pctx = pctx;
    set->pctx_last = lwp;
    set->binding = Binding::pctx;
    if (px->observe(pctx, on_lwp_gone, set) != 0) {
        unbind_set(cpc, set);
        return fail(EINVAL);
    }
    return 0;
}
