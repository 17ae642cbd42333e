// SPDX-License-Identifier: MIT
// The agent's configuration from the environment (config.h).
#include "profiler/agent/config.h"

#include "profiler/agent/channel.h"

#include "profiler/protocol/protocol.h"

#include <fcntl.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

namespace cpcprof::agent {

namespace {

// "ev@period;ev@0" into the config.
bool parse_events(const char *text, Config &c) {
    std::string s(text);
    size_t pos = 0;
    while (pos <= s.size() && c.nevents < kMaxEvents) {
        size_t end = s.find(';', pos);
        std::string item = s.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
        size_t at = item.rfind('@');
        if (at == std::string::npos || at == 0 || at >= sizeof c.event_names[0])
            return false;
        std::strncpy(c.event_names[c.nevents], item.c_str(), at);
        c.periods[c.nevents] = std::strtoull(item.c_str() + at + 1, nullptr, 10);
        ++c.nevents;
        if (end == std::string::npos)
            break;
        pos = end + 1;
    }
    return c.nevents > 0 && c.periods[0] > 0;
}

} // namespace

bool read_config(Config &c) {
    const char *ch = std::getenv(proto::kEnvChannel);
    const char *ev = std::getenv(proto::kEnvEvents);
    if (ch == nullptr || ev == nullptr)
        return false;
    c.channel = std::atoi(ch);
    if (!channel_init(c.channel))
        return false; // not our descriptor any more
    if (!parse_events(ev, c))
        return false;
    if (const char *cg = std::getenv(proto::kEnvCallGraph))
        c.call_graph = std::strcmp(cg, "fp") == 0     ? CallGraph::fp
                       : std::strcmp(cg, "none") == 0 ? CallGraph::none
                                                      : CallGraph::dwarf;
    if (const char *d = std::getenv(proto::kEnvMaxDepth))
        c.max_depth = std::max(1, std::min(kMaxDepthLimit, std::atoi(d)));
    if (const char *r = std::getenv(proto::kEnvRingKb))
        c.ring_bytes = std::max<size_t>(16, std::strtoull(r, nullptr, 10)) * 1024;
    if (const char *k = std::getenv(proto::kEnvChildren))
        c.children = std::strcmp(k, "0") != 0;
    if (const char *k = std::getenv(proto::kEnvRings))
        c.rings = std::strcmp(k, "1") == 0;
    if (const char *k = std::getenv(proto::kEnvKernel))
        c.kernel = std::strcmp(k, "1") == 0;
    if (const char *k = std::getenv(proto::kEnvStackCopies))
        c.stack_copies = std::strcmp(k, "1") == 0;
    return true;
}

bool handler_costs_wanted() {
    const char *stats = std::getenv(proto::kEnvStats);
    return stats != nullptr && std::strcmp(stats, "1") == 0;
}

void keep_to_this_process() {
    fcntl(channel_fd(), F_SETFD, FD_CLOEXEC);
    const char *pre = std::getenv("LD_PRELOAD");
    if (pre != nullptr) {
        std::string kept, item;
        std::string all(pre);
        size_t pos = 0;
        while (pos <= all.size()) {
            size_t end = all.find_first_of(": ", pos);
            item = all.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
            if (!item.empty() && item.find("libcpcprof-agent") == std::string::npos)
                kept += (kept.empty() ? "" : ":") + item;
            if (end == std::string::npos)
                break;
            pos = end + 1;
        }
        if (kept.empty())
            unsetenv("LD_PRELOAD");
        else
            setenv("LD_PRELOAD", kept.c_str(), 1);
    }
    for (const char *v :
         {proto::kEnvChannel, proto::kEnvEvents, proto::kEnvCallGraph, proto::kEnvMaxDepth,
          proto::kEnvRingKb, proto::kEnvChildren, proto::kEnvStats, proto::kEnvRings,
          proto::kEnvKernel, proto::kEnvSigemtStable, proto::kEnvCfiCache,
          proto::kEnvSeccompFilters, proto::kEnvStackCopies})
        unsetenv(v);
}

} // namespace cpcprof::agent
