// SPDX-License-Identifier: MIT
// The channel between the agent (in every profiled process) and the
// recorder: a SOCK_SEQPACKET socket, so that every message of every process
// arrives whole, whatever the number of writers.
//
// A message is a Header followed by its payload.  All integers are native
// (agent and recorder run on the same machine).  Strings are length-prefixed
// (u32) bytes.  Messages:
//   hello    pid, ppid, start (CLOCK_MONOTONIC ns), exe, argv (count + strings)
//   thread   pid, tid, name
//   modules  pid, load time (CLOCK_MONOTONIC ns), count, then per module:
//            start, end, file offset, path, build-id (hex): the whole
//            table of executable mappings (agent/module_scan.h), sent
//            again whenever it changes; anonymous executable memory has
//            the path /tmp/perf-PID.map and its start as file offset
//   samples  pid, count, then per sample a SampleRecord, its values and frames
//   account  pid, taken, dropped, unsampled CPU ns: increments since the
//            previous account
//   bye      pid, exit code (or -1 when unknown), end time (CLOCK_MONOTONIC ns)
//   error    pid, text the recorder prints (the agent could not sample)
//   stats    pid, bucket count, bucket width (ns), then two histograms of
//            handler cost (u32 per bucket): PC + unwind + ring push, and
//            the whole handler including libcpc's sample and restart
//   unsampled pid, reason: the process (or what it execs) is not sampled
//            and the reason says why; the recorder prints it with the
//            process's name, and does not count the process among those
//            that stopped reporting.  Under kEnvRings, a process under a
//            seccomp filter sends it in place of its hello, the hello's
//            fields after the reason: the recorder's rings say the
//            process and sample it; the agent says only its bye
//   off_cpu  pid, count, then per stretch an OffCpuRecord and its frames:
//            time threads spent off the CPU (record --off-cpu; the
//            recorder's rings reader sends it, agents never do)
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace cpcprof::proto {

enum class Type : uint32_t {
    hello = 1,
    thread,
    modules,
    samples,
    account,
    bye,
    error,
    stats,
    unsampled,
    off_cpu
};

struct Header {
    Type type;
    uint32_t length; // payload bytes
};

// One sample as the agent's ring holds it and the channel carries it.
struct SampleRecord {
    int64_t time_ns; // CLOCK_MONOTONIC
    int32_t tid;
    int32_t cpu;      // the processor it was taken on; -1 not known
    uint16_t depth;   // frames that follow the values
    uint8_t complete; // the unwind reached the thread's first frame
    uint8_t nvalues;
    uint32_t unused; // 0; keeps the record a multiple of 8 bytes
    // uint64_t values[nvalues]; uint64_t frames[depth]; (leaf first)
};
static_assert(sizeof(SampleRecord) % 8 == 0, "the ring's records are 8-byte aligned");

// Time a thread spent off the CPU (storage::OffCpu), as the channel
// carries it.
struct OffCpuRecord {
    int64_t time_ns;      // CLOCK_MONOTONIC: it left the CPU (the first's, for a sum)
    uint64_t duration_ns; // until it ran again (the sum)
    uint64_t stretches;   // how many duration_ns sums
    int32_t tid;
    uint16_t depth;    // frames that follow (leaf first); 0: where it waited is not known
    uint8_t preempted; // taken off while it could run
    uint8_t complete;  // the stack reached the thread's first frame
};
static_assert(sizeof(OffCpuRecord) % 8 == 0, "frames follow 8-byte aligned");

inline constexpr size_t kMaxMessage = 60 * 1024; // under the socket's buffer

// The name of the agent's own thread in every profiled process: not the
// program's, so not in its profile (record --off-cpu leaves its waits out).
inline constexpr const char *kAgentThreadName = "cpcprof-drain";

// Builds a message.  Not for signal context (it allocates).
class Writer {
  public:
    explicit Writer(Type t) {
        buf_.resize(sizeof(Header));
        type_ = t;
    }
    template <class T> void put(const T &v) {
        const auto *p = reinterpret_cast<const char *>(&v);
        buf_.insert(buf_.end(), p, p + sizeof v);
    }
    void put_bytes(const void *p, size_t n) {
        const auto *c = static_cast<const char *>(p);
        buf_.insert(buf_.end(), c, c + n);
    }
    void put_string(std::string_view s) {
        put(static_cast<uint32_t>(s.size()));
        put_bytes(s.data(), s.size());
    }
    size_t size() const { return buf_.size(); }
    const std::vector<char> &finish() {
        Header h{type_, static_cast<uint32_t>(buf_.size() - sizeof(Header))};
        std::memcpy(buf_.data(), &h, sizeof h);
        return buf_;
    }

  private:
    std::vector<char> buf_;
    Type type_;
};

// Reads a message's payload; every read is bounds-checked, and a short
// message sets failed() instead of reading past the end.
class Reader {
  public:
    Reader(const char *p, size_t n) : p_(p), end_(p + n) {}
    template <class T> T get() {
        T v{};
        if (static_cast<size_t>(end_ - p_) < sizeof v) {
            failed_ = true;
            p_ = end_;
            return v;
        }
        std::memcpy(&v, p_, sizeof v);
        p_ += sizeof v;
        return v;
    }
    std::string get_string() {
        uint32_t n = get<uint32_t>();
        if (static_cast<size_t>(end_ - p_) < n) {
            failed_ = true;
            p_ = end_;
            return {};
        }
        std::string s(p_, n);
        p_ += n;
        return s;
    }
    bool failed() const { return failed_; }
    bool done() const { return p_ == end_; }

  private:
    const char *p_;
    const char *end_;
    bool failed_ = false;
};

// Environment the recorder gives the agent.
inline constexpr const char *kEnvChannel = "CPCPROF_CHANNEL";     // fd number
inline constexpr const char *kEnvEvents = "CPCPROF_EVENTS";       // ev@period;ev@0;...
inline constexpr const char *kEnvCallGraph = "CPCPROF_CALLGRAPH"; // dwarf|fp|none
inline constexpr const char *kEnvMaxDepth = "CPCPROF_MAX_DEPTH";
inline constexpr const char *kEnvRingKb = "CPCPROF_RING_KB";
inline constexpr const char *kEnvChildren = "CPCPROF_CHILDREN"; // 1 follow, 0 not
inline constexpr const char *kEnvStats = "CPCPROF_STATS";       // 1: measure handler cost
// 1: the recorder samples through the kernel's sample rings a process
// whose agent finds a seccomp filter (the rings are opened from outside
// it); the agent then says why and its bye, and leaves the rest to them.
inline constexpr const char *kEnvRings = "CPCPROF_RINGS";
// 1: count in the kernel too and keep the kernel's frames of the samples
// taken there (the recorder found that this user may).
inline constexpr const char *kEnvKernel = "CPCPROF_KERNEL";
// A private directory of compiled unwind tables shared by the recording's
// processes (the agent's cfi_cache.h): the user's cache, kept between
// recordings, or one the recorder removes at the end (record's
// cfi_cache_dir.h).
inline constexpr const char *kEnvCfiCache = "CPCPROF_CFI_CACHE";
// The user's cache keeps the tables of this format (the agent's file
// magic "cpccfiN") in a folder of this name.
inline constexpr const char *kCfiCacheFolder = "cfi3";
// The seccomp filters the recorder runs under (a container's), all of
// which let its own perf_event_open return: a process under exactly these
// may make the call (the agent's seccomp.h).  Unset when it runs under
// none, or its kernel does not count them.
inline constexpr const char *kEnvSeccompFilters = "CPCPROF_SECCOMP_FILTERS";
// 1: the recorder's seccomp filters (none, or the ones above) let
// process_vm_readv on oneself return: the agent may copy a stack of the
// program's own making to walk it (the agent's unwind.h).
inline constexpr const char *kEnvStackCopies = "CPCPROF_STACK_COPIES";
// libcpc's: the SIGEMT disposition does not change while a set is bound
// (the agent guards it), so libcpc reads it at bind, not at each overflow.
inline constexpr const char *kEnvSigemtStable = "CPC_SIGEMT_STABLE";

} // namespace cpcprof::proto
