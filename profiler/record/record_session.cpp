// SPDX-License-Identifier: MIT
#include "profiler/record/record_session.h"
#include "base/paths.h"

#include "base/clock.h"
#include "profiler/protocol/protocol.h"
#include "symbolize/symbolizer.h"

#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace cpcprof::record {

using base::monotonic_ns;

namespace {
constexpr int64_t kCommitEveryNs = 100 * 1000 * 1000;
// After the target has exited, processes it left behind may still send;
// once nothing has arrived for this long and none is our child, stop.
constexpr int64_t kLingerNs = 300 * 1000 * 1000;
// How often the processes we cannot reap are looked at while messages
// flow (each look: a poll of each pidfd).
constexpr int64_t kGoneCheckNs = 50 * 1000 * 1000;

} // namespace

// Samples of a process image that arrived after its last account message.
// The agent sends a drain pass's samples first and their account last, so
// an image that vanished mid-pass (crash, kill, exec, _exit) leaves
// samples no account counts.  They were taken all the same: count them
// (taken = stored, dropped unknown), so that taken == stored + dropped.
void Session::settle(int pid, Proc &proc) {
    uint64_t n = proc.stored_since_account;
    if (n == 0)
        return;
    w_.add_accounting(pid, {n, n, 0});
    proc.pending.taken += n;
    proc.pending.stored += n;
    proc.reported_taken += n;
    sum_.taken += n;
    proc.stored_since_account = 0;
}

Summary Session::run() {
    std::vector<char> buf(proto::kMaxMessage + 4096);
    int64_t start = monotonic_ns();
    int64_t last_data = start, last_gone_check = start;
    last_commit_ = start;
    for (;;) {
        pollfd pfd[2] = {{target_.channel.get(), POLLIN, 0}, {extra_.get(), POLLIN, 0}};
        int rc = poll(pfd, extra_.valid() ? 2 : 1, 50);
        if (rc == 0 || monotonic_ns() - last_gone_check >= kGoneCheckNs) {
            // A zombie's status is there until its parent reaps it: looked
            // for while messages flow too.
            check_gone(rc == 0);
            last_gone_check = monotonic_ns();
        }
        if (rc > 0 && extra_.valid() && pfd[1].revents != 0 && read_extra(buf))
            last_data = monotonic_ns();
        if (rc > 0 && pfd[0].revents != 0) {
            ssize_t n = recv(target_.channel.get(), buf.data(), buf.size(), 0);
            if (n == 0)
                break; // every process holding the channel has gone
            if (n > 0) {
                handle(buf.data(), static_cast<size_t>(n));
                check_writer();
                last_data = monotonic_ns();
            } else if (errno != EINTR && errno != EAGAIN) {
                break;
            }
        }
        reap(false);
        int64_t now = monotonic_ns();
        if (now - last_commit_ > kCommitEveryNs) {
            commit();
            last_commit_ = now;
        }
        if (target_done_ && now - last_data > kLingerNs && waitpid(-1, nullptr, WNOHANG) < 0 &&
            errno == ECHILD)
            break;
    }
    if (extra_.valid()) {
        // The agents are gone: the rings' reader reads what is left and
        // ends its channel (bounded: it stops within a pass).
        stop_extra_();
        int64_t until = monotonic_ns() + int64_t(10) * 1000 * 1000 * 1000;
        while (extra_.valid() && monotonic_ns() < until) {
            pollfd p{extra_.get(), POLLIN, 0};
            if (poll(&p, 1, 100) > 0)
                read_extra(buf);
        }
        extra_.reset();
    }
    reap(true);
    check_gone(true);
    for (auto &[pid, proc] : procs_) {
        settle(pid, proc);
        if (proc.exited && !proc.said_bye && !proc.unsampled)
            sum_.silent.push_back(pid);
    }
    // The last batch, committed here so that a file full at the very end
    // also gets its loss counted.
    commit();
    if (!storing_)
        count_lost();
    sum_.seconds = double(monotonic_ns() - start) / 1e9;
    sum_.processes = procs_.size();
    sum_.threads = tids_.size();
    return sum_;
}

// One message of the second channel; false (and the channel closed) at
// its end.
bool Session::read_extra(std::vector<char> &buf) {
    ssize_t n = recv(extra_.get(), buf.data(), buf.size(), MSG_DONTWAIT);
    if (n > 0) {
        handle(buf.data(), static_cast<size_t>(n));
        check_writer();
        return true;
    }
    if (n == 0 || (errno != EINTR && errno != EAGAIN))
        extra_.reset();
    return false;
}

