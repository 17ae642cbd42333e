// SPDX-License-Identifier: MIT
// `cpcprof symbolize FILE [--debug-dir DIR]... [--kallsyms FILE]
//  [--debuginfod URL]... [--debuginfod-wait SECONDS]`
#include "base/args.h"
#include "base/clock.h"
#include "profiler/symbolize_profile/fetch_progress.h"
#include "profiler/symbolize_profile/symbolize_profile.h"
#include "symbolize/debuginfod.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

namespace cpcprof::symbolize_profile {
namespace {

const char kUsage[] = "usage: cpcprof symbolize FILE [--debug-dir DIR]... [--kallsyms FILE]\n"
                      "                         [--debuginfod URL]... [--debuginfod-wait SECONDS]\n"
                      "\n"
                      "Resolves the code addresses of a recorded profile to functions, inline\n"
                      "chains and file:line again, replacing what the file held (cpcprof record\n"
                      "does it when it ends; run this after installing debug symbols).  Prints\n"
                      "what it did on stderr.\n"
                      "\n"
                      "  --debug-dir DIR  also look for separate debug files in DIR (by build-id:\n"
                      "                   DIR/.build-id/xx/rest.debug, and by .gnu_debuglink),\n"
                      "                   before /usr/lib/debug; may be repeated\n"
                      "  --kallsyms FILE  name kernel frames from FILE, a copy of /proc/kallsyms\n"
                      "                   taken during the recording's boot (default\n"
                      "                   /proc/kallsyms)\n"
                      "  --debuginfod URL fetch the debug files this machine lacks from the\n"
                      "                   debuginfod server at URL (may be repeated; default: the\n"
                      "                   servers of DEBUGINFOD_URLS); files are cached where\n"
                      "                   libdebuginfod caches them (DEBUGINFOD_CACHE_PATH, else\n"
                      "                   ~/.cache/debuginfod_client)\n"
                      "  --debuginfod-wait SECONDS\n"
                      "                   ask the servers for at most this long in all (default\n"
                      "                   120, at most 3600; 0: do not ask them); what they have\n"
                      "                   not given by then is left without symbols, and Ctrl-C\n"
                      "                   skips the rest of the lookups the same way\n"
                      "\n"
                      "Exit status: 0 done, 1 the file was refused or could not be written,\n"
                      "2 usage error.\n";

constexpr uint64_t kDefaultWaitS = 120, kMaxWaitS = 3600;

int usage_error(const std::string &what) {
    return base::usage_error_then("cpcprof symbolize", what, kUsage);
}

std::atomic<bool> g_stop{false};

void on_interrupt(int) {
    g_stop.store(true, std::memory_order_relaxed);
}

// SIGINT stops the lookups instead of the process while the object lives.
class InterruptStopsLookups {
  public:
    InterruptStopsLookups() {
        struct sigaction sa {};
        sa.sa_handler = on_interrupt;
        sigemptyset(&sa.sa_mask);
        installed_ = sigaction(SIGINT, &sa, &old_) == 0;
    }
    ~InterruptStopsLookups() {
        if (installed_)
            sigaction(SIGINT, &old_, nullptr);
    }
    InterruptStopsLookups(const InterruptStopsLookups &) = delete;
    InterruptStopsLookups &operator=(const InterruptStopsLookups &) = delete;

