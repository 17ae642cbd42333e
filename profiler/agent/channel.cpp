#include "channel.h"

#include "state.h"

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <mutex>
#include <new>

namespace cpcprof::agent {

namespace {
std::mutex g_send_lock; // never taken in signal context
std::atomic<bool> g_gone{false};
} // namespace

bool channel_open() { return state().cfg.channel >= 0 && !g_gone.load(); }

bool send_message(const std::vector<char> &msg) {
    std::lock_guard<std::mutex> g(g_send_lock);
    int fd = state().cfg.channel;
    if (fd < 0 || g_gone.load())
        return false;
    for (;;) {
        ssize_t n = ::send(fd, msg.data(), msg.size(), MSG_NOSIGNAL);
        if (n == static_cast<ssize_t>(msg.size()))
            return true;
        if (n < 0 && errno == EINTR)
            continue;
        // EPIPE/ECONNRESET: the recorder is gone.  Stop sampling so that
        // the target runs on undisturbed.
        g_gone.store(true);
        state().armed.store(false, std::memory_order_release);
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
void channel_after_fork() { new (&g_send_lock) std::mutex; }

void close_channel() {
    std::lock_guard<std::mutex> g(g_send_lock);
    if (state().cfg.channel >= 0)
        ::close(state().cfg.channel);
    state().cfg.channel = -1;
}

} // namespace cpcprof::agent