void Session::handle(const char *msg, size_t n) {
    if (n < sizeof(proto::Header))
        return;
    proto::Header h;
    std::memcpy(&h, msg, sizeof h);
    if (h.length != n - sizeof h)
        return; // malformed: ignore rather than misread
    proto::Reader r(msg + sizeof h, h.length);
    switch (h.type) {
    case proto::Type::hello:
        on_hello(r);
        break;
    case proto::Type::thread:
        on_thread(r);
        break;
    case proto::Type::modules:
        on_modules(r);
        break;
    case proto::Type::samples:
        on_samples(r);
        break;
    case proto::Type::account:
        on_account(r);
        break;
    case proto::Type::bye:
        on_bye(r);
        break;
    case proto::Type::error:
        on_error(r);
        break;
    case proto::Type::stats:
        on_stats(r);
        break;
    case proto::Type::unsampled:
        on_unsampled(r);
        break;
    case proto::Type::off_cpu:
        on_off_cpu(r);
        break;
    }
}

void Session::on_hello(proto::Reader &r) {
    storage::ProcessInfo p;
    p.pid = r.get<int32_t>();
    p.ppid = r.get<int32_t>();
    p.start_ns = r.get<int64_t>();
    p.exe = r.get_string();
    uint32_t argc = r.get<uint32_t>();
    for (uint32_t i = 0; i < argc && !r.failed(); ++i)
        p.argv.push_back(r.get_string());
    if (!r.failed())
        say(p);
}

void Session::say(const storage::ProcessInfo &p) {
    // An exec keeps the pid: the new image is recorded over the old one,
    // and the old image's modules are unloaded.
    auto it = procs_.find(p.pid);
    if (it != procs_.end()) {
        settle(p.pid, it->second);
        for (const auto &m : it->second.modules)
            w_.unload_module(p.pid, std::get<0>(m), monotonic_ns());
        it->second.modules.clear();
    }
    Proc &proc = procs_[p.pid];
    proc.name = base::base_name(p.exe);
    proc.said_hello = true;
    proc.said_bye = proc.early_bye.has_value(); // a pid used again starts afresh
    proc.unknown_end.reset();
    w_.add_process(p);
    watch(p.pid);
    if (proc.early_bye) {
        auto [code, end] = *proc.early_bye;
        proc.early_bye.reset();
        if (!proc.ended && p.pid != target_.pid) {
            w_.set_process_exit(p.pid, end, code >= 0 ? std::optional<int>(code) : std::nullopt,
                                std::nullopt);
            if (code < 0)
                proc.unknown_end = end;
        }
    }
}

void Session::on_thread(proto::Reader &r) {
    storage::ThreadInfo t;
    t.pid = r.get<int32_t>();
    t.tid = r.get<int32_t>();
    t.name = r.get_string();
    if (r.failed())
        return;
    tids_.insert(t.tid);
    w_.add_thread(t);
}

// The agent sends its whole table each time (agent/module_scan.h).
// Mappings gone from it are unloaded first, then new ones added: a JIT
// region that grew keeps its start, and the writer keys live mappings by
// start.
void Session::on_modules(proto::Reader &r) {
    int pid = r.get<int32_t>();
    int64_t when = r.get<int64_t>();
    uint32_t count = r.get<uint32_t>();
    Proc &proc = procs_[pid];
    std::vector<storage::ModuleInfo> fresh;
    decltype(proc.modules) now;
    for (uint32_t i = 0; i < count && !r.failed(); ++i) {
        storage::ModuleInfo m;
        m.pid = pid;
        m.start = r.get<uint64_t>();
        m.end = r.get<uint64_t>();
        m.file_offset = r.get<uint64_t>();
        m.path = r.get_string();
        m.build_id = r.get_string();
        m.load_ns = when;
        auto key = std::make_tuple(m.start, m.end, m.file_offset, m.path, m.build_id);
        if (now.insert(key).second && !proc.modules.count(key))
            fresh.push_back(std::move(m));
    }
    if (r.failed())
        return; // a short message: the table as it was
    if (kernel_frames_) {
        symbolize::Mapping k = symbolize::kernel_mapping();
        storage::ModuleInfo m;
        m.pid = pid;
        m.start = k.start;
        m.end = k.end;
        m.file_offset = k.file_offset;
        m.path = k.path;
        m.load_ns = when;
        auto key = std::make_tuple(m.start, m.end, m.file_offset, m.path, m.build_id);
        if (now.insert(key).second && !proc.modules.count(key))
            fresh.push_back(std::move(m));
    }
    for (const auto &key : proc.modules)
        if (!now.count(key))
            w_.unload_module(pid, std::get<0>(key), when);
    for (const storage::ModuleInfo &m : fresh)
        w_.add_module(m);
    proc.modules = std::move(now);
}

