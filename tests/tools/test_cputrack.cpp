// cputrack(1) driven as a program on the bundled target programs: every
// option, every error message, per-thread counts against what the program
// measured itself, fork and exec following, attaching and detaching.  Lines
// are parsed and rendered again with the illumos format strings written
// out here (so the columns are checked exactly), and compared with
// expected text after masking times, counts and process IDs.
#include "caps.h"
#include "cputrack_options.h"

#include <gtest/gtest.h>

#include <libcpc.h>
#include <libpctx.h>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdarg>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace {

// ---- running things ----

double now_s() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

struct Result {
    int status = -1; // exit code, or 128 + signal
    std::string out, err;
    double seconds = 0;
};

// Runs cputrack with args; returns when it has exited (a target it let go
// may still hold the pipes), sending SIGINT after sigint_after seconds.
Result run(std::vector<std::string> args, double sigint_after = 0) {
    args.insert(args.begin(), CPUTRACK_PATH);
    int out[2], err[2];
    EXPECT_EQ(pipe2(out, O_CLOEXEC), 0);
    EXPECT_EQ(pipe2(err, O_CLOEXEC), 0);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], 1);
        dup2(err[1], 2);
        std::vector<char *> argv;
        for (std::string &a : args)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        execv(argv[0], argv.data());
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    Result r;
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    std::string *dest[2] = {&r.out, &r.err};
    bool signalled = false, exited = false;
    int st = 0;
    while (true) {
        int n = poll(fds, 2, 20);
        for (int i = 0; n > 0 && i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP)))
                continue;
            char buf[4096];
            ssize_t k = read(fds[i].fd, buf, sizeof buf);
            if (k > 0) {
                dest[i]->append(buf, size_t(k));
            } else {
                close(fds[i].fd);
                fds[i].fd = -1;
            }
        }
        if (exited && n <= 0)
            break; // everything it wrote has been read
        if (!exited && waitpid(pid, &st, WNOHANG) == pid) {
            exited = true;
            r.seconds = now_s() - t0;
        }
        if (fds[0].fd < 0 && fds[1].fd < 0 && exited)
            break;
        if (sigint_after > 0 && !signalled && now_s() - t0 >= sigint_after) {
            kill(pid, SIGINT);
            signalled = true;
        }
    }
    for (int fd : {fds[0].fd, fds[1].fd})
        if (fd >= 0)
            close(fd);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return r;
}

// Whether this process may trace another (a container may forbid it).
bool ptrace_works() {
    static int ok = -1;
    if (ok < 0) {
        char prog[] = "/bin/true";
        char *argv[] = {prog, nullptr};
        pctx_t *p = pctx_create(prog, argv, nullptr, 0, [](const char *, const char *, va_list) {});
        ok = p != nullptr;
        if (p != nullptr) {
            pctx_run(p, 0, 0, nullptr);
            pctx_release(p);
        }
    }
    return ok == 1;
}

#define SKIP_WITHOUT_PTRACE()                                                                \
    do {                                                                                     \
        if (!ptrace_works())                                                                 \
            GTEST_SKIP() << "this process may not ptrace its children here";                \
    } while (0)

std::string temp_dir() {
    char path[] = "/tmp/test_cputrack-XXXXXX";
    EXPECT_NE(mkdtemp(path), nullptr);
    return path;
}

