// SPDX-License-Identifier: MIT
// The agent's process: its mode, its pid, and the messages about it
// (process.h).
#include "profiler/agent/process.h"

#include "profiler/agent/channel.h"
#include "profiler/agent/signals.h"

#include "profiler/protocol/protocol.h"

#include "base/clock.h"
#include "base/scoped_fd.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace cpcprof::agent {

namespace {

constinit Mode g_mode = Mode::off;
constinit std::atomic<pid_t> g_pid{0}; // this process, as the agent set it up

} // namespace

Mode mode() {
    return g_mode;
}

void set_mode(Mode m) {
    g_mode = m;
}

bool sampling() {
    return g_mode == Mode::sampled;
}

bool reporting() {
    return g_mode != Mode::off;
}

bool signals_guarded() {
    return g_mode == Mode::sampled;
}

pid_t agent_pid() {
    return g_pid.load();
}

void set_agent_pid() {
    g_pid.store(getpid());
}

// The main thread's name (the process's, /proc/self/comm).
std::string process_name() {
    char buf[64] = {};
    FILE *f = std::fopen("/proc/self/comm", "r");
    if (f != nullptr) {
        if (std::fgets(buf, sizeof buf, f) == nullptr)
            buf[0] = '\0';
        std::fclose(f);
    }
    std::string s(buf);
    if (!s.empty() && s.back() == '\n')
        s.pop_back();
    return s;
}

namespace {

// The executable, read once per image: a fork child runs its parent's.
const std::string &executable() {
    static const std::string exe = [] {
        char buf[4096];
        ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
        return n > 0 ? std::string(buf, size_t(n)) : std::string();
    }();
    return exe;
}

// A hello's fields after the pid: parent, start time, executable and
// arguments (read again in a fork child: a program may retitle itself).
void put_hello_fields(proto::Writer &w) {
    w.put(static_cast<int32_t>(getppid()));
    w.put(base::monotonic_ns()); // the same clock in every process
    w.put_string(executable());
    // Read with read(2): an ifstream's first use sets up the C++ locale,
    // a tenth of a millisecond at every process's start.
    std::string text;
    if (base::ScopedFd fd(open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC)); fd.valid()) {
        char buf[4096];
        for (;;) {
            ssize_t got = read(fd.get(), buf, sizeof buf);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0)
                break;
            text.append(buf, static_cast<size_t>(got));
        }
    }
    std::vector<std::string> argv;
    for (size_t at = 0; at < text.size();) {
        size_t end = text.find('\0', at);
        if (end == std::string::npos)
            end = text.size();
        argv.emplace_back(text, at, end - at);
        at = end + 1;
    }
    w.put(static_cast<uint32_t>(argv.size()));
    for (const std::string &a : argv)
        w.put_string(a);
}

} // namespace

void send_hello() {
    proto::Writer w(proto::Type::hello);
    w.put(static_cast<int32_t>(getpid()));
    put_hello_fields(w);
    send_message(w.finish());
}

void send_bye(int exit_status) {
    proto::Writer w(proto::Type::bye);
    w.put(static_cast<int32_t>(getpid()));
    w.put(static_cast<int32_t>(exit_status));
    w.put(base::monotonic_ns()); // the same clock in every process
    send_message(w.finish());
}

void send_unsampled(const std::string &reason, pid_t pid) {
    proto::Writer w(proto::Type::unsampled);
    w.put(static_cast<int32_t>(pid != 0 ? pid : getpid()));
    w.put_string(reason);
    send_message(w.finish());
}

void send_unsampled_instead_of_hello(const std::string &reason) {
    proto::Writer w(proto::Type::unsampled);
    w.put(static_cast<int32_t>(getpid()));
    w.put_string(reason);
    put_hello_fields(w);
    send_message(w.finish());
}

} // namespace cpcprof::agent
