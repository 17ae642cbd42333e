// SPDX-License-Identifier: MIT
#include "profiler/record/attach.h"

#include "profiler/record/off_cpu.h"
#include "profiler/record/stack_unwind.h"

#include "profiler/agent/cfi_cache.h"
#include "profiler/agent/module_scan.h"
#include "profiler/protocol/elf_static.h"
#include "profiler/protocol/protocol.h"
#include "symbolize/symbolizer.h"

#include "base/clock.h"

#include <dirent.h>
#include <fcntl.h>
#include <libcpc.h>
#include <link.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

namespace cpcprof::record {

namespace {

using agent::ModuleEntry;

// The user stack copied with each sample (dwarf): perf's default is 8 KiB;
// deeper stacks (an interpreter's) need more, and the rings carry it.
constexpr uint_t kStackCopyBytes = 16 * 1024;
// The stack each switch out copies (record --off-cpu where the kernel may
// be profiled): as much as a sample's, since 8 KiB cut sqlite3's stacks
// short of main; its ring is asked large (CPC_RING_LARGE) to hold them.
constexpr uint_t kSwitchStackBytes = 16 * 1024;

std::string read_text(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\0'))
        s.pop_back();
    return s;
}

// The parent's pid, from /proc/PID/stat (after the command's closing
// parenthesis: state, then ppid).
pid_t parent_of(pid_t pid) {
    std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
    size_t paren = stat.rfind(')');
    if (paren == std::string::npos)
        return 0;
    std::istringstream in(stat.substr(paren + 1));
    std::string state;
    int ppid = 0;
    in >> state >> ppid;
    return pid_t(ppid);
}

// This process's vDSO: where it is mapped, and its build-id.
struct Vdso {
    uint64_t start = 0, end = 0;
    std::string build_id;
};

const Vdso &own_vdso() {
    static const Vdso v = [] {
        Vdso o;
        for (const agent::MapsLine &l : agent::parse_exec_maps(read_text("/proc/self/maps")))
            if (l.path == "[vdso]") {
                o.start = l.start;
                o.end = l.end;
            }
        dl_iterate_phdr(
            [](dl_phdr_info *info, size_t, void *arg) {
                auto *v = static_cast<Vdso *>(arg);
                if (info->dlpi_addr >= v->start && info->dlpi_addr < v->end && v->build_id.empty())
                    v->build_id = agent::module_build_id(info);
                return 0;
            },
            &o);
        return o;
    }();
    return v;
}

// Whether pid's vDSO at [start, end) holds the same bytes as ours.
bool same_vdso(pid_t pid, uint64_t start, uint64_t end) {
    const Vdso &own = own_vdso();
    if (own.end - own.start != end - start || own.build_id.empty())
        return false;
    std::vector<char> theirs(end - start);
    iovec local{theirs.data(), theirs.size()};
    iovec remote{reinterpret_cast<void *>(uintptr_t(start)), theirs.size()};
    return process_vm_readv(pid, &local, 1, &remote, 1, 0) == ssize_t(theirs.size()) &&
           std::memcmp(theirs.data(), reinterpret_cast<const void *>(uintptr_t(own.start)),
                       theirs.size()) == 0;
}

std::string g_cpc_error; // libcpc's last message, for the user

void keep_error(const char *fn, int, const char *fmt, va_list ap) {
    char msg[512];
    std::vsnprintf(msg, sizeof msg, fmt, ap);
    g_cpc_error = std::string(fn) + ": " + msg;
}

} // namespace

struct Attach::Impl {
    struct Proc {
        bool alive = true;
        bool said_hello = true;       // false: held before its exec
        int64_t image_ns = 0;         // the exec of its current image, as the rings timed it
        bool kernel_thread = false;   // no user memory: its stacks are the kernel's whole
        bool awaiting_static = false; // added (Attach::add): said once it runs a static program
        std::vector<ModuleEntry> modules;
        std::string exe; // as said, and its arguments
        std::vector<std::string> argv;
        std::vector<char> samples; // SampleRecords, values and frames
        uint32_t count = 0;
        uint64_t taken = 0, dropped = 0; // since the last account
        // open_watch: the agents say it and sample it; the rings follow
        // its switches alone.  sampled: an added process the rings sample.
        bool watched = false;
        bool sampled = false;
    };
    // The other events' counts of each thread at its last sample: a
    // sample carries what they counted over its period, as an agent's.
    std::map<pid_t, std::vector<uint64_t>> last_values;
    size_t nevents = 1;

    cpc_t *cpc = nullptr;
    cpc_set_t *set = nullptr;
    std::vector<cpc_ring_t *> rings;
    std::vector<int> pids;
    bool held = false;          // the pids are held before their exec
    bool system = false;        // -a: every process, on the CPUs of cpus (all if empty)
    bool dynamic = false;       // processes are added while it runs (Attach::add)
    bool watch = false;         // open_watch: the processes are the agents' to say
    bool switch_stacks = false; // open_watch: the kernel samples each switch out's stack
    uint64_t lost_switches = 0; // switch records the kernel could not write
    // --no-children: the processes' own samples only (the rings follow
    // their children all the same; those samples are left out).
    bool children = true;
    std::vector<PlannedEvent> events;
    uint_t ring_flags = 0;
    cpc_set_t *user_set = nullptr; // the events in user mode only (made when needed)
    std::vector<int> cpus;
    pid_t self = getpid();
    pid_t last_sampled = 0;
    // -a: samples of no process that could be said (the idle task, a
    // process that ended before its first sample was read) and records the
    // kernel lost while no process had been sampled.
    uint64_t unsaid = 0, idle = 0;
    // Why the kernel's frames are not sampled ("" where they are), said
    // once into the profile with the first hello.
    std::string kernel_missing;
    base::ScopedFd channel; // the reader's end
    int max_depth = 128;
    CopiedStackUnwinder unwinder; // dwarf: the copied user stacks
    // --off-cpu: the threads' switches (the rings' CPC_RING_SWITCH) and
    // where they wait, read while they do.
    std::unique_ptr<OffCpuTracker> off_cpu;
    double duration_s = 0;   // 0: none
    int64_t deadline_ns = 0; // 0: none
    std::map<pid_t, Proc> procs;
    // Build-ids of the processes' files, by the path read ("" for none).
    std::map<std::string, std::string> build_ids;
    // Files that this namespace does not have, held open (Attach::held_files)
    std::shared_ptr<HeldFiles> held_files = std::make_shared<HeldFiles>();