std::string slurp(const std::string &path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

std::vector<std::string> dir_entries(const std::string &dir) {
    std::vector<std::string> names;
    if (DIR *d = opendir(dir.c_str())) {
        while (dirent *e = readdir(d))
            if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
                names.push_back(e->d_name);
        closedir(d);
    }
    return names;
}

void remove_dir(const std::string &dir) {
    for (const std::string &n : dir_entries(dir))
        unlink((dir + "/" + n).c_str());
    rmdir(dir.c_str());
}

std::vector<std::string> split_lines(const std::string &text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        out.push_back(l);
    return out;
}

// A process started beside cputrack (to attach to), stdout on a pipe.
struct Spawned {
    pid_t pid = -1;
    int out = -1;
    explicit Spawned(std::vector<std::string> args) {
        int fds[2];
        EXPECT_EQ(pipe(fds), 0);
        pid = fork();
        if (pid == 0) {
            dup2(fds[1], 1);
            close(fds[0]);
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

pid_t tracer_of(pid_t pid) {
    std::string s = slurp("/proc/" + std::to_string(pid) + "/status");
    size_t at = s.find("TracerPid:");
    return at == std::string::npos ? -1 : std::atoi(s.c_str() + at + 10);
}

// ---- the lines ----

struct Cols {
    bool pid = false; // -f
    bool tsc = false; // -t
};

// One output line: "%7.3f " ["%6d "] "%3d %10s " then "%9lld " per value
// (tsc first with -t), or "%9s " per blank column, then " # text" or not.
struct Line {
    double time = 0;
    long pid = -1;
    long lwp = -1;
    std::string label;
    std::vector<long long> values;
    size_t blanks = 0; // fork and exec notes: empty columns
    std::string comment;
    bool has_comment = false;
};

std::string render(const Line &l, Cols c) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%7.3f ", l.time);
    std::string s = buf;
    if (c.pid) {
        std::snprintf(buf, sizeof buf, "%6ld ", l.pid);
        s += buf;
    }
    std::snprintf(buf, sizeof buf, "%3ld %10s ", l.lwp, l.label.c_str());
    s += buf;
    for (long long v : l.values) {
        std::snprintf(buf, sizeof buf, "%9lld ", v);
        s += buf;
    }
    for (size_t i = 0; i < l.blanks; ++i)
        s += std::string(9, ' ') + " ";
    if (l.has_comment)
        s += " # " + l.comment;
    return s;
}

// Takes the fields of text; it must render back to exactly the same text.
Line parse(const std::string &text, Cols c) {
    Line l;
    std::string body = text;
    size_t hash = text.find(" # ");
    if (hash != std::string::npos) {
        l.has_comment = true;
        l.comment = text.substr(hash + 3);
        body = text.substr(0, hash);
    }
    std::istringstream in(body);
    in >> l.time;
    if (c.pid)
        in >> l.pid;
    in >> l.lwp >> l.label;
    std::string rest;
    std::getline(in, rest);
    std::istringstream nums(rest);
    for (long long v; nums >> v;)
        l.values.push_back(v);
    if (l.values.empty() && rest.size() > 1)
        l.blanks = (rest.size() - 1) / 10; // " " after the label, then "%9s " each
    EXPECT_EQ(render(l, c), text) << "malformed line";
    return l;
}

std::string header(const std::vector<std::string> &counters, Cols c, const std::string &spec = "") {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%7s ", "time");
    std::string h = buf;
    if (c.pid) {
        std::snprintf(buf, sizeof buf, "%6s ", "pid");
        h += buf;
    }
    std::snprintf(buf, sizeof buf, "%3s %10s ", "lwp", "event");
    h += buf;
    std::vector<std::string> cols = counters;
    if (c.tsc)
        cols.insert(cols.begin(), "tsc");
    for (const std::string &col : cols) {
        std::snprintf(buf, sizeof buf, "%9s ", col.c_str());
        h += buf;
    }
    return spec.empty() ? h : h + " # " + spec;
}

// The lines after the headers, parsed.
std::vector<Line> body(const std::string &out, size_t headers, Cols c) {
    std::vector<std::string> ls = split_lines(out);
    std::vector<Line> lines;
    for (size_t i = headers; i < ls.size(); ++i)
        lines.push_back(parse(ls[i], c));
    return lines;
}

// The line with times and counts masked and process and thread IDs named:
// "[pid] lwp label n n # comment" (blank columns are "-").
std::string masked(const Line &l, Cols c, const std::map<long, std::string> &names) {
    auto name = [&](long id) {
        auto it = names.find(id);
        return it == names.end() ? std::string("?") + std::to_string(id) : it->second;
    };
    std::string s;
    if (c.pid)
        s += name(l.pid) + " ";
    s += name(l.lwp) + " " + l.label;
    for (size_t i = 0; i < l.values.size(); ++i)
        s += " n";
    for (size_t i = 0; i < l.blanks; ++i)
        s += " -";
    if (l.has_comment) {
        std::string comment = l.comment;
        for (const auto &[id, n] : names)
            if (comment == std::to_string(id))
                comment = n;
        s += " # " + comment;
    }
    return s;
}

std::string masked_text(const std::vector<Line> &lines, Cols c,
                        const std::map<long, std::string> &names) {
    std::string s;
    for (const Line &l : lines)
        s += masked(l, c, names) + "\n";
    return s;
}

std::string usage_error(const std::string &why) {
    return "cputrack: " + why + "\n" + cpctools::kCputrackUsage;
}

// libcpc's own message for adding this event here, or "" if it is accepted.
std::string libcpc_refusal(const char *event) {
    static std::string msg;
    msg.clear();
    cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
    cpc_seterrhndlr(cpc, [](const char *, int, const char *fmt, va_list ap) {
        char buf[1024];
        vsnprintf(buf, sizeof buf, fmt, ap);
        msg = buf;
    });
    cpc_set_t *set = cpc_set_create(cpc);
    bool ok = cpc_set_add_request(cpc, set, event, 0, CPC_COUNT_USER, 0, nullptr) >= 0;
    cpc_close(cpc);
    return ok ? "" : msg;
}

// Whether this process may count kernel-side events of its own threads.
bool can_count_system() {
    cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
    cpc_set_t *set = cpc_set_create(cpc);
    cpc_set_add_request(cpc, set, "context-switches", 0, CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0,
                        nullptr);
    bool ok = cpc_bind_curlwp(cpc, set, 0) == 0;
    cpc_close(cpc);
    return ok;
}

// A pid that no process has: a child that has been reaped.
pid_t dead_pid() {
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    waitpid(pid, nullptr, 0);
    return pid;
}

// ---- options and errors ----

TEST(Cputrack, HelpPrintsUsageAndCapabilities) {
    Result r = run({"-h"});
    cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
    std::string caps = cpctools::format_capabilities(cpctools::read_capabilities(cpc));
    cpc_close(cpc);
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, std::string(cpctools::kCputrackUsage) + "\n" + caps);
    EXPECT_EQ(r.err, "");
}

TEST(Cputrack, UsageErrorsExit2) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{}, "no event specification (-c) given"},
        {{"/bin/true"}, "no event specification (-c) given"},
        {{"-c", "page-faults"}, "no command to run and no -p pid given"},
        {{"-c", "page-faults", "-p", "1", "/bin/true"}, "give either a command or -p pid, not both"},
        {{"-x", "-c", "page-faults", "/bin/true"}, "unknown option -x"},
        {{"-r", "1", "-c", "page-faults", "/bin/true"}, "unknown option -r"},
        {{"-c"}, "option -c needs a value"},
        {{"-c", "page-faults", "-T"}, "option -T needs a value"},
        {{"-c", "page-faults", "-N"}, "option -N needs a value"},
        {{"-c", "page-faults", "-o"}, "option -o needs a value"},
        {{"-c", "page-faults", "-p"}, "option -p needs a value"},
        {{"-c", "page-faults", "-T", "x", "/bin/true"},
         "-T takes a number of seconds, 0 or more (at least 0.001 when not 0), not 'x'"},
        {{"-c", "page-faults", "-T", "-1", "/bin/true"},
         "-T takes a number of seconds, 0 or more (at least 0.001 when not 0), not '-1'"},
        {{"-c", "page-faults", "-T", "0.0001", "/bin/true"},
         "-T takes a number of seconds, 0 or more (at least 0.001 when not 0), not '0.0001'"},
        {{"-c", "page-faults", "-T", "1e10", "/bin/true"},
         "-T takes a number of seconds, 0 or more (at least 0.001 when not 0), not '1e10'"},
        {{"-c", "page-faults", "-N", "-1", "/bin/true"},
         "-N takes a whole number of samples, 0 or more, not '-1'"},
        {{"-c", "page-faults", "-N", "2.5", "/bin/true"},
         "-N takes a whole number of samples, 0 or more, not '2.5'"},
        {{"-c", "page-faults", "-p", "0"}, "-p takes a process ID greater than 0, not '0'"},
        {{"-c", "page-faults", "-p", "12x"}, "-p takes a process ID greater than 0, not '12x'"},
        {{"-c", "page-faults", "-o", "", "/bin/true"}, "-o takes a file name, not ''"},
        {{"-c", "page-faults,,cpu-clock", "/bin/true"},
         "-c page-faults,,cpu-clock: empty token (two commas, or a comma at either end)"},
        {{"-c", "page-faults,frob=3", "/bin/true"},
         "-c page-faults,frob=3: token 'frob=3': unknown attribute 'frob'"},
        {{"-c", "pic0=page-faults,pic0=cpu-clock", "/bin/true"},
         "-c pic0=page-faults,pic0=cpu-clock: token 'pic0=cpu-clock': counter 0 already has an "
         "event"},
    };
    for (const auto &[args, why] : cases) {
        Result r = run(args);
        EXPECT_EQ(r.status, 2) << why;
        std::string err = r.err;
        // The machine may or may not have attributes to list.
        size_t none = err.find(" (this machine has none)");
        if (none != std::string::npos)
            err.erase(none, std::strlen(" (this machine has none)"));
        EXPECT_EQ(err, usage_error(why));
        EXPECT_EQ(r.out, "");
    }
}

