// Helpers of the libpctx and cpc_bind_pctx tests (test_pctx*.cpp): target
// programs started under control or beside it, and callbacks that record
// what libpctx reported.
#pragma once

#include "helpers.h"
#include "pctx_private.h"

#include <libpctx.h>

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

namespace pctxtest {

// What libpctx reported through the errfn.
struct PctxErrors {
    static inline std::vector<std::string> fns, msgs;
    static void fn(const char *f, const char *fmt, va_list ap) {
        char buf[1024];
        vsnprintf(buf, sizeof buf, fmt, ap);
        fns.push_back(f);
        msgs.push_back(buf);
    }
    static void clear() { fns.clear(), msgs.clear(); }
    static bool said(const std::string &what) {
        for (const std::string &m : msgs)
            if (m.find(what) != std::string::npos)
                return true;
        return false;
    }
    static std::string all() {
        std::string s;
        for (size_t i = 0; i < msgs.size(); ++i)
            s += fns[i] + ": " + msgs[i];
        return s;
    }
};

inline std::string temp_file() {
    char path[] = "/tmp/test_pctx-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    return path;
}

inline std::string slurp(const std::string &path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

inline int64_t now_ms() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

inline pctx_t *create(std::vector<std::string> args, void *arg = nullptr) {
    PctxErrors::clear();
    std::vector<char *> argv;
    for (std::string &a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    return pctx_create(argv[0], argv.data(), arg, 0, PctxErrors::fn);
}

// Whether this process may trace another (a container may forbid it).
inline bool ptrace_works() {
    static int ok = -1;
    if (ok < 0) {
        pctx_t *p = create({"/bin/true"});
        ok = p != nullptr;
        if (p != nullptr) {
            pid_t pid = __pctx_pid(p);
            pctx_release(p);
            waitpid(pid, nullptr, 0);
        }
    }
    return ok == 1;
}

// A process started with fork+exec, stdout on a pipe; killed if still there.
struct Spawned {
    pid_t pid = -1;
    int out = -1;
    explicit Spawned(std::vector<std::string> args, uid_t uid = 0, uid_t euid = 0) {
        int fds[2];
        EXPECT_EQ(pipe(fds), 0);
        pid = fork();
        if (pid == 0) {
            dup2(fds[1], 1);
            close(fds[0]);
            if (uid != 0 || euid != 0) {
                if (setresgid(65534, 65534, 65534) != 0 || setresuid(uid, euid, euid) != 0)
                    _exit(126);
            }
            std::vector<char *> argv;
            for (std::string &a : args)
                argv.push_back(a.data());
            argv.push_back(nullptr);
            execv(argv[0], argv.data());
            _exit(127);
        }
        close(fds[1]);
        out = fds[0];
    }
    // Reads the first line the process writes ("ready").
    std::string line() {
        std::string s;
        char c;
        while (read(out, &c, 1) == 1 && c != '\n')
            s += c;
        return s;
    }
    int wait() {
        int st = -1;
        waitpid(pid, &st, 0);
        pid = -1;
        return st;
    }
    ~Spawned() {
        if (pid > 0) {
            kill(pid, SIGKILL);
            waitpid(pid, nullptr, 0);
        }
        close(out);
    }
};

inline pid_t tracer_of(pid_t pid) {
    std::string s = slurp("/proc/" + std::to_string(pid) + "/status");
    size_t at = s.find("TracerPid:");
    return at == std::string::npos ? -1 : std::atoi(s.c_str() + at + 10);
}

// Callbacks that write what happened into a list.
struct Trace {
    std::vector<std::string> events;
    int report_fd = -1; // fork callbacks write what the child did here
    int init_result = 0;
    pctx_t *terminate_at_tick = nullptr;
    int ticks = 0;

    void add(const std::string &s) { events.push_back(s); }
    int count(const std::string &prefix) const {
        int n = 0;
        for (const std::string &e : events)
            n += e.rfind(prefix, 0) == 0;
        return n;
    }

    static Trace *of(void *arg) { return static_cast<Trace *>(arg); }
    static int init(pctx_t *, pid_t, id_t lwp, void *a) {
        of(a)->add("init " + std::to_string(lwp));
        return of(a)->init_result;
    }
    static int fini(pctx_t *, pid_t, id_t lwp, void *a) {
        of(a)->add("fini " + std::to_string(lwp));
        return 0;
    }
    static int exec(pctx_t *, pid_t, id_t, char *name, void *a) {
        of(a)->add(std::string("exec ") + name);
        return 0;
    }
    static void exit(pctx_t *, pid_t, id_t, int status, void *a) {
        of(a)->add("exit " + std::to_string(status));
    }
    static int tick(pctx_t *p, pid_t, id_t, void *a) {
        ++of(a)->ticks;
        if (of(a)->terminate_at_tick == p)
            pctx_terminate(p);
        return 0;
    }
    void watch(pctx_t *p) {
        pctx_set_events(p, PCTX_INIT_LWP_EVENT, init, PCTX_FINI_LWP_EVENT, fini,
                        PCTX_SYSC_EXEC_EVENT, exec, PCTX_SYSC_EXIT_EVENT, exit, PCTX_NULL_EVENT);
    }
};

// Counters bound in init_lwp to every thread, read in fini_lwp.
struct PerLwp {
    cpc_t *cpc = nullptr;
    cpc_set_t *set = nullptr;
    cpc_buf_t *buf = nullptr;
    int nreq = 0;
    std::vector<std::pair<pid_t, std::vector<uint64_t>>> finis; // in order
    std::vector<std::string> execs;
    std::vector<std::string> errors;

    PerLwp() {
        cpc = cpc_open(CPC_VER_CURRENT);
        if (cpc != nullptr)
            set = cpc_set_create(cpc);
    }
    ~PerLwp() {
        if (cpc != nullptr)
            cpc_close(cpc);
    }
    int add(const char *event, uint_t flags) {
        int i = cpc_set_add_request(cpc, set, event, 0, flags, 0, nullptr);
        nreq = i + 1;
        return i;
    }
    void ready() { buf = cpc_buf_create(cpc, set); }
    std::vector<uint64_t> at_fini(pid_t tid) const {
        for (const auto &[t, v] : finis)
            if (t == tid)
                return v;
        return {};
    }

    static PerLwp *of(void *a) { return static_cast<PerLwp *>(a); }
    static int bind(pctx_t *p, pid_t, id_t lwp, void *a) {
        if (cpc_bind_pctx(of(a)->cpc, p, lwp, of(a)->set, 0) == 0)
            return 0;
        of(a)->errors.push_back("bind " + std::to_string(lwp) + ": " + std::strerror(errno));
        return -1;
    }
    static int sample(pctx_t *, pid_t, id_t lwp, void *a) {
        PerLwp *s = of(a);
        if (cpc_set_sample(s->cpc, s->set, s->buf) != 0) {
            s->errors.push_back("sample " + std::to_string(lwp) + ": " + std::strerror(errno));
            return -1;
        }
        std::vector<uint64_t> v(s->nreq);
        for (int i = 0; i < s->nreq; ++i)
            cpc_buf_get(s->cpc, s->buf, i, &v[i]);
        s->finis.emplace_back(lwp, v);
        return 0;
    }
    static int exec(pctx_t *, pid_t, id_t, char *name, void *a) {
        of(a)->execs.push_back(name);
        return 0;
    }
    void watch(pctx_t *p) {
        pctx_set_events(p, PCTX_INIT_LWP_EVENT, bind, PCTX_FINI_LWP_EVENT, sample,
                        PCTX_SYSC_EXEC_EVENT, exec, PCTX_NULL_EVENT);
    }
};

} // namespace pctxtest

#define SKIP_WITHOUT_PTRACE()                                                                \
    do {                                                                                     \
        if (!pctxtest::ptrace_works())                                                       \
            GTEST_SKIP() << "this process may not ptrace its children here: "                \
                         << pctxtest::PctxErrors::all();                                     \
    } while (0)
