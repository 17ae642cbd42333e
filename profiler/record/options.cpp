// SPDX-License-Identifier: MIT
#include "profiler/record/options.h"

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>

namespace cpcprof::record {

const char *usage() {
    return "usage: cpcprof record [-e EVENT[,PERIOD]]... [-c PERIOD] [-F HZ] [-o FILE]\n"
           "                      [--call-graph dwarf|fp|none] [--max-depth N]\n"
           "                      [--no-children] [--ring-kb N] [--stats] [--no-symbolize]\n"
           "                      [-q]\n"
           "                      -- CMD [ARGS]\n"
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
           "  -q                 no summary\n";
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

} // namespace

std::optional<Options> parse_options(const std::vector<std::string> &args, std::string *error) {
    Options o;
    size_t i = 0;
    auto value = [&](const std::string &opt) -> std::optional<std::string> {
        if (i + 1 >= args.size()) {
            *error = opt + " needs a value";
            return std::nullopt;
        }
        return args[++i];
    };
    for (; i < args.size(); ++i) {
        const std::string &a = args[i];
        if (a == "--") {
            ++i;
            break;
        }
        if (a.empty() || a[0] != '-')
            break;
        if (a == "-e") {
            auto v = value(a);
            EventArg e;
            if (!v || !parse_event(*v, &e, error))
                return std::nullopt;
            o.events.push_back(e);
        } else if (a == "-c" || a == "-F" || a == "--max-depth" || a == "--ring-kb") {
            auto v = value(a);
            if (!v)
                return std::nullopt;
            std::string why;
            auto n = parse_count(*v, &why);
            if (!n) {
                *error = a + ": " + why;
                return std::nullopt;
            }
            if (a == "-c")
                o.period = *n;
            else if (a == "-F")
                o.freq = *n;
            else if (a == "--ring-kb") {
                if (*n < kMinRingKb || *n > kMaxRingKb) {
                    *error = "--ring-kb " + *v + ": the per-thread sample buffer is " +
                             std::to_string(kMinRingKb) + " to " + std::to_string(kMaxRingKb) +
                             " KiB (every thread of the program may fill one)";
                    return std::nullopt;
                }
                o.ring_kb = *n;
            } else if (*n > 1024) {
                *error = "--max-depth is at most 1024";
                return std::nullopt;
            } else
                o.max_depth = static_cast<int>(*n);
        } else if (a == "-o") {
            auto v = value(a);
            if (!v)
                return std::nullopt;
            o.output = *v;
        } else if (a == "--call-graph") {
            auto v = value(a);
            if (!v)
                return std::nullopt;
            if (*v != "dwarf" && *v != "fp" && *v != "none") {
                *error = "--call-graph takes dwarf, fp or none, not '" + *v + "'";
                return std::nullopt;
            }
            o.call_graph = *v;
        } else if (a == "--no-children") {
            o.children = false;
        } else if (a == "-q") {
            o.quiet = true;
        } else if (a == "--stats") {
            o.stats = true;
        } else if (a == "--no-symbolize") {
            o.symbolize = false;
        } else {
            *error = "unknown option " + a;
            return std::nullopt;
        }
    }
    if (o.period && o.freq) {
        *error = "-c and -F exclude each other";
        return std::nullopt;
    }
    o.command.assign(args.begin() + static_cast<long>(i), args.end());
    if (o.command.empty()) {
        *error = "no command to record";
        return std::nullopt;
    }
    return o;
}

} // namespace cpcprof::record
