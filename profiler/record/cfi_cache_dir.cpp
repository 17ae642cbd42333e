// SPDX-License-Identifier: MIT
#include "profiler/record/cfi_cache_dir.h"

#include "profiler/protocol/protocol.h"

#include "base/scoped_fd.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

namespace cpcprof::record {

namespace {

constexpr const char *kPrefix = "cpcprof-cfi-";
constexpr const char *kPruneStamp = ".pruned"; // its time: the last prune

// Removes dir and the files in it (the agents write no subdirectories).
void remove_dir(const std::string &dir) {
    if (DIR *d = opendir(dir.c_str())) {
        while (dirent *e = readdir(d)) {
            std::string name = e->d_name;
            if (name != "." && name != "..")
                unlink((dir + "/" + name).c_str());
        }
        closedir(d);
    }
    rmdir(dir.c_str());
}

// Directories left by recorders that were killed (cpcprof-cfi-PID-XXXXXX,
// PID gone, ours): removed before a new one is made.
void remove_stale(const std::string &base) {
    DIR *d = opendir(base.c_str());
    if (d == nullptr)
        return;
    std::vector<std::string> stale;
    while (dirent *e = readdir(d)) {
        std::string name = e->d_name;
        if (name.rfind(kPrefix, 0) != 0)
            continue;
        char *end = nullptr;
        long pid = std::strtol(name.c_str() + std::string(kPrefix).size(), &end, 10);
        if (pid <= 0 || end == nullptr || *end != '-')
            continue;
        struct stat st;
        std::string path = base + "/" + name;
        if (lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid())
            continue;
        if (kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
            stale.push_back(path);
    }
    closedir(d);
    for (const std::string &s : stale)
        remove_dir(s);
}

// A directory of ours that nobody else may write to: made (0700) if
// missing.
bool private_dir(const std::string &path) {
    if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
        return false;
    struct stat st;
    return lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid() &&
           (st.st_mode & 022) == 0;
}

// $XDG_CACHE_HOME/cpcprof/cfiN, else $HOME/.cache/cpcprof/cfiN; empty when
// it cannot be had.
std::string user_cache_dir() {
    const char *xdg = std::getenv("XDG_CACHE_HOME");
    const char *home = std::getenv("HOME");
    std::string base;
    if (xdg != nullptr && *xdg == '/')
        base = xdg;
    else if (home != nullptr && *home == '/')
        base = std::string(home) + "/.cache";
    else
        return {};
    // The cache home itself may be shared (0755 is common): it only has
    // to exist; the folders below are ours alone.
    if (mkdir(base.c_str(), 0700) != 0 && errno != EEXIST)
        return {};
    std::string ours = base + "/cpcprof";
    std::string tables = ours + "/" + proto::kCfiCacheFolder;
    if (!private_dir(ours) || !private_dir(tables))
        return {};
    return tables;
}

// The folders of other table formats beside dir.
void remove_other_formats(const std::string &dir) {
    std::string parent = dir.substr(0, dir.rfind('/'));
    std::string current = dir.substr(dir.rfind('/') + 1);
    DIR *d = opendir(parent.c_str());
    if (d == nullptr)
        return;
    std::vector<std::string> old;
    while (dirent *e = readdir(d)) {
        std::string name = e->d_name;
        if (name.size() > 3 && name.rfind("cfi", 0) == 0 && name != current &&
            name.find_first_not_of("0123456789", 3) == std::string::npos)
            old.push_back(parent + '/' += name);
    }
    closedir(d);
    for (const std::string &o : old)
        remove_dir(o);
}

} // namespace

void prune_cfi_cache(const std::string &dir, int64_t now_s) {
    struct Entry {
        std::string path;
        int64_t mtime;
        uint64_t bytes;
    };
    std::vector<Entry> kept;
    DIR *d = opendir(dir.c_str());
    if (d == nullptr)
        return;
    std::vector<std::string> gone;
    while (dirent *e = readdir(d)) {
        std::string name = e->d_name;
        if (name.empty() || name[0] == '.') // ".", "..", the stamp
            continue;
        std::string path = dir + '/';
        path += name;
        struct stat st;
        if (lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        int64_t age = now_s - int64_t(st.st_mtim.tv_sec);
        // An agent writes NAME.tmpPID and renames it when it is whole.
        bool partial = name.find(".tmp") != std::string::npos;
        if ((partial && age > 3600) || age > kCfiCacheMaxAgeSeconds)
            gone.push_back(path);
        else if (!partial)
            kept.push_back({path, int64_t(st.st_mtim.tv_sec), uint64_t(st.st_size)});
    }
    closedir(d);
    uint64_t total = 0;
    for (const Entry &e : kept)
        total += e.bytes;
    std::sort(kept.begin(), kept.end(),
              [](const Entry &a, const Entry &b) { return a.mtime < b.mtime; });
    for (size_t i = 0; i < kept.size() && total > kCfiCacheMaxBytes; ++i) {
        gone.push_back(kept[i].path);
        total -= kept[i].bytes;
    }
    for (const std::string &g : gone)
        unlink(g.c_str());
}

bool prune_cfi_cache_if_due(const std::string &dir, int64_t now_s) {
    std::string stamp = dir + "/" + kPruneStamp;
    struct stat st;
    if (stat(stamp.c_str(), &st) == 0) {
        int64_t since = now_s - int64_t(st.st_mtim.tv_sec);
        if (since >= 0 && since < kCfiCachePruneEverySeconds)
            return false;
    }
    prune_cfi_cache(dir, now_s);
    base::ScopedFd fd(open(stamp.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (fd.valid()) {
        timespec t[2] = {{now_s, 0}, {now_s, 0}};
        futimens(fd.get(), t);
    }
    return true;
}

CfiCacheDir::CfiCacheDir() {
    const char *tmp = std::getenv("TMPDIR");
    std::string base = tmp != nullptr && *tmp == '/' ? tmp : "/tmp";
    remove_stale(base);
    if (std::string user = user_cache_dir(); !user.empty()) {
        remove_other_formats(user);
        path_ = user;
        kept_ = true;
        return;
    }
    std::string pattern = base + "/" + kPrefix + std::to_string(getpid()) + "-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) != nullptr)
        path_ = buf.data();
}

void CfiCacheDir::prune_if_due() const {
    if (kept_)
        prune_cfi_cache_if_due(path_, int64_t(std::time(nullptr)));
}

CfiCacheDir::~CfiCacheDir() {
    if (!path_.empty() && !kept_)
        remove_dir(path_);
}

} // namespace cpcprof::record
