// SPDX-License-Identifier: MIT
// cputrack(1): counts events in every thread of one process, and with -f
// of the processes it forks, through libpctx and cpc_bind_pctx.
//
// Each thread gets, at its init_lwp, one set per -c specification from
// the one libcpc handle; the first is bound and the others take turns at
// each tick (binding a set takes the thread from the one bound before, and
// counting starts again from 0).  Totals are kept here, per thread and per
// program image, as plain numbers.
//
// With -f, libpctx forks one controlling process per followed child and
// runs the fork callback there: it starts over with an empty process state
// and runs the child.  Every controlling process holds the write end of a
// pipe ("alive") that the first one reads to its end before it exits, so
// that all output is written when cputrack returns; and watches another
// ("stop") whose write end only the first one holds: closing it (SIGINT,
// SIGTERM, or the first one dying) makes every controller let its process
// go.
#include "base/args.h"
#include "base/clock.h"
#include "base/paths.h"
#include "profiler/tools/caps.h"
#include "profiler/tools/cpc_messages.h"
#include "profiler/tools/cputrack_format.h"
#include "profiler/tools/cputrack_options.h"
#include "profiler/tools/eventspec.h"

#include <libcpc.h>
#include <libpctx.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <map>
#include <memory>
#include <pthread.h>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using namespace cpcprof::tools;

const char *const kProg = "cputrack";

// ---- messages ----

// libcpc's message for the call that just failed, or errno's.
std::string failure_text() {
    int saved = errno;
    std::string m = cpcprof::tools::take_message();
    return m.empty() ? std::strerror(saved) : m;
}

void pctx_errfn(const char *fn, const char *fmt, va_list ap) {
    std::fprintf(stderr, "%s: ", kProg);
    if (cpcprof::tools::message_debug())
        std::fprintf(stderr, "%s: ", fn);
    std::vfprintf(stderr, fmt, ap);
}

[[noreturn]] void usage_error(const std::string &why) {
    std::exit(cpcprof::base::usage_error_then(kProg, why, kCputrackUsage));
}

// ---- the output file ----

// -o: written to a temporary file beside the named one, renamed at the
// end, so that a run that fails leaves no file that looks complete.
// Controlling processes forked by libpctx share the open file and leave
// with _exit, never through the destructor.
class Output {
  public:
    ~Output() {
        if (file_ != nullptr && file_ != stdout) {
            std::fclose(file_);
            unlink(temp_.c_str());
        }
    }
    bool open(const std::string &path) {
        if (path.empty()) {
            file_ = stdout;
            return true;
        }
        path_ = path;
        std::string dir = cpcprof::base::dir_prefix(path);
        std::string base = cpcprof::base::base_name(path);
        temp_ = dir + "." + base + ".XXXXXX";
        int fd = mkostemp(temp_.data(), O_CLOEXEC);
        if (fd < 0)
            return false;
        mode_t mask = umask(0);
        umask(mask);
        fchmod(fd, 0666 & ~mask); // as fopen(3) would create it
        file_ = fdopen(fd, "w");
        if (file_ == nullptr) {
            close(fd);
            unlink(temp_.c_str());
        }
        return file_ != nullptr;
    }
    FILE *file() const { return file_; }
    // Renames the file into place; false (with errno) if it cannot be
    // written completely.
    bool commit() {
        if (file_ == stdout)
            return std::fflush(stdout) == 0;
        bool ok = std::fflush(file_) == 0 && !std::ferror(file_);
        int e = errno;
        ok = std::fclose(file_) == 0 && ok;
        file_ = nullptr;
        if (ok && rename(temp_.c_str(), path_.c_str()) == 0)
            return true;
        e = e != 0 ? e : errno;
        unlink(temp_.c_str());
        errno = e;
        return false;
    }

  private:
    FILE *file_ = nullptr;
    std::string path_, temp_;
};

// ---- what the whole run shares ----

struct Tool {
    CputrackOptions opts;
    std::vector<EventSpec> specs;
    CputrackLayout layout;
    FILE *out = stdout;
    cpc_t *cpc = nullptr;
    int64_t zero_ns = 0;
    bool failed = false; // a callback reported an error
};
Tool g;