    ~Impl() {
        for (cpc_ring_t *r : rings)
            cpc_ring_close(r);
        for (const Added &a : added)
            cpc_ring_close(a.ring);
        if (cpc != nullptr)
            cpc_close(cpc);
    }

    void send(const std::vector<char> &msg) const {
        // SOCK_SEQPACKET: the message arrives whole; a session that has
        // gone only ends the recording.
        ::send(channel.get(), msg.data(), msg.size(), MSG_NOSIGNAL);
    }

    // Says pid from /proc.  A process gone before this (a fork read late)
    // is said with its agent's fields where it sent them (agent), else
    // with its parent's program, which a fork child runs.
    void hello(pid_t pid, pid_t ppid, const storage::ProcessInfo *agent = nullptr) {
        std::string base = "/proc/" + std::to_string(pid);
        char exe[4096];
        ssize_t n = readlink((base + "/exe").c_str(), exe, sizeof exe - 1);
        std::string cmdline = read_text(base + "/cmdline");
        storage::ProcessInfo info;
        info.pid = pid;
        info.ppid = ppid;
        info.start_ns = base::monotonic_ns();
        for (size_t at = 0; at < cmdline.size();) {
            size_t end = cmdline.find('\0', at);
            if (end == std::string::npos)
                end = cmdline.size();
            info.argv.push_back(cmdline.substr(at, end - at));
            at = end + 1;
        }
        std::string comm = trimmed(read_text(base + "/comm"));
        bool gone = n <= 0 && info.argv.empty() && comm.empty();
        auto parent = procs.find(ppid);
        if (gone && agent != nullptr) {
            info = *agent;
        } else if (gone && parent != procs.end() && !parent->second.exe.empty()) {
            info.exe = parent->second.exe;
            info.argv = parent->second.argv;
        } else {
            // A kernel thread has neither a program nor arguments: "[kworker/0:1]".
            info.exe = n > 0               ? std::string(exe, size_t(n))
                       : info.argv.empty() ? "[" + comm + "]"
                                           : info.argv[0];
        }
        say_hello(info);
    }

    void say_hello(const storage::ProcessInfo &info) {
        const pid_t pid = info.pid;
        if (watch && !procs[pid].sampled) {
            // Its agent says it: only its mappings, for where it waits.
            Proc &p = procs[pid];
            p.watched = p.said_hello = true;
            p.exe = info.exe;
            p.argv = info.argv;
            send_modules(pid, true);
            return;
        }
        proto::Writer w(proto::Type::hello);
        w.put(static_cast<int32_t>(pid));
        w.put(static_cast<int32_t>(info.ppid));
        w.put(info.start_ns);
        w.put_string(info.exe);
        w.put(static_cast<uint32_t>(info.argv.size()));
        for (const std::string &a : info.argv)
            w.put_string(a);
        send(w.finish());
        procs[pid].said_hello = true;
        procs[pid].exe = info.exe;
        procs[pid].argv = info.argv;
        send_modules(pid, true);
        if (!kernel_missing.empty()) {
            proto::Writer e(proto::Type::error);
            e.put(int32_t(0)); // the recording's, not one process's
            e.put_string(kernel_missing);
            send(e.finish());
            kernel_missing.clear();
        }
    }

    void thread(pid_t pid, pid_t tid, const std::string &name) {
        if (auto it = procs.find(pid); it != procs.end() && it->second.watched)
            return; // its agent names its threads
        proto::Writer w(proto::Type::thread);
        w.put(static_cast<int32_t>(pid));
        w.put(static_cast<int32_t>(tid));
        w.put_string(name);
        send(w.finish());
    }

    void threads_of(pid_t pid) {
        std::string dir = "/proc/" + std::to_string(pid) + "/task";
        std::vector<pid_t> tids;
        if (DIR *d = opendir(dir.c_str())) {
            while (dirent *e = readdir(d))
                if (e->d_name[0] != '.')
                    tids.push_back(pid_t(std::atoi(e->d_name)));
            closedir(d);
        }
        for (pid_t t : tids)
            thread(pid, t, trimmed(read_text(dir + "/" + std::to_string(t) + "/comm")));
    }

