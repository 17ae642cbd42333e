// SPDX-License-Identifier: MIT
#include "profiler/record/plan.h"

#include "profiler/analysis/event_units.h"
#include "profiler/record/period_bounds.h"
#include "profiler/record/signal_cost.h"
#include "profiler/tools/caps.h"

#include "profiler/tools/unique_cpc.h"

#include <libcpc.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace cpcprof::record {

namespace {

std::string g_last_error;

void collect(const char *, int, const char *fmt, va_list ap) {
    char buf[512];
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    g_last_error = buf;
}

// Whether the machine counts hardware events: one request of cycles or
// instructions is probed (cpcprof::tools::has_hardware_pmu walks every event,
// about a hundred probes before the target could start).
bool hardware_counters(cpc_t *cpc) {
    cpc_set_t *s = cpc_set_create(cpc);
    if (s == nullptr)
        return false;
    bool ok = false;
    for (const char *e : {"cycles", "instructions"})
        if (!ok && cpc_set_add_request(cpc, s, e, 0, CPC_COUNT_USER, 0, nullptr) >= 0)
            ok = true;
    cpc_set_destroy(cpc, s);
    g_last_error.clear();
    return ok;
}

bool time_based(const std::string &e) {
    return analysis::is_time_event(e);
}

double cpu_hz() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("cpu MHz", 0) == 0)
            return std::stod(line.substr(line.find(':') + 1)) * 1e6;
    return 2e9;
}

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0)
            return line.substr(line.find(':') + 2);
    return "unknown";
}

// The default period of a sampling event: about 1,000 samples per second
// of CPU time for cycles and the clocks.
uint64_t default_period(const std::string &e, double hz, std::optional<uint64_t> freq) {
    double per_second = freq ? double(*freq) : 1000.0;
    if (time_based(e))
        return std::max<uint64_t>(1, static_cast<uint64_t>(1e9 / per_second));
    if (e == "cycles" || e == "cpu-cycles" || e == "PAPI_tot_cyc")
        return std::max<uint64_t>(1, static_cast<uint64_t>(hz / per_second));
    return 10000;
}

// Builds the set as the agent will and binds it here once.  The sampling
// request is bound with overflow notification but a preset of 0, 2^64
// events from its overflow: with the agent's preset, a short period
// (cpu-clock fires after 10 us) overflowed in this probe, and SIGEMT,
// whose default action is to terminate, killed the recorder.
bool check_set(cpc_t *cpc, const Plan &p, std::string *error, uint_t count = CPC_COUNT_USER) {
    cpc_set_t *s = cpc_set_create(cpc);
    for (size_t i = 0; i < p.events.size(); ++i) {
        const PlannedEvent &e = p.events[i];
        uint64_t preset = 0;
        uint_t flags = count | (i == 0 ? CPC_OVF_NOTIFY_EMT : 0);
        if (cpc_set_add_request(cpc, s, e.name.c_str(), preset, flags, 0, nullptr) < 0) {
            *error = "event '" + e.name + "': " + g_last_error;
            return false;
        }
    }
    if (cpc_bind_curlwp(cpc, s, 0) != 0) {
        *error = "these events cannot be counted together: " + g_last_error;
        return false;
    }
    cpc_unbind(cpc, s);
    cpc_set_destroy(cpc, s);
    return true;
}

// The sampling event's rate and period against what the kernel and this
// machine deliver (a cpu-clock period of 10 us or less never let the
// program finish).
bool within_bounds(const Options &o, const EventArg &asked, const PlannedEvent &e,
                   std::string *error, std::string *warning) {
    std::optional<uint64_t> max_rate = kernel_max_sample_rate();
    if (o.freq && !check_frequency(*o.freq, max_rate, error))
        return false;
    if (!time_based(e.name))
        return true;
    bool from_freq = o.freq && asked.period == 0 && !o.period;
    return check_clock_period(e.name, e.period, from_freq, max_rate, measure_overflow_cost, error,
                              warning);
}

} // namespace

