// SPDX-License-Identifier: MIT
#include "profiler/list/list.h"

#include "base/args.h"

#include "profiler/analysis/table_format.h"
#include "profiler/tools/caps.h"

#include "profiler/tools/unique_cpc.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace cpcprof::list {
namespace {

using analysis::json_string;

const char kUsage[] = "usage: cpcprof list [--json]\n"
                      "\n"
                      "Lists the events this machine can count, for cpcprof record -e:\n"
                      "generic events (generic_events(3CPC)), platform events (perf's\n"
                      "names and the processor's own) and software events.  The first line\n"
                      "says whether the machine has a hardware PMU.\n"
                      "\n"
                      "  --json  one JSON object instead of text\n"
                      "\n"
                      "Exit status: 0 listed, 1 counters unavailable, 2 usage error.\n";

void collect(void *arg, const char *event) {
    static_cast<std::vector<std::string> *>(arg)->emplace_back(event);
}

void text_group(std::string &out, const char *heading, const std::vector<std::string> &events) {
    out += "\n";
    out += heading;
    out += ":\n";
    if (events.empty())
        out += "  (none on this machine)\n";
    for (const std::string &e : events)
        out += "  " + e + "\n";
}

void json_group(std::string &out, const char *key, const std::vector<std::string> &events) {
    out += ",\n  " + json_string(key) + ": [";
    for (size_t i = 0; i < events.size(); ++i)
        out += (i ? ", " : "") + json_string(events[i]);
    out += "]";
}

} // namespace

bool is_software_event(const std::string &name) {
    // The PERF_COUNT_SW_* events and their perf aliases.
    static const char *const kSoftware[] = {
        "cpu-clock",      "task-clock",   "page-faults",      "faults",
        "minor-faults",   "major-faults", "context-switches", "cs",
        "cpu-migrations", "migrations",   "alignment-faults", "emulation-faults",
    };
    for (const char *s : kSoftware)
        if (name == s)
            return true;
    return false;
}

EventList read_event_list(cpc_t *cpc) {
    EventList list;
    list.hardware_pmu = cpcprof::tools::has_hardware_pmu(cpc);
    list.interface = cpc_cciname(cpc);
    cpc_walk_generic_events_all(cpc, &list.generic, collect);
    std::vector<std::string> all;
    cpc_walk_events_all(cpc, &all, collect);
    for (std::string &e : all)
        (is_software_event(e) ? list.software : list.platform).push_back(std::move(e));
    // The kernel counts these in the scheduler, in kernel mode; the timer
    // backend reads context switches from getrusage, whatever the mode.
    const char *backend = cpc_backend(cpc, nullptr, nullptr);
    if (backend != nullptr && std::string(backend) == "perf_event")
        for (const std::string &e : list.software)
            if (e == "context-switches" || e == "cs" || e == "cpu-migrations" || e == "migrations")
                list.kernel_only.push_back(e);
    return list;
}

std::string format_text(const EventList &list) {
    std::string out = list.hardware_pmu
                          ? "hardware PMU: yes (" + list.interface + ")\n"
                          : "hardware PMU: none on this machine: only software events can be "
                            "counted\n";
    text_group(out, "generic events (generic_events(3CPC))", list.generic);
    text_group(out, "platform events", list.platform);
    text_group(out, "software events", list.software);
    if (!list.kernel_only.empty()) {
        out += "\nkernel mode only (cpcprof record counts user mode, where these read 0):\n";
        for (const std::string &e : list.kernel_only)
            out += "  " + e + "\n";
    }
    return out;
}

std::string format_json(const EventList &list) {
    std::string out = "{\n  \"hardware_pmu\": ";
    out += list.hardware_pmu ? "true" : "false";
    out += ",\n  \"interface\": " + json_string(list.interface);
    json_group(out, "generic", list.generic);
    json_group(out, "platform", list.platform);
    json_group(out, "software", list.software);
    json_group(out, "kernel_only", list.kernel_only);
    return out + "\n}\n";
}

int list_main(const std::vector<std::string> &args) {
    bool json = false;
    auto unknown = [](const std::string &a) {
        std::fprintf(stderr, "cpcprof list: unknown argument '%s'\n%s", a.c_str(), kUsage);
    };
    base::ArgWalk walk{.program = "cpcprof list",
                       .shared =
                           [&](const std::vector<std::string> &a, size_t *i) {
                               if (a[*i] != "--json")
                                   return 0;
                               json = true;
                               return 1;
                           },
                       .operand =
                           [&](const std::string &a) {
                               unknown(a);
                               return false;
                           },
                       .unknown = unknown};
    if (int r = base::walk_args(walk, args); r <= 0) {
        if (r == 0)
            std::fputs(kUsage, stdout);
        return r == 0 ? 0 : 2;
    }
    UniqueCpc cpc(cpc_open(CPC_VER_CURRENT));
    if (!cpc) {
        std::fprintf(stderr, "cpcprof list: performance counters are not available: %s\n",
                     std::strerror(errno));
        return 1;
    }
    EventList list = read_event_list(cpc.get());
    cpc.reset();
    std::string out = json ? format_json(list) : format_text(list);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}

} // namespace cpcprof::list
