// SPDX-License-Identifier: MIT
#include "symbolize/debuginfod.h"

#include "base/clock.h"

#include <elfutils/debuginfod.h>

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

namespace cpcprof::symbolize {

constexpr char kUrlsVariable[] = "DEBUGINFOD_URLS";

// libdebuginfod's entry points, from the library loaded at first use.
struct DebuginfodClient::Library {
    decltype(&debuginfod_begin) begin = nullptr;
    decltype(&debuginfod_end) end = nullptr;
    decltype(&debuginfod_find_debuginfo) find_debuginfo = nullptr;
    decltype(&debuginfod_find_source) find_source = nullptr;
    decltype(&debuginfod_set_progressfn) set_progressfn = nullptr;
    decltype(&debuginfod_set_user_data) set_user_data = nullptr;
    decltype(&debuginfod_get_user_data) get_user_data = nullptr;
    decltype(&debuginfod_get_url) get_url = nullptr;
    std::string error; // why it is not loaded ("" when it is)
};

namespace {

template <typename F> bool resolve(void *handle, const char *name, F *out) {
    *out = reinterpret_cast<F>(dlsym(handle, name));
    return *out != nullptr;
}

// DEBUGINFOD_URLS set to the client's servers while a lookup runs, as it
// was after: libdebuginfod reads the variable at every lookup.
class ScopedUrls {
  public:
    explicit ScopedUrls(const std::string &urls) {
        const char *now = std::getenv(kUrlsVariable);
        if (now != nullptr && urls == now)
            return;
        if (now != nullptr)
            before_ = now;
        setenv(kUrlsVariable, urls.c_str(), 1);
        changed_ = true;
    }
    ~ScopedUrls() {
        if (!changed_)
            return;
        if (before_)
            setenv(kUrlsVariable, before_->c_str(), 1);
        else
            unsetenv(kUrlsVariable);
    }
    ScopedUrls(const ScopedUrls &) = delete;
    ScopedUrls &operator=(const ScopedUrls &) = delete;