// CLOCK_MONOTONIC: libcpc's hrtime base.
int64_t now_ns() {
    return cpcprof::base::monotonic_ns();
}

// Seconds since the start; 0 = now.
double secs(int64_t hrtime) {
    return double((hrtime != 0 ? hrtime : now_ns()) - g.zero_ns) / 1e9;
}

void emit(const std::string &line) {
    std::fputs(line.c_str(), g.out);
    std::fflush(g.out);
}

// The " # spec" of set s when there are several.
std::string_view suffix(size_t s) {
    return g.specs.size() > 1 ? std::string_view(g.specs[s].text) : std::string_view();
}

struct Counts {
    int64_t hrtime = 0; // 0: never sampled
    uint64_t tick = 0;
    std::vector<uint64_t> v;

    void add(const Counts &o) {
        hrtime = std::max(hrtime, o.hrtime);
        tick += o.tick;
        v.resize(std::max(v.size(), o.v.size()), 0);
        for (size_t i = 0; i < o.v.size(); ++i)
            v[i] += o.v[i];
    }
    Counts since(const Counts &before) const {
        Counts d = *this;
        d.tick -= before.tick;
        for (size_t i = 0; i < d.v.size() && i < before.v.size(); ++i)
            d.v[i] -= before.v[i];
        return d;
    }
};

void emit_sample(pid_t pid, id_t lwp, const char *label, const Counts &c, size_t s) {
    emit(g.layout.sample(secs(c.hrtime), pid, long(lwp), label, c.tick, c.v, suffix(s)));
}

// ---- one thread's sets ----

class LwpSets {
  public:
    LwpSets() = default;
    LwpSets(const LwpSets &) = delete;
    LwpSets &operator=(const LwpSets &) = delete;
    ~LwpSets() {
        for (cpc_buf_t *b : bufs_)
            cpc_buf_destroy(g.cpc, b);
        for (cpc_set_t *s : sets_)
            cpc_set_destroy(g.cpc, s); // unbinds
    }

    bool create(const std::vector<EventSpec> &specs) {
        for (const EventSpec &spec : specs) {
            sets_.push_back(cpc_set_create(g.cpc));
            if (sets_.back() == nullptr)
                return false;
            indices_.emplace_back();
            if (add_to_set(g.cpc, sets_.back(), spec, &indices_.back()) != 0)
                return false;
            bufs_.push_back(cpc_buf_create(g.cpc, sets_.back()));
            if (bufs_.back() == nullptr)
                return false;
        }
        total.assign(sets_.size(), Counts{});
        return true;
    }
    bool bind(pctx_t *pctx, id_t lwp, size_t s) {
        if (cpc_bind_pctx(g.cpc, pctx, lwp, sets_[s], 0) != 0)
            return false;
        cur = s;
        return true;
    }
    bool sample(Counts *c) {
        if (cpc_set_sample(g.cpc, sets_[cur], bufs_[cur]) != 0)
            return false;
        c->hrtime = cpc_buf_hrtime(g.cpc, bufs_[cur]);
        c->tick = cpc_buf_tick(g.cpc, bufs_[cur]);
        c->v.assign(indices_[cur].size(), 0);
        for (size_t i = 0; i < indices_[cur].size(); ++i)
            cpc_buf_get(g.cpc, bufs_[cur], indices_[cur][i], &c->v[i]);
        return true;
    }
    void unbind() { cpc_unbind(g.cpc, sets_[cur]); }

    size_t cur = 0;            // the set bound
    std::vector<Counts> total; // per set: one set, its last sample; several, the sum of turns
    Counts last;               // one set: the sample the next tick is counted from
    Counts at_init;

  private:
    std::vector<cpc_set_t *> sets_;
    std::vector<std::vector<int>> indices_;
    std::vector<cpc_buf_t *> bufs_;
};

// ---- one process (one program image at a time) ----

struct Process {
    std::map<id_t, std::unique_ptr<LwpSets>> lwps;
    std::vector<Counts> image; // per set: the threads of this image that ended
    bool stopped_at_exec = false;

    void reset() {
        lwps.clear();
        image.assign(g.specs.size(), Counts{});
    }
    LwpSets *find(id_t lwp) {
        auto it = lwps.find(lwp);
        return it == lwps.end() ? nullptr : it->second.get();
    }
    static Process &of(void *arg) { return *static_cast<Process *>(arg); }
};
Process g_process;

