// SPDX-License-Identifier: MIT
#include "profiler/record/off_cpu.h"

#include "base/scoped_fd.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

namespace cpcprof::record {

namespace {

constexpr size_t kPage = 4096;

// The stack pointer and PC of /proc/PID/task/TID/syscall: "NR ARG1 ... ARG6
// SP PC" in a system call, "-1 SP PC" blocked outside one (a page fault),
// "running" for a thread on a CPU or runnable.
bool parse_syscall_line(const char *text, uint64_t *sp, uint64_t *pc) {
    uint64_t fields[9];
    int n = 0;
    for (const char *p = text; *p != '\0' && *p != '\n' && n < 9;) {
        char *end = nullptr;
        errno = 0;
        if (n == 0) {
            long long nr = std::strtoll(p, &end, 10);
            if (end == p || errno != 0)
                return false;
            fields[n++] = uint64_t(nr);
        } else {
            unsigned long long v = std::strtoull(p, &end, 16);
            if (end == p || errno != 0)
                return false;
            fields[n++] = v;
        }
        p = end;
        while (*p == ' ')
            ++p;
    }
    if (n != 9 && n != 3)
        return false;
    *sp = fields[n - 2];
    *pc = fields[n - 1];
    return *sp != 0 && *pc != 0;
}

} // namespace

bool read_waiting_stack(pid_t pid, pid_t tid, size_t max_bytes, WaitingStack *out) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/task/%d/syscall", int(pid), int(tid));
    base::ScopedFd fd(::open(path, O_RDONLY | O_CLOEXEC));
    if (!fd.valid())
        return false;
    char text[256];
    ssize_t n = ::read(fd.get(), text, sizeof text - 1);
    if (n <= 0)
        return false;
    text[n] = '\0';
    if (!parse_syscall_line(text, &out->sp, &out->pc))
        return false;
    // Page by page, so that a read stopping at the end of the stack's
    // mapping keeps the pages before it.
    out->bytes.resize(max_bytes);
    std::vector<iovec> remote;
    for (uint64_t at = out->sp; at < out->sp + max_bytes;) {
        uint64_t next = std::min<uint64_t>((at / kPage + 1) * kPage, out->sp + max_bytes);
        remote.push_back({reinterpret_cast<void *>(at), size_t(next - at)});
        at = next;
    }
    iovec local{out->bytes.data(), max_bytes};
    ssize_t got = process_vm_readv(pid, &local, 1, remote.data(), remote.size(), 0);
    if (got <= 0)
        return false;
    out->bytes.resize(size_t(got));
    return true;
}

OffCpuTracker::OffCpuTracker(uint64_t min_ns, Unwind unwind, Read read, Clock now)
    : min_ns_(min_ns), unwind_(std::move(unwind)), read_(std::move(read)), now_(std::move(now)) {}

void OffCpuTracker::switched(pid_t pid, pid_t tid, int64_t time_ns, bool out, bool preempted) {
    Thread &t = threads_[tid];
    t.pid = pid;
    if (out) {
        if (t.orphan_in_ns >= 0 && time_ns <= t.orphan_in_ns) {
            // The switch out of a switch in read before it (each CPU's
            // ring is read in turn): their stretch, not read.
            const int64_t open_out = t.out_ns;
            const bool open_preempted = t.preempted;
            t.out_ns = time_ns;
            t.preempted = preempted;
            end_stretch(tid, t, t.orphan_in_ns);
            t.out_ns = open_out;
            t.preempted = open_preempted;
            t.orphan_in_ns = -1;
            return;
        }
        if (t.out_ns >= 0 && time_ns < t.out_ns)
            return; // older than the stretch open: one whose end was lost
        t.out_ns = time_ns;
        t.preempted = preempted;
        t.to_read = !preempted;
        if (t.at_switch && !preempted && t.at_switch->begin_ns <= time_ns &&
            time_ns - t.at_switch->begin_ns <= kSwitchSampleSlackNs) {
            // The kernel's stack at this switch: no read needed.
            t.reading = std::move(t.at_switch);
            t.reading->begin_ns = t.reading->end_ns = time_ns;
            t.to_read = false;
        }
        t.at_switch.reset();
        return;
    }
    if (t.out_ns >= 0 && time_ns >= t.out_ns)
        end_stretch(tid, t, time_ns);
    else
        t.orphan_in_ns = time_ns; // its switch out not read yet (or before the rings)
    t.out_ns = -1;
    t.to_read = false;
}

