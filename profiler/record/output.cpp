// SPDX-License-Identifier: MIT
#include "profiler/record/output.h"
#include "base/paths.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace cpcprof::record {

namespace {

const char *kind(mode_t m) {
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISFIFO(m))
        return "a FIFO (named pipe)";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a regular file";
}

// Absent, a regular file, or a symbolic link to one (or to nothing: the
// rename moves the link, never what it points to).
bool replaceable(const std::string &name, std::string *error) {
    struct stat st;
    if (lstat(name.c_str(), &st) != 0)
        return true;
    if (S_ISREG(st.st_mode))
        return true;
    if (S_ISLNK(st.st_mode)) {
        struct stat to;
        if (stat(name.c_str(), &to) != 0 || S_ISREG(to.st_mode))
            return true;
        char target[4096];
        ssize_t n = readlink(name.c_str(), target, sizeof target - 1);
        std::string where = n > 0 ? " (" + std::string(target, size_t(n)) + ")" : "";
        *error = name + " is a symbolic link to " + kind(to.st_mode) + where;
        return false;
    }
    *error = name + " is " + kind(st.st_mode);
    return false;
}

std::string directory_of(const std::string &path) {
    return base::dir_name(path);
}

} // namespace

bool check_output_kind(const std::string &path, std::string *error) {
    if (path.empty()) {
        *error = "-o needs a file name";
        return false;
    }
    std::string why;
    for (const std::string &name :
         {path, path + "-wal", path + "-shm", path + ".old", path + ".old-wal", path + ".old-shm"})
        if (!replaceable(name, &why)) {
            *error = "-o " + path + ": " + why +
                     "; a recording replaces only regular files (and keeps the old one as " + path +
                     ".old)";
            return false;
        }
    if (!path.empty() && path.back() == '/') {
        *error = "-o " + path + ": a file name is needed, not a directory";
        return false;
    }
    return true;
}

bool check_output_writable(const std::string &path, std::string *error) {
    std::string dir = directory_of(path);
    std::string probe = dir + "/.cpcprof-probe." + std::to_string(getpid());
    int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        *error = "cannot create " + path + ": " + std::strerror(errno);
        return false;
    }
    ::close(fd);
    ::unlink(probe.c_str());
    struct stat st;
    if (lstat(path.c_str(), &st) == 0)
        return true; // its WAL files go along with it
    for (const char *suffix : {"-wal", "-shm"})
        if (lstat((path + suffix).c_str(), &st) == 0) {
            *error = path + suffix + " exists without " + path +
                     " (left by a recording that was killed?); move it away together with "
                     "its profile";
            return false;
        }
    return true;
}

OldProfile::OldProfile(std::string path) : path_(std::move(path)) {
    aside_ = base::dir_prefix(path_) + "." + base::base_name(path_) + ".aside." +
             std::to_string(getpid());
}

namespace {

// Renames from (and its -wal and -shm, where they exist) to to.
bool move_with_wal(const std::string &from, const std::string &to, std::string *error) {
    if (rename(from.c_str(), to.c_str()) != 0) {
        *error = "cannot rename " + from + " to " + to + ": " + std::strerror(errno);
        return false;
    }
    // A recording that was killed keeps its last batches in the WAL: it
    // goes along with its file.
    for (const char *suffix : {"-wal", "-shm"}) {
        std::string f = from + suffix, t = to + suffix;
        if (rename(f.c_str(), t.c_str()) != 0 && errno != ENOENT) {
            *error = "cannot rename " + f + " to " + t + ": " + std::strerror(errno);
            return false;
        }
    }
    return true;
}

} // namespace

bool OldProfile::set_aside(std::string *error) {
    if (!check_output_kind(path_, error))
        return false;
    struct stat st;
    if (lstat(path_.c_str(), &st) != 0)
        return true;
    if (!move_with_wal(path_, aside_, error)) {
        restore();
        return false;
    }
    moved_ = true;
    return true;
}

bool OldProfile::keep(std::string *error) {
    if (!moved_)
        return true;
    moved_ = false;
    // The WAL files of the NAME.old being replaced would be read as the
    // new one's (check_output_kind has seen they are regular files).
    for (const char *suffix : {"-wal", "-shm"})
        ::unlink((path_ + ".old" + suffix).c_str());
    return move_with_wal(aside_, path_ + ".old", error);
}

void OldProfile::restore() {
    std::string ignored;
    if (access(path_.c_str(), F_OK) != 0)
        move_with_wal(aside_, path_, &ignored);
    moved_ = false;
}

} // namespace cpcprof::record