TEST(Cputrack, OptionsEndAtTheCommand) {
    // "-n" and "-x" after the command are the command's own.
    cpctools::CputrackOptions o;
    std::vector<std::string> args = {"cputrack", "-c", "page-faults", "-T", "0.5", "-N", "3",
                                     "prog", "-n", "-x"};
    std::vector<char *> argv;
    for (std::string &a : args)
        argv.push_back(a.data());
    cpctools::CputrackArgs a = cpctools::parse_cputrack_args(int(argv.size()), argv.data());
    ASSERT_TRUE(a.ok) << a.error;
    EXPECT_EQ(a.opts.command, (std::vector<std::string>{"prog", "-n", "-x"}));
    EXPECT_FALSE(a.opts.no_header);
    EXPECT_EQ(a.opts.interval_ms, 500u);
    EXPECT_EQ(a.opts.count, 3u);
    EXPECT_EQ(a.opts.pid, 0);
}

TEST(Cputrack, EventsLibcpcRefusesExit1WithItsMessage) {
    std::string unknown = libcpc_refusal("no-such-event");
    ASSERT_NE(unknown, "");
    Result r = run({"-c", "page-faults,no-such-event", "/bin/true"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "cputrack: -c page-faults,no-such-event: " + unknown + "\n");
    EXPECT_EQ(r.out, "");
    r = run({"-D", "-c", "no-such-event", "/bin/true"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "cputrack: -c no-such-event: cpc_set_add_request: " + unknown + "\n");

    std::string hw = libcpc_refusal("cycles");
    if (hw.empty())
        GTEST_SKIP() << "this machine counts cycles: no refusal to pass through";
    EXPECT_NE(hw.find("hardware"), std::string::npos) << hw;
    r = run({"-c", "cycles", "/bin/true"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "cputrack: -c cycles: " + hw + "\n");
    EXPECT_EQ(r.out, "");
}

TEST(Cputrack, ProgramThatCannotStartExits1) {
    SKIP_WITHOUT_PTRACE();
    Result r = run({"-c", "page-faults", "no-such-program-here"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "cputrack: cannot find program 'no-such-program-here'\n"
                     "cputrack: failed to start program 'no-such-program-here'\n");
    EXPECT_EQ(r.out, "");
    r = run({"-D", "-c", "page-faults", "no-such-program-here"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "cputrack: create: cannot find program 'no-such-program-here'\n"
                     "cputrack: failed to start program 'no-such-program-here'\n");
    std::string dir = temp_dir();
    r = run({"-c", "page-faults", dir});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "cputrack: cannot execute program '" + dir + "'\n" +
                         "cputrack: failed to start program '" + dir + "'\n");
    // -o: no file (and no temporary file) is left behind.
    r = run({"-o", dir + "/out", "-c", "page-faults", "no-such-program-here"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(dir_entries(dir).empty());
    remove_dir(dir);
}

TEST(Cputrack, PidThatDoesNotExistExits1) {
    SKIP_WITHOUT_PTRACE();
    std::string pid = std::to_string(dead_pid());
    Result r = run({"-c", "page-faults", "-p", pid});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "cputrack: pid " + pid + " doesn't exist\ncputrack: failed to capture pid " +
                         pid + "\n");
    EXPECT_EQ(r.out, "");
    r = run({"-D", "-c", "page-faults", "-p", pid});
    EXPECT_EQ(r.err, "cputrack: capture: pid " + pid +
                         " doesn't exist\ncputrack: failed to capture pid " + pid + "\n");
}

TEST(Cputrack, OutputFileThatCannotBeWrittenExits1) {
    Result r = run({"-o", "/nonexistent-dir/out", "-c", "page-faults", "/bin/true"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "cputrack: cannot open '/nonexistent-dir/out' for writing - " +
                         std::string(std::strerror(ENOENT)) + "\n");
    EXPECT_EQ(r.out, "");
}

// ---- counting ----

struct ThreadReport {
    long tid;
    long long minflt, nvcsw, nivcsw;
};

TEST(Cputrack, PerThreadCountsMatchWhatEachThreadMeasured) {
    SKIP_WITHOUT_PTRACE();
    if (!can_count_system())
        GTEST_SKIP() << "counting context switches needs CPC_COUNT_SYSTEM, which "
                        "perf_event_paranoid forbids this user";
    std::string dir = temp_dir();
    std::string report = dir + "/threads";
    // Thread i faults in 1000*(i+1) fresh pages and sleeps 200 times.
    Result r = run({"-v", "-T", "0.01", "-c", "page-faults,context-switches,sys", PCTX_THREADS,
                    report, "1000", "200"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    std::vector<ThreadReport> threads;
    std::istringstream in(slurp(report));
    for (ThreadReport t; in >> t.tid >> t.minflt >> t.nvcsw >> t.nivcsw;)
        threads.push_back(t);
    remove_dir(dir);
    ASSERT_EQ(threads.size(), 3u);

    std::vector<std::string> ls = split_lines(r.out);
    ASSERT_FALSE(ls.empty());
    EXPECT_EQ(ls[0], header({"pic0", "pic1"}, {}));
    std::vector<Line> lines = body(r.out, 1, {});
    ASSERT_FALSE(lines.empty());
    long main_tid = lines[0].lwp;

    // Per thread: init_lwp (and lwp_create but for the first), ticks, then
    // fini_lwp (and lwp_exit but for the first); the process's exit last.
    std::map<long, std::vector<std::string>> order;
    std::map<long, std::vector<long long>> fini, ticks_sum;
    std::vector<long long> fini_sum(2, 0);
    for (const Line &l : lines) {
        if (l.label == "exit")
            continue;
        order[l.lwp].push_back(l.label);
        ASSERT_EQ(l.values.size(), 2u);
        if (l.label == "fini_lwp") {
            fini[l.lwp] = l.values;
            for (size_t k = 0; k < 2; ++k)
                fini_sum[k] += l.values[k];
        }
        if (l.label == "tick") {
            ticks_sum[l.lwp].resize(2, 0);
            for (size_t k = 0; k < 2; ++k)
                ticks_sum[l.lwp][k] += l.values[k];
        }
        if (l.label == "lwp_exit") {
            EXPECT_EQ(l.values, fini[l.lwp]) << "lwp_exit repeats the thread's totals";
        }
        if (l.label == "init_lwp" || l.label == "lwp_create") {
            EXPECT_LE(l.values[0], 1) << "a new thread starts at 0";
        }
    }
    EXPECT_EQ(lines.back().label, "exit");
    EXPECT_EQ(lines.back().lwp, main_tid);
    EXPECT_EQ(lines.back().values, fini_sum) << "exit is the sum of every thread's totals";
    ASSERT_EQ(order.size(), 4u) << r.out;
    for (auto &[tid, labels] : order) {
        std::vector<std::string> shape;
        for (const std::string &s : labels)
            if (shape.empty() || s != "tick" || shape.back() != "tick")
                shape.push_back(s);
        std::vector<std::string> expect =
            tid == main_tid ? std::vector<std::string>{"init_lwp", "tick", "fini_lwp"}
                            : std::vector<std::string>{"init_lwp", "lwp_create", "tick",
                                                       "fini_lwp", "lwp_exit"};
        // A short-lived thread may end before its first tick.
        if (std::find(shape.begin(), shape.end(), "tick") == shape.end())
            expect.erase(std::find(expect.begin(), expect.end(), "tick"));
        EXPECT_EQ(shape, expect) << "thread " << tid;
        // Ticks are deltas: they add up to no more than the total.
        if (ticks_sum.count(tid)) {
            for (size_t k = 0; k < 2; ++k)
                EXPECT_LE(ticks_sum[tid][k], fini[tid][k]) << "thread " << tid;
        }
    }
    for (size_t i = 0; i < threads.size(); ++i) {
        const ThreadReport &t = threads[i];
        ASSERT_EQ(fini.count(t.tid), 1u) << "no fini_lwp line for thread " << t.tid;
        const std::vector<long long> &v = fini[t.tid];
        // As in the libpctx test of the same program: the counters run from
        // the thread's first instruction to its exit, getrusage up to the
        // call just before; a few faults and switches apart.
        EXPECT_GE(v[0], 1000 * long(i + 1)) << "thread " << i;
        EXPECT_NEAR(double(v[0]), double(t.minflt), 8) << "page faults of thread " << i;
        EXPECT_GE(v[1], 200) << "context switches of thread " << i;
        EXPECT_NEAR(double(v[1]), double(t.nvcsw + t.nivcsw), 3)
            << "context switches of thread " << i;
    }
}

TEST(Cputrack, TicksAtEachIntervalAndExitWithTotals) {
    SKIP_WITHOUT_PTRACE();
    // Two threads that sleep 700 ms; samples every 0.2 s.
    std::string dir = temp_dir();
    Result r = run({"-o", dir + "/out", "-T", "0.2", "-c", "page-faults,task-clock", PCTX_SLEEPER,
                    "700"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "ready\n") << "the program's own output, and only that, on stdout";
    std::string text = slurp(dir + "/out");
    remove_dir(dir);
    std::vector<std::string> ls = split_lines(text);
    ASSERT_GE(ls.size(), 2u);
    EXPECT_EQ(ls[0], header({"pic0", "pic1"}, {}));
    std::vector<Line> lines = body(text, 1, {});
    ASSERT_EQ(lines.size(), 9u) << text;
    long main_tid = lines.back().lwp;
    long other = lines[0].lwp;
    std::map<long, std::string> names = {{main_tid, "M"}, {other, "T"}};
    // The second thread's creation, three rounds of both threads at 0.2,
    // 0.4 and 0.6 s (in thread ID order), its end, and the exit.
    std::string round = main_tid < other ? "M tick n n\nT tick n n\n" : "T tick n n\nM tick n n\n";
    EXPECT_EQ(masked_text(lines, {}, names),
              "T lwp_create n n\n" + round + round + round + "T lwp_exit n n\nM exit n n\n");
    for (size_t i = 1; i <= 6; ++i)
        EXPECT_NEAR(lines[i].time, 0.2 * double((i + 1) / 2), 0.1) << ls[i + 1];
    EXPECT_NEAR(lines[8].time, 0.7, 0.15);
    // Deltas: the first tick has the start-up faults, later ones hardly any.
    const Line &first = lines[1].lwp == main_tid ? lines[1] : lines[2];
    const Line &last = lines[5].lwp == main_tid ? lines[5] : lines[6];
    EXPECT_GT(first.values[0], 10);
    EXPECT_LT(last.values[0], first.values[0]);
    // The exit totals are at least the ticks' sum (the rest is after the
    // last tick), and the thread's lwp_exit at least its own.
    for (size_t k = 0; k < 2; ++k) {
        long long all = 0, its = 0;
        for (size_t i = 1; i <= 6; ++i) {
            all += lines[i].values[k];
            its += lines[i].lwp == other ? lines[i].values[k] : 0;
        }
        EXPECT_GE(lines[8].values[k], all);
        EXPECT_GE(lines[7].values[k], its);
        EXPECT_GE(lines[8].values[k], lines[7].values[k]);
    }
}

TEST(Cputrack, IntervalZeroSamplesOnlyAtEvents) {
    SKIP_WITHOUT_PTRACE();
    std::string dir = temp_dir();
    Result r = run({"-n", "-o", dir + "/out", "-T", "0", "-c", "page-faults", PCTX_SLEEPER, "400"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string text = slurp(dir + "/out");
    remove_dir(dir);
    std::vector<Line> lines = body(text, 0, {});
    ASSERT_EQ(lines.size(), 3u) << text;
    EXPECT_EQ(masked_text(lines, {}, {{lines[2].lwp, "M"}, {lines[0].lwp, "T"}}),
              "T lwp_create n\nT lwp_exit n\nM exit n\n");
    EXPECT_GT(lines[2].values[0], 10);
}

TEST(Cputrack, CountStopsTrackingAndLetsTheProgramRun) {
    SKIP_WITHOUT_PTRACE();
    std::string dir = temp_dir();
    Result r = run({"-n", "-o", dir + "/out", "-T", "0.1", "-N", "2", "-c", "page-faults",
                    PCTX_SLEEPER, "8000"});
    ASSERT_EQ(r.status, 0) << r.err;
    // The program sleeps 8 s: room for a busy machine before the 0.2 s of
    // ticks could be mistaken for waiting.
    EXPECT_LT(r.seconds, 6.0) << "cputrack waited for the program";
    std::string text = slurp(dir + "/out");
    remove_dir(dir);
    std::vector<Line> lines = body(text, 0, {});
    // The second thread's creation, two rounds of two threads, no exit.
    ASSERT_EQ(lines.size(), 5u) << text;
    EXPECT_EQ(lines[0].label, "lwp_create");
    std::set<long> lwps;
    for (size_t i = 1; i < lines.size(); ++i) {
        EXPECT_EQ(lines[i].label, "tick");
        lwps.insert(lines[i].lwp);
    }
    ASSERT_EQ(lwps.size(), 2u);
    lwps.erase(lines[0].lwp);
    // The main thread's lwp is the pid: the program runs on, untraced.
    pid_t pid = pid_t(*lwps.begin());
    EXPECT_EQ(kill(pid, 0), 0) << "the program was killed";
    EXPECT_EQ(tracer_of(pid), 0);
}

TEST(Cputrack, NoHeaderAndTsc) {
    SKIP_WITHOUT_PTRACE();
    std::string dir = temp_dir();
    Result r = run({"-n", "-t", "-o", dir + "/out", "-T", "0.2", "-c", "pic1=page-faults,pic0=task-clock",
                    PCTX_SLEEPER, "300"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string text = slurp(dir + "/out");
    std::vector<Line> lines = body(text, 0, {.tsc = true});
    ASSERT_FALSE(lines.empty()) << text;
    for (const Line &l : lines) {
        ASSERT_EQ(l.values.size(), 3u);
        if (l.label == "tick" || l.label == "exit") { // not at a thread's creation
            EXPECT_GT(l.values[0], 0) << "tsc";
        }
    }
    // The main thread's exit: its task-clock (pic0, third column) and tsc
    // both count its time on a CPU.
    EXPECT_EQ(lines.back().label, "exit");
    EXPECT_GT(lines.back().values[2], 0);

    r = run({"-t", "-o", dir + "/out", "-T", "0", "-c", "pic1=page-faults,pic0=task-clock",
             PCTX_SLEEPER, "100"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(split_lines(slurp(dir + "/out"))[0], header({"pic1", "pic0"}, {.tsc = true}));
    remove_dir(dir);
}

TEST(Cputrack, SeveralSetsTakeTurnsPerThreadAtEachTick) {
    SKIP_WITHOUT_PTRACE();
    std::vector<std::string> specs = {"page-faults", "task-clock,context-switches,sys"};
    std::string dir = temp_dir();
    Result r = run({"-o", dir + "/out", "-T", "0.15", "-c", specs[0], "-c", specs[1],
                    PCTX_SLEEPER, "700"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string text = slurp(dir + "/out");
    remove_dir(dir);
    std::vector<std::string> ls = split_lines(text);
    ASSERT_GE(ls.size(), 3u);
    EXPECT_EQ(ls[0], header({"pic0"}, {}, specs[0]));
    EXPECT_EQ(ls[1], header({"pic0", "pic1"}, {}, specs[1]));
    std::vector<Line> lines = body(text, 2, {});
    std::map<long, size_t> turn;
    std::vector<std::vector<long long>> tick_sums = {{0}, {0, 0}};
    std::vector<const Line *> exits;
    for (const Line &l : lines) {
        ASSERT_TRUE(l.has_comment) << "every line names its set";
        size_t s = l.comment == specs[0] ? 0 : 1;
        EXPECT_EQ(l.comment, specs[s]);
        EXPECT_EQ(l.values.size(), s == 0 ? 1u : 2u);
        if (l.label == "tick") {
            EXPECT_EQ(s, turn[l.lwp] % 2) << "thread " << l.lwp << ": sets in turn";
            ++turn[l.lwp];
            for (size_t k = 0; k < l.values.size(); ++k)
                tick_sums[s][k] += l.values[k];
        } else if (l.label == "exit") {
            exits.push_back(&l);
        } else if (l.label == "lwp_create") {
            EXPECT_EQ(s, 0u) << "a new thread starts with the first set";
        } else {
            EXPECT_EQ(l.label, "lwp_exit");
        }
    }
    EXPECT_EQ(turn.size(), 2u);
    for (const auto &[tid, n] : turn)
        EXPECT_GE(n, 4u) << "thread " << tid;
    // One exit line per set, in order, each at least its ticks' sum.
    ASSERT_EQ(exits.size(), 2u) << text;
    EXPECT_EQ(exits[0]->comment, specs[0]);
    EXPECT_EQ(exits[1]->comment, specs[1]);
    for (size_t s = 0; s < 2; ++s)
        for (size_t k = 0; k < exits[s]->values.size(); ++k)
            EXPECT_GE(exits[s]->values[k], tick_sums[s][k]);
    // A turn of task-clock is a thread's CPU time in 0.15 s: well under it.
    EXPECT_LT(tick_sums[1][0], 150000000LL * 4);
}

// ---- fork and exec ----

TEST(Cputrack, ForkLineWithoutFollowing) {
    SKIP_WITHOUT_PTRACE();
    std::string dir = temp_dir();
    Result r = run({"-T", "0", "-c", "page-faults", PCTX_EXEC, "fork-true", dir + "/child"});
    ASSERT_EQ(r.status, 0) << r.err;
    long child = std::atol(slurp(dir + "/child").c_str());
    remove_dir(dir);
    std::vector<std::string> ls = split_lines(r.out);
    ASSERT_FALSE(ls.empty());
    EXPECT_EQ(ls[0], header({"pic0"}, {}));
    std::vector<Line> lines = body(r.out, 1, {});
    ASSERT_FALSE(lines.empty());
    long parent = lines[0].lwp;
    EXPECT_EQ(masked_text(lines, {}, {{parent, "P"}, {child, "C"}}),
              "P fork - # C\n"
              "P exit n\n");
}

TEST(Cputrack, ForkFollowedWithPidColumn) {
    SKIP_WITHOUT_PTRACE();
    for (const char *mode : {"fork-true", "vfork-true"}) {
        SCOPED_TRACE(mode);
        std::string dir = temp_dir();
        // Without -e, the child is tracked up to its exec of /bin/true.
        Result r = run({"-f", "-T", "0", "-c", "page-faults", PCTX_EXEC, mode, dir + "/child"});
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.err, "");
        long child = std::atol(slurp(dir + "/child").c_str());
        Cols c{.pid = true};
        std::vector<std::string> ls = split_lines(r.out);
        ASSERT_FALSE(ls.empty());
        EXPECT_EQ(ls[0], header({"pic0"}, c));
        std::vector<Line> lines = body(r.out, 1, c);
        ASSERT_FALSE(lines.empty());
        long parent = lines[0].pid;
        std::map<long, std::string> names = {{parent, "P"}, {child, "C"}};
        EXPECT_EQ(masked_text(lines, c, names),
                  "P P fork - # C\n"
                  "C C exec n\n"
                  "C C exec - # 'true'\n"
                  "P P exit n\n");

        // With -e and -v: the child's new image too, and every thread's
        // init_lwp and fini_lwp.
        r = run({"-fev", "-T", "0", "-c", "page-faults", PCTX_EXEC, mode, dir + "/child"});
        ASSERT_EQ(r.status, 0) << r.err;
        child = std::atol(slurp(dir + "/child").c_str());
        lines = body(r.out, 1, c);
        ASSERT_FALSE(lines.empty());
        parent = lines[0].pid;
        names = {{parent, "P"}, {child, "C"}};
        // Each controlling process prints its own process's lines in order;
        // the child's exit is reported once it is gone, when its parent
        // may be ending too: only the child's last line may come late.
        std::vector<Line> of_parent, of_child;
        for (const Line &l : lines)
            (l.pid == child ? of_child : of_parent).push_back(l);
        EXPECT_EQ(masked_text(of_parent, c, names),
                  "P P init_lwp n\n"
                  "P P fork - # C\n"
                  "P P fini_lwp n\n"
                  "P P exit n\n");
        EXPECT_EQ(masked_text(of_child, c, names),
                  "C C init_lwp n\n"
                  "C C fini_lwp n\n"
                  "C C exec n\n"
                  "C C exec - # 'true'\n"
                  "C C init_lwp n\n"
                  "C C fini_lwp n\n"
                  "C C exit n\n");
        EXPECT_EQ(masked_text(std::vector<Line>(lines.begin(), lines.begin() + 8), c, names),
                  "P P init_lwp n\n"
                  "P P fork - # C\n"
                  "C C init_lwp n\n"
                  "C C fini_lwp n\n"
                  "C C exec n\n"
                  "C C exec - # 'true'\n"
                  "C C init_lwp n\n"
                  "C C fini_lwp n\n");
        ASSERT_EQ(of_child.size(), 7u);
        ASSERT_EQ(of_parent.size(), 4u);
        // Each image's own counts: the exec line repeats the old image's
        // fini_lwp, the exit the new one's.
        EXPECT_EQ(of_child[2].values, of_child[1].values);
        EXPECT_EQ(of_child[6].values, of_child[5].values);
        EXPECT_EQ(of_parent[3].values, of_parent[2].values);
        remove_dir(dir);
    }
}

TEST(Cputrack, ExecFollowedWithE) {
    SKIP_WITHOUT_PTRACE();
    // "chain 2" faults in 600 pages and execs "chain 1" (400), then
    // "chain 0" (200) exits.
    Result r = run({"-n", "-e", "-T", "0", "-c", "page-faults", PCTX_EXEC, "chain", "2"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<Line> lines = body(r.out, 0, {});
    ASSERT_EQ(lines.size(), 5u) << r.out;
    long pid = lines[0].lwp;
    EXPECT_EQ(masked_text(lines, {}, {{pid, "P"}}),
              "P exec n\n"
              "P exec - # 'pctx_exec chain 1'\n"
              "P exec n\n"
              "P exec - # 'pctx_exec chain 0'\n"
              "P exit n\n");
    const long long pages[] = {600, 400, 200};
    const Line *image[] = {&lines[0], &lines[2], &lines[4]};
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_GE(image[i]->values[0], pages[i]) << "image " << i;
        EXPECT_LT(image[i]->values[0], pages[i] + 150) << "image " << i << ": its own faults only";
    }

    // Without -e, tracking ends at the first exec, which is not an error.
    r = run({"-n", "-T", "0", "-c", "page-faults", PCTX_EXEC, "chain", "2"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    lines = body(r.out, 0, {});
    ASSERT_EQ(lines.size(), 2u) << r.out;
    EXPECT_EQ(masked_text(lines, {}, {{lines[0].lwp, "P"}}),
              "P exec n\n"
              "P exec - # 'pctx_exec chain 1'\n");
}

TEST(Cputrack, ControllersOfForkChildrenStopOnSigint) {
    SKIP_WITHOUT_PTRACE();
    // The shell forks sleep, which a second controlling process follows;
    // SIGINT to cputrack lets both processes go at once.
    Result r = run({"-f", "-T", "0.1", "-c", "page-faults", "/bin/sh", "-c", "sleep 8; true"},
                   0.7);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_LT(r.seconds, 6.0) << "a controller went on after SIGINT (the shell sleeps 8 s)";
    Cols c{.pid = true};
    std::vector<Line> lines = body(r.out, 1, c);
    std::set<long> pids;
    bool forked = false;
    for (const Line &l : lines) {
        pids.insert(l.pid);
        forked = forked || l.label == "fork";
        EXPECT_NE(l.label, "exit");
    }
    EXPECT_TRUE(forked) << r.out;
    EXPECT_EQ(pids.size(), 2u) << "ticks of the shell and of sleep\n" << r.out;
}

// ---- attaching ----

TEST(Cputrack, AttachThenDetachOnSigintLeavesItRunning) {
    SKIP_WITHOUT_PTRACE();
    Spawned target({PCTX_SLEEPER, "2500"});
    ASSERT_EQ(target.line(), "ready");
    double t0 = now_s();
    Result r = run({"-T", "0.2", "-c", "page-faults,task-clock", "-p",
                    std::to_string(target.pid)},
                   1.0);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    std::vector<Line> lines = body(r.out, 1, {});
    std::set<long> lwps;
    for (const Line &l : lines) {
        EXPECT_EQ(l.label, "tick");
        lwps.insert(l.lwp);
    }
    EXPECT_EQ(lwps.size(), 2u) << r.out;
    EXPECT_TRUE(lwps.count(target.pid)) << "the main thread's lwp is the pid";
    EXPECT_GE(lines.size(), 6u) << r.out;
    EXPECT_EQ(tracer_of(target.pid), 0) << "still traced after cputrack ended";
    int st = target.wait();
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "status " << st;
    EXPECT_GT(now_s() - t0, 2.0) << "the program ended early";
}

TEST(Cputrack, AttachWithCountDetachesAfterItsSamples) {
    SKIP_WITHOUT_PTRACE();
    // The program sleeps 4 s: cputrack, done after 0.4 s, has room on a
    // busy machine before it could be mistaken for waiting.
    Spawned target({PCTX_SLEEPER, "4000"});
    ASSERT_EQ(target.line(), "ready");
    Result r = run({"-n", "-N", "2", "-T", "0.2", "-c", "page-faults", "-p",
                    std::to_string(target.pid)});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_LT(r.seconds, 3.0) << "cputrack waited for the program";
    std::vector<Line> lines = body(r.out, 0, {});
    EXPECT_EQ(lines.size(), 4u) << r.out;
    EXPECT_EQ(kill(target.pid, 0), 0) << "the program was killed";
    EXPECT_EQ(tracer_of(target.pid), 0);
    int st = target.wait();
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "status " << st;
}

TEST(Cputrack, AttachedUntilItExits) {
    SKIP_WITHOUT_PTRACE();
    Spawned target({PCTX_SLEEPER, "600"});
    ASSERT_EQ(target.line(), "ready");
    Result r = run({"-n", "-v", "-T", "0", "-c", "page-faults", "-p", std::to_string(target.pid)});
    EXPECT_EQ(r.status, 0) << r.err;
    std::vector<Line> lines = body(r.out, 0, {});
    ASSERT_FALSE(lines.empty());
    long other = -1;
    for (const Line &l : lines)
        if (l.lwp != target.pid)
            other = l.lwp;
    std::map<long, std::string> names = {{target.pid, "M"}, {other, "T"}};
    // Both threads are found at the capture; which ends first varies.
    std::string text = masked_text(lines, {}, names);
    EXPECT_TRUE(text == "M init_lwp n\nT init_lwp n\nT fini_lwp n\nT lwp_exit n\n"
                        "M fini_lwp n\nM exit n\n" ||
                text == "T init_lwp n\nM init_lwp n\nT fini_lwp n\nT lwp_exit n\n"
                        "M fini_lwp n\nM exit n\n" ||
                text == "M init_lwp n\nT init_lwp n\nM fini_lwp n\nT fini_lwp n\nM exit n\n" ||
                text == "M init_lwp n\nT init_lwp n\nT fini_lwp n\nM fini_lwp n\nM exit n\n")
        << text;
}

// ---- -o ----

TEST(Cputrack, OutputFileHoldsTheLinesAndAppearsWhole) {
    SKIP_WITHOUT_PTRACE();
    std::string dir = temp_dir();
    std::string path = dir + "/out.txt";
    {
        std::ofstream old(path);
        old << "old\n";
    }
    // A failed run leaves an existing file as it was.
    Result r = run({"-o", path, "-c", "page-faults", "no-such-program-here"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(slurp(path), "old\n");

    mode_t mask = umask(022);
    r = run({"-o", path, "-T", "0", "-c", "page-faults", PCTX_EXEC, "exit", "3"});
    umask(mask);
    EXPECT_EQ(r.status, 0) << "cputrack's status is not the program's";
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "");
    std::string text = slurp(path);
    std::vector<std::string> ls = split_lines(text);
    ASSERT_EQ(ls.size(), 2u) << text;
    EXPECT_EQ(ls[0], header({"pic0"}, {}));
    std::vector<Line> lines = body(text, 1, {});
    EXPECT_EQ(lines[0].label, "exit");
    struct stat st{};
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0644u);
    EXPECT_EQ(dir_entries(dir), std::vector<std::string>{"out.txt"}) << "a temporary file is left";
    remove_dir(dir);
}

// ---- hardware ----

TEST(Cputrack, GenericHardwareEventCountsInstructions) {
    SKIP_WITHOUT_PTRACE();
    cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
    bool hw = cpctools::has_hardware_pmu(cpc);
    cpc_close(cpc);
    if (!hw)
        GTEST_SKIP() << "this machine has no hardware performance counters (PAPI_tot_ins)";
    Result r = run({"-n", "-T", "0", "-c", "PAPI_tot_ins", PCTX_EXEC, "chain", "0"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<Line> lines = body(r.out, 0, {});
    ASSERT_EQ(lines.size(), 1u) << r.out;
    EXPECT_EQ(lines[0].label, "exit");
    EXPECT_GT(lines[0].values[0], 100000);
}

} // namespace
