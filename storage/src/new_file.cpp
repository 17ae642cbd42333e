// SPDX-License-Identifier: MIT
#include "storage/src/new_file.h"
#include "base/paths.h"

#include <fcntl.h>
#include <stdio.h> // renameat2, RENAME_NOREPLACE (glibc >= 2.28)
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cpcprof::storage {
namespace {

std::string exists_message(const std::string &path) {
    return path + ": already exists; a profile is never overwritten";
}

} // namespace

std::string create_temporary_beside(const std::string &path, std::string *error) {
    std::string dir = base::dir_prefix(path);
    std::string base = base::base_name(path);
    for (int n = 0; n < 100; ++n) {
        std::string tmp =
            dir + "." + base + "." + std::to_string(getpid()) + "." + std::to_string(n) + ".tmp";
        int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            ::close(fd);
            return tmp;
        }
        if (errno != EEXIST) {
            *error = path + ": cannot create a file beside it: " + std::strerror(errno);
            return {};
        }
    }
    *error = path + ": cannot create a file beside it: too many leftover temporary files";
    return {};
}

bool publish_without_replacing(const std::string &tmp, const std::string &path,
                               std::string *error) {
    if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) == 0)
        return true;
    int e = errno;
    if (e == EINVAL || e == ENOSYS || e == ENOTSUP) { // the file system cannot; link can
        if (::link(tmp.c_str(), path.c_str()) == 0) {
            ::unlink(tmp.c_str());
            return true;
        }
        e = errno;
    }
    ::unlink(tmp.c_str());
    *error = e == EEXIST ? exists_message(path) : path + ": " + std::strerror(e);
    return false;
}

} // namespace cpcprof::storage
