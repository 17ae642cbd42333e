// SPDX-License-Identifier: MIT
// Sets and requests.
#include "libcpc/src/counting.h"
#include "libcpc/src/errors.h"
#include "libcpc/src/events.h"
#include "libcpc/src/impl.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

using namespace cpc;

__cpc_set::~__cpc_set() = default;

namespace cpc {

bool set_in_handle(cpc_t *cpc, const cpc_set_t *set) {
    if (!valid_handle(cpc) || set == nullptr)
        return false;
    std::lock_guard<std::mutex> g(cpc->lock);
    return std::any_of(cpc->sets.begin(), cpc->sets.end(),
                       [set](const auto &s) { return s.get() == set; });
}

} // namespace cpc

namespace {

std::string why_not_countable(const Machine &m, const std::string &event, int err, uint32_t type) {
    bool hw = type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW;
    if (m.backend == Backend::timer)
        return std::string(hw ? "hardware event '" : "event '") + event +
               "' needs perf_event_open, which this process is not using (" +
               perf_refusal_reason(m.perf_refusal) + "); it needs " +
               perf_refusal_remedy(m.perf_refusal) +
               ".  POSIX CPU timers serve cpu-clock, task-clock, page-faults, minor-faults, "
               "major-faults and context-switches";
    if (hw && !m.hw_pmu)
        return "event '" + event +
               "' needs a hardware performance counter, and this machine has none "
               "(software events such as cpu-clock, task-clock and page-faults work)";
    return "event '" + event + "' cannot be counted here: perf_event_open: " + std::strerror(err);
}

} // namespace

extern "C" {

cpc_set_t *cpc_set_create(cpc_t *cpc) {
    if (!valid_handle(cpc)) {
        errno = EINVAL;
        return nullptr;
    }
    auto s = std::make_unique<__cpc_set>();
    s->cpc = cpc;
    cpc_set_t *raw = s.get();
    std::lock_guard<std::mutex> g(cpc->lock);
    cpc->sets.push_back(std::move(s));
    return raw;
}

int cpc_set_destroy(cpc_t *cpc, cpc_set_t *set) {
    if (!set_in_handle(cpc, set)) {
        errno = EINVAL;
        return -1;
    }
    unbind_set(cpc, set);
    std::unique_ptr<cpc_set_t> dead;
    {
        std::lock_guard<std::mutex> g(cpc->lock);
        auto it = std::find_if(cpc->sets.begin(), cpc->sets.end(),
                               [set](const auto &s) { return s.get() == set; });
        if (it != cpc->sets.end()) {
            dead = std::move(*it);
            cpc->sets.erase(it);
        }
    }
    if (dead)
        dead->magic = 0;
    return 0;
}

int cpc_set_add_request(cpc_t *cpc, cpc_set_t *set, const char *event, uint64_t preset,
                        uint_t flags, uint_t nattrs, const cpc_attr_t *attrs) {
    static const char fn[] = "cpc_set_add_request";
    if (!set_in_handle(cpc, set) || set->binding != Binding::none || event == nullptr ||
        (nattrs > 0 && attrs == nullptr)) {
        errno = EINVAL;
        return -1;
    }
    if (std::strlen(event) >= CPC_MAX_EVENT_LEN) {
        report(cpc, fn, CPC_INVALID_EVENT, "event name longer than %d characters",
               CPC_MAX_EVENT_LEN - 1);
        errno = EINVAL;
        return -1;
    }
    ResolveError rerr;
    auto ev = resolve_event(cpc->machine, event, {attrs, nattrs}, &rerr);
    if (!ev) {
        report(cpc, fn, rerr.subcode, "%s", rerr.message.c_str());
        errno = EINVAL;
        return -1;
    }
    if (int e = cpc->machine.probe(ev->attr)) {
        report(cpc, fn, CPC_INVALID_EVENT, "%s",
               why_not_countable(cpc->machine, event, e, ev->attr.type).c_str());
        errno = EINVAL;
        return -1;
    }
    Request r;
    r.event = event;
    r.preset = preset;
    r.flags = flags;
    r.attr = ev->attr;
    for (uint_t i = 0; i < nattrs; ++i) {
        r.attr_names.emplace_back(attrs[i].ca_name);
        r.attr_values.push_back(attrs[i].ca_val);
    }
    set->requests.push_back(std::move(r));
    return static_cast<int>(set->requests.size()) - 1;
}

int cpc_set_request_preset(cpc_t *cpc, cpc_set_t *set, int index, uint64_t preset) {
    if (!set_in_handle(cpc, set) || index < 0 || index >= static_cast<int>(set->requests.size())) {
        errno = EINVAL;
        return -1;
    }
    set->requests[index].preset = preset;
    return 0;
}

void cpc_walk_requests(cpc_t *cpc, cpc_set_t *set, void *arg,
                       void (*action)(void *, int, const char *, uint64_t, uint_t, int,
                                      const cpc_attr_t *)) {
    if (!set_in_handle(cpc, set) || action == nullptr)
        return;
    // illumos keeps requests newest first and walks them in that order.
    for (int i = static_cast<int>(set->requests.size()) - 1; i >= 0; --i) {
        const Request &r = set->requests[i];
        std::vector<cpc_attr_t> attrs(r.attr_names.size());
        for (size_t k = 0; k < attrs.size(); ++k)
            attrs[k] = {const_cast<char *>(r.attr_names[k].c_str()), r.attr_values[k]};
        action(arg, i, r.event.c_str(), r.preset, r.flags, static_cast<int>(attrs.size()),
               attrs.empty() ? nullptr : attrs.data());
    }
}

} // extern "C"
