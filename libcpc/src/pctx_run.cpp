// SPDX-License-Identifier: MIT
// pctx_run: the event loop.
//
// The controlled threads run freely; the tracer hears of them only at
// ptrace events.  Waiting is done without stealing anything from the
// program that uses libpctx: reports are peeked at with
// waitid(WNOWAIT | __WNOTHREAD) and only this handle's are consumed, so a
// child of the calling thread that is not traced keeps its exit status for
// its owner.  Between reports the loop sleeps in sigtimedwait(SIGCHLD),
// which SIGCHLD (sent to the tracer at every tracee stop) ends; SIGCHLD is
// blocked in the calling thread while pctx_run runs, and a SIGCHLD taken
// by another thread of the program is made up for by a 20 ms bound on
// the sleep.  Ticks come from the clock, never from stopping the target:
// a tick callback reads counters with cpc_set_sample while the thread
// runs.
#include "libcpc/src/pctx_proc.h"
#include "libcpc/src/pctx_ptrace.h"

#include "base/clock.h"

#include <sys/wait.h>
#include <time.h>

#include <cerrno>
#include <climits>
#include <csignal>
#include <vector>

namespace pctx {

namespace {

constexpr long kMaxSleepMs = 20;

using TickFn = int (*)(pctx_t *, pid_t, id_t, void *);

using cpcprof::base::monotonic_ms;

// SIGCHLD blocked in the calling thread for the life of the object.
class SigchldBlock {
  public:
    SigchldBlock() {
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, SIGCHLD);
        pthread_sigmask(SIG_BLOCK, &s, &saved_);
    }
    ~SigchldBlock() { pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }
    SigchldBlock(const SigchldBlock &) = delete;
    SigchldBlock &operator=(const SigchldBlock &) = delete;

  private:
    sigset_t saved_;
};

void sleep_for_sigchld(long ms) {
    if (ms <= 0)
        return;
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGCHLD);
    timespec ts{ms / 1000, (ms % 1000) * 1000000};
    sigtimedwait(&s, nullptr, &ts);
}

// Whether a waitable pid is a task of p's process or a child of it that
// the tracer has not heard of yet.
bool is_ours(const pctx_t *p, pid_t pid) {
    if (p->tasks.count(pid) || p->early.count(pid))
        return true;
    proc::Status st = proc::status(pid);
    return st.ok && st.tracer == p->tracer_tid && (st.tgid == p->pid || st.ppid == p->pid);
}

// The next report of one of p's tasks, without blocking.
bool next_report(const pctx_t *p, pid_t *tid, int *status) {
    siginfo_t si{};
    int flags = WEXITED | WSTOPPED | WNOHANG | WNOWAIT | __WALL | __WNOTHREAD;
    if (waitid(P_ALL, 0, &si, flags) != 0 || si.si_pid == 0)
        return false;
    if (is_ours(p, si.si_pid)) {
        *tid = si.si_pid;
        return waitpid(si.si_pid, status, __WALL | WNOHANG) == si.si_pid;
    }
    // Something else of this thread's is waitable first: ask for ours.
    std::vector<pid_t> mine;
    for (const auto &kv : p->tasks)
        mine.push_back(kv.first);
    for (pid_t t : mine) {
        if (waitpid(t, status, __WALL | WNOHANG) == t) {
            *tid = t;
            return true;
        }
    }
    return false;
}

void handle_report(pctx_t *p, pid_t tid, int status) {
    Stop s = decode(status);
    auto it = p->tasks.find(tid);
    if (it == p->tasks.end()) {
        // A new task whose creator's event is still to come, or the end of
        // a thread of an image that exec replaced.
        if (s.kind == Stop::dead)
            p->early.erase(tid);
        else
            p->early[tid] = status;
        return;
    }
    if (s.kind == Stop::dead) {
        on_death(p, tid, status);
        return;
    }
    Task &t = it->second;
    t.stopped = true;
    pid_t resume_tid = tid;
    switch (s.kind) {
    case Stop::event_stop:
        switch (s.event) {
        case PTRACE_EVENT_CLONE:
            on_clone(p, tid, static_cast<pid_t>(event_msg(tid)));
            break;
        case PTRACE_EVENT_FORK:
        case PTRACE_EVENT_VFORK:
            on_fork(p, tid, static_cast<pid_t>(event_msg(tid)));
            break;
        case PTRACE_EVENT_EXEC:
            on_exec(p, tid, static_cast<pid_t>(event_msg(tid)));
            break;
        case PTRACE_EVENT_EXIT:
            on_exit_stop(p, tid);
            break;
        default:
            break;
        }
        break;
    case Stop::group_stop:
        t.group_stop = true;
        break;
    case Stop::signal:
        t.resume_sig = s.sig;
        break;
    case Stop::trap:
    case Stop::dead:
        break;
    }
    // A failed callback leaves the thread where it stopped: let_go
    // detaches it from there, as illumos releases a stopped process.
    auto again = p->tasks.find(resume_tid);
    if (p->running == 1 && again != p->tasks.end() && again->second.stopped)
        resume(resume_tid, again->second);
}