  private:
    std::optional<std::string> before_;
    bool changed_ = false;
};

} // namespace

struct ProgressHook {
    static int call(debuginfod_client *c, long done, long total);
};

namespace {

const DebuginfodClient::Library *library_for(std::string *error) {
    static const DebuginfodClient::Library lib = [] {
        DebuginfodClient::Library l;
        void *h = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
        if (h == nullptr) {
            const char *why = dlerror();
            l.error = std::string("cannot load libdebuginfod.so.1 (Debian's package "
                                  "libdebuginfod1): ") +
                      (why != nullptr ? why : "unknown error");
            return l;
        }
        bool ok = resolve(h, "debuginfod_begin", &l.begin) &&
                  resolve(h, "debuginfod_end", &l.end) &&
                  resolve(h, "debuginfod_find_debuginfo", &l.find_debuginfo) &&
                  resolve(h, "debuginfod_find_source", &l.find_source) &&
                  resolve(h, "debuginfod_set_progressfn", &l.set_progressfn) &&
                  resolve(h, "debuginfod_set_user_data", &l.set_user_data) &&
                  resolve(h, "debuginfod_get_user_data", &l.get_user_data) &&
                  resolve(h, "debuginfod_get_url", &l.get_url);
        if (!ok)
            l.error = "libdebuginfod.so.1 lacks functions this program uses (elfutils "
                      "older than 0.179?)";
        // The handle stays open: the library is used until the process ends.
        return l;
    }();
    if (!lib.error.empty()) {
        *error = lib.error;
        return nullptr;
    }
    return &lib;
}

std::string errno_text(int rc) {
    switch (-rc) {
    case ENOENT:
        return "no server has it";
    case ENOSYS:
        return "no server to ask";
    case ETIMEDOUT:
        return "the server did not answer in time (DEBUGINFOD_TIMEOUT)";
    default:
        return std::strerror(-rc);
    }
}

// Where libdebuginfod caches (its own rule, elfutils 0.188).
std::string cache_dir() {
    if (const char *p = std::getenv("DEBUGINFOD_CACHE_PATH"); p != nullptr && *p)
        return p;
    const char *home = std::getenv("HOME");
    struct stat st {};
    if (home != nullptr && *home) {
        std::string legacy = std::string(home) + "/.debuginfod_client_cache";
        if (::stat(legacy.c_str(), &st) == 0)
            return legacy;
    }
    if (const char *x = std::getenv("XDG_CACHE_HOME"); x != nullptr && *x)
        return std::string(x) + "/debuginfod_client";
    return home != nullptr && *home ? std::string(home) + "/.cache/debuginfod_client" : "";
}

// A lookup given up through the progress callback leaves an empty file
// where the file would be (elfutils 0.188; later versions do not), which
// libdebuginfod takes for "no server has it" for the next 10 minutes
// (cache_miss_s): a later `cpcprof symbolize` or annotate would not ask
// again.  Removed: the lookup did not fail, it was not let finish.  name:
// the entry in the build-id's folder.
void forget_given_up(const std::string &build_id, const std::string &name) {
    const std::string dir = cache_dir();
    if (dir.empty() || build_id.find('/') != std::string::npos ||
        name.find('/') != std::string::npos)
        return;
    const std::string entry = dir + "/" + build_id + "/" + name;
    struct stat st {};
    if (::lstat(entry.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
        ::unlink(entry.c_str());
}

// A source's entry in the build-id's folder (elfutils 0.188): "source"
// and the path with '/' written "##" and '#' written "#_".
std::string source_entry(const std::string &path) {
    std::string name = "source";
    for (char c : path) {
        if (c == '/')
            name += "##";
        else if (c == '#')
            name += "#_";
        else
            name += c;
    }
    return name;
}

} // namespace

int ProgressHook::call(debuginfod_client *c, long done, long total) {
    std::string unused;
    const DebuginfodClient::Library *lib = library_for(&unused);
    auto *self = static_cast<DebuginfodClient *>(lib->get_user_data(c));
    return self != nullptr ? self->progress(done, total) : 0;
}

std::string debuginfod_urls_from_environment() {
    const char *value = std::getenv(kUrlsVariable);
    std::string urls = value != nullptr ? value : "";
    if (urls.find_first_not_of(" \t\n") == std::string::npos)
        return "";
    return urls;
}

std::string debuginfod_cached_debug_file(const std::string &build_id) {
    const std::string dir = cache_dir();
    if (dir.empty() || build_id.empty() || build_id.find('/') != std::string::npos)
        return "";
    const std::string entry = dir + "/" + build_id + "/debuginfo";
    struct stat st {};
    return ::stat(entry.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 ? entry : "";
}

std::string debuginfod_server_of(const std::string &url) {
    size_t at = url.find("/buildid/");
    return at == std::string::npos ? url : url.substr(0, at);
}

std::unique_ptr<DebuginfodClient> DebuginfodClient::open(const std::string &urls,
                                                         std::string *error) {
    if (urls.find_first_not_of(" \t\n") == std::string::npos) {
        *error = "no debuginfod server named";
        return nullptr;
    }
    const Library *lib = library_for(error);
    if (lib == nullptr)
        return nullptr;
    debuginfod_client *c = lib->begin();
    if (c == nullptr) {
        *error = "libdebuginfod could not make a client";
        return nullptr;
    }
    std::unique_ptr<DebuginfodClient> client(new DebuginfodClient(lib, c, urls));
    lib->set_user_data(c, client.get());
    lib->set_progressfn(c, &ProgressHook::call);
    return client;
}

DebuginfodClient::DebuginfodClient(const Library *lib, void *client, std::string urls)
    : lib_(lib), client_(client), urls_(std::move(urls)) {}

DebuginfodClient::~DebuginfodClient() {
    lib_->end(static_cast<debuginfod_client *>(client_));
}

int DebuginfodClient::progress(long done, long total) {
    const int64_t now = base::monotonic_ns();
    if (stop_ != nullptr && stop_->load(std::memory_order_relaxed)) {
        gave_up_stopped_ = true;
        return 1;
    }
    if (deadline_ns_ != 0 && now >= deadline_ns_) {
        gave_up_timed_out_ = true;
        return 1;
    }
    if (progress_) {
        FetchProgress p;
        p.what = what_;
        const char *url = lib_->get_url(static_cast<debuginfod_client *>(client_));
        p.server = url != nullptr ? debuginfod_server_of(url) : "";
        p.done = done;
        p.total = total;
        p.seconds = double(now - began_ns_) / 1e9;
        progress_(p);
    }
    return 0;
}

Fetched DebuginfodClient::run(const std::string &what, const std::function<int(char **)> &lookup) {
    Fetched f;
    const int64_t now = base::monotonic_ns();
    if (stop_ != nullptr && stop_->load(std::memory_order_relaxed)) {
        f.stopped = true;
        f.error = "not asked: stopped";
        return f;
    }
    if (deadline_ns_ != 0 && now >= deadline_ns_) {
        f.timed_out = true;
        f.error = "not asked: no time left";
        return f;
    }
    what_ = what;
    began_ns_ = now;
    gave_up_timed_out_ = gave_up_stopped_ = false;
    char *path = nullptr;
    int rc;
    {
        ScopedUrls urls(urls_);
        rc = lookup(&path);
    }
    const char *url = lib_->get_url(static_cast<debuginfod_client *>(client_));
    if (rc >= 0) {
        ::close(rc);
        f.path = path != nullptr ? path : "";
        f.server = url != nullptr ? debuginfod_server_of(url) : "";
    } else if (gave_up_stopped_) {
        f.stopped = true;
        f.error = "stopped";
    } else if (gave_up_timed_out_) {
        f.timed_out = true;
        f.error = "not answered in time";
    } else {
        f.error = errno_text(rc);
    }
    std::free(path);
    return f;
}

Fetched DebuginfodClient::find_debuginfo(const std::string &build_id, const std::string &what) {
    auto *c = static_cast<debuginfod_client *>(client_);
    Fetched f = run(what, [&](char **path) {
        return lib_->find_debuginfo(c, reinterpret_cast<const unsigned char *>(build_id.c_str()), 0,
                                    path);
    });
    if (f.timed_out || f.stopped)
        forget_given_up(build_id, "debuginfo");
    return f;
}

Fetched DebuginfodClient::find_source(const std::string &build_id, const std::string &path,
                                      const std::string &what) {
    auto *c = static_cast<debuginfod_client *>(client_);
    Fetched f = run(what, [&](char **out) {
        return lib_->find_source(c, reinterpret_cast<const unsigned char *>(build_id.c_str()), 0,
                                 path.c_str(), out);
    });
    if (f.timed_out || f.stopped)
        forget_given_up(build_id, source_entry(path));
    return f;
}

} // namespace cpcprof::symbolize
