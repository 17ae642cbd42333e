// SPDX-License-Identifier: MIT
// The exec family, interposed.
#include "profiler/agent/channel.h"
#include "profiler/agent/drain.h"
#include "profiler/agent/overflow_signal.h"
#include "profiler/agent/process.h"
#include "profiler/agent/state.h"

#include "profiler/protocol/elf_static.h"
#include "profiler/protocol/protocol.h"

#include "base/clock.h"

#include "base/computed_once.h"

#include <dlfcn.h>
#include <libcpc.h>
#include <sched.h>
#include <spawn.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace cpcprof::agent;

// exec: the kernel removes the counters (remove_on_exec) and the new image
// starts with an agent of its own, so what the rings hold - up to the
// drain thread's last 10 ms, the program's last moments before the exec -
// is sent first.  Sampling stops in every thread (the image's other
// threads are sampled until the exec ends them), the handlers still
// running are waited for, then the rings are emptied from this thread.
// An exec that fails resumes sampling.  Not in a vfork child, whose memory
// is its parent's; posix_spawn and system() start their programs that way,
// as children, and leave this image running.
//
// Known limit: an exec called from a signal handler that interrupted
// malloc in the same thread can deadlock here (the flush allocates).
namespace {

using execve_fn = int (*)(const char *, char *const[], char *const[]);
using execvpe_fn = int (*)(const char *, char *const[], char *const[]);
using fexecve_fn = int (*)(int, char *const[], char *const[]);
using execveat_fn = int (*)(int, const char *, char *const[], char *const[], int);
execve_fn g_execve = nullptr;
execvpe_fn g_execvpe = nullptr;
fexecve_fn g_fexecve = nullptr;
execveat_fn g_execveat = nullptr;

__attribute__((constructor(101))) void resolve_exec() {
    g_execve = reinterpret_cast<execve_fn>(dlsym(RTLD_NEXT, "execve"));
    g_execvpe = reinterpret_cast<execvpe_fn>(dlsym(RTLD_NEXT, "execvpe"));
    g_fexecve = reinterpret_cast<fexecve_fn>(dlsym(RTLD_NEXT, "fexecve"));
    g_execveat = reinterpret_cast<execveat_fn>(dlsym(RTLD_NEXT, "execveat"));
}

bool this_image() {
    return sampling() && getpid() == agent_pid();
}

// True when it stopped sampling (to resume if the exec fails).
bool flush_before_exec() {
    if (!this_image() || !channel_open())
        return false;
    State &s = state();
    if (!s.armed.exchange(false, std::memory_order_seq_cst))
        return false;
    // A handler past its check of `armed` finishes its sample first;
    // bounded, for a thread that is stopped in its handler.
    const int64_t give_up = cpcprof::base::monotonic_ns() + 20 * cpcprof::base::kNsPerMillisecond;
    for (int i = 0; i < slot_bound(); ++i) {
        Slot &slot = s.slots[i];
        if (slot.tid.load(std::memory_order_acquire) == 0)
            continue;
        while (slot.in_handler.load(std::memory_order_seq_cst)) {
            if (cpcprof::base::monotonic_ns() > give_up)
                break;
            sched_yield();
        }
    }
    drain_once(true);
    // This image's threads without counters are said now: the new image
    // starts its own count (and a failed exec, from zero).
    report_unsampled_threads();
    s.threads_unsampled_no_counters.store(0);
    s.unsampled_cpu_ns_no_counters.store(0);
    return true;
}

void resume_after_failed_exec(bool stopped) {
    int e = errno;
    if (stopped && channel_open())
        state().armed.store(true, std::memory_order_release);
    errno = e;
}

// The environment a program hands to exec names the channel by number; it
// may have been copied before the channel moved (dup2 onto it, fds.cpp).
class ExecEnv {
  public:
    explicit ExecEnv(char *const *envp) : envp_(envp) {
        if (envp == nullptr || envp == environ || !channel_moved() || !this_image())
            return;
        const std::string key = std::string(cpcprof::proto::kEnvChannel) + "=";
        entry_ = key + std::to_string(channel_fd());
        for (char *const *e = envp; *e != nullptr; ++e)
            copy_.push_back(std::strncmp(*e, key.c_str(), key.size()) == 0 ? entry_.data() : *e);
        copy_.push_back(nullptr);
        envp_ = copy_.data();
    }
    char *const *get() const { return envp_; }