std::vector<pid_t> live_threads(const pctx_t *p) {
    std::vector<pid_t> out;
    for (const auto &[tid, t] : p->tasks)
        if (!t.exiting)
            out.push_back(tid);
    return out;
}

// illumos pctx_run timing: a tick every msec ms; goals missed while the
// loop was busy are skipped and counted against nsamples (but the last).
struct Ticker {
    unsigned msec = 0;
    unsigned left = 0;
    int64_t goal = 0;

    Ticker(unsigned ms, unsigned n) : msec(ms), left(ms == 0 ? 0 : (n == 0 ? UINT_MAX : n)) {
        goal = monotonic_ms() + ms;
    }
    bool enabled() const { return msec != 0; }
    long ms_left() const { return enabled() ? static_cast<long>(goal - monotonic_ms()) : LONG_MAX; }
    // Moves to the next goal after a tick; false when nsamples are done.
    bool advance() {
        goal += msec;
        while (monotonic_ms() >= goal) {
            goal += msec;
            if (left > 1)
                --left;
        }
        return --left != 0;
    }
};

void run_ticks(pctx_t *p, TickFn tick, Ticker &ticker) {
    for (pid_t tid : live_threads(p)) {
        if (p->running != 1 || p->tasks.count(tid) == 0)
            break;
        if (call_tick(p, tick, tid) != 0)
            p->running = -1;
    }
    if (p->running == 1 && !ticker.advance())
        p->running = 0;
}

// illumos delivers init_lwp for every thread of a process it has just
// "discovered", then sets it running.
bool start(pctx_t *p) {
    for (pid_t tid : live_threads(p)) {
        if (call_init_lwp(p, tid) != 0)
            return false;
    }
    for (auto &[tid, t] : p->tasks)
        if (t.stopped)
            resume(tid, t);
    return true;
}

} // namespace

} // namespace pctx

using namespace pctx;

extern "C" int pctx_run(pctx_t *p, unsigned int msec, unsigned int nsamples, TickFn tick) {
    static const char fn[] = "run";
    if (!valid(p)) {
        errno = EINVAL;
        return -1;
    }
    if (p->in_run || p->phase != Phase::attached || !is_tracer(p)) {
        report(p, fn, "pid %d is not under control\n", p->pid);
        errno = p->in_run ? EBUSY : ESRCH;
        return -1;
    }
    if (!is_tracer_thread(p)) {
        report(p, fn, "pid %d is traced by thread %d: run it from there\n", p->pid, p->tracer_tid);
        errno = EINVAL;
        return -1;
    }
    SigchldBlock block;
    p->in_run = true;
    p->phase = Phase::running;
    p->running = 1;
    if (!start(p)) {
        if (p->verbose)
            report(p, fn, "%d: lwp discovery failed\n", p->pid);
        p->running = -1;
    }
    Ticker ticker(msec, nsamples);
    while (p->running == 1 && !p->terminate.load(std::memory_order_relaxed)) {
        if (ticker.enabled() && ticker.ms_left() <= 0) {
            run_ticks(p, tick, ticker);
            continue;
        }
        pid_t tid = 0;
        int status = 0;
        if (next_report(p, &tid, &status)) {
            handle_report(p, tid, status);
            continue;
        }
        sleep_for_sigchld(std::min(ticker.ms_left(), kMaxSleepMs));
    }
    if (p->phase != Phase::ended)
        let_go(p);
    p->in_run = false;
    if (p->terminate.load(std::memory_order_relaxed))
        return 0;
    return p->running == -1 ? -1 : 0;
}
