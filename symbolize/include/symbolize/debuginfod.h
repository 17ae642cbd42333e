// SPDX-License-Identifier: MIT
// Debug files and sources from debuginfod servers, fetched with a bound in
// time, progress and a way to stop.
//
// libdwfl asks the servers of DEBUGINFOD_URLS by itself, and waits as
// long as libdebuginfod's own timeouts allow (90 s a try, several tries a
// lookup), silently.  Callers that must not wait so (every cpcprof
// command) clear the variable for libdwfl and fetch through this client
// instead: libdebuginfod itself (loaded when first needed, so that a
// program that never fetches never loads it and its HTTP stack), with its
// progress callback, which it calls at least once a second while a lookup
// runs, used to report bytes and to give up at the deadline.  Files land
// where libdebuginfod caches them (DEBUGINFOD_CACHE_PATH, else
// $XDG_CACHE_HOME/debuginfod_client, else ~/.cache/debuginfod_client), and
// a later lookup of the same file is answered from there.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

namespace cpcprof::symbolize {

// DEBUGINFOD_URLS as this process has it; "" when unset or blank.
std::string debuginfod_urls_from_environment();

// The server part of a URL libdebuginfod fetches from
// ("http://host:8002/buildid/ab.../debuginfo" -> "http://host:8002").
std::string debuginfod_server_of(const std::string &url);

// The debug file of build_id in libdebuginfod's cache, fetched earlier
// (by record or symbolize); "" when it holds none.  No server is asked.
std::string debuginfod_cached_debug_file(const std::string &build_id);

struct FetchProgress {
    std::string what;   // "the debug file of libz.so.1"
    std::string server; // the server answering, "" before one does
    long done = 0;      // bytes received so far
    long total = 0;     // the file's size when the server said it, else 0
    double seconds = 0; // since the lookup began
};

struct Fetched {
    std::string path;   // the file in the cache; "" when not fetched
    std::string server; // who gave it
    std::string error;  // why not: "no server has it", "not answered within 5 s", ...
    bool timed_out = false, stopped = false;
};

// libdebuginfod takes its servers from DEBUGINFOD_URLS at every lookup: a
// client whose urls differ from the variable sets it for the lookup and
// puts it back after, which is safe only where no other thread reads the
// environment then (a command's main thread).  A client for the
// variable's own servers never touches it (the viewer's jobs).  One
// client per thread.
class DebuginfodClient {
  public:
    // A client for the servers in urls (separated by spaces); nullptr with
    // *error when urls is blank or libdebuginfod cannot be loaded.
    static std::unique_ptr<DebuginfodClient> open(const std::string &urls, std::string *error);
    ~DebuginfodClient();
    DebuginfodClient(const DebuginfodClient &) = delete;
    DebuginfodClient &operator=(const DebuginfodClient &) = delete;

    const std::string &urls() const { return urls_; }

    // Every lookup ends by this CLOCK_MONOTONIC instant (ns; 0 = none): one
    // still running then is given up (a bound for a whole command).
    void set_deadline_ns(int64_t deadline) { deadline_ns_ = deadline; }
    // A lookup running when *stop becomes true is given up, and later ones
    // are not made (a Ctrl-C handler sets it).
    void set_stop_flag(const std::atomic<bool> *stop) { stop_ = stop; }
    // Called at least once a second while a lookup runs, on the calling
    // thread.
    void on_progress(std::function<void(const FetchProgress &)> f) { progress_ = std::move(f); }

    // The separate debug file of build_id (lowercase hex); what names it
    // in progress ("the debug file of libz.so.1").
    Fetched find_debuginfo(const std::string &build_id, const std::string &what);
    // The source file that the debug information of build_id names as
    // path (absolute, as the line table has it).
    Fetched find_source(const std::string &build_id, const std::string &path,
                        const std::string &what);

    struct Library; // libdebuginfod's entry points (debuginfod.cpp)

  private:
    DebuginfodClient(const Library *lib, void *client, std::string urls);
    Fetched run(const std::string &what, const std::function<int(char **)> &lookup);
    friend struct ProgressHook;
    int progress(long done, long total); // nonzero: give up

    const Library *lib_;
    void *client_;
    std::string urls_;
    int64_t deadline_ns_ = 0;
    const std::atomic<bool> *stop_ = nullptr;
    std::function<void(const FetchProgress &)> progress_;
    // The lookup running now.
    std::string what_;
    int64_t began_ns_ = 0;
    bool gave_up_timed_out_ = false, gave_up_stopped_ = false;
};

} // namespace cpcprof::symbolize
