// SPDX-License-Identifier: MIT
#include "profiler/agent/channel.h"

#include "profiler/agent/state.h"

#include "profiler/protocol/protocol.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <new>
#include <string>

namespace cpcprof::agent {

namespace {
std::mutex g_send_lock; // never taken in signal context
std::atomic<bool> g_gone{false};
// The descriptor number, read without the lock by the descriptor wrappers
// (fds.cpp); written under it.
std::atomic<int> g_fd{-1};
std::atomic<bool> g_moved{false};
// The socket's identity: a number the program has reused (it closed the
// channel with a raw system call) is not written to.
dev_t g_dev = 0;
ino_t g_ino = 0;

bool identify(int fd) {
    struct stat st;
    int type = 0;
    socklen_t len = sizeof type;
    if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode) ||
        getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_SEQPACKET)
        return false;
    g_dev = st.st_dev;
    g_ino = st.st_ino;
    return true;
}

bool still_ours(int fd) {
    struct stat st;
    return fstat(fd, &st) == 0 && st.st_dev == g_dev && st.st_ino == g_ino;
}

void gone() {
    // EPIPE/ECONNRESET: the recorder is gone; EBADF or another file: the
    // program took the descriptor.  Stop sampling so that the target
    // runs on undisturbed.
    g_gone.store(true);
    state().armed.store(false, std::memory_order_release);
}
} // namespace

bool channel_init(int fd) {
    if (!identify(fd))
        return false;
    g_fd.store(fd);
    return true;
}

int channel_fd() {
    return g_fd.load(std::memory_order_relaxed);
}

bool channel_moved() {
    return g_moved.load(std::memory_order_relaxed);
}

bool channel_open() {
    return g_fd.load() >= 0 && !g_gone.load();
}

bool send_message(const std::vector<char> &msg) {
    std::lock_guard<std::mutex> g(g_send_lock);
    int fd = g_fd.load();
    if (fd < 0 || g_gone.load())
        return false;
    if (!still_ours(fd)) {
        gone();
        return false;
    }
    for (;;) {
        ssize_t n = ::send(fd, msg.data(), msg.size(), MSG_NOSIGNAL);
        if (n == static_cast<ssize_t>(msg.size()))
            return true;
        if (n < 0 && errno == EINTR)
            continue;
        gone();
        return false;
    }
}

void send_error(const std::string &text) {
    proto::Writer w(proto::Type::error);
    w.put(static_cast<int32_t>(getpid()));
    w.put_string(text);
    send_message(w.finish());
}

// A fresh mutex in the old one's storage: std::mutex's destructor is
// trivial in libstdc++, and no other thread exists to hold it.
void channel_after_fork() {
    new (&g_send_lock) std::mutex;
}

void close_channel() {
    std::lock_guard<std::mutex> g(g_send_lock);
    int fd = g_fd.exchange(-1);
    if (fd >= 0)
        syscall(SYS_close, fd);
}

bool move_channel() {
    int saved = errno;
    std::lock_guard<std::mutex> g(g_send_lock);
    int fd = g_fd.load();
    if (fd < 0)
        return true;
    int flags = fcntl(fd, F_GETFD);
    int to = fcntl(fd, (flags & FD_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD, fd + 1);
    if (to < 0)
        to = fcntl(fd, (flags & FD_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD, 3);
    if (to < 0) {
        errno = saved;
        return false;
    }
    g_fd.store(to);
    syscall(SYS_close, fd);
    g_moved.store(true);
    // Programs started later (through the environment) find it there.
    if (std::getenv(proto::kEnvChannel) != nullptr)
        setenv(proto::kEnvChannel, std::to_string(to).c_str(), 1);
    errno = saved;
    return true;
}

} // namespace cpcprof::agent
