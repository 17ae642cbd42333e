// SPDX-License-Identifier: MIT
#include "profiler/record/space_reserve.h"
#include "base/paths.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace cpcprof::record {

namespace {

std::string directory_of(const std::string &path) {
    return base::dir_name(path);
}

// An unnamed file in dir, or -1.
int unnamed_file(const std::string &dir) {
    int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
        return fd;
    std::string name = dir + "/.cpcprof-reserve." + std::to_string(getpid());
    fd = ::open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0)
        ::unlink(name.c_str());
    return fd;
}

} // namespace

bool SpaceReserve::hold(const std::string &path, size_t bytes) {
    release();
    int fd = unnamed_file(directory_of(path));
    if (fd < 0)
        return false;
    // posix_fallocate writes zeros where the file system cannot allocate
    // ahead: the blocks are taken either way.
    if (posix_fallocate(fd, 0, static_cast<off_t>(bytes)) != 0) {
        ::close(fd);
        return false;
    }
    fd_ = fd;
    return true;
}

void SpaceReserve::release() {
    if (fd_ >= 0)
        ::close(fd_);
    fd_ = -1;
}

} // namespace cpcprof::record
