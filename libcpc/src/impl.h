// SPDX-License-Identifier: MIT
// The objects behind the opaque handles of <libcpc.h>.
#pragma once

#include "libcpc.h"
#include "libcpc/src/machine.h"

#include <linux/perf_event.h>
#include <sched.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace cpc {

class Counting;
class PctxCounters;
struct BindSpec;
struct OpenError;

// PctxCounters is complete only in its own file.
struct PctxCountersDeleter {
    void operator()(PctxCounters *c) const;
};
using PctxCountersPtr = std::unique_ptr<PctxCounters, PctxCountersDeleter>;

inline constexpr uint32_t kSetMagic = 0x43504353;    // "CPCS"
inline constexpr uint32_t kBufMagic = 0x43504342;    // "CPCB"
inline constexpr uint32_t kHandleMagic = 0x43504348; // "CPCH"

// All request flags illumos accepts (KCPC_REQ_ALL_FLAGS).
inline constexpr uint_t kAllRequestFlags = 0xf;

struct Request {
    std::string event;
    uint64_t preset = 0;
    uint_t flags = 0;
    std::vector<std::string> attr_names;
    std::vector<uint64_t> attr_values;
    perf_event_attr attr{}; // type/config words, from resolve_event
};

enum class Binding { none, curlwp, cpu, pctx };

} // namespace cpc

struct __cpc_set {
    uint32_t magic = cpc::kSetMagic;
    cpc_t *cpc = nullptr;
    std::vector<cpc::Request> requests;
    cpc::Binding binding = cpc::Binding::none;
    pid_t binder = 0; // thread that bound it (curlwp)
    // CPU binding: the set owns the per-CPU counting and the caller's
    // previous affinity, restored at unbind.
    std::unique_ptr<cpc::Counting> cpu_counting;
    int cpu = -1;
    cpu_set_t saved_affinity{};
    // pctx binding (cpc_bind_pctx): one counting per thread of the
    // controlled process, and the thread bound last.  Used by the thread
    // that runs pctx_run only.
    pctx_t *pctx = nullptr;
    std::map<pid_t, cpc::PctxCountersPtr> pctx_countings;
    pid_t pctx_last = 0;
    ~__cpc_set();
};

struct __cpc_buf {
    uint32_t magic = cpc::kBufMagic;
    cpc_t *cpc = nullptr;
    const cpc_set_t *set = nullptr;
    int nreqs = 0;
    hrtime_t hrtime = 0;
    uint64_t tick = 0;
    std::unique_ptr<uint64_t[]> data;
};

struct __cpc {
    uint32_t magic = cpc::kHandleMagic;
    cpc::Machine machine;
    std::atomic<cpc_errhndlr_t *> errfn{nullptr};
    std::mutex lock; // guards sets and bufs; never taken in signal context
    std::vector<std::unique_ptr<cpc_set_t>> sets;
    std::vector<std::unique_ptr<cpc_buf_t>> bufs;
    std::once_flag cciname_once; // cciname: machine.cciname with the processor's name
    std::string cciname;
};

namespace cpc {

// Lock-free validity checks for the fast (signal-safe) paths.
inline bool valid_handle(const cpc_t *c) {
    return c != nullptr && c->magic == kHandleMagic;
}
inline bool valid_set(const cpc_t *c, const cpc_set_t *s) {
    return s != nullptr && s->magic == kSetMagic && s->cpc == c;
}
inline bool valid_buf(const cpc_t *c, const cpc_buf_t *b) {
    return b != nullptr && b->magic == kBufMagic && b->cpc == c;
}

// Whether set belongs to cpc (walks the handle's list under its lock).
bool set_in_handle(cpc_t *cpc, const cpc_set_t *set);

// Releases whatever binding set has; nothing if unbound.
void unbind_set(cpc_t *cpc, cpc_set_t *set);

// What every bind does (api_bind.cpp).
bool any_notify(const cpc_set_t *set);
// What illumos checks at bind: 0, or an errno after reporting.
int check_bindable(cpc_t *cpc, const char *fn, const cpc_set_t *set);
BindSpec make_spec(const cpc_set_t *set, bool inherit);
// Reports a failed group open and returns the illumos errno.
int open_failure(cpc_t *cpc, const char *fn, const cpc_set_t *set, const OpenError &e, bool notify);

// The pctx binding of a set (api_pctx.cpp): released, or, in a fork child,
// abandoned (the child's copies of the descriptors closed, no ioctl).
void unbind_pctx(cpc_set_t *set);
void abandon_pctx(cpc_set_t *set);
// [signal-safe only against the controlling thread] cpc_set_sample of a
// pctx-bound set: reads the thread whose libpctx callback runs, if the set
// is bound to it, else the thread bound last; EINVAL when that one is gone.
int sample_pctx(cpc_set_t *set, cpc_buf_t *buf);

// Every open handle, for fork handling (see thread_state.cpp).
void register_handle(cpc_t *cpc);
void unregister_handle(cpc_t *cpc);

} // namespace cpc
