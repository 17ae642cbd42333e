// SPDX-License-Identifier: MIT
// Owner of one file descriptor: closed when the owner goes away.
// (perfetto include/perfetto/ext/base/scoped_file.h has the same shape.)
#pragma once

#include <unistd.h>

#include <utility>

namespace cpcprof::base {

class ScopedFd {
  public:
    ScopedFd() = default;
    explicit ScopedFd(int fd) : fd_(fd) {}
    ScopedFd(ScopedFd &&o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
    ScopedFd &operator=(ScopedFd &&o) noexcept {
        if (this != &o)
            reset(std::exchange(o.fd_, -1));
        return *this;
    }
    ScopedFd(const ScopedFd &) = delete;
    ScopedFd &operator=(const ScopedFd &) = delete;
    ~ScopedFd() { reset(); }

    // [async-signal-safe]
    int get() const { return fd_; }
    // [async-signal-safe]
    bool valid() const { return fd_ >= 0; }
    // [async-signal-safe] close(2) only; errno is left as close(2) leaves it.
    void reset(int fd = -1) {
        if (fd_ >= 0)
            ::close(fd_);
        fd_ = fd;
    }
    // The descriptor, no longer owned.  [async-signal-safe]
    int release() { return std::exchange(fd_, -1); }

  private:
    int fd_ = -1;
};

} // namespace cpcprof::base