// The "%6d: <where>: lwp%d: ..." report of a failed sample.
int sample_failed(pid_t pid, id_t lwp, const char *where, const char *access) {
    int e = errno;
    std::string why = failure_text();
    if (e == EAGAIN)
        std::fprintf(stderr, "%6d: %s: lwp%d: perf counter contents invalidated\n", int(pid), where,
                     int(lwp));
    else
        std::fprintf(stderr, "%6d: %s: lwp%d: can't access %s - %s\n", int(pid), where, int(lwp),
                     access, why.c_str());
    g.failed = true;
    return -1;
}

int on_init_lwp(pctx_t *pctx, pid_t pid, id_t lwp, void *arg) {
    Process &p = Process::of(arg);
    auto sets = std::make_unique<LwpSets>();
    Counts c;
    if (!sets->create(g.specs) || !sets->bind(pctx, lwp, 0) || !sets->sample(&c)) {
        std::string why = failure_text();
        std::fprintf(stderr, "%6d: init_lwp: can't bind perf counters to lwp%d - %s\n", int(pid),
                     int(lwp), why.c_str());
        g.failed = true;
        return -1;
    }
    sets->last = c;
    sets->at_init = c;
    if (g.opts.verbose)
        emit_sample(pid, lwp, "init_lwp", c, 0);
    p.lwps[lwp] = std::move(sets);
    return 0;
}

int on_tick(pctx_t *pctx, pid_t pid, id_t lwp, void *arg) {
    LwpSets *l = Process::of(arg).find(lwp);
    if (l == nullptr)
        return 0;
    Counts c;
    size_t s = l->cur;
    if (!l->sample(&c)) {
        int r = sample_failed(pid, lwp, "tick", "perf counter");
        l->unbind();
        return r;
    }
    if (g.specs.size() == 1) {
        emit_sample(pid, lwp, "tick", c.since(l->last), 0);
        l->last = c;
        return 0;
    }
    // This set's turn is over: the next one counts from 0 until the next tick.
    l->total[s].add(c);
    if (!l->bind(pctx, lwp, (s + 1) % g.specs.size())) {
        int r = sample_failed(pid, lwp, "tick", "perf counter");
        l->unbind();
        return r;
    }
    emit_sample(pid, lwp, "tick", c, s);
    return 0;
}

int on_fini_lwp(pctx_t *, pid_t pid, id_t lwp, void *arg) {
    Process &p = Process::of(arg);
    LwpSets *l = p.find(lwp);
    if (l == nullptr)
        return 0;
    Counts c;
    size_t s = l->cur;
    if (!l->sample(&c))
        return sample_failed(pid, lwp, "fini_lwp", "perf counters");
    if (g.specs.size() == 1)
        l->total[0] = c;
    else
        l->total[s].add(c);
    if (g.opts.verbose)
        emit_sample(pid, lwp, "fini_lwp", l->total[s], s);
    for (size_t k = 0; k < l->total.size(); ++k)
        if (l->total[k].hrtime != 0)
            p.image[k].add(l->total[k]);
    l->unbind();
    return 0;
}

int on_lwp_create(pctx_t *, pid_t pid, id_t lwp, void *arg) {
    if (LwpSets *l = Process::of(arg).find(lwp))
        emit_sample(pid, lwp, "lwp_create", l->at_init, 0);
    return 0;
}

int on_lwp_exit(pctx_t *, pid_t pid, id_t lwp, void *arg) {
    Process &p = Process::of(arg);
    if (LwpSets *l = p.find(lwp)) {
        for (size_t k = 0; k < l->total.size(); ++k)
            if (l->total[k].hrtime != 0)
                emit_sample(pid, lwp, "lwp_exit", l->total[k], k);
        p.lwps.erase(lwp);
    }
    return 0;
}

// Prints the totals of an image's threads, one line per set that counted;
// returns the latest sample time among them (0 if none).
int64_t emit_image(pid_t pid, id_t lwp, const char *label, const Process &p) {
    int64_t latest = 0;
    for (size_t k = 0; k < p.image.size(); ++k) {
        if (p.image[k].hrtime == 0)
            continue;
        emit_sample(pid, lwp, label, p.image[k], k);
        latest = std::max(latest, p.image[k].hrtime);
    }
    return latest;
}

