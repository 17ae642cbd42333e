// SPDX-License-Identifier: MIT
// What this machine can count: the processor's description for cpc_npic,
// cpc_caps, cpc_cciname, cpc_cpuref, the event and attribute lists, and
// the raw-event bit layout.  Built once per process from the host (probing
// perf_event_open, sysfs, libpfm4), or from injected inputs in tests.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace cpc {

// One field of a raw event's config words, as sysfs format/* files give it
// ("config:8-15", "config1:0-63").
struct FormatField {
    int word = 0;                            // 0 config, 1 config1, 2 config2
    std::vector<std::pair<int, int>> ranges; // inclusive bit ranges, low first
    int width() const;
    // Writes value into *attr; false when it does not fit.
    bool apply(uint64_t value, perf_event_attr *attr) const;
};

// Who serves the counters: perf_event_open(2), or, where that is refused,
// the thread's CPU clock with POSIX CPU-time timers and getrusage(2)
// (counting_timer.h).  CPC_BACKEND=perf or =timer forces one; unset (or
// "auto"), the timer backend serves where perf_event_open is refused with
// EPERM, EACCES or ENOSYS.
enum class Backend { perf, timer };

// "perf_event" or "posix-timer", as tools print and profiles store it.
const char *backend_name(Backend b);

// Why perf_event_open answered err, in a few words ("EPERM: a seccomp
// filter (a container's default profile) or no CAP_PERFMON"), and what
// would let this process use it.
std::string perf_refusal_reason(int err);
std::string perf_refusal_remedy(int err);

// Parses "config:24-31" or "config:0-7,32-35"; false on bad text.
bool parse_format(const std::string &text, FormatField *out);

// How an event name is turned into an attr before probing.
struct MachineEnv {
    std::string sysfs_cpu_pmu = "/sys/bus/event_source/devices/cpu";
    // Returns 0 if a counting event with this attr opens on the calling
    // thread, else the errno perf_event_open gave.
    std::function<int(const perf_event_attr &)> probe;
    // Whether a sampling (overflow) event can be opened.
    std::function<bool()> probe_overflow;
    // Whether detect_machine lists the countable events (about a hundred
    // probes, 10 ms and more).  The host's description leaves them to
    // the first walker that needs them (list_machine_events): a program
    // that opens a handle only to count what it names, as every process
    // cpcprof records does, never pays for the list.
    bool list_events = true;
    // The errno of opening a counting task-clock on the calling thread,
    // 0 when it opens.
    std::function<int()> probe_perf;
    // CPC_BACKEND's value; null when unset.
    const char *backend_choice = nullptr;
    // Whether overflow interrupts are probed when asked (machine_caps), not
    // while the description is made: the host's, so that a process that
    // binds a sampling set finds out from its own open, and one that
    // counts never opens the probe (a perf_event_open fewer a process).
    bool overflow_when_asked = false;
};

// The value of the first line of /proc/cpuinfo that starts with key
// ("model name", "cpu MHz"), the first processor's; empty when none.
std::string first_cpuinfo_field(const char *key);

// Where the processor's name goes in Machine::cciname.
inline constexpr const char *kModelName = "{model}";

// m.cciname with the processor's name in place of kModelName.
std::string cciname_text(const std::string &cciname);

struct Machine {
    Backend backend = Backend::perf;
    // What perf_event_open answered where the timer backend serves; 0 when
    // CPC_BACKEND chose it.
    int perf_refusal = 0;
    std::string backend_reason, backend_remedy; // cpc_backend
    bool hw_pmu = false;                        // hardware counters can be opened
    bool use_pfm = false;                       // libpfm4 native events are offered
    unsigned npic = 0;
    unsigned ngp = 0; // general-purpose counters (pics 0..ngp-1)
    // CPC_CAP_*; without CPC_CAP_OVERFLOW_INTERRUPT until probed when
    // overflow_probed is false (see machine_caps).
    unsigned caps = 0;
    bool overflow_probed = true;
    bool task_clock_opens = false; // the backend's probe opened a task-clock
    // kModelName stands for the processor's name, filled in by
    // cciname_text() when asked (cpuid traps to a VM's hypervisor, ~15 us
    // a leaf: not paid by every process that opens libcpc).
    std::string cciname;
    std::string cpuref;
    std::vector<std::string> platform_events;  // countable non-PAPI names
    std::vector<std::string> generic_events;   // countable PAPI_* names
    std::vector<std::string> fixed_events;     // pic ngp+i counts fixed_events[i] only
    std::vector<std::string> attrs;            // cpc_walk_attrs, "picnum" included
    std::map<std::string, FormatField> format; // raw layout, by illumos attr name
    std::function<int(const perf_event_attr &)> probe;
    bool events_listed = false; // platform_events and generic_events are filled

    bool has_attr(const std::string &name) const;
};

// The host's description, built at the first call (thread-safe).  *built
// (if given) is true for the call that built it: its probes are this
// moment's.
const Machine &host_machine(bool *built = nullptr);

// m.caps, with CPC_CAP_OVERFLOW_INTERRUPT probed now (once a process) if
// it was left for later (Machine::overflow_probed).
unsigned machine_caps(const Machine &m);

// A description from injected inputs (tests).
Machine detect_machine(const MachineEnv &env);

// Fills m's platform_events and generic_events by probing each candidate
// with m.probe, once (events_listed).  Not thread-safe: the caller holds
// the lock of whatever owns m.
void list_machine_events(Machine &m);

// Opens a counting event on the calling thread and closes it: 0 or errno.
int probe_open(const perf_event_attr &attr);

// Whether CPU id is online according to sysfs (cpu0 often has no
// "online" file: it is always online).
bool cpu_is_online(int id, const std::string &sysfs_cpus = "/sys/devices/system/cpu");

// Software events take no hardware counter; with no PMU libcpc offers this
// many virtual counters (cpc_npic), documented in libcpc(3CPC).
inline constexpr unsigned kSoftwarePics = 8;

} // namespace cpc