void Session::on_samples(proto::Reader &r) {
    int pid = r.get<int32_t>();
    uint32_t count = r.get<uint32_t>();
    Proc &proc = procs_[pid];
    std::vector<uint64_t> values, frames;
    for (uint32_t i = 0; i < count; ++i) {
        auto rec = r.get<proto::SampleRecord>();
        values.resize(rec.nvalues);
        frames.resize(rec.depth);
        for (auto &v : values)
            v = r.get<uint64_t>();
        for (auto &f : frames)
            f = r.get<uint64_t>();
        if (r.failed())
            return;
        if (off_cpu_)
            values.push_back(0); // the run's last event, off-cpu, is no sample's
        storage::Sample s;
        s.pid = pid;
        s.tid = rec.tid;
        s.time_ns = rec.time_ns;
        s.complete = rec.complete != 0;
        s.cpu = rec.cpu;
        s.frames = frames;
        s.values = values;
        w_.add_sample(s);
        ++proc.stored_since_account;
        ++proc.pending.samples;
        ++sum_.stored;
    }
}

void Session::on_off_cpu(proto::Reader &r) {
    int pid = r.get<int32_t>();
    uint32_t count = r.get<uint32_t>();
    std::vector<uint64_t> frames;
    for (uint32_t i = 0; i < count && off_cpu_; ++i) {
        auto rec = r.get<proto::OffCpuRecord>();
        frames.resize(rec.depth);
        for (auto &f : frames)
            f = r.get<uint64_t>();
        if (r.failed() || rec.stretches == 0)
            return;
        storage::OffCpu o;
        o.pid = pid;
        o.tid = rec.tid;
        o.time_ns = rec.time_ns;
        o.duration_ns = rec.duration_ns;
        o.stretches = rec.stretches;
        o.preempted = rec.preempted != 0;
        o.complete = rec.complete != 0;
        o.frames = frames;
        w_.add_off_cpu(o);
        sum_.off_cpu_stretches += rec.stretches;
        sum_.off_cpu_ns += rec.duration_ns;
        if (!frames.empty())
            sum_.off_cpu_read_ns += rec.duration_ns;
    }
}

void Session::on_account(proto::Reader &r) {
    int pid = r.get<int32_t>();
    uint64_t taken = r.get<uint64_t>();
    uint64_t dropped = r.get<uint64_t>();
    uint64_t unsampled_ns = r.get<uint64_t>();
    if (r.failed())
        return;
    Proc &proc = procs_[pid];
    w_.add_accounting(pid, {taken, proc.stored_since_account, dropped, unsampled_ns});
    proc.pending.add({taken, proc.stored_since_account, dropped, 0});
    proc.reported_taken += taken;
    proc.stored_since_account = 0;
    sum_.taken += taken;
    sum_.dropped += dropped;
    sum_.unsampled_ns += unsampled_ns;
}

void Session::on_bye(proto::Reader &r) {
    int pid = r.get<int32_t>();
    int code = r.get<int32_t>();
    int64_t end = r.get<int64_t>();
    if (r.failed())
        return;
    Proc &proc = procs_[pid];
    // A process the rings say has two: its agent's (with its exit code)
    // and the rings' (-1): the one with the code stands.
    if (proc.said_bye && code < 0)
        return;
    proc.said_bye = true;
    if (!proc.said_hello) {
        proc.early_bye = {code, end}; // written with the hello
        return;
    }
    if (!proc.ended && pid != target_.pid) {
        // Not our child: its exit code is what it passed to exit().
        w_.set_process_exit(pid, end, code >= 0 ? std::optional<int>(code) : std::nullopt,
                            std::nullopt);
        if (code < 0)
            proc.unknown_end = end; // the rings': how it ended is its pidfd's to say
    }
}

