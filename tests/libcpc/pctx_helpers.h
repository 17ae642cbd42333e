// SPDX-License-Identifier: MIT
// Helpers of the libpctx and cpc_bind_pctx tests (test_pctx*.cpp): target
// programs started under control, and callbacks that record what libpctx
// reported.  Programs started beside a test (Spawned) and the ptrace check
// are tests/support's.
#pragma once

#include "libcpc/src/pctx_private.h"
#include "tests/libcpc/helpers.h"
#include "tests/support/files.h"
#include "tests/support/ptrace_check.h" // SKIP_WITHOUT_PTRACE
#include "tests/support/spawned.h"

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

// tests/support: processes started beside a test, who traces them, files.
using cpcprof::test::read_file;
using cpcprof::test::Spawned;
using cpcprof::test::tracer_of;

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

// Callbacks that write what happened into a list.
struct Trace {
    std::vector<std::string> events;
    int report_fd = -1; // fork callbacks write what the child did here
    int init_result = 0;
    pctx_t *terminate_at_tick = nullptr;
    int ticks = 0;
    std::vector<int64_t> tick_ms; // CLOCK_MONOTONIC of each tick

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
        of(a)->tick_ms.push_back(now_ms());
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
