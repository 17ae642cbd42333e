// SPDX-License-Identifier: MIT
// The calling process's seccomp state, as /proc/self/status says it:
// "Seccomp:" (0 none, 1 strict, 2 filter) and "Seccomp_filters:" (how many
// filters are installed, Linux 5.9 and later).  Reads the file with
// open/read into a stack buffer: no allocation, usable in a fork child of
// a threaded program.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

namespace cpcprof::base {

struct SeccompStatus {
    int mode = 0;     // 0 none, 1 strict, 2 filter
    int filters = -1; // -1: the kernel does not say
};

inline SeccompStatus read_seccomp_status() {
    SeccompStatus st;
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return st;
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return st;
    buf[n] = '\0';
    auto field = [&buf](const char *name) {
        const char *p = std::strstr(buf, name);
        if (p == nullptr)
            return -1;
        p += std::strlen(name);
        while (*p == ' ' || *p == '\t')
            ++p;
        int v = 0;
        if (*p < '0' || *p > '9')
            return -1;
        while (*p >= '0' && *p <= '9')
            v = v * 10 + (*p++ - '0');
        return v;
    };
    int mode = field("\nSeccomp:");
    st.mode = mode < 0 ? 0 : mode;
    st.filters = field("\nSeccomp_filters:");
    return st;
}

} // namespace cpcprof::base