  private:
    struct sigaction old_ {};
    bool installed_ = false;
};

} // namespace

int symbolize_main(const std::vector<std::string> &args) {
    Options options;
    std::vector<std::string> files;
    std::string servers;
    uint64_t wait_s = kDefaultWaitS;
    base::ArgWalk walk{
        .program = "cpcprof symbolize",
        .valued = {"--debug-dir", "--kallsyms", "--debuginfod", "--debuginfod-wait"},
        .value =
            [&](const std::string &option, const std::string &value) {
                if (option == "--kallsyms") {
                    options.kallsyms = value;
                    return true;
                }
                if (option == "--debuginfod") {
                    if (value.find_first_of(" \t\n") != std::string::npos || value.empty()) {
                        usage_error("--debuginfod takes one URL (repeat it for more servers)");
                        return false;
                    }
                    servers += (servers.empty() ? "" : " ") + value;
                    return true;
                }
                if (option == "--debuginfod-wait") {
                    char *end = nullptr;
                    errno = 0;
                    unsigned long long n = std::strtoull(value.c_str(), &end, 10);
                    if (value.empty() || value[0] == '-' || *end != '\0' || errno != 0 ||
                        n > kMaxWaitS) {
                        usage_error("--debuginfod-wait takes whole seconds from 0 to " +
                                    std::to_string(kMaxWaitS) + ", not '" + value + "'");
                        return false;
                    }
                    wait_s = n;
                    return true;
                }
                // libdwfl looks up build-ids under absolute directories only.
                std::error_code ec;
                std::filesystem::path absolute = std::filesystem::absolute(value, ec);
                options.debug_dirs.push_back(ec ? value : absolute.string());
                return true;
            },
        .operand =
            [&](const std::string &a) {
                files.push_back(a);
                return true;
            },
        .missing =
            [](const std::string &option) {
                usage_error(option == "--kallsyms"          ? "--kallsyms needs a file"
                            : option == "--debuginfod"      ? "--debuginfod needs a URL"
                            : option == "--debuginfod-wait" ? "--debuginfod-wait needs seconds"
                                                            : "--debug-dir needs a directory");
            },
        .unknown = [](const std::string &a) { usage_error("unknown option " + a); },
        .dash_is_option = true}; // not standard input: the file is rewritten in place
    if (int r = base::walk_args(walk, args); r <= 0) {
        if (r == 0)
            std::fputs(kUsage, stdout);
        return r == 0 ? 0 : 2;
    }
    if (files.size() != 1)
        return usage_error(files.empty() ? "no file given" : "one file at a time");
    // libdwfl would ask the servers by itself, without a bound: the client
    // below asks them instead.
    if (servers.empty())
        servers = symbolize::debuginfod_urls_from_environment();
    unsetenv("DEBUGINFOD_URLS");
    std::unique_ptr<symbolize::DebuginfodClient> client;
    std::unique_ptr<InterruptStopsLookups> interrupt;
    FetchProgressLines progress(servers, "up to " + std::to_string(wait_s) +
                                             " s in all, --debuginfod-wait; Ctrl-C skips the rest");
    if (!servers.empty() && wait_s > 0) {
        std::string why;
        client = symbolize::DebuginfodClient::open(servers, &why);
        if (!client) {
            std::fprintf(stderr, "cpcprof symbolize: debuginfod servers not asked: %s\n",
                         why.c_str());
        } else {
            client->set_deadline_ns(base::monotonic_ns() + int64_t(wait_s) * 1'000'000'000);
            g_stop.store(false);
            interrupt = std::make_unique<InterruptStopsLookups>();
            client->set_stop_flag(&g_stop);
            client->on_progress([&](const symbolize::FetchProgress &p) { progress(p); });
            options.debuginfod = client.get();
        }
    }
    std::string error;
    auto summary = symbolize_profile(files[0], options, &error);
    progress.end_line();
    interrupt.reset();
    if (!summary) {
        std::fprintf(stderr, "cpcprof symbolize: %s\n", error.c_str());
        return 1;
    }
    std::fprintf(stderr, "cpcprof: %s: %s\n", files[0].c_str(), describe(*summary).c_str());
    if (summary->fetch_timed_out || summary->fetch_stopped) {
        std::string what = summary->fetch_stopped
                               ? "the lookups were stopped (Ctrl-C)"
                               : "the servers (" + servers +
                                     ") did not give their debug files within " +
                                     std::to_string(wait_s) + " s (--debuginfod-wait)";
        std::fprintf(stderr,
                     "cpcprof: debuginfod: %s: the names from this machine's files are kept; "
                     "cpcprof symbolize %s asks again%s\n",
                     what.c_str(), files[0].c_str(),
                     summary->fetch_stopped ? "" : " (a larger --debuginfod-wait waits longer)");
    }
    return 0;
}

} // namespace cpcprof::symbolize_profile