std::optional<Plan> plan_events(const Options &o, std::string *error) {
    UniqueCpc owner(cpc_open(CPC_VER_CURRENT));
    cpc_t *cpc = owner.get();
    if (cpc == nullptr) {
        int e = errno;
        // libcpc falls back on POSIX CPU timers by itself unless told not to.
        const char *choice = std::getenv("CPC_BACKEND");
        std::string forced = choice != nullptr ? choice : "";
        if ((e == EPERM || e == EACCES) && (forced == "perf" || forced == "perf_event"))
            *error = "perf_event_open refused (" + std::string(e == EPERM ? "EPERM" : "EACCES") +
                     ": " + std::strerror(e) + ") and CPC_BACKEND=" + forced +
                     " rules out the POSIX-timer backend: unset CPC_BACKEND to sample cpu-clock "
                     "with POSIX CPU timers";
        else
            *error = std::string("performance counters are not available: ") + std::strerror(e);
        return std::nullopt;
    }
    cpc_seterrhndlr(cpc, collect);
    Plan p;
    p.cpu_model = cpu_model();
    p.hw_pmu = hardware_counters(cpc);
    const char *reason = "", *remedy = "";
    p.backend = cpc_backend(cpc, &reason, &remedy);
    double hz = cpu_hz();
    std::vector<EventArg> events = o.events;
    if (p.backend == "posix-timer") {
        p.backend_reason = reason;
        p.notice = std::string(reason) + ": sampling " +
                   (events.empty() ? std::string("cpu-clock") : events[0].name) +
                   " with POSIX CPU timers";
    }
    if (events.empty()) {
        events.push_back({p.hw_pmu ? "cycles" : "cpu-clock", 0});
        if (!p.hw_pmu && p.notice.empty())
            p.notice = "no hardware performance counters on this machine: sampling cpu-clock";
    }
    if (o.freq && !time_based(events[0].name) && events[0].name != "cycles") {
        *error = "-F needs a time-based sampling event (cpu-clock, task-clock) or cycles; use "
                 "-c PERIOD with " +
                 events[0].name;
        return std::nullopt;
    }
    for (size_t i = 0; i < events.size(); ++i) {
        uint64_t period = 0;
        if (i == 0)
            period = events[0].period ? events[0].period
                     : o.period       ? *o.period
                                      : default_period(events[0].name, hz, o.freq);
        p.events.push_back({events[i].name, period});
    }
    if (p.events.size() > 8) {
        *error = "at most 8 events can be recorded together";
        return std::nullopt;
    }
    if (!within_bounds(o, events[0], p.events[0], error, &p.warning)) {
        return std::nullopt;
    }
    if (!check_set(cpc, p, error))
        return std::nullopt;
    // --kernel: the kernel's part of the stacks, where this user may count
    // there (the agent's processes run as this user).
    std::string no_kernel;
    bool want_kernel = o.kernel.value_or(false);
    p.kernel = want_kernel && p.backend == "perf_event" &&
               check_set(cpc, p, &no_kernel, CPC_COUNT_USER | CPC_COUNT_SYSTEM);
    if (want_kernel && !p.kernel)
        p.kernel_missing = p.backend == "perf_event"
                               ? kernel_frames_refused()
                               : "the kernel's part of the stacks is not recorded: POSIX CPU "
                                 "timers do not see it";
    if (!p.notice.empty() && time_based(p.events[0].name))
        p.notice += " every " + std::to_string(p.events[0].period / 1000) + " us";
    if (p.backend == "posix-timer")
        p.notice += std::string("; hardware events need ") + remedy;
    return p;
}

std::string kernel_frames_refused() {
    std::string level;
    std::ifstream("/proc/sys/kernel/perf_event_paranoid") >> level;
    return "the kernel's part of the stacks is not recorded: perf_event_paranoid is " +
           (level.empty() ? std::string("unreadable") : level) +
           " and this user has neither CAP_PERFMON nor root (the kernel's frames need "
           "perf_event_paranoid 1 or lower)";
}

std::string events_env(const Plan &p) {
    std::string s;
    for (const PlannedEvent &e : p.events) {
        if (!s.empty())
            s += ';';
        s += e.name + "@" + std::to_string(e.period);
    }
    return s;
}

} // namespace cpcprof::record