  private:
    char *const *envp_;
    std::string entry_;
    std::vector<char *> copy_;
};

// A statically linked program never loads the agent: said before the
// exec, with the file's name, so that the recorder does not take the
// silence that follows for a lost channel.
void say_if_static(const char *file, bool search) {
    if (file == nullptr || !reporting() || getpid() != agent_pid() || !channel_open())
        return;
    char path[4096];
    if (!cpcprof::elf::resolve_in_path(file, search ? std::getenv("PATH") : "", path,
                                       sizeof path) ||
        !cpcprof::elf::is_static_elf(path))
        return;
    send_unsampled(std::string("execs ") + path +
                   ", which is statically linked: the profiler cannot be loaded into it");
}

// The file a posix_spawn(p) child runs when it is statically linked.
bool static_spawn(const char *file, bool search, char *path, size_t n) {
    return file != nullptr && reporting() && getpid() == agent_pid() && channel_open() &&
           cpcprof::elf::resolve_in_path(file, search ? std::getenv("PATH") : "", path, n) &&
           cpcprof::elf::is_static_elf(path);
}

void say_static_spawn(const char *path, const pid_t *child) {
    if (child != nullptr)
        send_unsampled(std::string("runs ") + path +
                           ", which is statically linked: the profiler cannot be loaded into it",
                       *child);
}

// Counting in the kernel, an overflow inside the exec itself leaves its
// SIGTRAP pending for the new image, whose default action kills it (seen
// with bash exec'ing a script's interpreter): this thread's counters stop
// before the exec (the image's other threads end in it).  True when they
// did, to start again if the exec fails.
bool unbind_for_exec() {
    State &s = state();
    return s.cfg.kernel && s.set != nullptr && getpid() == agent_pid() &&
           cpc_unbind(s.cpc, s.set) == 0;
}

void rebind_after_failed_exec(bool unbound) {
    int e = errno;
    if (unbound)
        bind_this_thread(state());
    errno = e;
}

template <class F> int around_exec(F &&call) {
    bool stopped = flush_before_exec();
    bool unbound = unbind_for_exec();
    signals_before_exec(); // an ignored SIGTRAP stays ignored in the new image
    int rc = call();
    signals_after_failed_exec();
    rebind_after_failed_exec(unbound);
    resume_after_failed_exec(stopped);
    return rc;
}

int missing() {
    errno = ENOSYS;
    return -1;
}

// execl's arguments up to the terminating null pointer.
std::vector<char *> collect(const char *arg, va_list ap) {
    std::vector<char *> argv{const_cast<char *>(arg)};
    while (argv.back() != nullptr)
        argv.push_back(va_arg(ap, char *));
    return argv;
}

} // namespace

extern "C" __attribute__((visibility("default"))) int execve(const char *path, char *const argv[],
                                                             char *const envp[]) noexcept {
    ExecEnv env(envp);
    say_if_static(path, false);
    return around_exec([&] { return g_execve ? g_execve(path, argv, env.get()) : missing(); });
}

extern "C" __attribute__((visibility("default"))) int execvpe(const char *file, char *const argv[],
                                                              char *const envp[]) noexcept {
    ExecEnv env(envp);
    say_if_static(file, true);
    return around_exec([&] { return g_execvpe ? g_execvpe(file, argv, env.get()) : missing(); });
}

extern "C" __attribute__((visibility("default"))) int execv(const char *path,
                                                            char *const argv[]) noexcept {
    say_if_static(path, false);
    return around_exec([&] { return g_execve ? g_execve(path, argv, environ) : missing(); });
}

extern "C" __attribute__((visibility("default"))) int execvp(const char *file,
                                                             char *const argv[]) noexcept {
    say_if_static(file, true);
    return around_exec([&] { return g_execvpe ? g_execvpe(file, argv, environ) : missing(); });
}

extern "C" __attribute__((visibility("default"))) int fexecve(int fd, char *const argv[],
                                                              char *const envp[]) noexcept {
    ExecEnv env(envp);
    return around_exec([&] { return g_fexecve ? g_fexecve(fd, argv, env.get()) : missing(); });
}

extern "C" __attribute__((visibility("default"))) int
execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags) noexcept {
    ExecEnv env(envp);
    return around_exec(
        [&] { return g_execveat ? g_execveat(dirfd, path, argv, env.get(), flags) : missing(); });
}

extern "C" __attribute__((visibility("default"))) int execl(const char *path, const char *arg,
                                                            ...) noexcept {
    va_list ap;
    va_start(ap, arg);
    std::vector<char *> argv = collect(arg, ap);
    va_end(ap);
    return execv(path, argv.data());
}

extern "C" __attribute__((visibility("default"))) int execlp(const char *file, const char *arg,
                                                             ...) noexcept {
    va_list ap;
    va_start(ap, arg);
    std::vector<char *> argv = collect(arg, ap);
    va_end(ap);
    return execvp(file, argv.data());
}

extern "C" __attribute__((visibility("default"))) int execle(const char *path, const char *arg,
                                                             ...) noexcept {
    va_list ap;
    va_start(ap, arg);
    std::vector<char *> argv = collect(arg, ap);
    char *const *envp = va_arg(ap, char *const *);
    va_end(ap);
    return execve(path, argv.data(), envp);
}

// posix_spawn(p) starts its program in a vfork child, which runs none of
// the wrappers above: a statically linked program is said from here, with
// the child's pid.
using spawn_fn = int (*)(pid_t *, const char *, const posix_spawn_file_actions_t *,
                         const posix_spawnattr_t *, char *const[], char *const[]);

extern "C" __attribute__((visibility("default"))) int
posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
            const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
    static std::atomic<spawn_fn> slot{nullptr};
    spawn_fn real = cpcprof::base::computed_once(slot, spawn_fn{nullptr}, [] {
        return reinterpret_cast<spawn_fn>(dlsym(RTLD_NEXT, "posix_spawn"));
    });
    if (real == nullptr)
        return ENOSYS;
    char file[4096];
    bool is_static = static_spawn(path, false, file, sizeof file);
    int rc = real(pid, path, actions, attr, argv, envp);
    if (rc == 0 && is_static)
        say_static_spawn(file, pid);
    return rc;
}

extern "C" __attribute__((visibility("default"))) int
posix_spawnp(pid_t *pid, const char *name, const posix_spawn_file_actions_t *actions,
             const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
    static std::atomic<spawn_fn> slot{nullptr};
    spawn_fn real = cpcprof::base::computed_once(slot, spawn_fn{nullptr}, [] {
        return reinterpret_cast<spawn_fn>(dlsym(RTLD_NEXT, "posix_spawnp"));
    });
    if (real == nullptr)
        return ENOSYS;
    char file[4096];
    bool is_static = static_spawn(name, true, file, sizeof file);
    int rc = real(pid, name, actions, attr, argv, envp);
    if (rc == 0 && is_static)
        say_static_spawn(file, pid);
    return rc;
}
