// SPDX-License-Identifier: MIT
#include "profiler/record/options.h"

#include "base/args.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>

namespace cpcprof::record {

const char *usage() {
    return "usage: cpcprof record [-e EVENT[,PERIOD]]... [-c PERIOD] [-F HZ] [-o FILE]\n"
           "                      [--call-graph dwarf|fp|none] [--max-depth N]\n"
           "                      [--no-children] [--ring-kb N] [--stats] [--no-symbolize]\n"
           "                      [--debuginfod-wait SECONDS]\n"
           "                      [--capture auto|agent|ring] [--[no-]kernel] [-q]\n"
           "                      [--off-cpu [--off-cpu-min US]]\n"
           "                      -- CMD [ARGS]  |  -p PID[,PID...] [--duration SECONDS]\n"
           "                      |  -a [--cpu LIST] [--duration SECONDS]\n"
           "\n"
           "  -e EVENT[,PERIOD]  event to count; the first one samples (every PERIOD\n"
           "                     events), the others are read at every sample\n"
           "  -c PERIOD          sampling period for events given without one\n"
           "  -F HZ              samples per second of CPU time (cpu-clock, task-clock);\n"
           "                     at most kernel.perf_event_max_sample_rate, and for the\n"
           "                     clocks at most what this machine's signals sustain\n"
           "  -o FILE            output file (default out.cpcprof; only a regular file is\n"
           "                     replaced, and kept as FILE.old once CMD has started)\n"
           "  --call-graph MODE  dwarf (default), fp (frame pointers) or none\n"
           "  --max-depth N      frames per stack (default 128)\n"
           "  --no-children      do not record processes the command starts\n"
           "  --ring-kb N        per-thread sample buffer, 16 to 65536 KiB (default 256)\n"
           "  --stats            measure the sampler's cost per sample and print it\n"
           "  --no-symbolize     leave the addresses unresolved (cpcprof symbolize FILE\n"
           "                     does it later)\n"
           "  --debuginfod-wait SECONDS\n"
           "                     wait at most that long (default 5; 0: do not ask) for\n"
           "                     the debuginfod servers of DEBUGINFOD_URLS to give the\n"
           "                     debug files this machine lacks (cpcprof symbolize FILE\n"
           "                     asks them again, without a bound)\n"
           "  --capture HOW      how CMD is sampled: agent (a library preloaded into\n"
           "                     each process), ring (the kernel's sample rings, as\n"
           "                     -p: for static programs and programs whose own\n"
           "                     seccomp filter or signal handling the agent cannot\n"
           "                     live with), auto (default: the agent, the rings for\n"
           "                     a statically linked CMD)\n"
           "  --kernel           CMD's processes count in the kernel too, and samples\n"
           "                     taken there keep the kernel's frames (as -p, -a and\n"
           "                     the rings do by default where this user may)\n"
           "  --no-kernel        count in user mode alone, the rings too\n"
           "  --off-cpu          also record where the threads wait: each stretch a\n"
           "                     thread spends off the CPU (blocked, or waiting for a\n"
           "                     CPU), with the stack it blocked in, as the event\n"
           "                     off-cpu (ns); no privilege needed\n"
           "  --off-cpu-min US   stretches shorter than US microseconds (default 1000)\n"
           "                     are summed per thread, not kept one by one\n"
           "  -q                 no summary\n"
           "  -p PID[,PID...]    attach to running processes (all their threads, and\n"
           "                     the threads and processes they start) through the\n"
           "                     kernel's sample rings; until Ctrl-C, --duration or\n"
           "                     their end; they are not stopped, traced or signalled\n"
           "  -a                 every process on the machine (root, CAP_PERFMON or\n"
           "                     kernel.perf_event_paranoid at most 0), until Ctrl-C\n"
           "                     or --duration\n"
           "  --cpu LIST         with -a: only these CPUs (0,2-3)\n"
           "  --duration SECONDS with -p or -a: record that long\n";
}

namespace {

// A positive decimal (or 0x hexadecimal) count; *why says what is wrong
// with any other text.
std::optional<uint64_t> parse_count(const std::string &s, std::string *why) {
    *why = "a positive number is needed, not '" + s + "'";
    if (s.empty() || s[0] == '-' || s[0] == '+' || std::isspace(static_cast<unsigned char>(s[0])))
        return std::nullopt;
    char *end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(s.c_str(), &end, 0);
    if (*end != '\0' || end == s.c_str())
        return std::nullopt;
    if (errno == ERANGE) {
        *why = "'" + s + "' is too large (at most " + std::to_string(UINT64_MAX) + ")";
        return std::nullopt;
    }
    if (errno != 0 || v == 0)
        return std::nullopt;
    return v;
}

bool parse_event(const std::string &text, EventArg *out, std::string *error) {
    auto comma = text.rfind(',');
    EventArg e;
    e.name = text;
    if (comma != std::string::npos) {
        std::string why;
        auto p = parse_count(text.substr(comma + 1), &why);
        if (!p) {
            *error = "bad period in -e " + text + ": " + why;
            return false;
        }
        e.name = text.substr(0, comma);
        e.period = *p;
    }
    if (e.name.empty()) {
        *error = "-e needs an event name";
        return false;
    }
    *out = e;
    return true;
}

// One of the options that take a value; false with *error set.
bool parse_value(const std::string &a, const std::string &v, Options *o, std::string *error) {
    if (a == "-e") {
        EventArg e;
        if (!parse_event(v, &e, error))
            return false;
        o->events.push_back(e);
        return true;
    }
    if (a == "-o") {
        o->output = v;
        return true;
    }
    if (a == "-p") {
        size_t at = 0;
        while (at <= v.size()) {
            size_t comma = std::min(v.find(',', at), v.size());
            std::string one = v.substr(at, comma - at);
            std::string why;
            auto pid = parse_count(one, &why);
            if (!pid || *pid == 0 || *pid > 4194304) {
                *error = "-p takes process ids (-p 1234 or -p 1234,5678), not '" + v + "'";
                return false;
            }
            o->pids.push_back(static_cast<int>(*pid));
            at = comma + 1;
        }
        return true;
    }
    if (a == "--cpu") {
        size_t at = 0;
        while (at <= v.size()) {
            size_t comma = std::min(v.find(',', at), v.size());
            std::string one = v.substr(at, comma - at);
            size_t dash = one.find('-');
            char *end = nullptr;
            long first = std::strtol(one.c_str(), &end, 10), last = first;
            bool ok = !one.empty() && std::isdigit(static_cast<unsigned char>(one[0])) &&
                      (dash == std::string::npos ? *end == '\0' : end == one.c_str() + dash);
            if (ok && dash != std::string::npos) {
                const char *rest = one.c_str() + dash + 1;
                ok = std::isdigit(static_cast<unsigned char>(*rest)) != 0;
                last = std::strtol(rest, &end, 10);
                ok = ok && *end == '\0';
            }
            if (!ok || first < 0 || last < first || last > 4095) {
                *error = "--cpu takes CPU numbers and ranges (--cpu 0,2-3), not '" + v + "'";
                return false;
            }
            for (long c = first; c <= last; ++c)
                if (std::find(o->cpus.begin(), o->cpus.end(), int(c)) == o->cpus.end())
                    o->cpus.push_back(int(c));
            at = comma + 1;
        }
        return true;
    }
    if (a == "--duration") {
        char *end = nullptr;
        double d = std::strtod(v.c_str(), &end);
        if (end == v.c_str() || *end != '\0' || !(d > 0) || d > 1e7) {
            *error = "--duration takes a number of seconds, not '" + v + "'";
            return false;
        }
        o->duration = d;
        return true;
    }
    if (a == "--capture") {
        if (v != "auto" && v != "agent" && v != "ring") {
            *error = "--capture takes auto, agent or ring, not '" + v + "'";
            return false;
        }
        o->capture = v;
        return true;
    }
    if (a == "--call-graph") {
        if (v != "dwarf" && v != "fp" && v != "none") {
            *error = "--call-graph takes dwarf, fp or none, not '" + v + "'";
            return false;
        }
        o->call_graph = v;
        return true;
    }
    if (a == "--debuginfod-wait" && v == "0") { // 0: the servers are not asked
        o->debuginfod_wait_s = 0;
        return true;
    }
    std::string why;
    auto n = parse_count(v, &why);
    if (!n) {
        *error = a + ": " + why;
        return false;
    }
    if (a == "-c") {
        o->period = *n;
    } else if (a == "-F") {
        o->freq = *n;
    } else if (a == "--debuginfod-wait") {
        if (*n > 600) {
            *error = "--debuginfod-wait is at most 600 s";
            return false;
        }
        o->debuginfod_wait_s = *n;
    } else if (a == "--off-cpu-min") {
        if (*n > 60'000'000) {
            *error = "--off-cpu-min is at most 60000000 us (a minute)";
            return false;
        }
        o->off_cpu_min_ns = *n * 1000;
    } else if (a == "--ring-kb") {
        if (*n < kMinRingKb || *n > kMaxRingKb) {
            *error = "--ring-kb " + v + ": the per-thread sample buffer is " +
                     std::to_string(kMinRingKb) + " to " + std::to_string(kMaxRingKb) +
                     " KiB (every thread of the program may fill one)";
            return false;
        }
        o->ring_kb = *n;
    } else { // --max-depth
        if (*n > 1024) {
            *error = "--max-depth is at most 1024";
            return false;
        }
        o->max_depth = static_cast<int>(*n);
    }
    return true;
}

// The options without a value; false when a is none of them.
bool parse_flag(const std::string &a, Options *o) {
    if (a == "--no-children")
        o->children = false;
    else if (a == "-q")
        o->quiet = true;
    else if (a == "--stats")
        o->stats = true;
    else if (a == "--kernel")
        o->kernel = true;
    else if (a == "--no-kernel")
        o->kernel = false;
    else if (a == "--no-symbolize")
        o->symbolize = false;
    else if (a == "-a")
        o->system_wide = true;
    else if (a == "--off-cpu")
        o->off_cpu = true;
    else
        return false;
    return true;
}

} // namespace

std::optional<Options> parse_options(const std::vector<std::string> &args, std::string *error) {
    Options o;
    base::ArgWalk walk{.program = "cpcprof record",
                       .valued = {"-e", "-c", "-F", "--max-depth", "--ring-kb", "-o",
                                  "--call-graph", "-p", "--duration", "--capture", "--cpu",
                                  "--off-cpu-min", "--debuginfod-wait"},
                       .shared = [&](const std::vector<std::string> &a,
                                     size_t *i) { return parse_flag(a[*i], &o) ? 1 : 0; },
                       .value = [&](const std::string &a,
                                    const std::string &v) { return parse_value(a, v, &o, error); },
                       .operand =
                           [&](const std::string &a) {
                               o.command.push_back(a);
                               return true;
                           },
                       .unknown = [&](const std::string &a) { *error = "unknown option " + a; },
                       .dash_is_option = true,
                       .dash_dash_ends_options = true,
                       .operand_ends_options = true,
                       .error = error};
    int r = base::walk_args(walk, args);
    if (r == 0) {
        o.help = true;
        return o;
    }
    if (r < 0)
        return std::nullopt;
    if (o.period && o.freq) {
        *error = "-c and -F exclude each other";
        return std::nullopt;
    }
    if (!o.pids.empty() && !o.command.empty()) {
        *error = "-p attaches to running processes: give it no command";
        return std::nullopt;
    }
    if (o.system_wide && (!o.pids.empty() || !o.command.empty())) {
        *error = "-a records every process: give it no command and no -p";
        return std::nullopt;
    }
    if (!o.cpus.empty() && !o.system_wide) {
        *error = "--cpu applies to -a";
        return std::nullopt;
    }
    if (o.system_wide && o.capture == "agent") {
        *error = "-a samples through the kernel's sample rings: --capture agent needs a command";
        return std::nullopt;
    }
    if (!o.pids.empty() && o.capture == "agent") {
        *error = "-p samples through the kernel's sample rings: --capture agent needs a command";
        return std::nullopt;
    }
    if (o.duration && o.pids.empty() && !o.system_wide) {
        *error = "--duration applies to -p and -a (a command is recorded until it ends)";
        return std::nullopt;
    }
    if (o.off_cpu_min_ns && !o.off_cpu) {
        *error = "--off-cpu-min applies to --off-cpu";
        return std::nullopt;
    }
    if (o.off_cpu && o.system_wide) {
        *error = "--off-cpu records the threads of a command or of -p's processes, not of -a";
        return std::nullopt;
    }
    if (o.command.empty() && o.pids.empty() && !o.system_wide) {
        *error = "no command to record (or -p PID, or -a)";
        return std::nullopt;
    }
    return o;
}

} // namespace cpcprof::record