void OffCpuTracker::at_switch(pid_t pid, pid_t tid, int64_t time_ns, bool complete,
                              std::vector<uint64_t> frames) {
    Thread &t = threads_[tid];
    t.pid = pid;
    t.at_switch = Reading{time_ns, time_ns, complete, std::move(frames)};
}

void OffCpuTracker::end_stretch(pid_t tid, Thread &t, int64_t in_ns) {
    const uint64_t ns = uint64_t(in_ns - t.out_ns);
    ++counts_.stretches;
    // The read is this stretch's if the thread waited all through it; one
    // that began after this stretch ended is a later one's.
    std::optional<Reading> reading;
    if (t.reading && t.reading->begin_ns >= t.out_ns && t.reading->end_ns <= in_ns) {
        reading = std::move(t.reading);
        t.reading.reset();
    } else if (t.reading && t.reading->begin_ns <= in_ns) {
        t.reading.reset(); // it ran during the read: nobody's
    }
    if (ns == 0)
        return;
    if (ns < min_ns_ && reading && !t.preempted) {
        Thread::StackSum &at = t.short_at[reading->frames];
        if (at.sum.count == 0)
            at.sum.first_ns = t.out_ns;
        at.sum.ns += ns;
        ++at.sum.count;
        at.complete = reading->complete;
        ++counts_.short_ones;
        ++counts_.read;
        return;
    }
    if (ns < min_ns_) {
        Sum &s = t.preempted ? t.preempted_short : t.blocked_short;
        if (s.count == 0)
            s.first_ns = t.out_ns;
        s.ns += ns;
        ++s.count;
        ++counts_.short_ones;
        return;
    }
    OffCpuStretch st;
    st.pid = t.pid;
    st.tid = tid;
    st.time_ns = t.out_ns;
    st.duration_ns = ns;
    st.preempted = t.preempted;
    if (reading) {
        ++counts_.read;
        st.complete = reading->complete;
        st.frames = std::move(reading->frames);
    }
    done_.push_back(std::move(st));
}

void OffCpuTracker::flush_sums(pid_t tid, Thread &t) {
    for (Sum *s : {&t.blocked_short, &t.preempted_short}) {
        if (s->count == 0)
            continue;
        OffCpuStretch st;
        st.pid = t.pid;
        st.tid = tid;
        st.time_ns = s->first_ns;
        st.duration_ns = s->ns;
        st.stretches = s->count;
        st.preempted = s == &t.preempted_short;
        done_.push_back(std::move(st));
        *s = {};
    }
    for (auto &[frames, at] : t.short_at) {
        OffCpuStretch st;
        st.pid = t.pid;
        st.tid = tid;
        st.time_ns = at.sum.first_ns;
        st.duration_ns = at.sum.ns;
        st.stretches = at.sum.count;
        st.complete = at.complete;
        st.frames = frames;
        done_.push_back(std::move(st));
    }
    t.short_at.clear();
}

void OffCpuTracker::ended(pid_t tid) {
    auto it = threads_.find(tid);
    if (it == threads_.end())
        return;
    flush_sums(tid, it->second);
    threads_.erase(it);
}

void OffCpuTracker::look() {
    for (auto &[tid, t] : threads_) {
        if (!t.to_read)
            continue;
        t.to_read = false; // one try per stretch: a thread found running woke
        WaitingStack w;
        Reading r;
        r.begin_ns = now_();
        if (!read_(t.pid, tid, &w))
            continue;
        r.end_ns = now_();
        r.complete = unwind_(t.pid, w, &r.frames);
        if (!r.frames.empty())
            t.reading = std::move(r);
    }
}

std::vector<OffCpuStretch> OffCpuTracker::take(bool end) {
    int64_t end_ns = -1;
    if (end) {
        look(); // where the threads still off wait, if not read yet
        end_ns = now_();
    }
    for (auto &[tid, t] : threads_) {
        if (end_ns >= 0 && t.out_ns >= 0 && end_ns > t.out_ns) {
            end_stretch(tid, t, end_ns);
            t.out_ns = -1;
        }
        flush_sums(tid, t);
    }
    return std::exchange(done_, {});
}

} // namespace cpcprof::record