// A descendant that is not our child (its parent reaps it) and dies
// without a word (a signal), or that the rings alone saw end, still gets
// an end and, where its pidfd can tell, how.
void Session::watch(int pid) {
    Proc &proc = procs_[pid];
    if (pid == target_.pid || proc.pidfd.valid())
        return;
    proc.pidfd.reset(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
}

namespace {

// What the kernel's PIDFD_GET_INFO fills (Linux 6.15's layout, the first
// 64 bytes, which every later kernel still accepts).
struct PidfdInfo {
    uint64_t mask;
    uint64_t cgroupid;
    uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
    int32_t exit_code;
};
static_assert(sizeof(PidfdInfo) == 64);
constexpr unsigned long kPidfdGetInfo = _IOWR(0xFF, 11, PidfdInfo);
constexpr uint64_t kPidfdInfoExit = uint64_t(1) << 3;

// The exit code of a reaped process (Linux 6.15 and later keep it for
// its pidfd's holders).
std::optional<int> reaped_status(int pidfd) {
    PidfdInfo info{};
    info.mask = kPidfdInfoExit;
    if (ioctl(pidfd, kPidfdGetInfo, &info) != 0 || (info.mask & kPidfdInfoExit) == 0)
        return std::nullopt;
    return info.exit_code;
}

// The wait status of a process that has gone, as its parent's wait would
// read it: the zombie's own exit_code (field 52 of /proc/PID/stat) until
// its parent reaps it, the pidfd's exit information afterwards.
std::optional<int> gone_status(int pidfd, int pid) {
    if (auto status = reaped_status(pidfd))
        return status;
    std::string path = "/proc/" + std::to_string(pid) + "/stat";
    std::string stat;
    if (FILE *f = std::fopen(path.c_str(), "re")) {
        char buf[1024];
        size_t n = std::fread(buf, 1, sizeof buf, f);
        stat.assign(buf, n);
        std::fclose(f);
    }
    std::optional<int> status;
    size_t paren = stat.rfind(')');
    if (paren != std::string::npos) {
        std::istringstream in(stat.substr(paren + 1));
        std::string field;
        std::vector<std::string> fields; // from field 3, the state
        while (in >> field)
            fields.push_back(field);
        if (fields.size() >= 50 && fields[0] == "Z")
            status = std::atoi(fields[49].c_str());
    }
    // Read from this process only if it was not reaped since (the pid may
    // have been given to another): a zombie still takes signal 0.
    if (status && syscall(SYS_pidfd_send_signal, pidfd, 0, nullptr, 0) == 0)
        return status;
    return reaped_status(pidfd);
}

} // namespace

void Session::check_gone(bool idle) {
    for (auto &[pid, proc] : procs_) {
        if (!proc.pidfd.valid() || proc.ended)
            continue;
        pollfd p{proc.pidfd.get(), POLLIN, 0};
        if (poll(&p, 1, 0) != 1)
            continue;
        if (!proc.said_bye || proc.unknown_end) {
            std::optional<int> status = gone_status(proc.pidfd.get(), pid);
            if (!status && !idle)
                continue; // its bye may be queued still
            std::optional<int> code, sig;
            if (status && WIFEXITED(*status))
                code = WEXITSTATUS(*status);
            else if (status && WIFSIGNALED(*status))
                sig = WTERMSIG(*status);
            w_.set_process_exit(pid, proc.unknown_end.value_or(monotonic_ns()), code, sig);
        }
        proc.ended = true;
        proc.pidfd.reset();
    }
}

void Session::on_error(proto::Reader &r) {
    int pid = r.get<int32_t>();
    std::string text = r.get_string();
    if (r.failed())
        return;
    if (pid == 0) { // the recording's
        say(text);
        return;
    }
    std::fprintf(stderr, "cpcprof: process %d: %s\n", pid, text.c_str());
    w_.add_notice({pid, monotonic_ns(), text});
}

void Session::say(const std::string &text, bool quiet) {
    if (!said_.insert(text).second)
        return;
    if (!quiet)
        std::fprintf(stderr, "cpcprof: %s\n", text.c_str());
    w_.add_notice({0, monotonic_ns(), text});
}

// Said even with -q: the recording lacks that process's samples and
// nothing else shows why.  The agent sends each reason once.
void Session::on_unsampled(proto::Reader &r) {
    int pid = r.get<int32_t>();
    std::string text = r.get_string();
    if (r.failed())
        return;
    Proc &proc = procs_[pid];
    if (proc.unsampled_said == text)
        return; // a fork child that execs says it again as the new image
    proc.unsampled_said = text;
    // A static program, a process under a seccomp filter (the agent's
    // words say so): the kernel's rings sample it where they can.
    bool is_static = text.find("statically linked") != std::string::npos;
    bool filtered = text.find("seccomp filter") != std::string::npos;
    // In place of its hello (kEnvRings): the hello's fields follow.
    std::optional<storage::ProcessInfo> hello;
    if (filtered && ring_for_) {
        storage::ProcessInfo h;
        h.pid = pid;
        h.ppid = r.get<int32_t>();
        h.start_ns = r.get<int64_t>();
        h.exe = r.get_string();
        uint32_t argc = r.get<uint32_t>();
        for (uint32_t i = 0; i < argc && !r.failed(); ++i)
            h.argv.push_back(r.get_string());
        if (!r.failed())
            hello = std::move(h);
    }
    std::string why;
    bool rings =
        (is_static || hello) && ring_for_ && ring_for_(pid, hello ? &*hello : nullptr, &why);
    proc.unsampled = !rings;
    if (is_static)
        text += rings ? "; sampled through the kernel's sample rings instead" : "; not sampled";
    else if (hello && rings)
        text = "runs under a seccomp filter; sampled through the kernel's sample rings, from "
               "outside the filter";
    else if (hello)
        text += " (" + why + ")";
    else if (ring_hint_ && filtered)
        text += " (record --capture ring samples it through the kernel's sample rings, from "
                "outside the filter)";
    if (hello && !rings)
        say(*hello); // recorded all the same, unsampled
    if (proc.name.empty() && hello)
        proc.name = base::base_name(hello->exe);
    if (proc.name.empty()) // a process that never said hello (posix_spawn of a static program)
        std::fprintf(stderr, "cpcprof: process %d %s\n", pid, text.c_str());
    else
        std::fprintf(stderr, "cpcprof: process %d (%s) %s\n", pid, proc.name.c_str(), text.c_str());
}

void Session::on_stats(proto::Reader &r) {
    r.get<int32_t>(); // pid
    uint32_t buckets = r.get<uint32_t>();
    uint32_t width = r.get<uint32_t>();
    if (r.failed() || buckets == 0 || buckets > 100000)
        return;
    sum_.cost_bucket_ns = width;
    for (auto &h : sum_.cost) {
        h.resize(std::max<size_t>(h.size(), buckets));
        for (uint32_t b = 0; b < buckets; ++b)
            h[b] += r.get<uint32_t>();
    }
}

void Session::ended(pid_t pid, int status, const struct rusage &usage) {
    std::optional<int> code, sig;
    if (WIFEXITED(status))
        code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        sig = WTERMSIG(status);
    Proc &proc = procs_[pid];
    proc.ended = true;
    proc.exited = code.has_value();
    w_.set_process_exit(pid, monotonic_ns(), code, sig);
    if (proc.unsampled) {
        // A process without counters (static, under a seccomp filter, or
        // no agent for another reason it said): its whole CPU time went
        // unobserved.  wait4's usage includes the children it reaped
        // itself, and the time of an image that was sampled before an
        // exec: an upper bound, exact for a program that forks nothing.
        auto ns = [](const timeval &tv) {
            return uint64_t(tv.tv_sec) * 1000000000 + uint64_t(tv.tv_usec) * 1000;
        };
        uint64_t cpu = ns(usage.ru_utime) + ns(usage.ru_stime);
        w_.add_accounting(pid, {0, 0, 0, cpu});
        sum_.unsampled_ns += cpu;
    }
    if (sig == SIGTRAP && !proc.name.empty() && !proc.unsampled) {
        // The agent defends SIGTRAP against every change it can see; a
        // change by the system call instruction itself is seen only at the
        // drain thread's next look, and an overflow before it kills a
        // program that chose the default action (docs/profiler.md, "So
        // does the overflow signal").  Said, and kept in the file, so that
        // the death is not taken for the program's own.
        // Counting the kernel, an overflow inside an exec the agent did not
        // see (a raw execve system call) leaves its signal pending for the
        // new image, whose default action kills it.
        std::string text = "was killed by SIGTRAP, the signal of the counters' overflows, "
                           "while sampled: if the program does not raise SIGTRAP itself, it "
                           "reset SIGTRAP with a raw rt_sigaction system call, which the "
                           "profiler sees too late to keep an overflow from killing it";
        if (kernel_frames_)
            text += ", or made a raw execve system call while its counters counted the "
                    "kernel (as --kernel has them do)";
        std::fprintf(stderr, "cpcprof: process %d (%s) %s\n", pid, proc.name.c_str(), text.c_str());
        w_.add_notice({pid, monotonic_ns(), text});
    }
    if (pid == target_.pid) {
        target_done_ = true;
        sum_.exit_status = code ? *code : 128 + (sig ? *sig : 0);
    }
}

// The recorder is the target's parent and a subreaper: it sees the exit of
// the target and of every descendant orphaned before it exits.
void Session::reap(bool block) {
    for (;;) {
        int status = 0;
        struct rusage usage {};
        pid_t pid = wait4(-1, &status, block && !target_done_ ? 0 : WNOHANG, &usage);
        if (pid <= 0)
            return;
        ended(pid, status, usage);
    }
}

} // namespace cpcprof::record
