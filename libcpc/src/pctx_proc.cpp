// SPDX-License-Identifier: MIT
#include "libcpc/src/pctx_proc.h"

#include <dirent.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace pctx::proc {

namespace {

std::string path_of(pid_t pid, const char *file) {
    return "/proc/" + std::to_string(pid) + "/" + file;
}

std::string slurp(const std::string &path) {
    std::string out;
    FILE *f = std::fopen(path.c_str(), "re");
    if (f == nullptr)
        return out;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
        out.append(buf, n);
    std::fclose(f);
    return out;
}

template <typename T> void parse_ids(const char *text, T out[4]) {
    char *end = nullptr;
    for (int i = 0; i < 4; ++i) {
        out[i] = static_cast<T>(std::strtoul(text, &end, 10));
        text = end;
    }
}

} // namespace

Status status(pid_t tid) {
    Status s;
    FILE *f = std::fopen(path_of(tid, "status").c_str(), "re");
    if (f == nullptr)
        return s;
    char line[512];
    while (std::fgets(line, sizeof line, f) != nullptr) {
        char *colon = std::strchr(line, ':');
        if (colon == nullptr)
            continue;
        *colon = '\0';
        const char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            ++v;
        if (!std::strcmp(line, "State"))
            s.state = *v;
        else if (!std::strcmp(line, "Tgid"))
            s.tgid = std::atoi(v);
        else if (!std::strcmp(line, "PPid"))
            s.ppid = std::atoi(v);
        else if (!std::strcmp(line, "TracerPid"))
            s.tracer = std::atoi(v);
        else if (!std::strcmp(line, "Threads"))
            s.threads = std::atoi(v);
        else if (!std::strcmp(line, "Uid"))
            parse_ids(v, s.uid);
        else if (!std::strcmp(line, "Gid"))
            parse_ids(v, s.gid);
        else if (!std::strcmp(line, "Kthread"))
            s.kthread = std::atoi(v) != 0;
        else if (!std::strcmp(line, "CapEff"))
            s.cap_eff = std::strtoull(v, nullptr, 16);
    }
    std::fclose(f);
    s.ok = s.tgid != 0;
    return s;
}

std::vector<pid_t> tasks(pid_t pid) {
    std::vector<pid_t> out;
    DIR *d = opendir(path_of(pid, "task").c_str());
    if (d == nullptr)
        return out;
    while (dirent *e = readdir(d)) {
        if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
            out.push_back(std::atoi(e->d_name));
    }
    closedir(d);
    std::sort(out.begin(), out.end());
    return out;
}

std::string cmdline(pid_t pid) {
    std::string s = slurp(path_of(pid, "cmdline"));
    while (!s.empty() && s.back() == '\0')
        s.pop_back();
    std::replace(s.begin(), s.end(), '\0', ' ');
    return s;
}

long syscall_nr(pid_t tid) {
    std::string s = slurp(path_of(tid, "syscall"));
    if (s.empty() || !(s[0] >= '0' && s[0] <= '9'))
        return -1; // "running", "-1 ..." (no system call) or unreadable
    return std::strtol(s.c_str(), nullptr, 10);
}

} // namespace pctx::proc