int on_exec(pctx_t *, pid_t pid, id_t lwp, char *name, void *arg) {
    Process &p = Process::of(arg);
    int64_t latest = emit_image(pid, lwp, "exec", p);
    std::string quoted = std::string("'") + (name != nullptr ? name : "(unknown)") + "'";
    emit(g.layout.note(secs(latest), pid, long(lwp), "exec", g.specs[0].requests.size(), quoted));
    p.reset();
    if (g.opts.follow_exec)
        return 0;
    p.stopped_at_exec = true; // let it go: tracking ends at an exec without -e
    return -1;
}

void on_exit(pctx_t *, pid_t pid, id_t lwp, int, void *arg) {
    Process &p = Process::of(arg);
    emit_image(pid, lwp, "exit", p);
    p.reset();
}

// ---- stopping ----

std::atomic<pctx_t *> g_pctx{nullptr};
volatile sig_atomic_t g_interrupted = 0;
volatile sig_atomic_t g_stop_write = -1; // the first controller's end of "stop"
int g_stop_read = -1;
int g_alive_write = -1;

void on_signal(int) {
    g_interrupted = 1;
    if (pctx_t *p = g_pctx.load())
        pctx_terminate(p);
    int fd = g_stop_write;
    if (fd >= 0) {
        g_stop_write = -1;
        close(fd); // every other controller lets its process go
    }
}

// A controller forked for a child: lets its process go when the first
// controller closes "stop".
void watch_stop(pctx_t *pctx) {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
    char c;
    while (read(g_stop_read, &c, 1) < 0 && errno == EINTR) {
    }
    pctx_terminate(pctx);
}

int set_events(pctx_t *pctx);

void on_fork(pctx_t *pctx, pid_t oldpid, pid_t newpid, id_t lwp, void *arg) {
    // In a new controlling process, with a handle on the child.
    emit(g.layout.note(secs(0), oldpid, long(lwp), "fork", g.specs[0].requests.size(),
                       std::to_string(newpid)));
    if (!g.opts.follow_fork)
        return;
    Process &p = Process::of(arg);
    p.reset(); // the parent's threads are not ours (their sets were unbound by libcpc)
    p.stopped_at_exec = false;
    g_pctx.store(pctx);
    if (int fd = g_stop_write; fd >= 0) {
        g_stop_write = -1;
        close(fd);
    }
    std::thread(watch_stop, pctx).detach();
    if (g_interrupted == 0 && set_events(pctx) == 0)
        pctx_run(pctx, g.opts.interval_ms, g.opts.count, on_tick);
    p.reset();
}

int set_events(pctx_t *pctx) {
    return pctx_set_events(pctx, PCTX_SYSC_EXEC_EVENT, on_exec, PCTX_SYSC_FORK_EVENT, on_fork,
                           PCTX_SYSC_EXIT_EVENT, on_exit, PCTX_SYSC_LWP_CREATE_EVENT, on_lwp_create,
                           PCTX_INIT_LWP_EVENT, on_init_lwp, PCTX_FINI_LWP_EVENT, on_fini_lwp,
                           PCTX_SYSC_LWP_EXIT_EVENT, on_lwp_exit, PCTX_NULL_EVENT);
}

// ---- start ----

// Checks every specification: a syntax error is a usage error (exit 2); an
// event or attribute that libcpc refuses here exits 1 with libcpc's message.
std::vector<EventSpec> check_specs(const std::vector<std::string> &texts) {
    std::vector<std::string> attrs = spec_attr_names(g.cpc);
    std::vector<EventSpec> specs;
    for (const std::string &text : texts) {
        ParseResult r = parse_eventspec(text, attrs);
        if (!r.ok)
            usage_error("-c " + text + ": " + r.error);
        LwpSets trial;
        if (!trial.create({r.spec})) {
            std::string why = failure_text();
            std::fprintf(stderr, "%s: -c %s: %s\n", kProg, text.c_str(), why.c_str());
            std::exit(1);
        }
        specs.push_back(std::move(r.spec));
    }
    return specs;
}

