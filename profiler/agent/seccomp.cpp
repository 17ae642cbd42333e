// SPDX-License-Identifier: MIT
#include "profiler/agent/seccomp.h"
#include "profiler/agent/state.h"
#include "profiler/protocol/protocol.h"

#include "base/seccomp_status.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdlib>
#include <cstring>

namespace cpcprof::agent {

namespace {

std::atomic<bool> g_filtered{false};

// Whether the filters this process runs under are exactly those the
// recorder ran under (proto::kEnvSeccompFilters): a container's, which
// answered the recorder's own perf_event_open with an error, not a kill.
bool vouched_for(const base::SeccompStatus &st) {
    const char *env = std::getenv(proto::kEnvSeccompFilters);
    if (env == nullptr || st.mode != 2 || st.filters <= 0)
        return false;
    char *end = nullptr;
    long n = std::strtol(env, &end, 10);
    return end != env && *end == '\0' && n == st.filters;
}

using prctl_fn = int (*)(int, unsigned long, unsigned long, unsigned long, unsigned long);
prctl_fn g_prctl = nullptr;

__attribute__((constructor(101))) void resolve() {
    g_prctl = reinterpret_cast<prctl_fn>(dlsym(RTLD_NEXT, "prctl"));
}

} // namespace

bool seccomp_known() {
    return g_filtered.load(std::memory_order_relaxed);
}

void note_seccomp() {
    g_filtered.store(true, std::memory_order_relaxed);
}

bool under_seccomp() {
    if (seccomp_known())
        return true;
    base::SeccompStatus st = base::read_seccomp_status();
    if (st.mode != 0 && !vouched_for(st))
        note_seccomp();
    return seccomp_known();
}

} // namespace cpcprof::agent

using namespace cpcprof::agent;

extern "C" __attribute__((visibility("default"))) int prctl(int option, ...) noexcept {
    va_list ap;
    va_start(ap, option);
    unsigned long a[4];
    for (unsigned long &x : a)
        x = va_arg(ap, unsigned long);
    va_end(ap);
    if (option == PR_SET_SECCOMP)
        note_seccomp();
    auto real =
        g_prctl != nullptr ? g_prctl : reinterpret_cast<prctl_fn>(dlsym(RTLD_NEXT, "prctl"));
    int rc = real(option, a[0], a[1], a[2], a[3]);
    if (option == PR_SET_NAME && rc == 0)
        note_thread_name(pthread_self(), reinterpret_cast<const char *>(a[0]));
    return rc;
}
