// SPDX-License-Identifier: MIT
#include "profiler/record/cfi_cache_dir.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

namespace cpcprof::record {

namespace {

constexpr const char *kPrefix = "cpcprof-cfi-";

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

} // namespace

CfiCacheDir::CfiCacheDir() {
    const char *tmp = std::getenv("TMPDIR");
    std::string base = tmp != nullptr && *tmp == '/' ? tmp : "/tmp";
    remove_stale(base);
    std::string pattern = base + "/" + kPrefix + std::to_string(getpid()) + "-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) != nullptr)
        path_ = buf.data();
}

CfiCacheDir::~CfiCacheDir() {
    if (!path_.empty())
        remove_dir(path_);
}

} // namespace cpcprof::record