    // Opens the file at theirs (PATH under /proc/PID/root) and keeps it,
    // when ours (PATH here) is not the same file: the process is in
    // another mount namespace (a container), and its file may be gone
    // with the namespace before the profile is symbolized.
    void hold_if_elsewhere(const std::string &theirs, const std::string &ours,
                           const std::string &build_id) {
        if (build_id.empty() || held_files->count(build_id) != 0)
            return;
        struct stat a {
        }, b{};
        if (stat(theirs.c_str(), &a) != 0 ||
            (stat(ours.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino))
            return;
        base::ScopedFd fd(::open(theirs.c_str(), O_RDONLY | O_CLOEXEC));
        // The build-id was read from theirs a moment ago; checked again on
        // the held file when it is symbolized.
        if (fd.valid())
            held_files->emplace(build_id, std::move(fd));
    }

    // The process's executable mappings, sent when they changed.
    void send_modules(pid_t pid, bool force) {
        // Empty for a kernel thread (or a process gone): the kernel alone.
        std::string maps = read_text("/proc/" + std::to_string(pid) + "/maps");
        procs[pid].kernel_thread =
            maps.empty() && read_text("/proc/" + std::to_string(pid) + "/stat").size() > 0;
        std::vector<ModuleEntry> modules;
        std::vector<agent::MapsLine> lines = agent::parse_exec_maps(maps);
        if (procs[pid].watched) { // its agent sends its modules
            set_mappings(pid, lines);
            return;
        }
        agent::add_unlisted_mappings(modules, lines, pid);
        // Files by build-id, read through the process's root (its mount
        // namespace), so that symbols are matched to the right file.
        std::string root = "/proc/" + std::to_string(pid) + "/root";
        for (ModuleEntry &m : modules) {
            if (m.path.empty() || m.path[0] != '/' || !m.build_id.empty())
                continue;
            auto known = build_ids.find(root + m.path);
            if (known == build_ids.end()) {
                std::string id = symbolize::read_build_id(root + m.path);
                if (id.empty())
                    id = symbolize::read_build_id(m.path);
                known = build_ids.emplace(root + m.path, id).first;
                hold_if_elsewhere(root + m.path, m.path, id);
            }
            m.build_id = known->second;
        }
        // The vDSO, where it is this process's own image (the same kernel
        // and word size): its unwind table and symbols come from ours.
        for (auto l = lines.begin(); l != lines.end();) {
            if (l->path != "[vdso]") {
                ++l;
            } else if (same_vdso(pid, l->start, l->end)) {
                modules.push_back({l->start, l->end, 0, "[vdso]", own_vdso().build_id});
                ++l;
            } else {
                l = lines.erase(l);
            }
        }
        // The kernel's frames: one module over its half of the addresses,
        // symbolized from /proc/kallsyms (symbolize/symbolizer.h).
        symbolize::Mapping k = symbolize::kernel_mapping();
        modules.push_back({k.start, k.end, k.file_offset, k.path, ""});
        Proc &p = procs[pid];
        auto same = [](const ModuleEntry &a, const ModuleEntry &b) {
            return a.start == b.start && a.end == b.end && a.file_offset == b.file_offset &&
                   a.path == b.path;
        };
        if (!force && modules.size() == p.modules.size() &&
            std::equal(modules.begin(), modules.end(), p.modules.begin(), same))
            return;
        send(agent::module_table_message(pid, base::monotonic_ns(), modules));
        p.modules = std::move(modules);
        set_mappings(pid, lines);
    }

    void set_mappings(pid_t pid, const std::vector<agent::MapsLine> &lines) {
        std::vector<CopiedStackUnwinder::Mapping> mappings;
        mappings.reserve(lines.size());
        for (const agent::MapsLine &l : lines)
            mappings.push_back({l.start, l.end, l.file_offset, l.path});
        unwinder.set_mappings(pid, mappings);
    }

    void flush(pid_t pid, Proc &p) {
        if (!p.said_hello || p.watched)
            return; // its losses are told after its hello; an agent's are its own
        if (p.count > 0) {
            proto::Writer w(proto::Type::samples);
            w.put(static_cast<int32_t>(pid));
            w.put(p.count);
            w.put_bytes(p.samples.data(), p.samples.size());
            send(w.finish());
            p.samples.clear();
            p.count = 0;
        }
        if (p.taken != 0 || p.dropped != 0) {
            proto::Writer w(proto::Type::account);
            w.put(static_cast<int32_t>(pid));
            w.put(p.taken);
            w.put(p.dropped);
            w.put(uint64_t(0));
            send(w.finish());
            p.taken = p.dropped = 0;
        }
    }

    void flush_all() {
        for (auto &[pid, p] : procs)
            flush(pid, p);
    }

    void bye(pid_t pid, int64_t when) {
        Proc &p = procs[pid];
        if (p.watched) { // its agent, or the session, says its end
            p.alive = false;
            unwinder.forget(pid);
            return;
        }
        flush(pid, p);
        proto::Writer w(proto::Type::bye);
        w.put(static_cast<int32_t>(pid));
        w.put(int32_t(-1)); // not our child: how it ended is not known here
        w.put(when);
        send(w.finish());
        p.alive = false;
        unwinder.forget(pid);
    }

    // --off-cpu: the stretches off the CPU of the threads the rings follow.
    void follow_off_cpu(const Options &o) {
        off_cpu = std::make_unique<OffCpuTracker>(
            o.off_cpu_min_ns.value_or(kDefaultOffCpuMinNs),
            [this](pid_t pid, const WaitingStack &w, std::vector<uint64_t> *frames) {
                return unwind_waiting(pid, w, frames);
            },
            [](pid_t pid, pid_t tid, WaitingStack *w) {
                return read_waiting_stack(pid, tid, kStackCopyBytes, w);
            },
            [] { return base::monotonic_ns(); });
    }

    // Where a thread waits, unwound from the stack read then: its stack
    // pointer and PC alone are known (off_cpu.h).
    bool unwind_waiting(pid_t pid, const WaitingStack &w, std::vector<uint64_t> *frames) {
        auto it = procs.find(pid);
        if (it == procs.end() || !it->second.alive || it->second.kernel_thread)
            return false;
        const uint64_t regs[2] = {w.sp, w.pc}; // perf_regs' SP (bit 7) and IP (bit 8)
        bool complete = unwinder.unwind(pid, regs, (uint64_t{1} << 7) | (uint64_t{1} << 8),
                                        w.bytes.data(), w.bytes.size(), max_depth, frames);
        if (frames->empty())
            frames->push_back(w.pc);
        return complete;
    }

    // The kernel's sample of a watched thread's stack as it switched out
    // (switch_stacks): the user's part, for the stretch it begins.
    void switch_stack(const cpc_ring_record_t &r, const Proc &p) {
        if (!off_cpu || p.kernel_thread || agent_tids.count(r.tid) != 0 || r.time < p.image_ns)
            return;
        std::vector<uint64_t> frames;
        bool complete = false;
        if (r.regs != nullptr && r.stack != nullptr) {
            complete = unwinder.unwind(r.pid, r.regs, r.regs_mask, r.stack, r.stack_size, max_depth,
                                       &frames);
        } else {
            for (uint32_t i = 0; i < r.nuser_pcs; ++i)
                frames.push_back(r.user_pcs[i]);
        }
        if (frames.empty())
            return; // no user stack (a thread that never ran user code)
        if (frames.size() > size_t(max_depth)) {
            frames.resize(size_t(max_depth));
            complete = false;
        }
        off_cpu->at_switch(r.pid, r.tid, r.time, complete, std::move(frames));
    }

    // The agents' own threads (watch), known by name, and the threads
    // known to be the programs': named otherwise at their first waits (an
    // agent's thread names itself as it starts, but may wait before).
    std::set<pid_t> agent_tids, program_tids;
    std::map<pid_t, int> name_looks; // blocked switches out looked at, per thread
    static constexpr int kNameLooks = 4;

    // tid is an agent's own thread: its waits are none of the program's.
    void agent_tid(pid_t tid) {
        agent_tids.insert(tid);
        program_tids.erase(tid);
        name_looks.erase(tid);
        off_cpu->forget(tid);
    }

    void switched(const cpc_ring_record_t &r) {
        auto it = procs.find(r.pid);
        if (it == procs.end() || !it->second.alive || !it->second.said_hello ||
            r.time < it->second.image_ns)
            return;
        if (it->second.watched && program_tids.count(r.tid) == 0) {
            if (agent_tids.count(r.tid) != 0)
                return;
            // Named as it starts, before it first waits.
            if (r.switch_out != 0 && r.preempted == 0) {
                std::string comm = trimmed(read_text("/proc/" + std::to_string(r.pid) + "/task/" +
                                                     std::to_string(r.tid) + "/comm"));
                if (comm == proto::kAgentThreadName) {
                    agent_tid(r.tid);
                    return;
                }
                // A thread already gone (its records read late, beside busy
                // CPUs) has no name to read: that is no look.
                if (!comm.empty() && ++name_looks[r.tid] >= kNameLooks) {
                    program_tids.insert(r.tid);
                    name_looks.erase(r.tid);
                }
            }
        }
        off_cpu->switched(r.pid, r.tid, r.time, r.switch_out != 0, r.preempted != 0);
    }

    // The stretches ended (end: and those still going, cut now), to the
    // session, per process.
    void send_off_cpu(bool end) {
        if (!off_cpu)
            return;
        std::vector<OffCpuStretch> done = off_cpu->take(end);
        std::stable_sort(
            done.begin(), done.end(),
            [](const OffCpuStretch &a, const OffCpuStretch &b) { return a.pid < b.pid; });
        std::vector<char> body;
        uint32_t count = 0;
        auto send_body = [&](pid_t pid) {
            if (count == 0)
                return;
            proto::Writer w(proto::Type::off_cpu);
            w.put(static_cast<int32_t>(pid));
            w.put(count);
            w.put_bytes(body.data(), body.size());
            send(w.finish());
            body.clear();
            count = 0;
        };
        for (size_t i = 0; i < done.size(); ++i) {
            const OffCpuStretch &s = done[i];
            proto::OffCpuRecord rec{};
            rec.time_ns = s.time_ns;
            rec.duration_ns = s.duration_ns;
            rec.stretches = s.stretches;
            rec.tid = s.tid;
            size_t depth = std::min(s.frames.size(), size_t(max_depth));
            rec.depth = static_cast<uint16_t>(depth);
            rec.preempted = s.preempted ? 1 : 0;
            rec.complete = s.complete && depth == s.frames.size() ? 1 : 0;
            size_t bytes = sizeof rec + depth * sizeof(uint64_t);
            if (body.size() + bytes + 64 > proto::kMaxMessage)
                send_body(s.pid);
            const auto *rp = reinterpret_cast<const char *>(&rec);
            body.insert(body.end(), rp, rp + sizeof rec);
            const auto *fp = reinterpret_cast<const char *>(s.frames.data());
            body.insert(body.end(), fp, fp + depth * sizeof(uint64_t));
            ++count;
            if (i + 1 == done.size() || done[i + 1].pid != s.pid)
                send_body(s.pid);
        }
    }

    void sample(const cpc_ring_record_t &r) {
        if (r.pid == self)
            return; // -a: the recorder reading the rings is not profiled
        auto it = procs.find(r.pid);
        if (it == procs.end() && r.pid > 0 && (children || system) && kill(r.pid, 0) == 0) {
            // The rings hold only the processes attached and their
            // descendants: one whose fork record was lost is said now.
            hello(r.pid, parent_of(r.pid));
            threads_of(r.pid);
            it = procs.find(r.pid);
        }
        if (it == procs.end()) {
            ++(r.pid == 0 ? idle : unsaid); // the idle task, a process that ended unread
            return;
        }
        if (it->second.awaiting_static)
            said_if_static(r.pid, r.time);
        if (it->second.watched && switch_stacks && it->second.alive && it->second.said_hello) {
            switch_stack(r, it->second);
            return;
        }
        if (!it->second.alive || !it->second.said_hello || it->second.watched)
            return; // a held child before its exec; a process its agent samples
        Proc &p = it->second;
        last_sampled = r.pid;
        if (r.time < p.image_ns) {
            // The image before its exec (read late): its modules are
            // gone; counted, not stored under the new image's.
            ++p.taken;
            ++p.dropped;
            return;
        }
        std::vector<uint64_t> frames;
        for (uint32_t i = 0; i < r.nkernel_pcs; ++i)
            frames.push_back(r.kernel_pcs[i]);
        bool complete = false;
        if (r.regs != nullptr && r.stack != nullptr) {
            // The user's part unwound from the copy (dwarf).
            complete = unwinder.unwind(r.pid, r.regs, r.regs_mask, r.stack, r.stack_size, max_depth,
                                       &frames);
        } else {
            for (uint32_t i = 0; i < r.nuser_pcs; ++i)
                frames.push_back(r.user_pcs[i]);
            // A kernel thread's stack ends in the kernel (ret_from_fork).
            complete = p.kernel_thread && r.nkernel_pcs > 0 && r.nuser_pcs == 0;
        }
        if (frames.empty())
            frames.push_back(r.pc);
        if (frames.size() > size_t(max_depth)) {
            frames.resize(size_t(max_depth));
            complete = false;
        }
        proto::SampleRecord s{};
        s.time_ns = r.time;
        s.tid = r.tid;
        s.cpu = r.cpu;
        s.depth = static_cast<uint16_t>(frames.size());
        s.complete = complete && frames.size() <= size_t(max_depth) ? 1 : 0;
        // The sampling event stands for its period; the others count
        // from the thread's previous sample.
        std::vector<uint64_t> values(nevents, 0);
        values[0] = r.period;
        std::vector<uint64_t> &last = last_values[r.tid];
        last.resize(nevents, 0);
        for (size_t i = 1; i < nevents && i < r.nvalues; ++i) {
            values[i] = r.values[i] - last[i];
            last[i] = r.values[i];
        }
        s.nvalues = static_cast<uint8_t>(nevents);
        size_t bytes = sizeof s + (nevents + frames.size()) * sizeof(uint64_t);
        if (p.samples.size() + bytes + 64 > proto::kMaxMessage)
            flush(r.pid, p);
        const auto *sp = reinterpret_cast<const char *>(&s);
        p.samples.insert(p.samples.end(), sp, sp + sizeof s);
        const auto *vp = reinterpret_cast<const char *>(values.data());
        p.samples.insert(p.samples.end(), vp, vp + nevents * sizeof(uint64_t));
        const auto *fp = reinterpret_cast<const char *>(frames.data());
        p.samples.insert(p.samples.end(), fp, fp + frames.size() * sizeof(uint64_t));
        ++p.count;
        ++p.taken;
    }

    // A sample or an exit, kept until the pass over every ring has read
    // the processes' forks, execs and mappings: each CPU's ring is in time
    // order, but a process's fork or exec on one CPU may be read after its
    // samples on another.
    struct Deferred {
        cpc_ring_record_t r{};
        std::vector<uint64_t> kernel_pcs, user_pcs, regs, values;
        std::vector<unsigned char> stack;
    };
    std::vector<Deferred> deferred;
    size_t ndeferred = 0; // in use (the vectors' storage is kept)

    void defer(const cpc_ring_record_t &r) {
        if (ndeferred == deferred.size())
            deferred.emplace_back();
        Deferred &d = deferred[ndeferred++];
        d.r = r;
        auto copy = [](std::vector<uint64_t> &v, const uint64_t *p, size_t n) {
            v.assign(p, p + (p != nullptr ? n : 0));
        };
        copy(d.kernel_pcs, r.kernel_pcs, r.nkernel_pcs);
        copy(d.user_pcs, r.user_pcs, r.nuser_pcs);
        copy(d.regs, r.regs, r.regs != nullptr ? size_t(__builtin_popcountll(r.regs_mask)) : 0);
        copy(d.values, r.values, r.nvalues);
        const auto *st = static_cast<const unsigned char *>(r.stack);
        d.stack.assign(st, st + (st != nullptr ? r.stack_size : 0));
        d.r.path = d.r.comm = nullptr; // not a sample's or an exit's
    }

    // The deferred records in time order, then forgotten.
    void run_deferred() {
        std::vector<Deferred *> order;
        order.reserve(ndeferred);
        for (size_t i = 0; i < ndeferred; ++i)
            order.push_back(&deferred[i]);
        std::stable_sort(order.begin(), order.end(), [](const Deferred *a, const Deferred *b) {
            return a->r.time < b->r.time;
        });
        for (Deferred *d : order) {
            cpc_ring_record_t r = d->r;
            r.kernel_pcs = d->kernel_pcs.data();
            r.user_pcs = d->user_pcs.data();
            r.regs = r.regs != nullptr ? d->regs.data() : nullptr;
            r.values = d->values.data();
            r.stack = r.stack != nullptr ? d->stack.data() : nullptr;
            if (r.kind == CPC_RING_SAMPLE)
                sample(r);
            else if (r.kind == CPC_RING_SWITCH)
                switched(r);
            else
                exited(r);
        }
        ndeferred = 0;
    }

    void exited(const cpc_ring_record_t &r) {
        if (off_cpu) {
            off_cpu->ended(r.tid);
            agent_tids.erase(r.tid);
            program_tids.erase(r.tid);
            name_looks.erase(r.tid);
        }
        if (r.pid == r.tid && procs.count(r.pid) != 0 && procs[r.pid].alive &&
            procs[r.pid].said_hello)
            bye(r.pid, r.time);
    }

    void record(const cpc_ring_record_t &r) {
        switch (r.kind) {
        case CPC_RING_SAMPLE:
        case CPC_RING_EXIT:
            defer(r);
            break;
        case CPC_RING_SWITCH:
            if (off_cpu)
                defer(r);
            break;
        case CPC_RING_LOST: {
            // The kernel does not say whose: the first process's (-a: the
            // last one sampled).
            pid_t owner = !pids.empty() ? pids.front() : last_sampled;
            if (watch && owner != 0 && procs[owner].watched) {
                lost_switches += r.lost;
                break;
            }
            if (owner == 0) {
                unsaid += r.lost;
                break;
            }
            Proc &p = procs[owner];
            p.taken += r.lost;
            p.dropped += r.lost;
            break;
        }
        case CPC_RING_FORK:
            if (r.pid != r.ppid && procs.count(r.ppid) != 0 && procs.count(r.pid) == 0 &&
                children) {
                hello(r.pid, r.ppid);
                threads_of(r.pid);
            } else if (r.pid == r.ppid && procs.count(r.pid) != 0) {
                thread(r.pid, r.tid,
                       trimmed(read_text("/proc/" + std::to_string(r.pid) + "/task/" +
                                         std::to_string(r.tid) + "/comm")));
            }
            break;
        case CPC_RING_COMM:
            if (procs.count(r.pid) == 0)
                break;
            if (r.exec && r.time <= procs[r.pid].image_ns)
                break; // said already, from /proc, after this exec
            if (r.exec) {
                flush(r.pid, procs[r.pid]);
                hello(r.pid, parent_of(r.pid)); // the new image over the old
                procs[r.pid].image_ns = r.time;
                procs[r.pid].awaiting_static = false;
            }
            // The agent's thread names itself as it starts: known from its
            // name's record too, however late its switches are read.
            if (off_cpu && !r.exec && procs[r.pid].watched && r.comm != nullptr &&
                std::string(r.comm) == proto::kAgentThreadName)
                agent_tid(r.tid);
            thread(r.pid, r.tid, r.comm);
            break;
        case CPC_RING_MMAP:
            if ((r.prot & PROT_EXEC) != 0 && procs.count(r.pid) != 0 && procs[r.pid].alive &&
                procs[r.pid].said_hello)
                send_modules(r.pid, false);
            break;
        default:
            break;
        }
    }

    // Rings on pid: the kernel's frames too where the caller may see them
    // (else *kernel_refused), nullptr with *error naming the process.
    cpc_ring_t *open_pid(pid_t pid, bool *kernel_refused, std::string *error) {
        g_cpc_error.clear();
        cpc_ring_t *r = cpc_ring_open(cpc, set, pid, nullptr, 0, ring_flags, kStackCopyBytes);
        if (r == nullptr && errno == EACCES) {
            // Not allowed to see the kernel: the user's part alone.
            if (user_set == nullptr) {
                user_set = cpc_set_create(cpc);
                for (size_t i = 0; i < events.size() && user_set != nullptr; ++i) {
                    const PlannedEvent &e = events[i];
                    uint64_t preset = i == 0 ? UINT64_MAX - (e.period - 1) : 0;
                    if (cpc_set_add_request(cpc, user_set, e.name.c_str(), preset,
                                            CPC_COUNT_USER | (i == 0 ? CPC_OVF_NOTIFY_EMT : 0), 0,
                                            nullptr) < 0)
                        user_set = nullptr;
                }
            }
            if (user_set != nullptr)
                r = cpc_ring_open(cpc, user_set, pid, nullptr, 0, ring_flags, kStackCopyBytes);
            *kernel_refused = r != nullptr && ring_flags != 0;
        }
        if (r == nullptr)
            *error = "cannot attach to process " + std::to_string(pid) + ": " +
                     (g_cpc_error.empty() ? std::strerror(errno) : g_cpc_error);
        return r;
    }

    // Processes added while the reader runs (Attach::add): their rings,
    // taken by the reader at its next pass.
    struct Added {
        pid_t pid;
        cpc_ring_t *ring;
        std::optional<storage::ProcessInfo> hello; // said at once, with these fields if gone
    };
    std::mutex added_lock;
    std::vector<Added> added;

    void read_rings() {
        auto on_record = [](void *arg, const cpc_ring_record_t *r) {
            static_cast<Impl *>(arg)->record(*r);
        };
        for (cpc_ring_t *r : rings)
            cpc_ring_read(r, this, on_record);
    }

    void take_added() {
        std::vector<Added> fresh;
        {
            std::lock_guard<std::mutex> l(added_lock);
            fresh.swap(added);
        }
        for (Added &a : fresh) {
            // A child of a process the rings follow was forked into them
            // (its fork record is in them by the time its agent spoke),
            // and an exec keeps them: no second ring, whose samples would
            // be counted twice.
            read_rings();
            auto known = procs.find(a.pid);
            if (known != procs.end() && known->second.watched) {
                // Followed for its switches; its rings sample it from here.
                procs.erase(known);
                known = procs.end();
            }
            if (known != procs.end() && known->second.alive && known->second.said_hello) {
                cpc_ring_close(a.ring);
                continue;
            }
            procs[a.pid].sampled = true; // known stays as it was before
            rings.push_back(a.ring);
            if (a.hello) {
                // Its agent said no hello: said here, as it runs now (it
                // may have exec'd since; its agent's fields if it is
                // gone).  It ran this image when its ring was opened:
                // every sample in it counts.
                hello(a.pid, a.hello->ppid, &*a.hello);
                threads_of(a.pid);
                procs[a.pid].image_ns = 0;
                continue;
            }
            if (known != procs.end())
                continue;
            // Said now if it already runs the program the agent could not
            // be loaded into; else at its exec (said_hello false).
            procs[a.pid].said_hello = false;
            procs[a.pid].awaiting_static = true;
            said_if_static(a.pid, base::monotonic_ns());
        }
    }

    // An added process is said once it runs a static program: its exec
    // may be past before its rings opened (no exec record then).
    void said_if_static(pid_t pid, int64_t when) {
        Proc &p = procs[pid];
        if (!p.awaiting_static ||
            !elf::is_static_elf(("/proc/" + std::to_string(pid) + "/exe").c_str()))
            return;
        p.awaiting_static = false;
        hello(pid, parent_of(pid));
        threads_of(pid);
        procs[pid].image_ns = when;
    }

    bool any_alive() const {
        if (dynamic)
            return true; // until stopped
        if (system)
            return true; // until stopped
        for (const auto &[pid, p] : procs)
            if (p.alive && (kill(pid, 0) == 0 || errno != ESRCH))
                return true;
        return false;
    }

    void run(const std::atomic<bool> &stop) {
        // Hello, threads and modules of every process before its samples;
        // sent from here, as the session reads them (a thousand threads'
        // names fill the channel).
        for (int pid : pids) {
            if (held) {
                procs[pid].said_hello = false; // at its exec
                continue;
            }
            hello(pid, parent_of(pid));
            threads_of(pid);
        }
        int64_t last_flush = base::monotonic_ns();
        for (;;) {
            bool stopping = stop.load(std::memory_order_relaxed) ||
                            (deadline_ns != 0 && base::monotonic_ns() >= deadline_ns);
            take_added();
            read_rings();
            run_deferred();
            if (off_cpu)
                off_cpu->look();
            int64_t now = base::monotonic_ns();
            if (stopping || now - last_flush > 50 * 1000 * 1000) {
                flush_all();
                send_off_cpu(false);
                last_flush = now;
            }
            if (stopping || !any_alive())
                break;
            // Each ring is waited on in turn, briefly: the rings of all
            // processes are read at least every 50 ms; with --off-cpu
            // about every millisecond, so that a thread that blocks is
            // read while it waits.
            for (cpc_ring_t *r : rings)
                if (cpc_ring_wait(r, off_cpu ? 1 : int(50 / rings.size()) + 1) < 0 &&
                    errno != EINTR)
                    break;
            if (rings.empty())
                usleep(20 * 1000); // none yet (Attach::add)
        }
        // What the processes wrote between the last pass and their end.
        take_added();
        read_rings();
        run_deferred();
        flush_all();
        send_off_cpu(true);
        if (lost_switches != 0) {
            proto::Writer e(proto::Type::error);
            e.put(int32_t(0));
            e.put_string("the kernel could not write " + std::to_string(lost_switches) +
                         " records of the threads' switches (its ring was full): the off-CPU "
                         "time of some stretches is missing");
            send(e.finish());
        }
        if (system && unsaid + idle != 0) {
            proto::Writer e(proto::Type::error);
            e.put(int32_t(0));
            e.put_string(std::to_string(idle) + " samples of the CPUs' idle time and " +
                         std::to_string(unsaid) +
                         " of processes that ended before the recorder read their first "
                         "sample (or records the kernel lost then) are not in the profile");
            send(e.finish());
        }
        channel.reset(); // the session reads end-of-file
    }
};

std::unique_ptr<Attach> Attach::open(const Options &o, const Plan &plan,
                                     const std::vector<int> &pids, bool held, std::string *error) {
    std::unique_ptr<Attach> a(new Attach());
    a->impl_ = std::make_unique<Impl>();
    Impl &im = *a->impl_;
    im.pids = pids;
    im.held = held;
    im.max_depth = o.max_depth;
    im.children = o.children;
    im.nevents = plan.events.size();
    im.duration_s = o.duration.value_or(0);
    im.cpc = cpc_open(CPC_VER_CURRENT);
    if (im.cpc == nullptr) {
        *error = std::string("cannot use performance counters: ") + std::strerror(errno);
        return nullptr;
    }
    cpc_seterrhndlr(im.cpc, keep_error);
    im.set = cpc_set_create(im.cpc);
    for (size_t i = 0; i < plan.events.size(); ++i) {
        const PlannedEvent &e = plan.events[i];
        uint64_t preset = i == 0 ? UINT64_MAX - (e.period - 1) : 0;
        // The kernel's part of each stack where the caller may see it,
        // unless --no-kernel.
        uint_t flags = CPC_COUNT_USER | (o.kernel.value_or(true) ? CPC_COUNT_SYSTEM : 0) |
                       (i == 0 ? CPC_OVF_NOTIFY_EMT : 0);
        if (cpc_set_add_request(im.cpc, im.set, e.name.c_str(), preset, flags, 0, nullptr) < 0) {
            *error = "event '" + e.name + "': " + g_cpc_error;
            return nullptr;
        }
    }
    // dwarf: the top of each user stack copied and unwound here; fp: the
    // kernel's walk of the frame pointers.
    uint_t ring_flags = o.call_graph == "none"    ? 0
                        : o.call_graph == "dwarf" ? CPC_RING_KERNEL_CALLCHAIN | CPC_RING_USER_STACK
                                                  : CPC_RING_CALLCHAIN;
    if (o.off_cpu) {
        ring_flags |= CPC_RING_SWITCHES;
        im.follow_off_cpu(o);
    }
    if (o.system_wide) {
        im.system = true;
        g_cpc_error.clear();
        std::vector<processorid_t> cpus(o.cpus.begin(), o.cpus.end());
        cpc_ring_t *r = cpc_ring_open(im.cpc, im.set, -1, cpus.data(), int(cpus.size()), ring_flags,
                                      kStackCopyBytes);
        if (r == nullptr) {
            int e = errno;
            std::string level = trimmed(read_text("/proc/sys/kernel/perf_event_paranoid"));
            *error = e == EACCES || e == EPERM
                         ? "cannot profile the whole system: it needs root, CAP_PERFMON or "
                           "kernel.perf_event_paranoid at most 0 (it is " +
                               (level.empty() ? std::string("unreadable") : level) + ")"
                     : e == EINVAL && !cpus.empty()
                         ? "cannot profile the whole system: --cpu names a CPU this machine "
                           "does not have (it has " +
                               std::to_string(sysconf(_SC_NPROCESSORS_CONF)) + ")"
                         : "cannot profile the whole system: " +
                               (g_cpc_error.empty() ? std::string(std::strerror(e)) : g_cpc_error);
            return nullptr;
        }
        im.rings.push_back(r);
        return a;
    }
    im.events = plan.events;
    im.ring_flags = ring_flags;
    for (int pid : pids) {
        bool kernel_refused = false;
        cpc_ring_t *r = im.open_pid(pid, &kernel_refused, error);
        if (r == nullptr)
            return nullptr;
        if (kernel_refused)
            im.kernel_missing = kernel_frames_refused();
        im.rings.push_back(r);
    }
    return a;
}

std::unique_ptr<Attach> Attach::open_empty(const Options &o, const Plan &plan, std::string *error) {
    Options none = o;
    none.pids.clear();
    none.system_wide = false;
    none.duration.reset();
    std::unique_ptr<Attach> a = open(none, plan, {}, false, error);
    if (a)
        a->impl_->dynamic = true;
    return a;
}

std::unique_ptr<Attach> Attach::open_watch(const Options &o, const Plan &plan, pid_t pid,
                                           std::string *error) {
    Options sampling = o;
    sampling.off_cpu = false; // add()'s rings: this one has their switches
    std::unique_ptr<Attach> a = open_empty(sampling, plan, error);
    if (!a)
        return nullptr;
    Impl &im = *a->impl_;
    im.watch = true;
    im.follow_off_cpu(o);
    // Where the user may profile the kernel, the kernel samples the user
    // stack at each switch out (context-switches, every one: the stack
    // of every stretch, however short, as perf's sched_switch gives it);
    // elsewhere it only says when threads switch (dummy counts nothing),
    // and the recorder reads where they wait (off_cpu.h).
    const uint_t stack_flags = im.ring_flags & (CPC_RING_USER_STACK | CPC_RING_CALLCHAIN);
    cpc_ring_t *r = nullptr;
    for (bool stacks : {true, false}) {
        if (stacks && stack_flags == 0)
            continue;
        cpc_set_t *set = cpc_set_create(im.cpc);
        g_cpc_error.clear();
        const uint_t count = CPC_COUNT_USER | (stacks ? CPC_COUNT_SYSTEM : 0);
        if (set != nullptr &&
            cpc_set_add_request(im.cpc, set, stacks ? "context-switches" : "dummy", UINT64_MAX,
                                count | CPC_OVF_NOTIFY_EMT, 0, nullptr) >= 0)
            r = cpc_ring_open(im.cpc, set, pid, nullptr, 0,
                              CPC_RING_SWITCHES | (stacks ? stack_flags | CPC_RING_LARGE : 0),
                              stacks ? kSwitchStackBytes : 0);
        if (set != nullptr)
            cpc_set_destroy(im.cpc, set);
        if (r != nullptr) {
            im.switch_stacks = stacks;
            break;
        }
    }
    if (r == nullptr) {
        *error = "cannot follow the threads' switches: " +
                 (g_cpc_error.empty() ? std::string(std::strerror(errno)) : g_cpc_error);
        return nullptr;
    }
    im.rings.push_back(r);
    im.pids = {pid};
    return a;
}

bool Attach::add(pid_t pid, const storage::ProcessInfo *hello, std::string *error) {
    bool kernel_refused = false;
    cpc_ring_t *r = impl_->open_pid(pid, &kernel_refused, error);
    if (r == nullptr)
        return false;
    std::lock_guard<std::mutex> l(impl_->added_lock);
    impl_->added.push_back(
        {pid, r, hello != nullptr ? std::optional<storage::ProcessInfo>(*hello) : std::nullopt});
    return true;
}

bool Attach::switch_stacks() const {
    return impl_->switch_stacks;
}

std::shared_ptr<const HeldFiles> Attach::held_files() const {
    return impl_->held_files;
}

std::map<std::string, std::string> held_file_paths(const HeldFiles &files) {
    std::map<std::string, std::string> paths;
    for (const auto &[build_id, fd] : files)
        paths.emplace(build_id, "/proc/self/fd/" + std::to_string(fd.get()));
    return paths;
}

Attach::~Attach() {
    stop();
    if (reader_.joinable())
        reader_.join();
}

base::ScopedFd Attach::start() {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        return {};
    impl_->channel.reset(sv[1]);
    if (impl_->duration_s > 0)
        impl_->deadline_ns = base::monotonic_ns() + int64_t(impl_->duration_s * 1e9);
    reader_ = std::thread([this] { impl_->run(stop_); });
    return base::ScopedFd(sv[0]);
}

} // namespace cpcprof::record