// Waits until every controlling process forked for a child has ended.
void wait_for_controllers(int alive_read) {
    char c;
    for (;;) {
        ssize_t n = read(alive_read, &c, 1);
        if (n == 0 || (n < 0 && errno != EINTR))
            return;
    }
}

int track(Output &output) {
    int alive[2], stop[2];
    if (pipe2(alive, O_CLOEXEC) != 0 || pipe2(stop, O_CLOEXEC) != 0) {
        std::fprintf(stderr, "%s: cannot create a pipe - %s\n", kProg, std::strerror(errno));
        return 1;
    }
    g_alive_write = alive[1];
    g_stop_read = stop[0];
    g_stop_write = stop[1];
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);

    pctx_t *pctx = nullptr;
    const CputrackOptions &o = g.opts;
    if (o.pid == 0) {
        std::vector<char *> argv;
        for (const std::string &a : o.command)
            argv.push_back(const_cast<char *>(a.c_str()));
        argv.push_back(nullptr);
        pctx = pctx_create(argv[0], argv.data(), &g_process, 1, pctx_errfn);
        if (pctx == nullptr) {
            std::fprintf(stderr, "%s: failed to start program '%s'\n", kProg, argv[0]);
            return 1;
        }
    } else {
        pctx = pctx_capture(o.pid, &g_process, 1, pctx_errfn);
        if (pctx == nullptr) {
            std::fprintf(stderr, "%s: failed to capture pid %d\n", kProg, int(o.pid));
            return 1;
        }
    }
    g_pctx.store(pctx);
    int status = 1;
    if (set_events(pctx) != 0) {
        std::fprintf(stderr, "%s: can't bind process context ops to process\n", kProg);
    } else {
        if (!o.no_header) {
            for (const EventSpec &spec : g.specs) {
                std::vector<std::string> labels;
                for (size_t i = 0; i < spec.requests.size(); ++i)
                    labels.push_back(request_label(spec, i));
                emit(g.layout.header(labels, g.specs.size() > 1 ? spec.text : ""));
            }
        }
        g_process.reset();
        g.zero_ns = now_ns();
        int rc = g_interrupted ? 0 : pctx_run(pctx, o.interval_ms, o.count, on_tick);
        status = g.failed || (rc != 0 && !g_process.stopped_at_exec) ? 1 : 0;
    }
    g_pctx.store(nullptr);
    pctx_release(pctx);
    g_process.reset();
    close(g_alive_write);
    wait_for_controllers(alive[0]);
    close(alive[0]);
    if (!output.commit()) {
        std::fprintf(stderr, "%s: cannot write '%s' - %s\n", kProg, o.output.c_str(),
                     std::strerror(errno));
        return 1;
    }
    return status;
}

} // namespace

int main(int argc, char **argv) {
    CputrackArgs args = parse_cputrack_args(argc, argv);
    if (!args.ok)
        usage_error(args.error);
    g.opts = args.opts;
    cpcprof::tools::set_message_debug(g.opts.debug);
    g.cpc = cpc_open(CPC_VER_CURRENT);
    if (g.cpc == nullptr) {
        std::fprintf(stderr, "%s: cannot access performance counter library - %s\n", kProg,
                     std::strerror(errno));
        return 1;
    }
    cpc_seterrhndlr(g.cpc, cpcprof::tools::keep_message);
    if (g.opts.help) {
        std::printf("%s\n%s", kCputrackUsage,
                    format_capabilities(read_capabilities(g.cpc)).c_str());
        cpc_close(g.cpc);
        return 0;
    }
    g.specs = check_specs(g.opts.specs);
    g.layout.pid = g.opts.follow_fork;
    g.layout.tsc = g.opts.tsc;
    int status;
    {
        Output output;
        if (!output.open(g.opts.output)) {
            std::fprintf(stderr, "%s: cannot open '%s' for writing - %s\n", kProg,
                         g.opts.output.c_str(), std::strerror(errno));
            return 1;
        }
        g.out = output.file();
        setvbuf(g.out, nullptr, _IOLBF, 0);
        status = track(output);
    }
    cpc_close(g.cpc);
    return status;
}
