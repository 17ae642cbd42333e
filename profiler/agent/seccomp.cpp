// SPDX-License-Identifier: MIT
#include "profiler/agent/seccomp.h"
#include "profiler/agent/state.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstring>

namespace cpcprof::agent {

namespace {

std::atomic<bool> g_filtered{false};

// The "Seccomp:" field of /proc/self/status: 0 none, 1 strict, 2 filter.
int status_mode() {
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    const char *p = std::strstr(buf, "\nSeccomp:");
    if (p == nullptr)
        return 0;
    p += std::strlen("\nSeccomp:");
    while (*p == ' ' || *p == '\t')
        ++p;
    return *p >= '0' && *p <= '9' ? *p - '0' : 0;
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
    if (status_mode() != 0)
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
