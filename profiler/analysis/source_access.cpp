// SPDX-License-Identifier: MIT
#include "profiler/analysis/source_access.h"

#include "base/paths.h"
#include "symbolize/debuginfod.h"
#include "symbolize/symbolizer.h"

#include "base/scoped_fd.h"
#include "profiler/analysis/source_lookup.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

namespace cpcprof::analysis {

namespace {

constexpr long kProcMagic = 0x9fa0;
constexpr long kSysfsMagic = 0x62656572;

bool has_dotdot(const std::string &path) {
    size_t at = 0;
    while (at <= path.size()) {
        size_t slash = path.find('/', at);
        if (slash == std::string::npos)
            slash = path.size();
        if (path.compare(at, slash - at, "..") == 0 && slash - at == 2)
            return true;
        at = slash + 1;
    }
    return false;
}

std::optional<std::string> real_path(const std::string &path) {
    char buf[PATH_MAX];
    if (::realpath(path.c_str(), buf) == nullptr)
        return std::nullopt;
    return std::string(buf);
}

// path is dir or lies below it (whole components).
bool under(const std::string &path, const std::string &dir) {
    if (dir == "/")
        return !path.empty() && path[0] == '/';
    return path.compare(0, dir.size(), dir) == 0 &&
           (path.size() == dir.size() || path[dir.size()] == '/');
}

std::string dir_of(const std::string &path) {
    return base::dir_name(path);
}

// What is wrong with an opened or stat'ed file ("" = nothing).
std::string type_problem(const struct stat &st) {
    if (S_ISREG(st.st_mode)) {
        if (uint64_t(st.st_size) > kMaxSourceBytes)
            return "larger than 16 MiB (" + std::to_string(st.st_size) + " bytes)";
        return "";
    }
    if (S_ISFIFO(st.st_mode))
        return "a FIFO, not a regular file";
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
        return "a device, not a regular file";
    if (S_ISDIR(st.st_mode))
        return "a directory, not a regular file";
    if (S_ISSOCK(st.st_mode))
        return "a socket, not a regular file";
    return "not a regular file";
}

std::string fs_problem(const struct statfs &fs) {
    if (long(fs.f_type) == kProcMagic || long(fs.f_type) == kSysfsMagic)
        return "in /proc or /sys, not a source file";
    return "";
}

} // namespace

bool parse_remap(const std::string &text, std::pair<std::string, std::string> *out,
                 std::string *error) {
    size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
        *error = "'" + text + "' is not OLD=NEW (a path prefix, '=', the directory it moved to)";
        return false;
    }
    *out = {text.substr(0, eq), text.substr(eq + 1)};
    while (out->first.size() > 1 && out->first.back() == '/')
        out->first.pop_back();
    while (out->second.size() > 1 && out->second.back() == '/')
        out->second.pop_back();
    return true;
}

std::string remap_path(const std::string &path, const SourceRoots &roots) {
    for (const auto &[from, to] : roots.remaps)
        if (under(path, from))
            return to + path.substr(from == "/" ? 0 : from.size());
    return path;
}

std::vector<std::string> source_roots_for(const std::string &path, const SourceRoots &roots) {
    std::vector<std::string> out = roots.dirs;
    for (const auto &r : roots.remaps)
        out.push_back(r.second);
    if (roots.profile_paths && !path.empty() && path[0] == '/' && !has_dotdot(path))
        out.push_back(dir_of(path));
    return out;
}

