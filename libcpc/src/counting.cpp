// SPDX-License-Identifier: MIT
#include "libcpc/src/counting.h"

#include "libcpc/src/counting_perf.h"
#include "libcpc/src/counting_timer.h"

#include <cerrno>

#include <atomic>

namespace cpc {

namespace {

std::atomic<uint32_t> g_next_id{1};

} // namespace

std::unique_ptr<Counting> Counting::open(const BindSpec &spec, pid_t pid, int cpu, OpenError *err) {
    if (spec.backend == Backend::timer) {
        if (pid != 0) {
            if (err != nullptr)
                err->sys_errno = EOPNOTSUPP;
            return nullptr;
        }
        return TimerCounting::open(spec, err);
    }
    return PerfCounting::open(spec, pid, cpu, err);
}

Counting::Counting(const BindSpec &spec) : spec_(spec), presets_(spec.presets) {}

Counting::~Counting() = default;

void Counting::new_id() {
    id_ = g_next_id.fetch_add(1, std::memory_order_relaxed);
}

bool issued_trap_cookie(uint64_t cookie) {
    uint64_t id = cookie >> 8;
    return id != 0 && id < g_next_id.load(std::memory_order_relaxed);
}

int Counting::set_preset(int index, uint64_t preset) {
    if (index < 0 || index >= nreqs())
        return EINVAL;
    presets_[index] = preset;
    return 0;
}

BindSpec Counting::inherited_spec() const {
    BindSpec s = spec_;
    s.presets = presets_;
    return s;
}

} // namespace cpc
