// SPDX-License-Identifier: MIT
// record's lookups of debug files on debuginfod servers, bounded in time.
//
// libdwfl asks the servers named in DEBUGINFOD_URLS for every module that
// has no debug information here, and libdebuginfod waits for each answer
// as long as its own timeouts allow (90 s a try, several tries a module):
// a server that accepts and never answers would hold the end of a
// recording for minutes.  So record symbolizes from this machine's files
// with the variable removed (take_debuginfod_urls), and then, when servers
// were named, runs `cpcprof symbolize FILE` with them in a child process
// that it waits for a bounded time (run_debuginfod_pass).  The child
// gives up its own lookups at that bound (symbolize/debuginfod.h) and
// stores what it has; its progress lines are passed on as they come.  If
// it does not end a few seconds later, it is killed: its transaction is
// rolled back, the file keeps the names from local files.  Either way
// `cpcprof symbolize FILE` can ask the servers again later.
#pragma once

#include <string>
#include <vector>

namespace cpcprof::record {

// DEBUGINFOD_URLS as this process was given it, removed from its
// environment so that this process's own libdwfl asks no server; "" when
// unset or blank.
std::string take_debuginfod_urls();

// The servers of urls (separated by spaces) that refused a connection or
// whose address is unreachable, each as "URL (reason)": asked once each,
// at most about a second in all, and only those whose host is a numeric
// address or localhost (a name would need a DNS lookup without a bound).
std::vector<std::string> refusing_servers(const std::string &urls);

struct DebuginfodPass {
    enum class Outcome { done, timed_out, interrupted, failed };
    Outcome outcome = Outcome::failed;
    std::string said;  // the child's stderr
    std::string error; // failed: why the child could not run or what it exited with
    double seconds = 0;
};

// Runs this program as `cpcprof symbolize profile --debuginfod-wait
// wait_s` with DEBUGINFOD_URLS = urls and waits for it at most wait_s
// seconds and a grace of 5 s; a Ctrl-C (SIGINT) ends the
// wait too.  Unless quiet, says after a second that it is waiting, for
// what and how long.  Not thread-safe (it handles SIGINT while it waits).
DebuginfodPass run_debuginfod_pass(const std::string &profile, const std::string &urls,
                                   double wait_s, bool quiet);

} // namespace cpcprof::record