std::string source_refusal(const std::string &candidate, const std::vector<std::string> &roots) {
    if (has_dotdot(candidate))
        return "the path has a '..' component";
    std::optional<std::string> real = real_path(candidate);
    if (!real)
        return errno == ENOENT || errno == ENOTDIR ? "not found" : std::strerror(errno);
    bool inside = false, lexically = false;
    for (const std::string &root : roots) {
        std::optional<std::string> r = real_path(root);
        if (r && under(*real, *r))
            inside = true;
        if (under(candidate, root) || (r && under(candidate, *r)))
            lexically = true;
    }
    if (!inside)
        return lexically ? "a symlink leads outside the source roots (to " + *real + ")"
                         : "outside the source roots";
    struct stat st {};
    if (::stat(real->c_str(), &st) != 0)
        return std::strerror(errno);
    std::string why = type_problem(st);
    if (!why.empty())
        return why;
    struct statfs fs {};
    if (::statfs(real->c_str(), &fs) == 0)
        return fs_problem(fs);
    return "";
}

namespace {

// Reads an accepted candidate, checking again on the descriptor (the file
// may have been replaced since source_refusal looked at it).
std::string read_checked(const std::string &path, std::vector<std::string> *lines) {
    std::optional<std::string> real = real_path(path);
    if (!real)
        return std::strerror(errno);
    base::ScopedFd fd(
        ::open(real->c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC));
    if (!fd.valid())
        return std::strerror(errno);
    struct stat st {};
    struct statfs fs {};
    if (::fstat(fd.get(), &st) != 0 || ::fstatfs(fd.get(), &fs) != 0)
        return std::strerror(errno);
    std::string why = type_problem(st);
    if (why.empty())
        why = fs_problem(fs);
    if (!why.empty())
        return why;
    std::string text;
    char buf[65536];
    for (;;) {
        ssize_t n = ::read(fd.get(), buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return std::strerror(errno);
        if (n == 0)
            break;
        text.append(buf, size_t(n));
        if (text.size() > kMaxSourceBytes)
            return "larger than 16 MiB";
    }
    size_t at = 0;
    while (at < text.size()) {
        size_t nl = text.find('\n', at);
        if (nl == std::string::npos)
            nl = text.size();
        size_t end = nl > at && text[nl - 1] == '\r' ? nl - 1 : nl;
        lines->push_back(text.substr(at, end - at));
        at = nl + 1;
    }
    return "";
}

} // namespace

SourceFile open_source(const std::string &stored_path, const SourceRoots &roots) {
    SourceFile out;
    if (stored_path.empty()) {
        out.why_not = "the profile names no source file";
        return out;
    }
    std::vector<std::string> allowed = source_roots_for(stored_path, roots);
    std::string mapped = remap_path(stored_path, roots);
    std::vector<std::string> candidates = source_candidates(mapped, roots.dirs);
    if (mapped != stored_path)
        candidates.push_back(stored_path);
    for (const std::string &c : candidates) {
        std::string why = source_refusal(c, allowed);
        if (why.empty()) {
            std::vector<std::string> lines;
            why = read_checked(c, &lines);
            if (why.empty()) {
                out.path = c;
                out.lines = std::move(lines);
                out.why_not.clear();
                return out;
            }
        }
        if (!out.why_not.empty())
            out.why_not += "; ";
        out.why_not += c;
        out.why_not += ": ";
        out.why_not += why;
    }
    return out;
}

SourceFile open_source(const std::string &stored_path, const SourceRoots &roots,
                       symbolize::DebuginfodClient *client, const std::string &module,
                       std::string *from) {
    from->clear();
    SourceFile here = open_source(stored_path, roots);
    if (!here.path.empty() || client == nullptr || module.empty() || !stored_path.starts_with('/'))
        return here;
    const std::string build_id = symbolize::read_build_id(module);
    if (build_id.empty())
        return here;
    symbolize::Fetched f = client->find_source(
        build_id, stored_path,
        "the source file " + std::filesystem::path(stored_path).filename().string());
    if (f.path.empty()) {
        here.why_not += "; debuginfod servers: " + f.error;
        return here;
    }
    SourceFile got = open_source(f.path, SourceRoots{});
    if (got.path.empty()) {
        here.why_not += "; fetched from " + f.server + " to " + f.path + ", but " + got.why_not;
        return here;
    }
    *from = f.server;
    return got;
}

} // namespace cpcprof::analysis
